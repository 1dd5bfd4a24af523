"""max.compaction.lag.ms (KIP-354) on real segment files with a manual clock: the cleaner's
deadline on the oldest dirty record (cleaned below min.cleanable.dirty.ratio once past it,
the dirtiest first), the roll of a compacted log's active segment at that lag, and the
broker default log.cleaner.max.compaction.lag.ms."""

from __future__ import annotations

import pytest

from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.log.log_cleaner import LogCleaner
from kafkette.broker.log.log_cleaner_manager import LogCleanerManager
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.config_def import LONG_MAX
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.log_reading import START_MS, ManualClock, read_all_records

pytestmark = pytest.mark.timeout(30)

TP = TopicPartition("prices", 0)
LAG_MS = 60_000


def _config(**overrides):
    values = dict(
        cleanup_policy="compact",
        segment_bytes=1 << 20,
        index_interval_bytes=256,
        min_cleanable_dirty_ratio=0.99,
        max_compaction_lag_ms=LAG_MS,
        max_message_bytes=1 << 20,
    )
    values.update(overrides)
    return LogConfig(**values)


def _open(tmp_path, config, tp=TP):
    return UnifiedLog.open(tmp_path / str(tp), tp, config, had_clean_shutdown=True)


def _values(log):
    return [(r.key, r.value) for r in read_all_records(log)]


def _append(log, records, timestamp_ms):
    return log.append_as_leader(bytearray(build_batch([(k, v, None, timestamp_ms) for k, v in records])), 0)


def _cleaner(tmp_path, logs, clock):
    return LogCleaner([tmp_path], lambda: dict(logs), backoff_ms=10, offset_map_capacity=10_000, now_ms=clock)


def _log_with_a_big_first_segment(tmp_path, clock, tp=TP, **config):
    """A log whose first segment holds unique keys with big values (old: 10 lags before
    START_MS), and its cleaner: once that segment is cleaned, small dirty segments after it
    have a dirty ratio far below 0.99."""
    log = _open(tmp_path, _config(**config), tp)
    _append(log, [(b"big-%d" % i, b"v" * 500) for i in range(40)], START_MS - 10 * LAG_MS)
    log.roll()
    cleaner = _cleaner(tmp_path, {tp: log}, clock)
    return log, cleaner


async def test_a_log_past_max_compaction_lag_ms_is_cleaned_below_its_min_cleanable_dirty_ratio(tmp_path):
    clock = ManualClock()
    clock.now_ms = START_MS - 10 * LAG_MS
    log, cleaner = _log_with_a_big_first_segment(tmp_path, clock)
    assert await cleaner.clean_once(), "a never-cleaned log has dirty ratio 1.0"
    for round_ in range(5):
        _append(log, [(b"dup-%d" % i, b"r%d" % round_) for i in range(4)], START_MS)
    log.roll()

    clock.now_ms = START_MS + LAG_MS
    assert not await cleaner.clean_once(), (
        "dirty ratio under 0.99 and the oldest dirty record is not late yet"
    )
    assert len(_values(log)) == 40 + 20
    clock.now_ms = START_MS + LAG_MS + 1
    assert await cleaner.clean_once()
    assert _values(log)[40:] == [(b"dup-%d" % i, b"r4") for i in range(4)]


async def test_without_max_compaction_lag_ms_a_log_below_its_dirty_ratio_stays_dirty(tmp_path):
    clock = ManualClock()
    log, cleaner = _log_with_a_big_first_segment(tmp_path, clock, max_compaction_lag_ms=LONG_MAX)
    assert await cleaner.clean_once()
    for round_ in range(5):
        _append(log, [(b"dup-%d" % i, b"r%d" % round_) for i in range(4)], START_MS - 100 * LAG_MS)
    log.roll()
    clock.now_ms = START_MS + 1000 * LAG_MS
    assert not await cleaner.clean_once()
    assert len(_values(log)) == 40 + 20


async def test_max_compaction_delay_counts_from_the_earliest_first_batch_of_the_dirty_segments(tmp_path):
    log = _open(tmp_path, _config())
    _append(log, [(b"a", b"clean")], START_MS - 50 * LAG_MS)
    log.roll()
    manager = LogCleanerManager([tmp_path])
    manager.update_checkpoint(TP, log.log_end_offset, log.truncation_count)  # the first segment is clean
    _append(log, [(b"a", b"1")], START_MS - 3 * LAG_MS)  # first batch of the first dirty segment
    _append(log, [(b"a", b"2")], START_MS - 9 * LAG_MS)  # older, but not a first batch: not counted
    log.roll()
    _append(log, [(b"a", b"3")], START_MS - 5 * LAG_MS)  # first batch of the second dirty segment
    log.roll()
    _append(log, [(b"a", b"active")], START_MS - 20 * LAG_MS)  # the active segment never counts

    to_clean = manager.snapshot(TP, log, None)
    to_clean.compute_range(START_MS)
    # now - lag - earliest first batch timestamp = START_MS - LAG_MS - (START_MS - 5 * LAG_MS)
    assert to_clean.max_compaction_delay_ms == 4 * LAG_MS and to_clean.needs_compaction_now
    to_clean.compute_range(START_MS - 4 * LAG_MS)
    assert to_clean.max_compaction_delay_ms == 0 and not to_clean.needs_compaction_now


