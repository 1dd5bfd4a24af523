"""On real brokers: a controller request that reaches a broker while the active controller is
gone is forwarded to the new one (KIP-590), never answered NOT_CONTROLLER.

The active controller of a 3-voter quorum is killed (-9); at once, CreatePartitions and
CreateTopics go straight to each surviving broker (one connection per broker, no client-side
controller discovery or retry, as a Kafka client sending to its least loaded broker).  While
the quorum elects a new leader the survivors' controller channels meet a dead voter and a
standby controller; they try again until the new controller takes the request, and every
answer is NONE.  Kafka concept: ``ForwardingManager`` over ``NodeToControllerChannelManager``,
which re-discovers the controller within its retry timeout.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.client.local_cluster import fetch_metadata
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsTopic
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.errors import Errors
from tests.cluster_helpers import wait_for_partitions

pytestmark = pytest.mark.timeout(180)

FAST = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "auto.leader.rebalance.enable": False,
}


@pytest.fixture
def cluster(tmp_path):
    started = LocalCluster(num_brokers=3, data_dir=tmp_path, broker_configs=FAST).start()
    try:
        yield started
    finally:
        started.stop()


async def _send_to(cluster: LocalCluster, broker_id: int, request):
    connection = BrokerConnection(
        "127.0.0.1", cluster.ports[broker_id], client_id="forwarding-test", request_timeout_ms=60_000
    )
    await connection.connect(timeout_ms=5000)
    try:
        return await connection.send(request, timeout_ms=60_000)
    finally:
        await connection.close()


async def test_admin_requests_reach_the_new_controller_after_the_active_one_is_killed(cluster):
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(f"grow-{b}", num_partitions=1, replication_factor=2) for b in (1, 2, 3)]
        )
    for b in (1, 2, 3):
        await wait_for_partitions(
            bootstrap, f"grow-{b}", lambda ps: len(ps) == 1 and ps[0].leader >= 0, "a leader"
        )
    old_controller = fetch_metadata(cluster.ports[1]).controller_id
    assert old_controller in (1, 2, 3)
    survivors = [b for b in (1, 2, 3) if b != old_controller]

    cluster.stop_broker(old_controller, hard=True)
    answers = await asyncio.gather(
        *(
            _send_to(
                cluster,
                b,
                CreatePartitionsRequest(
                    topics=[CreatePartitionsTopic(name=f"grow-{b}", count=3, assignments=None)],
                    timeout_ms=30_000,
                ),
            )
            for b in survivors
        ),
        *(
            _send_to(
                cluster,
                b,
                CreateTopicsRequest(
                    topics=[CreatableTopic(name=f"born-at-{b}", num_partitions=2, replication_factor=2)],
                    timeout_ms=30_000,
                ),
            )
            for b in survivors
        ),
    )
    codes = [(r.name, Errors(r.error_code).name) for answer in answers[:2] for r in answer.results]
    codes += [(t.name, Errors(t.error_code).name) for answer in answers[2:] for t in answer.topics]
    assert codes == [(f"grow-{b}", "NONE") for b in survivors] + [(f"born-at-{b}", "NONE") for b in survivors]
    live = ",".join(f"127.0.0.1:{cluster.ports[b]}" for b in survivors)
    for b in survivors:
        await wait_for_partitions(live, f"grow-{b}", lambda ps: len(ps) == 3, "3 partitions")
        await wait_for_partitions(live, f"born-at-{b}", lambda ps: len(ps) == 2, "2 partitions")
