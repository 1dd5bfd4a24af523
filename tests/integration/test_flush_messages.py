"""flush.messages on a topic: as Kafka's UnifiedLog.append flushes before it returns once
flush.messages is reached, an acknowledgement comes only after the leader's (and, with acks=all,
the followers') segment was fsynced; a topic left at the default is acknowledged without an
fsync.  Real brokers whose fsync waits 0.5 s and writes a witness of each file it made durable
(an LD_PRELOAD library built with gcc, tests/chaos/slow_disk.py; needs gcc or root to install it).
Apache Kafka 4.3.1's JVM under the same library waits for it the same way (the control run of
the chaos harness's slow-disk scenario depends on it biting there too; needs Java and Maven)."""

from __future__ import annotations

import time
from pathlib import Path

import confluent_kafka
import confluent_kafka.admin
import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer
from tests.chaos.slow_disk import SlowDisks, build_library
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

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
            await admin.create_topics(
                [NewTopic("durable", 1, 2, configs={"flush.messages": "1"}), NewTopic("lazy", 1, 2)]
            )
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
        assert all(count >= 1 for count in synced_all.values()), (
            f"acks=all came back before every replica's fsync: {synced_all}"
        )
        assert sum(synced_all.values()) > sum(synced.values())


def test_apache_kafkas_acknowledgement_waits_for_the_same_slow_fsync(tmp_path):
    library, problem = build_library(tmp_path / "lib")
    if library is None:
        pytest.fail(f"this test needs the slow-fsync library: {problem}")
    peer = KafkaPeer(tmp_path / "kafka", nodes=1, heap_mb=384)
    disks = SlowDisks(tmp_path / "delays", peer.node_ids, library)
    witness = tmp_path / "fsynced-1"
    peer.node_env[1] = disks.env(1, witness)
    start_or_fail(peer)
    try:
        admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": peer.bootstrap_servers})
        admin.create_topics(
            [confluent_kafka.admin.NewTopic("durable", 1, 1, config={"flush.messages": "1"})]
        )["durable"].result(60)
        producer = confluent_kafka.Producer(
            {"bootstrap.servers": peer.bootstrap_servers, "acks": 1, "linger.ms": 0}
        )
        errors: list[object] = []
        producer.produce("durable", b"warm-up", on_delivery=lambda error, message: errors.append(error))
        assert producer.flush(60) == 0
        disks.slow(1, DELAY_MS)
        started = time.monotonic()
        producer.produce("durable", b"slow", on_delivery=lambda error, message: errors.append(error))
        assert producer.flush(60) == 0
        waited_s = time.monotonic() - started
        disks.restore(1)
    finally:
        peer.stop()
    assert errors == [None, None]
    assert waited_s >= DELAY_MS / 1000, f"Kafka acknowledged in {waited_s:.3f} s, before its slowed fsync"
    assert _synced_segments({1: witness}, "durable")[1] >= 2, (
        "Kafka's fsyncs of the segment went around the library"
    )
