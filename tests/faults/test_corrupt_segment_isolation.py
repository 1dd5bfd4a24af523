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

from client import AdminClient, Consumer, NewTopic, Producer, TopicPartition
from client.connection import BrokerConnection
from protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from protocol.errors import Errors
from protocol.record_batch import HEADER_SIZE, build_batch, iter_batches

pytestmark = pytest.mark.timeout(180)

HOST = "127.0.0.1"
SEGMENT_BYTES = 4096
RECORDS = 300


def _partition_dir(cluster, topic: str, partition: int) -> Path:
    return Path(cluster.data_dir) / "broker-1" / "logs" / f"{topic}-{partition}"


async def _codes(conn: BrokerConnection, topic: str) -> dict[str, int]:
    fetch = await conn.send(FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=1, isolation_level=0,
        topics=[FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0)])]))
    listed = await conn.send(ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
        ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=0,
                                                                      timestamp=EARLIEST_TIMESTAMP)])]))
    produced = await conn.send(ProduceRequest(acks=1, timeout_ms=5000, topic_data=[ProduceTopicData(
        name=topic, partition_data=[ProducePartitionData(index=0, records=build_batch([(None, b"x", None, 0)]))])]))
    return {
        "fetch": fetch.responses[0].partitions[0].error_code,
        "list_offsets": listed.topics[0].partitions[0].error_code,
        "produce": produced.responses[0].partition_responses[0].error_code,
    }


async def _produce(bootstrap: str, topic: str, tag: str, count: int) -> list[bytes]:
    values = [f"{tag}-{i:05d}".encode() * 4 for i in range(count)]
    async with Producer(bootstrap_servers=bootstrap, acks=1, linger_ms=1) as producer:
        for start in range(0, count, 10):  # small batches, so that segments roll
            await asyncio.gather(*[await producer.send(topic, v, partition=0) for v in values[start:start + 10]])
    return values


async def _consume(bootstrap: str, topic: str, count: int, timeout_s: float = 30) -> list[bytes]:
    tp = TopicPartition(topic, 0)
    out: list[bytes] = []
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        deadline = asyncio.get_running_loop().time() + timeout_s
        while len(out) < count:
            assert asyncio.get_running_loop().time() < deadline, f"consumed {len(out)} of {count}"
            for records in (await consumer.getmany(timeout_ms=500)).values():
                out.extend(r.value for r in records)
    return out


async def test_corrupt_byte_in_an_old_segment_isolates_only_that_partition(cluster_factory):
    cluster = cluster_factory(1)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(t, 1, 1, configs={"segment.bytes": str(SEGMENT_BYTES)})
                                   for t in ("damaged", "healthy")])
    await _produce(bootstrap, "damaged", "d", RECORDS)
    healthy = await _produce(bootstrap, "healthy", "h", RECORDS)

    cluster.stop_broker(1, hard=False)
    segments = sorted(_partition_dir(cluster, "damaged", 0).glob("*.log"), key=lambda p: int(p.stem))
    assert len(segments) >= 3, f"expected several segments, got {[p.name for p in segments]}"
    oldest = segments[0]
    data = bytearray(oldest.read_bytes())
    batches = list(iter_batches(data, verify_crc=True))
    position = batches[len(batches) // 2][0]
    data[position + HEADER_SIZE + 3] ^= 0x40  # inside the records of a batch in the middle of the file
    oldest.write_bytes(data)

    cluster.start_broker(1)
    async with BrokerConnection(HOST, cluster.ports[1], request_timeout_ms=20000) as conn:
        assert await _codes(conn, "damaged") == {
            "fetch": Errors.KAFKA_STORAGE_ERROR, "list_offsets": Errors.KAFKA_STORAGE_ERROR,
            "produce": Errors.KAFKA_STORAGE_ERROR}
        assert await _codes(conn, "healthy") == {"fetch": Errors.NONE, "list_offsets": Errors.NONE,
                                                 "produce": Errors.NONE}
    healthy.append(b"x")  # the raw produce above
    healthy += await _produce(bootstrap, "healthy", "after", 50)
    assert await _consume(bootstrap, "healthy", len(healthy)) == healthy
    broker_log = cluster.log_path(1).read_text(errors="replace")
    assert any("ERROR" in line and "offline" in line and str(oldest) in line and f"position {position}" in line
               for line in broker_log.splitlines()), "no ERROR line naming the file and position"
    assert oldest.stat().st_size == len(data), "the corrupt segment was modified"

    cluster.stop_broker(1, hard=False)
    assert not (Path(cluster.data_dir) / "broker-1" / "logs" / ".kafka_cleanshutdown").exists(), \
        "a log dir holding an offline log got the clean-shutdown marker"


async def test_corruption_found_by_the_start_up_scan_after_kill_9_isolates_only_that_partition(cluster_factory):
    cluster = cluster_factory(1)  # flushing off (Kafka's default): the recovery point stays at 0
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(t, 1, 1, configs={"segment.bytes": str(SEGMENT_BYTES)})
                                   for t in ("damaged", "healthy")])
    await _produce(bootstrap, "damaged", "d", RECORDS)
    healthy = await _produce(bootstrap, "healthy", "h", RECORDS)
    cluster.stop_broker(1, hard=True)
    segments = sorted(_partition_dir(cluster, "damaged", 0).glob("*.log"), key=lambda p: int(p.stem))
    assert len(segments) >= 3, f"expected several segments, got {[p.name for p in segments]}"
    data = bytearray(segments[0].read_bytes())
    position = list(iter_batches(data))[2][0]
    data[position + HEADER_SIZE + 3] ^= 0x40
    segments[0].write_bytes(data)
    sizes = {p: p.stat().st_size for p in segments}

    cluster.start_broker(1)
    async with BrokerConnection(HOST, cluster.ports[1], request_timeout_ms=20000) as conn:
        listed = await conn.send(ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
            ListOffsetsTopic(name="damaged", partitions=[ListOffsetsPartition(partition_index=0,
                                                                              timestamp=EARLIEST_TIMESTAMP)])]))
        # Offline before anything read the data: the start-up scan found it.
        assert listed.topics[0].partitions[0].error_code == Errors.KAFKA_STORAGE_ERROR
        assert await _codes(conn, "damaged") == {
            "fetch": Errors.KAFKA_STORAGE_ERROR, "list_offsets": Errors.KAFKA_STORAGE_ERROR,
            "produce": Errors.KAFKA_STORAGE_ERROR}
    healthy += await _produce(bootstrap, "healthy", "after", 50)
    assert await _consume(bootstrap, "healthy", len(healthy)) == healthy
    assert {p: p.stat().st_size for p in segments} == sizes, "the corrupt log was truncated or deleted"
    broker_log = cluster.log_path(1).read_text(errors="replace")
    assert any("ERROR" in line and "offline" in line and str(segments[0]) in line and f"position {position}" in line
               for line in broker_log.splitlines()), "no ERROR line naming the file and position"
