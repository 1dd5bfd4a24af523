"""DelayedFetch (``min_bytes``/``max_wait_ms``) and the high watermark bound,
seen through raw Fetch and ListOffsets requests to the partition leader.

(a) a fetch parked at the log end is completed by newly produced data, long before
its ``max_wait_ms``; (b) a fetch whose ``min_bytes`` cannot be reached answers with
the data it has once ``max_wait_ms`` passes; (c) a consumer fetch never returns a
record above the high watermark, while a follower (replica_id >= 0) sees the log end.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchResponse, FetchTopic
from kafkette.protocol.apis.list_offsets import (
    LATEST_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsResponse,
    ListOffsetsTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import decode_records, iter_batches
from tests.cluster_configs import QUICK_STOP

pytestmark = pytest.mark.timeout(120)

HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def delayed_fetch_cluster(tmp_path_factory: pytest.TempPathFactory):
    """3 brokers shared by the DelayedFetch tests of this module (distinct topics)."""
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("delayed-fetch"),
        broker_configs={"controlled.shutdown.retry.backoff.ms": 100},
    ) as cluster:
        yield cluster


async def _create(bootstrap: str, topic: NewTopic) -> int:
    """Create ``topic`` and return the leader id of its partition 0."""
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([topic])
        info = (await admin.describe_topics([topic.name]))[topic.name].partitions[0]
    assert info.leader >= 0
    return info.leader


def _fetch_request(
    topic: str, fetch_offset: int, *, max_wait_ms: int, min_bytes: int, replica_id: int = -1
) -> FetchRequest:
    return FetchRequest(
        replica_id=replica_id,
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        isolation_level=0,
        max_bytes=52_428_800,
        topics=[
            FetchTopic(
                topic=topic,
                partitions=[
                    FetchPartition(partition=0, fetch_offset=fetch_offset, partition_max_bytes=1_048_576)
                ],
            )
        ],
    )


def _partition_data(response: FetchResponse):
    assert response.error_code == Errors.NONE
    [topic] = response.responses
    [part] = topic.partitions
    return part


def _values_from(records: bytes | None, fetch_offset: int) -> list[tuple[int, bytes]]:
    """(offset, value) of every whole record at or after ``fetch_offset``."""
    if not records:
        return []
    out = []
    for pos, header in iter_batches(records, verify_crc=True):
        out.extend(
            (r.offset, r.value) for r in decode_records(records, pos, header) if r.offset >= fetch_offset
        )
    return out


async def _latest_offset(conn: BrokerConnection, topic: str, replica_id: int) -> int:
    response: ListOffsetsResponse = await conn.send(
        ListOffsetsRequest(
            replica_id=replica_id,
            isolation_level=0,
            topics=[
                ListOffsetsTopic(
                    name=topic,
                    partitions=[ListOffsetsPartition(partition_index=0, timestamp=LATEST_TIMESTAMP)],
                )
            ],
        )
    )
    [part] = response.topics[0].partitions
    assert part.error_code == Errors.NONE, Errors(part.error_code).name
    return part.offset


async def test_fetch_waiting_at_the_log_end_is_completed_by_new_data(delayed_fetch_cluster):
    bootstrap = delayed_fetch_cluster.bootstrap_servers
    topic = "delayed-new-data"
    leader = await _create(bootstrap, NewTopic(topic, num_partitions=1, replication_factor=3))
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        assert (await producer.send_and_wait(topic, b"first")).offset == 0
        async with BrokerConnection(
            HOST, delayed_fetch_cluster.ports[leader], request_timeout_ms=20000
        ) as conn:
            loop = asyncio.get_running_loop()
            started = loop.time()
            fetch = asyncio.ensure_future(conn.send(_fetch_request(topic, 1, max_wait_ms=10000, min_bytes=1)))
            try:
                # Nothing to read at offset 1: the broker parks the fetch instead of answering.
                done, _ = await asyncio.wait({fetch}, timeout=0.5)
                assert not done, "a fetch at the log end with min_bytes=1 was answered before any new data"
                assert (await producer.send_and_wait(topic, b"second")).offset == 1
                response = await asyncio.wait_for(fetch, 15)
            finally:
                fetch.cancel()
            elapsed_s = loop.time() - started
    part = _partition_data(response)
    assert part.error_code == Errors.NONE
    assert _values_from(part.records, 1) == [(1, b"second")]
    assert part.high_watermark == 2
    assert elapsed_s < 8, f"the parked fetch took {elapsed_s:.1f} s: it was not completed by the new data"


async def test_fetch_that_cannot_reach_min_bytes_returns_the_available_data_after_max_wait(
    delayed_fetch_cluster,
):
    bootstrap = delayed_fetch_cluster.bootstrap_servers
    topic = "delayed-min-bytes"
    leader = await _create(bootstrap, NewTopic(topic, num_partitions=1, replication_factor=3))
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(3):
            await producer.send_and_wait(topic, f"small-{i}".encode())
    async with BrokerConnection(HOST, delayed_fetch_cluster.ports[leader], request_timeout_ms=20000) as conn:
        loop = asyncio.get_running_loop()
        started = loop.time()
        response = await conn.send(_fetch_request(topic, 0, max_wait_ms=300, min_bytes=10_000_000))
        elapsed_s = loop.time() - started
    part = _partition_data(response)
    assert part.error_code == Errors.NONE
    assert _values_from(part.records, 0) == [(0, b"small-0"), (1, b"small-1"), (2, b"small-2")]
    # It waited for more data (max_wait_ms) rather than answering at once, and did not hang.
    assert 0.2 <= elapsed_s < 8, f"answered after {elapsed_s:.2f} s; expected about max_wait_ms=300 ms"


async def test_consumer_fetch_never_returns_records_above_the_high_watermark(cluster_factory):
    # A dead follower stays in the ISR (long lag and session timeouts), so the high
    # watermark cannot pass what it had replicated.
    cluster = cluster_factory(2, replica_lag_time_max_ms=30000, broker_session_timeout_ms=30000, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    topic = "above-high-watermark"
    leader = await _create(bootstrap, NewTopic(topic, replica_assignment={0: [1, 2]}))
    assert leader == 1
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        assert (await producer.send_and_wait(topic, b"committed")).offset == 0
    cluster.stop_broker(2, hard=True)
    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        assert (await producer.send_and_wait(topic, b"uncommitted")).offset == 1

    async with BrokerConnection(HOST, cluster.ports[leader], request_timeout_ms=20000) as conn:
        response = await conn.send(_fetch_request(topic, 0, max_wait_ms=300, min_bytes=1))
        part = _partition_data(response)
        assert part.error_code == Errors.NONE
        assert _values_from(part.records, 0) == [(0, b"committed")]
        assert part.high_watermark == 1
        # A consumer at the high watermark gets nothing (and no error) after the wait.
        at_hw = _partition_data(await conn.send(_fetch_request(topic, 1, max_wait_ms=300, min_bytes=1)))
        assert at_hw.error_code == Errors.NONE
        assert _values_from(at_hw.records, 1) == []
        assert await _latest_offset(conn, topic, replica_id=-1) == 1
        log_end_offset = await _latest_offset(conn, topic, replica_id=2)
        assert part.high_watermark < log_end_offset == 2

    # The SDK consumer sees the same: only the committed record.
    tp = TopicPartition(topic, 0)
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        seen: list[bytes] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 1.5
        while loop.time() < deadline:
            for records in (await consumer.getmany(timeout_ms=300)).values():
                seen.extend(r.value for r in records)
    assert seen == [b"committed"]

    # A follower fetch (replica_id = the other replica) reads to the log end offset.
    async with BrokerConnection(HOST, cluster.ports[leader], request_timeout_ms=20000) as conn:
        follower = _partition_data(
            await conn.send(_fetch_request(topic, 1, max_wait_ms=300, min_bytes=1, replica_id=2))
        )
    assert follower.error_code == Errors.NONE
    assert _values_from(follower.records, 1) == [(1, b"uncommitted")]
