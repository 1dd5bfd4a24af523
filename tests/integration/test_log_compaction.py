"""Compaction: a cleanup.policy=compact topic on real brokers keeps exactly the last
value of each key at its original offset; a follower that was down copies the compacted
log (offset gaps) from the leader; consumers read across the gaps; all replicas agree;
keyless records are rejected with INVALID_RECORD; max.compaction.lag.ms gets a log
compacted within that lag whatever its dirty ratio."""

from __future__ import annotations

import asyncio
import random
import re
import time

import pytest

from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.log_cleaner_manager import CLEANER_CHECKPOINT_FILE
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition
from kafkette.protocol.errors import InvalidRecordError
from tests.cluster_helpers import log_records

TOPIC = "compacted-prices"
TP = TopicPartition(TOPIC, 0)
LEADER, DOWN_FOLLOWER = 2, 3
KEYS = 50
UPDATES = 3000
TAIL = 60


def _cleaned_up_to(cluster, broker_id: int) -> int:
    path = cluster.broker_dir(broker_id) / "logs" / CLEANER_CHECKPOINT_FILE
    return OffsetCheckpointFile(path).read().get(TP, -1) if path.exists() else -1


async def _wait_cleaned(cluster, broker_ids, offset: int, timeout_s: float = 90) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not all(_cleaned_up_to(cluster, b) >= offset for b in broker_ids):
        assert asyncio.get_running_loop().time() < deadline, f"no compaction past offset {offset}: " + str(
            {b: _cleaned_up_to(cluster, b) for b in broker_ids}
        )
        await asyncio.sleep(0.2)


async def _consume_to_end(bootstrap: str, end_offset: int, timeout_s: float = 60):
    out = []
    # One batch per fetch: a compacted batch whose last records were removed must not stall the consumer.
    async with Consumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", max_partition_fetch_bytes=1
    ) as consumer:
        consumer.assign([TP])
        await consumer.seek_to_beginning(TP)
        deadline = asyncio.get_running_loop().time() + timeout_s
        while await consumer.position(TP) < end_offset:
            assert asyncio.get_running_loop().time() < deadline, f"stuck at {await consumer.position(TP)}"
            batch = await consumer.getmany(timeout_ms=500)
            out.extend(batch.get(TP, []))
    return out


def _replica_records(cluster, broker_id: int):
    log = UnifiedLog.open(
        cluster.broker_dir(broker_id) / "logs" / str(TP), TP, LogConfig(), had_clean_shutdown=True
    )
    try:
        return log_records(log)
    finally:
        log.close()


async def test_compacted_topic_keeps_the_last_value_per_key_at_its_offset_on_every_replica(cluster_factory):
    cluster = cluster_factory(3, log_cleaner_backoff_ms=100)
    bootstrap = cluster.bootstrap_servers
    configs = {"cleanup.policy": "compact", "segment.bytes": "4096", "min.cleanable.dirty.ratio": "0.01"}
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(TOPIC, replica_assignment={0: [LEADER, 1, DOWN_FOLLOWER]}, configs=configs)]
        )
    cluster.stop_broker(DOWN_FOLLOWER)
    latest: dict[bytes, tuple[int, bytes]] = {}
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=5) as producer:
        sends = []
        rng = random.Random(4)
        for i in range(UPDATES):
            key, value = b"key-%d" % rng.randrange(KEYS), b"value-%d" % i
            sends.append((key, value, await producer.send(TOPIC, value, key=key, partition=0)))
        for key, value, future in sends:
            latest[key] = ((await future).offset, value)
        # One batch whose last record is superseded later: after compaction it ends in a gap.
        pair = [(b"pair-a", b"kept"), (b"pair-b", b"superseded")]
        futures = [await producer.send(TOPIC, value, key=key, partition=0) for key, value in pair]
        for (key, value), future in zip(pair, futures, strict=True):
            latest[key] = ((await future).offset, value)
        meta = await producer.send_and_wait(TOPIC, b"final", key=b"pair-b", partition=0)
        latest[b"pair-b"] = (meta.offset, b"final")
        last_update = max(offset for offset, _ in latest.values())
        # Unique keys after the updates roll the segments holding them out of the active one.
        for i in range(TAIL):
            key, value = b"tail-%d" % i, b"t" * 100
            latest[key] = ((await producer.send_and_wait(TOPIC, value, key=key, partition=0)).offset, value)
    end_offset = max(offset for offset, _ in latest.values()) + 1
    expected = sorted((offset, key, value) for key, (offset, value) in latest.items())

    await _wait_cleaned(cluster, [LEADER, 1], last_update + 1)
    cluster.start_broker(DOWN_FOLLOWER)  # it copies the compacted log, gaps and all, from the leader
    await _wait_cleaned(cluster, [DOWN_FOLLOWER], last_update + 1)

    records = await _consume_to_end(bootstrap, end_offset)
    assert [(r.offset, r.key, r.value) for r in records] == expected
    offsets = [r.offset for r in records]
    assert offsets == sorted(set(offsets)) and len(offsets) < end_offset  # increasing, with gaps

    cluster.stop()
    for broker_id in (LEADER, 1, DOWN_FOLLOWER):
        assert _replica_records(cluster, broker_id) == expected, f"replica on broker {broker_id}"


