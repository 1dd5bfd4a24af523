"""Retention, the log start offset, DeleteRecords and OFFSET_OUT_OF_RANGE
against a real 3-broker cluster on 127.0.0.1.

The brokers check retention every 300 ms (``log.retention.check.interval.ms``) and
remove deleted segment files 1.5 s later (``log.segment.delete.delay.ms``); topics use
tiny segments (``segment.bytes``) so every few records roll one.  Followers apply
retention to their own logs and follow the leader's log start offset, so the checks
look at every broker's partition directory.
"""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.protocol.errors import OffsetOutOfRangeError, PolicyViolationError, UnknownTopicOrPartitionError
from tests.cluster_helpers import partition_dir
from tests.cluster_helpers import wait_until as wait_until_within

pytestmark = pytest.mark.timeout(180)

RETENTION_CONFIGS = {
    "log.retention.check.interval.ms": 300,
    "log.segment.delete.delay.ms": 1500,
    "log.flush.offset.checkpoint.interval.ms": 300,
}
SEGMENT_BYTES = 1024
WAIT_S = 30.0
wait_until = functools.partial(wait_until_within, timeout_s=WAIT_S)


def segment_bases(cluster: LocalCluster, broker_id: int, tp: TopicPartition) -> list[int]:
    directory = partition_dir(cluster, broker_id, tp)
    return sorted(int(p.name[:20]) for p in directory.iterdir() if p.name.endswith(".log"))


def deleted_files(cluster: LocalCluster, broker_id: int, tp: TopicPartition) -> list[str]:
    return sorted(
        p.name for p in partition_dir(cluster, broker_id, tp).iterdir() if p.name.endswith(".deleted")
    )


async def create_topic(bootstrap: str, topic: NewTopic) -> None:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([topic])


async def leader_of(bootstrap: str, tp: TopicPartition) -> int:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        description = (await admin.describe_topics([tp.topic]))[tp.topic]
    return next(p.leader for p in description.partitions if p.partition == tp.partition)


async def produce(bootstrap: str, topic: str, count: int, *, timestamp_ms: int | None = None) -> list[int]:
    """Send ``count`` ~100-byte records one by one (one batch each) with acks=all; return offsets."""
    offsets = []
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=0) as producer:
        for i in range(count):
            metadata = await producer.send_and_wait(
                topic, b"v%04d" % i + b"x" * 95, partition=0, timestamp_ms=timestamp_ms
            )
            offsets.append(metadata.offset)
    return offsets


async def beginning_and_end(bootstrap: str, tp: TopicPartition) -> tuple[int, int]:
    async with Consumer(bootstrap_servers=bootstrap) as consumer:
        start = (await consumer.beginning_offsets([tp]))[tp]
        end = (await consumer.end_offsets([tp]))[tp]
    return start, end


async def first_record_offset(bootstrap: str, tp: TopicPartition, **consumer_args) -> int:
    async with Consumer(bootstrap_servers=bootstrap, **consumer_args) as consumer:
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        record = await asyncio.wait_for(consumer.getone(), WAIT_S)
    return record.offset


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    configs = {
        "controlled.shutdown.retry.backoff.ms": 100,
        "broker.session.timeout.ms": 3000,
        "broker.heartbeat.interval.ms": 500,
        "replica.fetch.backoff.ms": 200,
        **RETENTION_CONFIGS,
    }
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("retention"), broker_configs=configs
    ) as c:
        yield c


# --- retention ---------------------------------------------------------------------------


async def test_retention_bytes_deletes_old_segments_on_leader_and_followers(cluster):
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("retention-bytes", 0)
    await create_topic(
        bootstrap,
        NewTopic(
            tp.topic,
            1,
            3,
            configs={"segment.bytes": str(SEGMENT_BYTES), "retention.bytes": str(3 * SEGMENT_BYTES)},
        ),
    )
    await produce(bootstrap, tp.topic, 120)  # ~20 KB: about 20 segments

    def trimmed_everywhere() -> bool:
        return all(
            segment_bases(cluster, b, tp)[0] > 0 and len(segment_bases(cluster, b, tp)) <= 5
            for b in (1, 2, 3)
        )

    await wait_until(trimmed_everywhere, "retention.bytes to trim every replica")
    start, end = await beginning_and_end(bootstrap, tp)
    assert end == 120
    assert 0 < start < 120
    assert start == segment_bases(cluster, await leader_of(bootstrap, tp), tp)[0]
    for broker_id in (1, 2, 3):
        size = sum(p.stat().st_size for p in partition_dir(cluster, broker_id, tp).glob("*.log"))
        assert size <= 4 * SEGMENT_BYTES + SEGMENT_BYTES, f"broker {broker_id} keeps {size} bytes"
    assert await first_record_offset(bootstrap, tp, auto_offset_reset="earliest") == start


