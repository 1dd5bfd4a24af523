"""Log compaction on real segment files: latest value per key at its original offset,
tombstones and delete.retention.ms, min.compaction.lag.ms, min.cleanable.dirty.ratio,
the active segment, the offset map limit, checkpoints and crash-safe segment swaps."""

from __future__ import annotations

import os
import random
import threading

import pytest

from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.log_cleaner import Cleaner, CleaningAbortedError, LogCleaner, group_segments_by_size
from kafkette.broker.log.log_cleaner_manager import CLEANER_CHECKPOINT_FILE, LogCleanerManager
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.record_batch import (
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    DELETE_HORIZON_MASK,
    NAME_BY_CODEC,
    build_batch,
    build_kafka_batch,
    decode_records,
    iter_batches,
)
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.log_reading import START_MS, ManualClock, read_all_records

TP = TopicPartition("prices", 0)
RETENTION_MS = 10_000


def _config(**overrides):
    values = dict(
        cleanup_policy="compact",
        segment_bytes=2048,
        index_interval_bytes=256,
        min_cleanable_dirty_ratio=0.5,
        delete_retention_ms=RETENTION_MS,
        max_message_bytes=100_000,
    )
    values.update(overrides)
    return LogConfig(**values)


def _open(tmp_path, config, *, clean=True, tp=TP):
    return UnifiedLog.open(tmp_path / str(tp), tp, config, had_clean_shutdown=clean)


def _append(log, records, timestamp_ms=START_MS):
    batch = build_batch([(key, value, None, timestamp_ms) for key, value in records])
    return log.append_as_leader(bytearray(batch), 0)


def _write_updates(log, updates, keys, per_batch=5, seed=7):
    """Write ``updates`` records over ``keys`` keys; return {key: (last offset, last value)}."""
    rng = random.Random(seed)
    latest = {}
    for first in range(0, updates, per_batch):
        records = [(b"key-%d" % rng.randrange(keys), b"value-%d" % (first + i)) for i in range(per_batch)]
        info = _append(log, records)
        for i, (key, value) in enumerate(records):
            latest[key] = (info.first_offset + i, value)
    return latest


def _cleaner(tmp_path, logs, clock, capacity=100_000):
    return LogCleaner(
        [tmp_path], lambda: dict(logs), backoff_ms=10, offset_map_capacity=capacity, now_ms=clock
    )


async def test_cleaned_log_holds_exactly_the_last_value_of_each_key_at_its_original_offset(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config())
    latest = _write_updates(log, 1000, 40)
    log.roll()
    segments_before, size_before = len(log.segments), log.size_in_bytes
    assert await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    records = read_all_records(log)
    assert [(r.offset, r.key, r.value) for r in records] == sorted((o, k, v) for k, (o, v) in latest.items())
    assert log.log_end_offset == 1000 and log.log_start_offset == 0
    assert len(log.segments) == segments_before and log.size_in_bytes < size_before / 10
    log.close()
    again = _open(tmp_path, _config(), clean=False)
    assert [(r.offset, r.value) for r in read_all_records(again)] == [(r.offset, r.value) for r in records]


async def test_active_segment_is_never_cleaned(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config())
    _write_updates(log, 200, 5)
    log.roll()
    _append(log, [(b"key-1", b"a"), (b"key-1", b"b"), (b"key-2", b"c")])
    active = log.active_segment
    active_bytes = active.read(active.base_offset, 1 << 20)
    assert await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    assert log.active_segment is active
    assert active.read(active.base_offset, 1 << 20) == active_bytes
    tail = [r for r in read_all_records(log) if r.offset >= active.base_offset]
    assert [r.value for r in tail] == [b"a", b"b", b"c"]


