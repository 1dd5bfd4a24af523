"""Kill -9 a leader under acks=all load, then bring it back.

Invariants checked: every acknowledged record is consumed exactly once; the killed
broker's partitions get new leaders and a shrunk ISR; after the restart the broker
truncates, catches up and rejoins the ISR; the three replicas of every partition
then hold byte-identical batches.  A consumer in the middle of a partition follows
its leader change without user action.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition
from kafkette.protocol.record_batch import iter_batches
from tests.cluster_helpers import consume_from_beginning, describe_partitions, wait_for_partitions

TOPIC = "failover"
PARTITIONS = 6
RECORDS = 20000


async def _consume_all(bootstrap: str, expected: int) -> list:
    records = await consume_from_beginning(
        bootstrap, [TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout_s=60
    )
    assert len(records) >= expected
    return records


def _replica_bytes(cluster, broker_id: int, partition: int) -> bytes:
    log_dir = Path(cluster.data_dir) / f"broker-{broker_id}" / "logs" / f"{TOPIC}-{partition}"
    return b"".join(p.read_bytes() for p in sorted(log_dir.glob("*.log")))


async def test_kill_leader_under_load_then_restart_it(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    TOPIC,
                    num_partitions=PARTITIONS,
                    replication_factor=3,
                    configs={"min.insync.replicas": "2"},
                )
            ]
        )
    before = await describe_partitions(bootstrap, TOPIC)
    controller_id = 1
    victim = next(p.leader for p in before if p.leader != controller_id)
    victim_partitions = {p.partition for p in before if p.leader == victim}

    acked: dict[bytes, object] = {}
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=5,
        request_timeout_ms=5000,
        delivery_timeout_ms=60000,
    ) as producer:
        futures = []
        for i in range(RECORDS):
            value = f"record-{i}".encode()
            futures.append((value, await producer.send(TOPIC, value, key=str(i).encode())))
            if i == RECORDS // 3:
                await asyncio.sleep(0.2)
                cluster.stop_broker(victim, hard=True)
            if i % 500 == 0:
                await asyncio.sleep(0)
        results = await asyncio.gather(*(f for _, f in futures), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    assert not failures, f"{len(failures)} sends failed, first: {failures[0]!r}"
    for (value, _), meta in zip(futures, results, strict=True):
        acked[value] = meta

    after = await wait_for_partitions(
        bootstrap,
        TOPIC,
        lambda parts: all(p.leader not in (victim, -1) and victim not in p.isr for p in parts),
        "new leaders and shrunk ISRs",
        timeout_s=30,
    )
    for p in after:
        if p.partition in victim_partitions:
            assert p.leader != victim and p.leader in p.replicas
        assert victim not in p.isr and len(p.isr) == 2

    records = await _consume_all(bootstrap, len(acked))
    values = [r.value for r in records]
    assert len(values) == len(set(values)), "a record was consumed twice"
    missing = set(acked) - set(values)
    assert not missing, f"{len(missing)} acknowledged records lost"

    # Test 4: restart the victim; it truncates, catches up and rejoins every ISR.
    cluster.start_broker(victim)
    await wait_for_partitions(
        bootstrap,
        TOPIC,
        lambda parts: all(sorted(p.isr) == sorted(p.replicas) for p in parts),
        "the restarted broker to rejoin every ISR",
        timeout_s=60,
    )
    cluster.stop()
    for partition in range(PARTITIONS):
        copies = {b: _replica_bytes(cluster, b, partition) for b in cluster.broker_ids}
        reference = copies[victim]
        assert reference, f"partition {partition} is empty on broker {victim}"
        for broker_id, data in copies.items():
            assert data == reference, (
                f"partition {partition}: broker {broker_id} differs from broker {victim}"
            )
        count = sum(h.records_count for _, h in iter_batches(reference, verify_crc=True))
        assert count == sum(1 for r in records if r.partition == partition)


async def test_a_consumer_keeps_consuming_across_a_leader_change(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    topic, tp = "followed", TopicPartition("followed", 0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, replica_assignment={0: [2, 3, 1]})])

    async def produce(tag: str) -> list[bytes]:
        values = [f"{tag}-{i}".encode() for i in range(50)]
        async with Producer(bootstrap_servers=bootstrap, acks="all", delivery_timeout_ms=30000) as producer:
            for value in values:
                await producer.send_and_wait(topic, value, partition=0)
        return values

    async def take(consumer: Consumer, count: int) -> list[bytes]:
        got: list[bytes] = []
        async with asyncio.timeout(30):
            while len(got) < count:
                got += [r.value for r in (await consumer.getmany(timeout_ms=500)).get(tp, [])]
        return got

    before = await produce("before")
    async with Consumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", request_timeout_ms=5000
    ) as consumer:
        consumer.assign([tp])
        assert await take(consumer, len(before)) == before
        cluster.stop_broker(2, hard=True)  # the leader
        after = await produce("after")  # acknowledged by the new leader
        assert await take(consumer, len(after)) == after  # the same consumer, no user action
    assert (await describe_partitions(bootstrap, topic))[0].leader in (3, 1)
