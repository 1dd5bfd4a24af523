"""flush.messages on a topic: as Kafka's UnifiedLog.append flushes before it returns once
flush.messages is reached, an acknowledgement comes only after the leader's (and, with acks=all,
the followers') segment was fsynced; a topic left at the default is acknowledged without an
fsync.  Real brokers whose fsync waits 0.5 s and writes a witness of each file it made durable
(an LD_PRELOAD library built with gcc, tests/chaos/slow_disk.py; needs gcc or root to install it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer
from tests.chaos.slow_disk import SlowDisks, build_library

pytestmark = pytest.mark.timeout(180)

DELAY_MS = 500


def _synced_segments(witnesses: dict[int, Path], topic: str) -> dict[int, int]:
    """``{node: fsyncs of topic-0's segment files so far}``."""
    counts = {}
    for node, path in witnesses.items():
        lines = path.read_text().splitlines() if path.exists() else []
        counts[node] = sum(1 for line in lines if f"/{topic}-0/" in line and line.endswith(".log"))
    return counts


async def test_an_acknowledgement_waits_for_the_fsync_once_flush_messages_is_reached(tmp_path):
    library, problem = build_library(tmp_path / "lib")
    if library is None:
        pytest.fail(f"this test needs the slow-fsync library: {problem}")
    cluster = LocalCluster(num_brokers=2, data_dir=tmp_path / "cluster")
    disks = SlowDisks(tmp_path / "delays", cluster.broker_ids, library)
    witnesses = {node: tmp_path / f"fsynced-{node}" for node in cluster.broker_ids}
    cluster.node_env.update({node: disks.env(node, witnesses[node]) for node in cluster.broker_ids})
    with cluster:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            await admin.create_topics([NewTopic("durable", 1, 2, configs={"flush.messages": "1"}),
                                       NewTopic("lazy", 1, 2)])
        for node in cluster.broker_ids:
            disks.slow(node, DELAY_MS)
        async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks=1, linger_ms=0) as producer:
            await (await producer.send("durable", b"first"))
            synced = _synced_segments(witnesses, "durable")
            await (await producer.send("lazy", b"first"))
            assert sum(_synced_segments(witnesses, "lazy").values()) == 0
        leader_synced = max(synced.values())
        assert leader_synced >= 1, f"acks=1 came back before the leader's fsync: {synced}"
        async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all", linger_ms=0) as producer:
            await (await producer.send("durable", b"second"))
            synced_all = _synced_segments(witnesses, "durable")
        assert all(count >= 1 for count in synced_all.values()), \
            f"acks=all came back before every replica's fsync: {synced_all}"
        assert sum(synced_all.values()) > sum(synced.values())