async def test_batches_without_a_timestamp_do_not_make_a_log_late(tmp_path):
    log = _open(tmp_path, _config(message_timestamp_type="CreateTime"))
    _append(log, [(b"a", b"1"), (b"a", b"2")], -1)
    log.roll()
    to_clean = LogCleanerManager([tmp_path]).snapshot(TP, log, None)
    to_clean.compute_range(START_MS)
    assert to_clean.max_compaction_delay_ms == 0


async def test_the_dirtiest_of_the_late_logs_is_cleaned_first_and_a_log_on_time_waits(tmp_path):
    clock = ManualClock()
    tps = [TopicPartition("prices", p) for p in range(3)]
    logs = {}
    manager = LogCleanerManager([tmp_path])
    for tp, dirty_records, written_ms in (
        (tps[0], 3, START_MS - 2 * LAG_MS),
        (tps[1], 8, START_MS - 2 * LAG_MS),
        (tps[2], 30, START_MS),
    ):
        log = logs[tp] = _open(tmp_path, _config(), tp)
        _append(log, [(b"big-%d" % i, b"v" * 500) for i in range(20)], written_ms)
        log.roll()
        manager.update_checkpoint(tp, log.log_end_offset, log.truncation_count)
        for i in range(dirty_records):
            _append(log, [(b"dup", b"x" * 100)], written_ms + i)
        log.roll()
    candidates = [manager.snapshot(tp, log, None) for tp, log in logs.items()]
    chosen = LogCleanerManager.grab_filthiest(candidates, clock())
    ratios = {c.tp: round(c.cleanable_ratio, 3) for c in candidates}
    assert ratios[tps[2]] > ratios[tps[1]] > ratios[tps[0]] and ratios[tps[2]] < 0.99
    assert chosen is not None and chosen.tp == tps[1], "late logs only, the dirtiest of them"
    assert not LogCleanerManager.grab_filthiest([manager.snapshot(tps[2], logs[tps[2]], None)], clock())


async def test_a_late_log_with_nothing_cleanable_is_not_chosen(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path, _config(min_compaction_lag_ms=10 * LAG_MS, max_compaction_lag_ms=10 * LAG_MS))
    _append(log, [(b"a", b"1")], START_MS - 11 * LAG_MS)
    _append(log, [(b"a", b"2")], START_MS - LAG_MS)  # young: min.compaction.lag.ms keeps the segment
    log.roll()
    to_clean = LogCleanerManager([tmp_path]).snapshot(TP, log, None)
    assert LogCleanerManager.grab_filthiest([to_clean], clock()) is None
    assert to_clean.needs_compaction_now and to_clean.cleanable_bytes == 0


def test_a_compacted_log_rolls_its_active_segment_at_max_compaction_lag_ms(tmp_path):
    log = _open(tmp_path, _config(segment_ms=10 * LAG_MS))
    _append(log, [(b"a", b"1")], START_MS)
    _append(log, [(b"a", b"2")], START_MS + LAG_MS)
    assert len(log.segments) == 1
    _append(log, [(b"a", b"3")], START_MS + LAG_MS + 1)
    assert [s.base_offset for s in log.segments] == [0, 2]


def test_segment_ms_still_rolls_when_it_is_below_max_compaction_lag_ms(tmp_path):
    log = _open(tmp_path, _config(segment_ms=LAG_MS // 2))
    _append(log, [(b"a", b"1")], START_MS)
    _append(log, [(b"a", b"2")], START_MS + LAG_MS // 2 + 1)
    assert [s.base_offset for s in log.segments] == [0, 1]


def test_max_compaction_lag_ms_does_not_roll_a_log_that_is_not_compacted(tmp_path):
    log = _open(tmp_path, _config(cleanup_policy="delete"))
    _append(log, [(b"a", b"1")], START_MS)
    _append(log, [(b"a", b"2")], START_MS + 2 * LAG_MS)
    assert len(log.segments) == 1
    assert _config(cleanup_policy="delete").max_segment_ms == _config().segment_ms
    assert _config(cleanup_policy="compact,delete").max_segment_ms == LAG_MS


def test_log_cleaner_max_compaction_lag_ms_is_the_broker_default_of_max_compaction_lag_ms(tmp_path):
    base = {"node.id": 1, "log.dirs": str(tmp_path)}
    assert KafkaConfig(base).log_cleaner_max_compaction_lag_ms == LONG_MAX
    assert LogConfig.from_broker(KafkaConfig(base)).max_compaction_lag_ms == LONG_MAX
    config = KafkaConfig({**base, "log.cleaner.max.compaction.lag.ms": "5000"})
    assert LogConfig.from_broker(config).max_compaction_lag_ms == 5000
    assert LogConfig.from_broker(config, {"max.compaction.lag.ms": "700"}).max_compaction_lag_ms == 700
    assert LogConfig.from_broker(config).to_topic_configs()["max.compaction.lag.ms"] == "5000"
    with pytest.raises(ConfigError, match="log.cleaner.max.compaction.lag.ms"):
        KafkaConfig({**base, "log.cleaner.max.compaction.lag.ms": "0"})
