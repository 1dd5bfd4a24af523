"""The leader's record checks on real brokers: ``message.timestamp.before.max.ms`` and
``message.timestamp.after.max.ms`` (KIP-937) answer INVALID_TIMESTAMP for a CreateTime record too
far from the broker's clock, writes nothing of
the refused batch, and the partition keeps serving."""

from __future__ import annotations

import time

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition
from kafkette.protocol.errors import InvalidTimestampError

TOPIC = "timestamp-checked"
HOUR_MS = 3_600_000


async def test_a_record_outside_the_timestamp_bounds_is_refused_with_invalid_timestamp(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    TOPIC,
                    num_partitions=1,
                    replication_factor=3,
                    configs={"message.timestamp.before.max.ms": str(HOUR_MS)},
                )
            ]
        )
    now_ms = int(time.time() * 1000)
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        with pytest.raises(InvalidTimestampError):
            await producer.send_and_wait(TOPIC, b"yesterday", key=b"k", timestamp_ms=now_ms - 24 * HOUR_MS)
        with pytest.raises(InvalidTimestampError):
            await producer.send_and_wait(TOPIC, b"tomorrow", key=b"k", timestamp_ms=now_ms + 24 * HOUR_MS)
        meta = await producer.send_and_wait(TOPIC, b"now", key=b"k", timestamp_ms=now_ms)
    assert meta.offset == 0  # nothing of the refused batches was written
    tp = TopicPartition(TOPIC, 0)
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        records = (await consumer.getmany(timeout_ms=10_000)).get(tp, [])
    assert [(r.offset, r.value, r.timestamp) for r in records] == [(0, b"now", now_ms)]
