"""A broker whose wall clock jumps (the chaos harness's clock-offset LD_PRELOAD library, its
monotonic clock untouched) keeps serving: LogAppendTime stamps follow the jumped clock and come
back with it, offsets stay in order and nothing is lost.  A real Kafkette broker process, and
Apache Kafka 4.3.1's JVM under the same library (the control run of the chaos harness's clock
scenario depends on it biting there too).  Needs gcc (installed with apt-get as root when
missing); the Kafka case needs Java and Maven (tests/peers/kafka_peer.py)."""

from __future__ import annotations

import asyncio
import time

import confluent_kafka
import confluent_kafka.admin
import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from tests.chaos.clock import NodeClocks, build_library
from tests.cluster_helpers import consume_from_beginning
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(300)

JUMP_S = 600
PHASES = [("before", None), ("ahead", JUMP_S), ("behind", -JUMP_S), ("after", None)]


def _clocks(tmp_path, node_ids: list[int]) -> NodeClocks:
    library, problem = build_library(tmp_path / "lib")
    if library is None:
        pytest.fail(f"this test needs the clock-offset library: {problem}")
    return NodeClocks(tmp_path / "clocks", node_ids, library)


def _turn(clocks: NodeClocks, offset: int | None) -> None:
    if offset is None:
        clocks.reset(1)
    else:
        clocks.jump(1, offset)


def _assert_stamps_follow_the_clock(values: list[str], timestamps: list[int]) -> None:
    """``values`` in offset order are ``<phase>-<i>``, five a phase; each phase's stamps sit
    where the node's clock was (within two minutes, far less than the jump)."""
    assert values == [f"{label}-{i}" for label, _ in PHASES for i in range(5)]
    now_ms = time.time() * 1000
    by_phase = {
        label: [ts for v, ts in zip(values, timestamps, strict=True) if v.startswith(label)]
        for label, _ in PHASES
    }
    assert all(abs(now_ms - ts) < 120_000 for ts in by_phase["before"] + by_phase["after"])
    assert all(ts - now_ms > (JUMP_S - 120) * 1000 for ts in by_phase["ahead"])
    assert all(now_ms - ts > (JUMP_S - 120) * 1000 for ts in by_phase["behind"])


async def test_log_append_times_follow_a_jumping_wall_clock_and_nothing_is_lost(tmp_path):
    cluster = LocalCluster(num_brokers=1, data_dir=tmp_path / "cluster")
    clocks = _clocks(tmp_path, cluster.broker_ids)
    cluster.node_env[1] = clocks.env(1)
    with cluster:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            await admin.create_topics(
                [NewTopic("ticks", 1, 1, configs={"message.timestamp.type": "LogAppendTime"})]
            )
        async with Producer(bootstrap_servers=cluster.bootstrap_servers, linger_ms=0) as producer:
            for label, offset in PHASES:
                _turn(clocks, offset)
                await asyncio.sleep(1.0)  # batches already sent leave under the old clock
                for i in range(5):
                    await (await producer.send("ticks", f"{label}-{i}".encode()))
        records = await consume_from_beginning(cluster.bootstrap_servers, [TopicPartition("ticks", 0)], 20)
    assert [r.offset for r in records] == list(range(20))
    _assert_stamps_follow_the_clock([r.value.decode() for r in records], [r.timestamp for r in records])


def test_apache_kafkas_log_append_times_follow_the_same_jumping_wall_clock(tmp_path):
    peer = KafkaPeer(tmp_path / "kafka", nodes=1, heap_mb=384)
    clocks = _clocks(tmp_path, peer.node_ids)
    peer.node_env[1] = clocks.env(1)
    start_or_fail(peer)
    try:
        admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": peer.bootstrap_servers})
        admin.create_topics(
            [
                confluent_kafka.admin.NewTopic(
                    "ticks", 1, 1, config={"message.timestamp.type": "LogAppendTime"}
                )
            ]
        )["ticks"].result(60)
        producer = confluent_kafka.Producer({"bootstrap.servers": peer.bootstrap_servers, "linger.ms": 0})
        for label, offset in PHASES:
            _turn(clocks, offset)
            time.sleep(0.5)
            for i in range(5):
                producer.produce("ticks", f"{label}-{i}".encode())
                assert producer.flush(30) == 0
        consumer = confluent_kafka.Consumer(
            {
                "bootstrap.servers": peer.bootstrap_servers,
                "group.id": "clock-check",
                "enable.auto.commit": False,
            }
        )
        consumer.assign([confluent_kafka.TopicPartition("ticks", 0, 0)])
        records = []
        deadline = time.monotonic() + 60
        while len(records) < 20 and time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is not None and message.error() is None:
                records.append(message)
        consumer.close()
    finally:
        peer.stop()
    assert [m.offset() for m in records] == list(range(20))
    _assert_stamps_follow_the_clock(
        [m.value().decode() for m in records], [m.timestamp()[1] for m in records]
    )
