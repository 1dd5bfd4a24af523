"""An illegal state transition is an error in the state-change log, never applied.

On a real controller process: a metadata log that creates partition ``t-0`` twice (as
a bad copy or a bug could leave it) would move an OnlinePartition back to
NewPartition.  The restarted voter must refuse the replay: it logs the illegal transition
at ERROR on ``state.change.logger`` (naming the partition and both states), which also
writes ``state-change.log``, and stops with an error (a fatal fault) instead of running
with that state.
"""

from __future__ import annotations

import pytest

from kafkette.client import AdminClient, LocalClusterError, NewTopic
from kafkette.controller.metadata_records import PartitionRecord
from tests.cluster_helpers import append_to_metadata_log

pytestmark = pytest.mark.timeout(120)


async def test_replaying_a_record_with_an_illegal_transition_is_logged_and_refused(cluster_factory):
    cluster = cluster_factory(1)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("t", 1, 1)])
    cluster.stop_broker(1, hard=True)
    append_to_metadata_log(
        cluster, 1, [PartitionRecord("t", 0, replicas=[1], isr=[1], leader=1)]
    )  # t-0 is online

    with pytest.raises(LocalClusterError, match="exited"):
        cluster.start_broker(1)
    errors = [
        line
        for line in cluster.log_path(1).read_text().splitlines()
        if "ERROR" in line and "state.change.logger" in line
    ]
    assert any(
        "Illegal state transition for partition t-0 from OnlinePartition to NewPartition" in line
        for line in errors
    ), errors
    state_change_log = (cluster.broker_dir(1) / "state-change.log").read_text()
    assert (
        "Illegal state transition for partition t-0 from OnlinePartition to NewPartition" in state_change_log
    )
