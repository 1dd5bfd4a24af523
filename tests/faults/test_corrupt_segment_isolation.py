"""A corrupt byte in the middle of an old segment takes only that partition offline.

The broker is stopped cleanly, one byte is flipped inside a batch in the middle of
the oldest segment of one partition (not a torn tail: later segments exist and the
data was fsynced), and the broker is restarted.  A clean restart does not rescan old
segments, so the corruption is found by the first read that meets it (the CRC32C
check of batches served): from then on that partition answers KAFKA_STORAGE_ERROR
to fetch, produce and ListOffsets on this broker, the error is logged with the file
and position, and another partition of the same broker keeps serving produce and
consume.  The log dir holding the offline log gets no clean-shutdown marker.

The second test kills the broker with -9 instead, with flushing off (the default, so
the recovery point stays at 0): the start-up scan meets the corrupt batch in a
segment that has later segments, which is not a torn tail, so it truncates nothing
and the partition is offline before anything reads it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.client.producer.sender import PRODUCE_BY_NAME_VERSION
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_batch
from tests.cluster_helpers import consume_from_beginning, corrupt_oldest_segment, partition_dir

pytestmark = pytest.mark.timeout(180)

HOST = "127.0.0.1"
SEGMENT_BYTES = 4096
RECORDS = 300
OFFLINE_CODES = {
    "fetch": Errors.KAFKA_STORAGE_ERROR,
    "list_offsets": Errors.KAFKA_STORAGE_ERROR,
    "produce": Errors.KAFKA_STORAGE_ERROR,
}


async def _codes(conn: BrokerConnection, topic: str) -> dict[str, int]:
    fetch = await conn.send(
        FetchRequest(
            replica_id=-1,
            max_wait_ms=0,
            min_bytes=1,
            isolation_level=0,
            topics=[
                FetchTopic(
                    topic=topic,
                    partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1_048_576)],
                )
            ],
        )
    )
    listed = await conn.send(
        ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[
                ListOffsetsTopic(
                    name=topic,
                    partitions=[ListOffsetsPartition(partition_index=0, timestamp=EARLIEST_TIMESTAMP)],
                )
            ],
        )
    )
    produced = await conn.send(
        ProduceRequest(
            acks=1,
            timeout_ms=5000,
            topic_data=[
                ProduceTopicData(
                    name=topic,
                    partition_data=[
                        ProducePartitionData(index=0, records=build_batch([(None, b"x", None, 0)]))
                    ],
                )
            ],
        ),
        api_version=PRODUCE_BY_NAME_VERSION,
    )
    return {
        "fetch": fetch.responses[0].partitions[0].error_code,
        "list_offsets": listed.topics[0].partitions[0].error_code,
        "produce": produced.responses[0].partition_responses[0].error_code,
    }


async def _produce(bootstrap: str, topic: str, tag: str, count: int) -> list[bytes]:
    values = [f"{tag}-{i:05d}".encode() * 4 for i in range(count)]
    async with Producer(bootstrap_servers=bootstrap, acks=1, linger_ms=1) as producer:
        for start in range(0, count, 10):  # small batches, so that segments roll
            await asyncio.gather(
                *[await producer.send(topic, v, partition=0) for v in values[start : start + 10]]
            )
    return values


async def _consume(bootstrap: str, topic: str, count: int) -> list[bytes]:
    return [r.value for r in await consume_from_beginning(bootstrap, [TopicPartition(topic, 0)], count)]


def _logged_offline(cluster, segment: Path, position: int) -> bool:
    """True when broker 1 logged an ERROR taking the log offline that names ``segment`` and ``position``."""
    broker_log = cluster.log_path(1).read_text(errors="replace")
    return any(
        "ERROR" in line and "offline" in line and str(segment) in line and f"position {position}" in line
        for line in broker_log.splitlines()
    )


async def _create_damaged_and_healthy(bootstrap: str) -> list[bytes]:
    """Create ``damaged`` and ``healthy`` (small segments) and fill both; returns healthy's values."""
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(t, 1, 1, configs={"segment.bytes": str(SEGMENT_BYTES)}) for t in ("damaged", "healthy")]
        )
    await _produce(bootstrap, "damaged", "d", RECORDS)
    return await _produce(bootstrap, "healthy", "h", RECORDS)


async def test_corrupt_byte_in_an_old_segment_isolates_only_that_partition(cluster_factory):
    cluster = cluster_factory(1)
    bootstrap = cluster.bootstrap_servers
    healthy = await _create_damaged_and_healthy(bootstrap)

    cluster.stop_broker(1, hard=False)
    segments, position = corrupt_oldest_segment(partition_dir(cluster, 1, TopicPartition("damaged", 0)))
    oldest = segments[0]
    size = oldest.stat().st_size

    cluster.start_broker(1)
    async with BrokerConnection(HOST, cluster.ports[1], request_timeout_ms=20000) as conn:
        assert await _codes(conn, "damaged") == OFFLINE_CODES
        assert await _codes(conn, "healthy") == {
            "fetch": Errors.NONE,
            "list_offsets": Errors.NONE,
            "produce": Errors.NONE,
        }
    healthy.append(b"x")  # the raw produce above
    healthy += await _produce(bootstrap, "healthy", "after", 50)
    assert await _consume(bootstrap, "healthy", len(healthy)) == healthy
    assert _logged_offline(cluster, oldest, position), "no ERROR line naming the file and position"
    assert oldest.stat().st_size == size, "the corrupt segment was modified"

    cluster.stop_broker(1, hard=False)
    assert not (Path(cluster.data_dir) / "broker-1" / "logs" / ".kafka_cleanshutdown").exists(), (
        "a log dir holding an offline log got the clean-shutdown marker"
    )


async def test_corruption_found_by_the_start_up_scan_after_kill_9_isolates_only_that_partition(
    cluster_factory,
):
    cluster = cluster_factory(1)  # flushing off (Kafka's default): the recovery point stays at 0
    bootstrap = cluster.bootstrap_servers
    healthy = await _create_damaged_and_healthy(bootstrap)
    cluster.stop_broker(1, hard=True)
    segments, position = corrupt_oldest_segment(
        partition_dir(cluster, 1, TopicPartition("damaged", 0)), batch_index=2
    )
    sizes = {p: p.stat().st_size for p in segments}

    cluster.start_broker(1)
    async with BrokerConnection(HOST, cluster.ports[1], request_timeout_ms=20000) as conn:
        listed = await conn.send(
            ListOffsetsRequest(
                replica_id=-1,
                isolation_level=0,
                topics=[
                    ListOffsetsTopic(
                        name="damaged",
                        partitions=[ListOffsetsPartition(partition_index=0, timestamp=EARLIEST_TIMESTAMP)],
                    )
                ],
            )
        )
        # Offline before anything read the data: the start-up scan found it.
        assert listed.topics[0].partitions[0].error_code == Errors.KAFKA_STORAGE_ERROR
        assert await _codes(conn, "damaged") == OFFLINE_CODES
    healthy += await _produce(bootstrap, "healthy", "after", 50)
    assert await _consume(bootstrap, "healthy", len(healthy)) == healthy
    assert {p: p.stat().st_size for p in segments} == sizes, "the corrupt log was truncated or deleted"
    assert _logged_offline(cluster, segments[0], position), "no ERROR line naming the file and position"