async def test_tombstones_are_kept_until_delete_retention_ms_after_cleaning_then_removed(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.0))
    _append(log, [(b"k%d" % i, b"v%d" % i) for i in range(10)])
    _append(log, [(b"k%d" % i, None) for i in range(5)])
    log.roll()
    cleaner = _cleaner(tmp_path, {TP: log}, clock)
    assert await cleaner.clean_once()

    def tombstones():
        return sorted(r.key for r in read_all_records(log) if r.value is None)

    assert tombstones() == [b"k%d" % i for i in range(5)]
    clock.now_ms += RETENTION_MS - 1
    _append(log, [(b"other", b"1")])
    log.roll()
    assert await cleaner.clean_once()
    assert tombstones() == [b"k%d" % i for i in range(5)]
    clock.now_ms += 2
    _append(log, [(b"other", b"2")])
    log.roll()
    assert await cleaner.clean_once()
    assert tombstones() == []
    assert [(r.key, r.value) for r in read_all_records(log)] == [
        (b"k%d" % i, b"v%d" % i) for i in range(5, 10)
    ] + [(b"other", b"2")]


async def test_a_batch_keeping_tombstones_gets_its_delete_horizon_and_keeps_its_timestamps(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.0))
    _append(log, [(b"k1", b"v"), (b"k2", None)], timestamp_ms=START_MS - 5)  # KIP-534
    log.roll()
    assert await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    [(position, header)] = list(iter_batches(data := log.read(0, 1 << 20).records))
    assert header.attributes & DELETE_HORIZON_MASK
    assert header.base_timestamp == START_MS + RETENTION_MS
    records = decode_records(data, position, header)
    assert [(r.key, r.value, r.timestamp) for r in records] == [
        (b"k1", b"v", START_MS - 5),
        (b"k2", None, START_MS - 5),
    ]


async def test_min_compaction_lag_ms_keeps_young_segments_uncleaned(tmp_path):
    clock = ManualClock()
    lag_ms = 60_000
    log = _open(tmp_path, _config(min_compaction_lag_ms=lag_ms, min_cleanable_dirty_ratio=0.0))
    _append(log, [(b"a", b"old-1"), (b"a", b"old-2")], timestamp_ms=START_MS - 2 * lag_ms)
    log.roll()
    young_base = log.log_end_offset
    _append(log, [(b"a", b"young-1"), (b"a", b"young-2")], timestamp_ms=START_MS - lag_ms // 2)
    log.roll()
    cleaner = _cleaner(tmp_path, {TP: log}, clock)
    assert await cleaner.clean_once()
    assert [r.value for r in read_all_records(log)] == [b"old-2", b"young-1", b"young-2"]
    assert cleaner.manager.checkpoint(TP) == young_base
    clock.now_ms += lag_ms
    assert await cleaner.clean_once()
    assert [(r.offset, r.value) for r in read_all_records(log)] == [(3, b"young-2")]


async def test_min_cleanable_dirty_ratio_decides_when_a_log_is_cleaned(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.5))
    _write_updates(log, 400, 100, seed=1)
    log.roll()
    cleaner = _cleaner(tmp_path, {TP: log}, clock)
    assert await cleaner.clean_once()
    clean_bytes = log.size_in_bytes
    _append(log, [(b"key-1", b"x")])
    log.roll()
    assert log.segments[-2].size < clean_bytes  # dirty ratio well under 0.5
    assert not await cleaner.clean_once()
    _write_updates(log, 400, 100, seed=2)
    log.roll()
    assert await cleaner.clean_once()


async def test_full_offset_map_cleans_up_to_the_first_key_that_did_not_fit(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(segment_bytes=100_000, min_cleanable_dirty_ratio=0.0))
    for round_ in range(4):
        _append(log, [(b"k%d" % i, b"r%d" % round_) for i in range(5)])
    _append(log, [(b"n%d" % i, b"new") for i in range(5)])
    log.roll()
    cleaner = _cleaner(tmp_path, {TP: log}, clock, capacity=5)
    assert await cleaner.clean_once()
    assert [r.offset for r in read_all_records(log)] == list(range(15, 25))
    assert cleaner.manager.checkpoint(TP) == 20
    assert OffsetCheckpointFile(tmp_path / CLEANER_CHECKPOINT_FILE).read() == {TP: 20}
    restarted = _cleaner(tmp_path, {TP: log}, clock)
    restarted.manager.load_checkpoints()
    assert restarted.manager.checkpoint(TP) == 20


