"""Produce with keys, values and headers; consume it all back.  Also the SDK's
shapes: RecordMetadata with the given timestamps, seek, seek_to_end, position, async for; and
acks=all replicated through two replica fetchers per broker (``num.replica.fetchers``)."""

from __future__ import annotations

import asyncio

from kafkette.client import (
    AdminClient,
    Consumer,
    ConsumerRecord,
    NewTopic,
    Producer,
    RecordMetadata,
    TopicPartition,
)
from tests.cluster_helpers import consume_from_beginning


async def _consume_all(bootstrap: str, tps: list[TopicPartition], expected: int):
    records = await consume_from_beginning(bootstrap, tps, expected, timeout_s=60)
    return {tp: [r for r in records if TopicPartition(r.topic, r.partition) == tp] for tp in tps}


async def test_records_round_trip_with_order_and_contiguous_offsets(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("roundtrip", num_partitions=3, replication_factor=3)])
    sent = []
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=2) as producer:
        futures = []
        for i in range(3000):
            key = f"key-{i % 17}".encode()
            value = f"value-{i}".encode() * (1 + i % 5)
            headers = [("seq", str(i).encode()), ("empty", None)] if i % 3 else None
            futures.append(await producer.send("roundtrip", value, key=key, headers=headers))
            sent.append((key, value, headers or []))
        metas = await asyncio.gather(*futures)
    tps = [TopicPartition("roundtrip", p) for p in range(3)]
    got = await _consume_all(bootstrap, tps, len(sent))
    assert sum(len(v) for v in got.values()) == len(sent)
    by_offset = {(m.partition, m.offset): s for m, s in zip(metas, sent, strict=True)}
    for tp, recs in got.items():
        assert [r.offset for r in recs] == list(range(len(recs))), "offsets must be contiguous from 0"
        for r in recs:
            key, value, headers = by_offset[(tp.partition, r.offset)]
            assert (r.key, r.value, list(r.headers)) == (key, value, headers)
    # Per-partition order is send order, and a key always maps to one partition.
    send_index = {(m.partition, m.offset): i for i, m in enumerate(metas)}
    key_partitions: dict[bytes, set[int]] = {}
    for tp, recs in got.items():
        indexes = [send_index[(tp.partition, r.offset)] for r in recs]
        assert indexes == sorted(indexes)
        for r in recs:
            key_partitions.setdefault(r.key, set()).add(tp.partition)
    assert all(len(parts) == 1 for parts in key_partitions.values())


async def test_acks_1_and_acks_0_are_delivered(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("acks", num_partitions=1, replication_factor=3)])
    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        meta = await producer.send_and_wait("acks", b"one")
        assert meta.offset == 0
    async with Producer(bootstrap_servers=bootstrap, acks=0) as producer:
        await producer.send_and_wait("acks", b"zero")
        await producer.flush()
    got = await _consume_all(bootstrap, [TopicPartition("acks", 0)], 2)
    assert [r.value for r in got[TopicPartition("acks", 0)]] == [b"one", b"zero"]


async def test_record_metadata_timestamps_seek_position_and_async_iteration(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    tp = TopicPartition("positions", 0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("positions", num_partitions=1, replication_factor=3)])
    base_ms = 1_700_000_000_000
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        metas = [
            await producer.send_and_wait("positions", f"v{i}".encode(), timestamp_ms=base_ms + i)
            for i in range(10)
        ]
    assert all(isinstance(m, RecordMetadata) for m in metas)
    assert [tuple(m) for m in metas] == [("positions", 0, i, base_ms + i) for i in range(10)]

    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        await consumer.seek_to_end(tp)
        assert await consumer.position(tp) == 10
        consumer.seek(tp, 4)
        assert await consumer.position(tp) == 4
        first = (await consumer.getmany(timeout_ms=5000, max_records=3))[tp]
        assert [r.offset for r in first] == [4, 5, 6]
        assert await consumer.position(tp) == 7
        iterated: list[ConsumerRecord] = []
        async with asyncio.timeout(30):
            async for record in consumer:
                iterated.append(record)
                if record.offset == 9:
                    break
        assert [(r.topic, r.partition, r.offset, r.timestamp, r.value) for r in iterated] == [
            ("positions", 0, i, base_ms + i, f"v{i}".encode()) for i in (7, 8, 9)
        ]
        await consumer.seek_to_beginning(tp)
        assert await consumer.position(tp) == 0


async def test_acks_all_replicates_through_two_replica_fetchers_per_broker(cluster_factory):
    cluster = cluster_factory(3, num_replica_fetchers=2, replica_fetch_max_bytes=4096)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    "fetchers", num_partitions=6, replication_factor=3, configs={"min.insync.replicas": "3"}
                )
            ]
        )
    async with Producer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=2, delivery_timeout_ms=30000
    ) as producer:
        futures = [
            await producer.send("fetchers", f"v{i}".encode() * 40, key=str(i).encode()) for i in range(600)
        ]
        metas = await asyncio.gather(*futures)  # min.insync.replicas=3: every follower fetched every batch
    tps = [TopicPartition("fetchers", p) for p in range(6)]
    got = await _consume_all(bootstrap, tps, len(metas))
    assert sorted(r.value for recs in got.values() for r in recs) == sorted(
        f"v{i}".encode() * 40 for i in range(600)
    )
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        partitions = (await admin.describe_topics(["fetchers"]))["fetchers"].partitions
    assert all(sorted(p.isr) == [1, 2, 3] for p in partitions)
