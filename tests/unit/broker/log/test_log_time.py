"""UnifiedLog: rolling on segment.ms and a full time index, lookups by timestamp, roll configs."""

from __future__ import annotations

import pytest

from kafkette.broker.config import KafkaConfig
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_segment import TimestampAndOffset
from kafkette.broker.log.unified_log import MAX_TIMESTAMP, UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("flights", 0)
HOUR_MS = 3_600_000


def _open(tmp_path, config, clock=None):
    return UnifiedLog.open(
        tmp_path / "flights-0", TP, config, had_clean_shutdown=True, time=clock or MockTime()
    )


def _append_at(log, make_batch, timestamps_ms, records=5, epoch=3):
    for ts in timestamps_ms:
        log.append_as_leader(bytearray(make_batch(records, timestamp_ms=ts)), epoch)


def _bases(log):
    return [segment.base_offset for segment in log.segments]


def test_segment_rolls_once_batch_timestamps_pass_segment_ms_since_the_first_batch(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_ms=HOUR_MS))
    # The first batch's max timestamp is 1_004; the third batch (max 1_004 + an hour + 1)
    # has waited more than segment.ms, so it starts a new segment.
    _append_at(log, make_batch, [1_000, 1_000 + HOUR_MS, 1_001 + HOUR_MS, 2_000 + HOUR_MS])
    assert _bases(log) == [0, 10]
    _append_at(log, make_batch, [1_000 + 2 * HOUR_MS, 1_005 + 2 * HOUR_MS])
    assert _bases(log) == [0, 10, 25]


def test_segment_ms_less_the_segment_jitter_decides_the_roll(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_ms=HOUR_MS))
    _append_at(log, make_batch, [1_000])
    log.active_segment.roll_jitter_ms = 600_000
    _append_at(log, make_batch, [1_000 + HOUR_MS - 600_000])
    assert _bases(log) == [0]
    _append_at(log, make_batch, [1_001 + HOUR_MS - 600_000])
    assert _bases(log) == [0, 10]


def test_segment_jitter_is_drawn_below_segment_jitter_ms(tmp_path):
    log = _open(tmp_path, LogConfig(segment_ms=HOUR_MS, segment_jitter_ms=1_000))
    jitters = set()
    for _ in range(30):
        log.truncate_fully_and_start_at(0)
        jitters.add(log.active_segment.roll_jitter_ms)
    assert all(0 <= j < 1_000 for j in jitters) and len(jitters) > 1


def test_batches_without_timestamps_roll_by_the_log_clock_since_segment_creation(tmp_path, make_batch):
    clock = MockTime(monotonic_ms=5_000)
    log = _open(tmp_path, LogConfig(segment_ms=HOUR_MS), clock)
    _append_at(log, make_batch, [-1, -1], records=1)
    clock.advance(HOUR_MS)
    _append_at(log, make_batch, [-1], records=1)
    assert _bases(log) == [0]
    clock.advance(1)
    _append_at(log, make_batch, [-1], records=1)
    assert _bases(log) == [0, 3]


def test_segment_rolls_when_the_time_index_is_full(tmp_path, make_batch):
    # 48 bytes: 4 time index slots (one kept for the roll entry), 6 offset index entries.
    log = _open(tmp_path, LogConfig(index_interval_bytes=0, segment_index_bytes=48))
    _append_at(log, make_batch, [1_000 * i for i in range(1, 8)])
    assert _bases(log) == [0, 15, 30]
    first = log.segments[0]
    assert first.index.entries == 3 and not first.index.is_full
    assert first.time_index.entries == 3 and first.time_index.last_entry == (3_004, 14)


def test_roll_writes_the_max_timestamp_into_the_time_index_of_the_old_segment(tmp_path, make_batch):
    batch_size = len(make_batch(5))
    log = _open(tmp_path, LogConfig(index_interval_bytes=10 * batch_size))
    _append_at(log, make_batch, [1_000, 9_000, 2_000])
    assert log.active_segment.time_index.entries == 0  # no append reached index.interval.bytes
    log.roll("test")
    assert log.segments[0].time_index.last_entry == (9_004, 9)


def test_fetch_offset_by_timestamp_searches_from_the_first_segment_reaching_the_target(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_bytes=400))
    _append_at(log, make_batch, [1_000 * i for i in range(1, 11)])
    assert len(log.segments) > 3
    assert log.fetch_offset_by_timestamp(0) == TimestampAndOffset(1_000, 0, 3)
    assert log.fetch_offset_by_timestamp(6_003) == TimestampAndOffset(6_003, 28, 3)
    assert log.fetch_offset_by_timestamp(6_005) == TimestampAndOffset(7_000, 30, 3)
    assert log.fetch_offset_by_timestamp(10_005) is None


def test_fetch_offset_by_timestamp_skips_records_below_the_log_start_offset(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_bytes=400))
    _append_at(log, make_batch, [1_000 * i for i in range(1, 11)])
    log._log_start_offset = 22  # as DeleteRecords would leave it
    assert log.fetch_offset_by_timestamp(0).offset == 22


def test_max_timestamp_lookup_returns_the_first_record_with_the_largest_timestamp(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_bytes=400))
    assert log.fetch_offset_by_timestamp(MAX_TIMESTAMP) is None
    # Two batches reach 9_004 (records at ts, ts + 1, ..., ts + 4): the first one wins.
    _append_at(log, make_batch, [5_000, 1_000, 9_000, 2_000, 9_000, 3_000, 4_000])
    assert len(log.segments) > 1
    assert log.fetch_offset_by_timestamp(MAX_TIMESTAMP) == TimestampAndOffset(9_004, 14, 3)


def test_other_negative_timestamps_are_rejected(tmp_path):
    log = _open(tmp_path, LogConfig())
    with pytest.raises(ValueError):
        log.fetch_offset_by_timestamp(-7)


def test_time_lookups_survive_a_restart(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(segment_bytes=400))
    _append_at(log, make_batch, [1_000 * i for i in range(1, 11)])
    log.flush_sync()
    log.close()
    reopened = _open(tmp_path, LogConfig(segment_bytes=400))
    assert reopened.fetch_offset_by_timestamp(6_003) == TimestampAndOffset(6_003, 28, 3)
    assert reopened.fetch_offset_by_timestamp(MAX_TIMESTAMP) == TimestampAndOffset(10_004, 49, 3)


def test_broker_log_roll_hours_and_ms_set_segment_ms_and_jitter():
    assert LogConfig.from_broker(KafkaConfig({"node.id": 1})).segment_ms == 168 * HOUR_MS
    config = LogConfig.from_broker(
        KafkaConfig({"node.id": 1, "log.roll.hours": "2", "log.roll.jitter.hours": "1"})
    )
    assert (config.segment_ms, config.segment_jitter_ms) == (2 * HOUR_MS, HOUR_MS)
    config = LogConfig.from_broker(
        KafkaConfig({"node.id": 1, "log.roll.hours": "2", "log.roll.ms": "1234", "log.roll.jitter.ms": "5"})
    )
    assert (config.segment_ms, config.segment_jitter_ms) == (1234, 5)
    assert (
        LogConfig.from_broker(
            KafkaConfig({"node.id": 1, "log.roll.ms": "1234"}), {"segment.ms": "99"}
        ).segment_ms
        == 99
    )