async def test_retention_ms_deletes_segments_with_old_timestamps_and_files_vanish_after_the_delay(cluster):
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("retention-ms", 0)
    await create_topic(
        bootstrap,
        NewTopic(tp.topic, 1, 3, configs={"segment.bytes": str(SEGMENT_BYTES), "retention.ms": "3600000"}),
    )
    two_hours_ago = int(time.time() * 1000) - 2 * 3600 * 1000
    await produce(bootstrap, tp.topic, 40, timestamp_ms=two_hours_ago)  # expired at once
    fresh = await produce(bootstrap, tp.topic, 5)  # now: kept
    await wait_until(
        lambda: all(segment_bases(cluster, b, tp)[0] > 0 for b in (1, 2, 3)),
        "retention.ms to delete the old segments on every replica",
    )
    leader = await leader_of(bootstrap, tp)
    await wait_until(
        lambda: segment_bases(cluster, leader, tp)[0] >= 30, "the leader to keep only recent segments"
    )
    start, end = await beginning_and_end(bootstrap, tp)
    assert end == 45 and 30 <= start <= fresh[0]
    # Renamed at once, removed after log.segment.delete.delay.ms (1.5 s) by the scheduler.
    await wait_until(
        lambda: all(not deleted_files(cluster, b, tp) for b in (1, 2, 3)), ".deleted files to be removed"
    )
    for broker_id in (1, 2, 3):
        names = sorted(p.name for p in partition_dir(cluster, broker_id, tp).iterdir())
        assert "00000000000000000000.log" not in names and "00000000000000000000.index" not in names


async def test_deleted_segments_are_renamed_before_removal(cluster):
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("retention-renamed", 0)
    await create_topic(
        bootstrap,
        NewTopic(
            tp.topic,
            1,
            1,
            configs={
                "segment.bytes": str(SEGMENT_BYTES),
                "retention.bytes": "0",
                "file.delete.delay.ms": "600000",
            },
        ),
    )
    await produce(bootstrap, tp.topic, 30)
    leader = await leader_of(bootstrap, tp)
    await wait_until(
        lambda: len(segment_bases(cluster, leader, tp)) == 1, "only the active segment to be kept"
    )
    assert {"00000000000000000000.log.deleted", "00000000000000000000.index.deleted"} <= set(
        deleted_files(cluster, leader, tp)
    )


# --- DeleteRecords -----------------------------------------------------------------------


async def test_delete_records_returns_the_low_watermark_after_the_followers_moved(cluster):
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("delete-records", 0)
    # Led by broker 2 (not the controller), replicated to 3 and 1.
    await create_topic(
        bootstrap,
        NewTopic(tp.topic, replica_assignment=[[2, 3, 1]], configs={"segment.bytes": str(SEGMENT_BYTES)}),
    )
    await produce(bootstrap, tp.topic, 50)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        assert await admin.delete_records({tp: 30}) == {tp: 30}
        with pytest.raises(OffsetOutOfRangeError, match="delete-records-0"):
            await admin.delete_records({tp: 51})
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.delete_records({TopicPartition(tp.topic, 5): 1})
        with pytest.raises(UnknownTopicOrPartitionError):
            await asyncio.wait_for(admin.delete_records({TopicPartition("no-such-topic", 0): 1}), WAIT_S)
    assert await beginning_and_end(bootstrap, tp) == (30, 50)
    assert await first_record_offset(bootstrap, tp, auto_offset_reset="earliest") == 30
    # The answer came only once the followers had moved: a follower that takes over
    # leadership at once already starts at 30.
    cluster.stop_broker(2, hard=False)
    try:

        async def led_elsewhere() -> bool:
            return await leader_of(bootstrap, tp) in (1, 3)

        await wait_until(led_elsewhere, "a follower to take over leadership")
        assert (await beginning_and_end(bootstrap, tp))[0] == 30
        await wait_until(
            lambda: all(segment_bases(cluster, b, tp)[0] > 0 for b in (1, 3)),
            "segments below the log start offset to be deleted on the followers",
        )
    finally:
        cluster.start_broker(2)
        cluster.wait_for_broker(2)


