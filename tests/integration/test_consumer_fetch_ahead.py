"""The consumer fetches a partition ahead of the records it is handing out: against a real broker,
with small fetches (many buffers), records arrive in order without gaps or repeats whether the
loop awaits between records (answers fetched ahead land while a buffer is handed out) or not,
and a seek in the middle drops what was fetched ahead."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

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


@contextlib.asynccontextmanager
async def _reading(bootstrap: str, tp: TopicPartition) -> AsyncIterator[Consumer]:
    """A consumer of ``tp`` from its start, with small fetches (many buffers)."""
    async with Consumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", max_partition_fetch_bytes=FETCH_BYTES
    ) as consumer:
        consumer.assign([tp])
        yield consumer


async def test_records_arrive_in_order_whether_the_loop_awaits_or_not(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    tp = await _topic_with_records(bootstrap, "fetch-ahead-order")
    for awaits in (False, True):
        offsets: list[int] = []
        most_ahead = 0
        async with _reading(bootstrap, tp) as consumer, asyncio.timeout(60):
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
    async with _reading(bootstrap, tp) as consumer:
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


async def test_a_timeout_at_any_await_of_getmany_or_async_for_loses_no_record(shared_cluster):
    # asyncio.timeout(0) cancels at the first await that suspends: records taken before it and not
    # handed out would be lost (their position already moved past them).
    bootstrap = shared_cluster.bootstrap_servers
    tp = await _topic_with_records(bootstrap, "fetch-ahead-cancel")
    async with _reading(bootstrap, tp) as consumer:
        got: list[int] = []
        timeouts = 0
        async with asyncio.timeout(60):
            while len(got) < RECORDS // 2:
                try:
                    async with asyncio.timeout(0):
                        batches = await consumer.getmany(timeout_ms=5000, max_records=50)
                except TimeoutError:
                    timeouts += 1
                    await asyncio.sleep(0)
                    continue
                got.extend(record.offset for records in batches.values() for record in records)
            while len(got) < RECORDS:
                try:
                    async with asyncio.timeout(0):
                        async for record in consumer:
                            got.append(record.offset)
                            if len(got) == RECORDS:
                                break
                except TimeoutError:
                    timeouts += 1
                    await asyncio.sleep(0)
        assert got == list(range(RECORDS))
        assert timeouts > 0, "no await was ever interrupted: the test did not test anything"
