"""Snapshots of the metadata log on real processes (KIP-630).

Three voters with ``metadata.log.max.record.bytes.between.snapshots`` small enough that
creating topics makes every voter write snapshots and drop the log before them.  A follower is
killed while the others move their log start past its log end, so that on its return it cannot
catch up from the log: it loads the leader's snapshot with FetchSnapshot, then the log after
it.  The active controller is then killed until that node leads (each kill is followed by a
restart and a catch-up), and as the active controller it knows every topic with its
assignment and creates new ones.  Finally all three nodes restart at once and every topic comes
back from snapshot and log.
"""

from __future__ import annotations

import pytest

from kafkette.client import AdminClient, NewTopic
from kafkette.common.topic_names import METADATA_TOPIC_PARTITION_DIR
from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.raft.file_replicated_log import FileReplicatedLog
from kafkette.controller.raft.raft_wire import RaftWire
from tests.cluster_helpers import wait_for_quorum_leader, wait_until

RAFT_WIRE = RaftWire(METADATA_RECORD_SERDE)

pytestmark = pytest.mark.timeout(300)

SNAPSHOT_BYTES = 4096
MAX_KILLS = 12


def _log_start(cluster, node: int) -> int:
    """The base offset of ``node``'s metadata log segment (its log start offset)."""
    directory = cluster.broker_dir(node) / "logs" / METADATA_TOPIC_PARTITION_DIR
    return max(int(p.name[:20]) for p in directory.glob("*.log"))


def _log_end(cluster, node: int) -> int:
    """The end offset of a stopped ``node``'s metadata log."""
    log = FileReplicatedLog(
        cluster.broker_dir(node) / "logs" / METADATA_TOPIC_PARTITION_DIR,
        RAFT_WIRE.encode_payload,
        RAFT_WIRE.decode_payload,
    )
    try:
        return log.end_offset()
    finally:
        log.close()


async def _create(admin: AdminClient, names: list[str]) -> None:
    for name in names:
        await admin.create_topics([NewTopic(name, replica_assignment=[[1, 2], [2, 3], [3, 1]])])


async def _caught_up(admin: AdminClient, node: int) -> None:
    async def check() -> bool:
        quorum = await admin.describe_metadata_quorum(timeout_ms=2000)
        return {v.replica_id: v.log_end_offset for v in quorum.voters}.get(node, -1) >= quorum.high_watermark

    await wait_until(check, f"node {node} caught up with the metadata log", timeout_s=60)


async def _assignments(admin: AdminClient) -> dict[str, list[list[int]]]:
    names = await admin.list_topics()
    return {
        name: [p.replicas for p in t.partitions] for name, t in (await admin.describe_topics(names)).items()
    }


async def test_a_voter_behind_the_snapshots_loads_one_and_leads_with_the_whole_state(cluster_factory):
    cluster = cluster_factory(3, metadata_log_max_record_bytes_between_snapshots=SNAPSHOT_BYTES)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        await _create(admin, [f"early-{n}" for n in range(15)])
        leader, _ = await wait_for_quorum_leader(admin)
        behind = next(b for b in cluster.broker_ids if b != leader)
        await wait_until(
            lambda: all(_log_start(cluster, b) > 0 for b in cluster.broker_ids), "a snapshot on every voter"
        )

        cluster.stop_broker(behind, hard=True)
        left_at = _log_end(cluster, behind)
        n = 0
        while min(_log_start(cluster, b) for b in cluster.broker_ids if b != behind) <= left_at:
            await _create(admin, [f"later-{n}-{i}" for i in range(5)])
            n += 1
            assert n < 40, "the other voters never moved their log start past the stopped one's end"
        expected = await _assignments(admin)

        cluster.start_broker(behind)
        await _caught_up(admin, behind)
        assert _log_start(cluster, behind) > left_at, "the returning voter did not load a snapshot"

        for _ in range(MAX_KILLS):
            leader, _ = await wait_for_quorum_leader(admin)
            if leader == behind:
                break
            cluster.stop_broker(leader, hard=True)
            await wait_for_quorum_leader(admin, leader)
            cluster.start_broker(leader)
            await _caught_up(admin, leader)
        assert leader == behind, f"node {behind} never became the active controller in {MAX_KILLS} kills"

        assert await _assignments(admin) == expected
        await _create(admin, ["led-by-the-returned-voter"])
        expected["led-by-the-returned-voter"] = [[1, 2], [2, 3], [3, 1]]
        assert await _assignments(admin) == expected

    cluster.stop()
    cluster.start()
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        await wait_for_quorum_leader(admin)
        assert await _assignments(admin) == expected
