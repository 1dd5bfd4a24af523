"""The consumer fetches a partition ahead of the records it is handing out: against a real broker,
with small fetches (many buffers), records arrive in order without gaps or repeats whether the
loop awaits between records (answers fetched ahead land while a buffer is handed out) or not,
and a seek in the middle drops what was fetched ahead."""

from __future__ import annotations

import asyncio

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

RECORDS = 3000
FETCH_BYTES = 4096  # max.partition.fetch.bytes: about 25 records a fetch


async def _topic_with_records(bootstrap: str, topic: str) -> TopicPartition:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    async with Producer(bootstrap_servers=bootstrap, acks=1, linger_ms=2) as producer:
        for i in range(RECORDS):
            await producer.send(topic, b"%06d" % i + b"." * 90)
        await producer.flush()
    return TopicPartition(topic, 0)


def _consumer(bootstrap: str) -> Consumer:
    return Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                    max_partition_fetch_bytes=FETCH_BYTES)


async def test_records_arrive_in_order_whether_the_loop_awaits_or_not(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    tp = await _topic_with_records(bootstrap, "fetch-ahead-order")
    for awaits in (False, True):
        offsets: list[int] = []
        most_ahead = 0
        async with _consumer(bootstrap) as consumer:
            consumer.assign([tp])
            async with asyncio.timeout(60):
                async for record in consumer:
                    offsets.append(record.offset)
                    assert record.value.startswith(b"%06d" % record.offset)
                    if awaits:
                        await asyncio.sleep(0.0005)  # the fetch ahead is answered while records are handed out
                        most_ahead = max(most_ahead, consumer._fetcher.fetched_ahead(tp))
                    if len(offsets) == RECORDS:
                        break
        assert offsets == list(range(RECORDS)), f"awaits={awaits}"
        if awaits:
            assert most_ahead > 0, "no answer was ever fetched ahead of the buffered records"


async def test_a_seek_while_records_are_fetched_ahead_restarts_from_the_seek(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    tp = await _topic_with_records(bootstrap, "fetch-ahead-seek")
    async with _consumer(bootstrap) as consumer:
        consumer.assign([tp])
        seen: list[int] = []
        async with asyncio.timeout(60):
            async for record in consumer:
                seen.append(record.offset)
                await asyncio.sleep(0.0005)
                if consumer._fetcher.fetched_ahead(tp) > 0 and record.offset < 1000:
                    break
        assert seen == list(range(len(seen))) and consumer._fetcher.fetched_ahead(tp) > 0
        consumer.seek(tp, 100)
        assert consumer._fetcher.fetched_ahead(tp) == 0
        after: list[int] = []
        async with asyncio.timeout(60):
            async for record in consumer:
                after.append(record.offset)
                if len(after) == 500:
                    break
        assert after == list(range(100, 600))