async def test_records_without_a_key_are_dropped_from_cleaned_segments(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config())
    # The leader refuses keyless records on a compacted topic; they get in as written before the
    # policy became compact, copied here as a follower copies them.
    log.append_as_follower(
        build_batch(
            [
                (None, b"keyless", None, START_MS),
                (b"a", b"1", None, START_MS),
                (None, b"keyless-2", None, START_MS),
            ]
        )
    )
    log.roll()
    assert await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    assert [(r.offset, r.key) for r in read_all_records(log)] == [(1, b"a")]
    batches = list(iter_batches(log.segments[0].read(0, 1 << 20)))
    assert [(h.base_offset, h.last_offset, h.records_count) for _, h in batches] == [(0, 2, 1)]


@pytest.mark.parametrize(
    "codec", [COMPRESSION_NONE, COMPRESSION_SNAPPY, COMPRESSION_ZSTD], ids=lambda c: NAME_BY_CODEC[c]
)
async def test_msgpack_and_kafka_encoded_batches_are_compacted_each_in_its_own_encoding(tmp_path, codec):
    clock = ManualClock()
    log = _open(tmp_path, _config())
    latest = {}
    for i in range(40):  # batches i and i + 4 share keys; Kafka's encoding for even i
        build = build_kafka_batch if i % 2 == 0 else build_batch
        records = [
            (b"key-%d-%d" % (i % 4, j % 3), b"value-%d-%d" % (i, j), None, START_MS + j) for j in range(5)
        ]
        info = log.append_as_leader(bytearray(build(records, compression=codec)), 0)
        latest.update({key: (info.first_offset + j, value) for j, (key, value, _, _) in enumerate(records)})
    log.roll()
    attributes_of = {h.base_offset: h.attributes for h in _batch_headers(log)}
    assert await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    assert [(r.offset, r.key, r.value) for r in read_all_records(log)] == sorted(
        (o, k, v) for k, (o, v) in latest.items()
    )
    kept = _batch_headers(log)
    assert [h.base_offset for h in kept] == [180, 185, 190, 195]
    assert [h.records_count for h in kept] == [3] * 4
    assert [h.attributes for h in kept] == [attributes_of[h.base_offset] for h in kept]
    assert [h.msgpack_records for h in kept] == [False, True, False, True]


def _batch_headers(log):
    return [
        h for segment in log.segments for _, h in iter_batches(segment.read(segment.base_offset, 1 << 24))
    ]


async def test_logs_without_compact_policy_are_not_cleaned(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(cleanup_policy="delete"))
    _write_updates(log, 100, 2)
    log.roll()
    assert not await _cleaner(tmp_path, {TP: log}, clock).clean_once()
    assert len(read_all_records(log)) == 100


async def test_dirtiest_log_is_cleaned_first(tmp_path):
    clock = ManualClock()
    other = TopicPartition("prices", 1)
    quiet = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.0))
    busy = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.0), tp=other)
    _write_updates(quiet, 100, 100)
    quiet.roll()
    cleaner = _cleaner(tmp_path, {TP: quiet, other: busy}, clock)
    assert await cleaner.clean_once()  # quiet is the only dirty log
    _write_updates(quiet, 10, 10)
    quiet.roll()
    _write_updates(busy, 100, 3)
    busy.roll()
    candidates = [cleaner.manager.snapshot(tp, log, None) for tp, log in ((TP, quiet), (other, busy))]
    chosen = LogCleanerManager.grab_filthiest(candidates, clock())
    assert chosen is not None and chosen.tp == other and chosen.cleanable_ratio == 1.0