async def test_keyless_produce_to_a_compacted_topic_fails_with_invalid_record(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    "compacted-keys",
                    num_partitions=1,
                    replication_factor=3,
                    configs={"cleanup.policy": "compact,delete"},
                )
            ]
        )
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        with pytest.raises(InvalidRecordError):
            await producer.send_and_wait("compacted-keys", b"no key")
        meta = await producer.send_and_wait("compacted-keys", b"value", key=b"key")
    assert meta.offset == 0  # nothing of the rejected batch was written; the partition keeps serving


LAG_TOPIC = "compacted-late"
LAG_MS = 3000


async def _read_partition(bootstrap: str, tp: TopicPartition) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of ``tp`` from its beginning to its end offset now."""
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        end = (await consumer.end_offsets([tp]))[tp]
        await consumer.seek_to_beginning(tp)
        out = []
        while await consumer.position(tp) < end:
            out.extend((r.key, r.value) for r in (await consumer.getmany(timeout_ms=500)).get(tp, []))
        return out


@pytest.mark.timeout(180)
async def test_max_compaction_lag_ms_compacts_a_log_below_its_min_cleanable_dirty_ratio_within_the_lag(
    cluster_factory,
):
    cluster = cluster_factory(1, log_cleaner_backoff_ms=100)
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition(LAG_TOPIC, 0)
    configs = {
        "cleanup.policy": "compact",
        "min.cleanable.dirty.ratio": "0.99",
        "max.compaction.lag.ms": str(LAG_MS),
    }
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(LAG_TOPIC, num_partitions=1, replication_factor=1, configs=configs)]
        )
    big = [(b"big-%d" % i, b"v" * 500) for i in range(60)]
    dups = [(b"dup-%d" % (i % 5), b"update-%d" % i) for i in range(50)]
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=5) as producer:
        for key, value in big:
            await producer.send(LAG_TOPIC, value, key=key, partition=0)
        await producer.flush()
        # Each phase starts a lag after the previous one: its first batch rolls the active segment
        # (max.compaction.lag.ms below segment.ms), so the previous phase becomes cleanable.
        await asyncio.sleep(LAG_MS / 1000 + 0.5)
        for key, value in dups:  # dirty ratio of this segment, after the big one: about 0.1
            await producer.send(LAG_TOPIC, value, key=key, partition=0)
        await producer.flush()
        await asyncio.sleep(LAG_MS / 1000 + 0.5)
        await producer.send_and_wait(LAG_TOPIC, b"roll", key=b"last", partition=0)
    rolled_at = time.monotonic()
    latest = dict(big)
    latest.update(dups)
    expected = [*big, *[(k, v) for k, v in dups[-5:]], (b"last", b"roll")]

    records: list[tuple[bytes, bytes]] = []
    while time.monotonic() - rolled_at < 30 and records != expected:
        records = await _read_partition(bootstrap, tp)
        if records != expected:
            await asyncio.sleep(0.2)
    assert records == expected, f"{len(records)} records, not compacted to the {len(expected)} latest values"
    assert {k: v for k, v in records} == {**latest, b"last": b"roll"}
    cleaned = re.findall(
        rb"Cleaned %s-0 .*\(dirty ratio ([0-9.]+), max\.compaction\.lag\.ms %d passed by"
        % (LAG_TOPIC.encode(), LAG_MS),
        cluster.log_path(1).read_bytes(),
    )
    assert cleaned and float(cleaned[-1]) < 0.99, "cleaned by the deadline, below min.cleanable.dirty.ratio"
