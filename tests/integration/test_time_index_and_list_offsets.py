"""Offsets_for_times and ListOffsets against real brokers,
segment.ms rolling, max.message.bytes, and a time index rebuilt after being deleted."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    MessageTooLargeError,
    NewTopic,
    OffsetAndTimestamp,
    OffsetSpec,
    Producer,
    TopicPartition,
)

BASE_MS = 1_700_000_000_000
HOUR_MS = 3_600_000


def _partition_dir(cluster, broker_id: int, topic: str) -> Path:
    return cluster.broker_dir(broker_id) / "logs" / f"{topic}-0"


def _expected_offset_for_time(timestamps: list[int], target: int) -> OffsetAndTimestamp | None:
    """Kafka's answer: the first offset whose timestamp is >= target."""
    for offset, ts in enumerate(timestamps):
        if ts >= target:
            return OffsetAndTimestamp(offset, ts)
    return None


async def _produce_with_timestamps(
    bootstrap: str, topic: str, timestamps: list[int], **producer_args
) -> None:
    async with Producer(bootstrap_servers=bootstrap, acks="all", **producer_args) as producer:
        futures = [
            await producer.send(topic, b"value-%d" % i, timestamp_ms=ts, partition=0)
            for i, ts in enumerate(timestamps)
        ]
        metas = await asyncio.gather(*futures)
    assert [m.offset for m in metas] == list(range(len(timestamps)))


async def test_offsets_for_times_and_list_offsets_find_records_by_timestamp(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "by-time"
    tp = TopicPartition(topic, 0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    topic,
                    num_partitions=1,
                    replication_factor=3,
                    configs={"segment.bytes": "1200", "index.interval.bytes": "200"},
                )
            ]
        )
    rng = random.Random(4)
    # Mostly increasing timestamps with some out of order, so "first offset at or after" differs
    # from "offset of the nearest timestamp"; several records per batch (linger) and many segments.
    timestamps = [BASE_MS + i * 1_000 + rng.choice([0, 0, 0, -2_500, 700]) for i in range(300)]
    timestamps[120] = BASE_MS + 900_000  # the largest timestamp, in the middle of the log
    await _produce_with_timestamps(bootstrap, topic, timestamps, linger_ms=5, max_batch_size=300)
    assert len(list(_partition_dir(shared_cluster, 1, topic).glob("*.log"))) > 3

    targets = [
        0,
        BASE_MS,
        BASE_MS + 500,
        BASE_MS + 41_300,
        BASE_MS + 150_001,
        BASE_MS + 298_000,
        BASE_MS + 299_700,
        BASE_MS + 900_000,
        BASE_MS + 900_001,
    ]
    async with Consumer(bootstrap_servers=bootstrap) as consumer:
        consumer.assign([tp])
        for target in targets:
            assert (await consumer.offsets_for_times({tp: target}))[tp] == _expected_offset_for_time(
                timestamps, target
            )
        assert await consumer.beginning_offsets([tp]) == {tp: 0}
        assert await consumer.end_offsets([tp]) == {tp: 300}
        with pytest.raises(ValueError):
            await consumer.offsets_for_times({tp: -1})

    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        found = await admin.list_offsets({tp: OffsetSpec.max_timestamp()})
        assert (found[tp].offset, found[tp].timestamp) == (120, BASE_MS + 900_000)
        found = await admin.list_offsets({tp: OffsetSpec.for_timestamp(BASE_MS + 150_001)})
        assert (found[tp].offset, found[tp].timestamp) == tuple(
            _expected_offset_for_time(timestamps, BASE_MS + 150_001)
        )
        assert found[tp].leader_epoch >= 0
        assert (await admin.list_offsets({tp: OffsetSpec.earliest()}))[tp].offset == 0
        assert (await admin.list_offsets({tp: OffsetSpec.latest()}))[tp].offset == 300


async def test_segment_ms_rolls_segments_by_record_timestamps_on_every_replica(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "rolled-by-time"
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(topic, replica_assignment={0: [1, 2, 3]}, configs={"segment.ms": str(HOUR_MS)})]
        )
    # Batches 30 minutes apart: the third batch of a segment is exactly segment.ms after its
    # first and stays (Kafka rolls only past segment.ms); the fourth starts a new segment.
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(7):
            await producer.send_and_wait(topic, b"x", partition=0, timestamp_ms=BASE_MS + i * HOUR_MS // 2)
    for broker_id in (1, 2, 3):
        bases = sorted(int(p.stem) for p in _partition_dir(shared_cluster, broker_id, topic).glob("*.log"))
        assert bases == [0, 3, 6], f"broker {broker_id} has segments {bases}"
        assert sorted(
            p.stem for p in _partition_dir(shared_cluster, broker_id, topic).glob("*.timeindex")
        ) == [f"{b:020d}" for b in bases]


async def test_batch_over_topic_max_message_bytes_fails_with_message_too_large(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "small-messages"
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(topic, num_partitions=1, replication_factor=3, configs={"max.message.bytes": "1000"})]
        )
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        with pytest.raises(MessageTooLargeError):
            await producer.send_and_wait(topic, b"x" * 5_000, partition=0)
        meta = await producer.send_and_wait(topic, b"fits", partition=0)
    assert meta.offset == 0
    async with Consumer(bootstrap_servers=bootstrap) as consumer:
        assert await consumer.end_offsets([TopicPartition(topic, 0)]) == {TopicPartition(topic, 0): 1}


async def test_deleted_time_indexes_are_rebuilt_at_restart_and_lookups_still_work(cluster_factory):
    cluster = cluster_factory(1)
    bootstrap = cluster.bootstrap_servers
    topic = "rebuilt-time-index"
    tp = TopicPartition(topic, 0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    topic,
                    num_partitions=1,
                    replication_factor=1,
                    configs={"segment.bytes": "2000", "index.interval.bytes": "100"},
                )
            ]
        )
    timestamps = [BASE_MS + i * 10 for i in range(200)]
    await _produce_with_timestamps(bootstrap, topic, timestamps, linger_ms=5, max_batch_size=300)
    cluster.stop_broker(1, hard=False)
    time_indexes = list(_partition_dir(cluster, 1, topic).glob("*.timeindex"))
    assert len(time_indexes) > 2
    for path in time_indexes:
        path.unlink()
    cluster.start_broker(1)
    cluster.wait_for_broker(1)
    async with Consumer(bootstrap_servers=bootstrap) as consumer:
        consumer.assign([tp])
        for target in (BASE_MS - 1, BASE_MS + 555, BASE_MS + 1_990):
            assert (await consumer.offsets_for_times({tp: target}))[tp] == _expected_offset_for_time(
                timestamps, target
            )
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        found = await admin.list_offsets({tp: OffsetSpec.max_timestamp()})
        assert (found[tp].offset, found[tp].timestamp) == (199, BASE_MS + 1_990)
    assert len(list(_partition_dir(cluster, 1, topic).glob("*.timeindex"))) == len(time_indexes)