async def test_cleaning_is_dropped_when_the_log_is_truncated_meanwhile(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config())
    _write_updates(log, 200, 5)
    log.roll()
    _append(log, [(b"x", b"1"), (b"x", b"2")])
    _append(log, [(b"x", b"3")])
    before = [(r.offset, r.value) for r in read_all_records(log)]
    cleaner = _cleaner(tmp_path, {TP: log}, clock)
    to_clean = cleaner.manager.snapshot(TP, log, None)
    LogCleanerManager.grab_filthiest([to_clean], clock())
    log.truncate_to(log.log_end_offset - 1)
    assert await cleaner.clean(to_clean, clock()) is None
    assert [(r.offset, r.value) for r in read_all_records(log)] == before[:-1]
    assert not [p for p in log.dir.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted"))]


def _cleaned_files(tmp_path, clock):
    """A log of 5 segments and its cleaned files written (as if the broker died before the swap)."""
    log = _open(tmp_path, _config(segment_bytes=600))
    latest = _write_updates(log, 150, 6)
    log.roll()
    to_clean = LogCleanerManager([tmp_path]).snapshot(TP, log, None)
    LogCleanerManager.grab_filthiest([to_clean], clock())
    result = Cleaner(1000, threading.Event()).clean(to_clean, clock())
    assert len(result.cleaned) >= 2
    return log, latest, result


def test_leftover_cleaned_files_are_deleted_at_load_and_the_log_is_unchanged(tmp_path):
    log, _, result = _cleaned_files(tmp_path, ManualClock())
    before = [(r.offset, r.value) for r in read_all_records(log)]
    log.close()
    reopened = _open(tmp_path, _config(segment_bytes=600), clean=False)
    assert [(r.offset, r.value) for r in read_all_records(reopened)] == before
    assert not [p for p in reopened.dir.iterdir() if p.name.endswith(".cleaned")]


def _rename(path, old_suffix, new_suffix):
    os.replace(path, path.with_name(path.name.removesuffix(old_suffix) + new_suffix))


def test_swap_files_left_by_a_crash_complete_the_swap_at_load(tmp_path):
    for crash_point in ("swap_written", "old_segments_half_retired", "swap_half_in_place"):
        directory = tmp_path / crash_point
        log, latest, result = _cleaned_files(directory, ManualClock())
        for cleaned in result.cleaned:
            _rename(cleaned.index_path, ".cleaned", ".swap")
            _rename(cleaned.log_path, ".cleaned", ".swap")
        old = [s for c in result.cleaned for s in c.sources]
        if crash_point != "swap_written":
            for snapshot in old[: len(old) // 2 + 1]:
                for path in (snapshot.segment.log_path, snapshot.segment.index_path):
                    _rename(path, "", ".deleted")
        if crash_point == "swap_half_in_place":
            for snapshot in old:
                for path in (snapshot.segment.log_path, snapshot.segment.index_path):
                    if path.exists():
                        _rename(path, "", ".deleted")
            first = result.cleaned[0]
            _rename(first.log_path.with_name(first.log_path.name.replace(".cleaned", ".swap")), ".swap", "")
        active_base = log.active_segment.base_offset
        log.close()
        reopened = _open(directory, _config(segment_bytes=600), clean=False)
        records = read_all_records(reopened)
        assert [(r.offset, r.key, r.value) for r in records] == sorted(
            (o, k, v) for k, (o, v) in latest.items()
        ), crash_point
        assert [s.base_offset for s in reopened.segments] == [c.base_offset for c in result.cleaned] + [
            active_base
        ]
        leftovers = [
            p.name for p in reopened.dir.iterdir() if p.name.endswith((".swap", ".cleaned", ".deleted"))
        ]
        assert leftovers == [], crash_point
        reopened.close()


def test_segments_are_grouped_up_to_segment_bytes(tmp_path):
    log = _open(tmp_path, _config(segment_bytes=600))
    _write_updates(log, 150, 6)
    log.roll()
    snapshots = LogCleanerManager([tmp_path]).snapshot(TP, log, None).segments
    sizes = [s.size for s in snapshots]
    groups = group_segments_by_size(snapshots, 2 * max(sizes))
    assert [s for g in groups for s in g] == snapshots
    assert all(sum(s.size for s in g) <= 2 * max(sizes) for g in groups) and len(groups) < len(snapshots)
    assert len(group_segments_by_size(snapshots, 1 << 30)) == 1


def test_aborted_cleaning_raises_and_leaves_no_cleaned_files(tmp_path):
    log = _open(tmp_path, _config(segment_bytes=600))
    _write_updates(log, 150, 6)
    log.roll()
    to_clean = LogCleanerManager([tmp_path]).snapshot(TP, log, None)
    LogCleanerManager.grab_filthiest([to_clean], START_MS)
    abort = threading.Event()
    abort.set()
    with pytest.raises(CleaningAbortedError):
        Cleaner(1000, abort).clean(to_clean, START_MS)
    assert not [p for p in log.dir.iterdir() if p.name.endswith(".cleaned")]


def test_broker_log_cleaner_configs_have_kafkas_defaults_and_reach_topic_configs(tmp_path):
    defaults = KafkaConfig({"node.id": 1, "log.dirs": str(tmp_path)})
    assert (
        defaults.log_cleaner_enable,
        defaults.log_cleaner_backoff_ms,
        defaults.log_cleaner_dedupe_buffer_size,
        defaults.log_cleaner_min_cleanable_ratio,
        defaults.log_cleaner_delete_retention_ms,
        defaults.log_cleaner_min_compaction_lag_ms,
        defaults.log_cleanup_policy,
    ) == (True, 15000, 134217728, 0.5, 86400000, 0, ["delete"])
    config = KafkaConfig(
        {
            "node.id": 1,
            "log.dirs": str(tmp_path),
            "log.cleanup.policy": "compact",
            "log.cleaner.min.cleanable.ratio": "0.25",
            "log.cleaner.delete.retention.ms": "5",
            "log.cleaner.min.compaction.lag.ms": "7",
        }
    )
    log_config = LogConfig.from_broker(config)
    assert (
        log_config.cleanup_policy,
        log_config.min_cleanable_dirty_ratio,
        log_config.delete_retention_ms,
        log_config.min_compaction_lag_ms,
    ) == ("compact", 0.25, 5, 7)
    assert (
        LogConfig.from_broker(config, {"min.cleanable.dirty.ratio": "0.9"}).min_cleanable_dirty_ratio == 0.9
    )
    for bad in (
        {"log.cleaner.min.cleanable.ratio": "1.5"},
        {"log.cleaner.min.cleanable.ratio": "x"},
        {"log.cleanup.policy": "shred"},
        {"log.cleaner.backoff.ms": "-1"},
    ):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            KafkaConfig({"node.id": 1, "log.dirs": str(tmp_path), **bad})


async def test_log_manager_owns_the_cleaner_task_unless_log_cleaner_enable_is_false(tmp_path):
    time = MockTime(wall_ms=START_MS)
    manager = LogManager(
        KafkaConfig({"node.id": 1, "log.dirs": str(tmp_path / "a"), "log.cleaner.backoff.ms": 5}),
        scheduler=KafkaScheduler(time),
    )
    assert manager.cleaner._now_ms() == START_MS  # the cleaner ages tombstones on the node's clock
    await manager.start()
    try:
        task = manager.cleaner._task.task
        assert task is not None and manager.cleaner._task.running
    finally:
        await manager.stop()
    assert task.done() and not manager.cleaner._task.running
    disabled = LogManager(
        KafkaConfig({"node.id": 1, "log.dirs": str(tmp_path / "b"), "log.cleaner.enable": "false"})
    )
    assert disabled.cleaner is None


async def test_a_truncation_after_cleaning_makes_the_next_cleaning_start_from_the_log_start(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(min_cleanable_dirty_ratio=0.0))
    _write_updates(log, 100, 5)
    log.roll()
    cleaner = _cleaner(tmp_path, {TP: log}, clock)
    assert await cleaner.clean_once()
    assert cleaner.manager.snapshot(TP, log, None) is None  # nothing dirty
    _append(log, [(b"a", b"1")])
    log.truncate_to(log.log_end_offset - 1)
    _append(log, [(b"a", b"2")])
    log.roll()
    assert cleaner.manager.snapshot(TP, log, None).first_dirty_offset == 0
