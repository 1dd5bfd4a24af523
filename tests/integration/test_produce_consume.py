"""Issue 2, test 2: produce with keys, values and headers; consume it all back."""

from __future__ import annotations

import asyncio

from client import AdminClient, Consumer, NewTopic, Producer, TopicPartition


async def _consume_all(bootstrap: str, tps: list[TopicPartition], expected: int, timeout_s: float = 60):
    records = {tp: [] for tp in tps}
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        deadline = asyncio.get_running_loop().time() + timeout_s
        while sum(len(v) for v in records.values()) < expected:
            assert asyncio.get_running_loop().time() < deadline, "timed out consuming"
            batch = await consumer.getmany(timeout_ms=500)
            for tp, recs in batch.items():
                records[tp].extend(recs)
    return records


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