async def test_delete_records_on_a_compacted_topic_is_a_policy_violation(cluster):
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("delete-records-compacted", 0)
    await create_topic(bootstrap, NewTopic(tp.topic, 1, 1, configs={"cleanup.policy": "compact"}))
    async with Producer(bootstrap_servers=bootstrap) as producer:
        await producer.send_and_wait(tp.topic, b"v", key=b"k", partition=0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        with pytest.raises(PolicyViolationError):
            await admin.delete_records({tp: 1})


# --- OFFSET_OUT_OF_RANGE and auto_offset_reset ----------------------------------------


async def trimmed_topic(cluster: LocalCluster, name: str) -> TopicPartition:
    """Create ``name`` with offsets 0..49 of which 0..29 are deleted (log start offset 30)."""
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition(name, 0)
    await create_topic(bootstrap, NewTopic(tp.topic, 1, 3))
    await produce(bootstrap, tp.topic, 50)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        assert await admin.delete_records({tp: 30}) == {tp: 30}
    return tp


@pytest.mark.parametrize("position", [10, 1000])
async def test_earliest_resets_a_position_below_the_log_start_or_past_the_end_to_the_log_start(
    cluster, position
):
    tp = await trimmed_topic(cluster, f"reset-earliest-{position}")
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="earliest"
    ) as consumer:
        consumer.assign([tp])
        consumer.seek(tp, position)
        records = await asyncio.wait_for(consumer.getmany(tp, timeout_ms=10_000), WAIT_S)
        assert records[tp][0].offset == 30
        assert await consumer.position(tp) == 30 + len(records[tp])


async def test_latest_resets_a_position_below_the_log_start_to_the_end(cluster):
    tp = await trimmed_topic(cluster, "reset-latest")
    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="latest") as consumer:
        consumer.assign([tp])
        consumer.seek(tp, 10)
        end = (await consumer.end_offsets([tp]))[tp]
        assert end == 50

        async def reset_to_end() -> bool:
            await consumer.getmany(tp, timeout_ms=100)
            return await consumer.position(tp) == end

        await wait_until(reset_to_end, "the position to reach the end offset")
        await produce(cluster.bootstrap_servers, tp.topic, 1)
        records = await asyncio.wait_for(consumer.getmany(tp, timeout_ms=10_000), WAIT_S)
        assert [r.offset for r in records[tp]] == [end]


async def test_none_raises_offset_out_of_range_naming_the_partition_and_offset(cluster):
    tp = await trimmed_topic(cluster, "reset-none")
    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="none") as consumer:
        consumer.assign([tp])
        consumer.seek(tp, 10)
        with pytest.raises(OffsetOutOfRangeError, match=r"position 10 .*reset-none-0"):
            await asyncio.wait_for(consumer.getmany(tp, timeout_ms=int(WAIT_S * 1000)), WAIT_S + 5)

        async def iterate() -> None:
            async for _ in consumer:
                pass

        with pytest.raises(OffsetOutOfRangeError):
            await asyncio.wait_for(iterate(), WAIT_S)
        assert await consumer.position(tp) == 10  # nothing was skipped


def test_delete_records_cli_prints_the_low_watermarks_and_rejects_bad_files(cluster, tmp_path):
    import json
    import subprocess
    import sys

    from kafkette.client.cli.shared_options import run_coroutine

    tp = TopicPartition("delete-records-cli", 0)
    run_coroutine(create_topic(cluster.bootstrap_servers, NewTopic(tp.topic, 1, 3)))
    run_coroutine(produce(cluster.bootstrap_servers, tp.topic, 10))
    kafkette = Path(sys.executable).parent / "kafkette"
    offsets = tmp_path / "offsets.json"
    offsets.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": tp.topic, "partition": 0, "offset": 4}]})
    )
    result = subprocess.run(
        [
            str(kafkette),
            "delete-records",
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--offset-json-file",
            str(offsets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "partition: delete-records-cli-0\tlow_watermark: 4" in result.stdout
    offsets.write_text('{"partitions": [{"topic": "delete-records-cli", "partition": 0, "offset": 99}]}')
    result = subprocess.run(
        [
            str(kafkette),
            "delete-records",
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--offset-json-file",
            str(offsets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and len(result.stderr.strip().splitlines()) == 1
    assert "delete-records-cli-0" in result.stderr
