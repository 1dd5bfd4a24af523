"""Retention and the log start offset on a real UnifiedLog in a temp dir, with explicit timestamps."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_segment import LogSegment
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.errors import OffsetOutOfRangeError
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("flights", 0)
BASE_CONFIG = LogConfig(
    segment_bytes=1 << 20,
    index_interval_bytes=0,
    segment_index_bytes=4096,
    retention_ms=-1,
    retention_bytes=-1,
)


def _log(tmp_path, **overrides) -> UnifiedLog:
    return UnifiedLog.open(
        tmp_path / "flights-0", TP, replace(BASE_CONFIG, **overrides), had_clean_shutdown=True
    )


def _segments_of_one_batch(log, make_batch, timestamps_ms):
    """One 5-record batch per segment, stamped with ``timestamps_ms``; the active segment stays empty."""
    for ts in timestamps_ms:
        log.append_as_leader(bytearray(make_batch(5, timestamp_ms=ts)), 1)
        log.roll("test")


def _files(log):
    return sorted(p.name for p in log.dir.iterdir())


def test_largest_timestamp_is_the_max_batch_timestamp_tracked_on_append_and_after_reopen(
    tmp_path, make_batch
):
    segment = LogSegment(tmp_path, 0, index_interval_bytes=0, max_index_size_bytes=4096)
    segment.append(make_batch(3, timestamp_ms=5_000), 2)
    segment.append(make_batch(2, timestamp_ms=2_000, base_offset=3), 4)
    assert segment.largest_timestamp == 5_002
    segment.close()
    reopened = LogSegment(tmp_path, 0, index_interval_bytes=0, max_index_size_bytes=4096)
    assert reopened.largest_timestamp == 5_002
    reopened.append(make_batch(1, timestamp_ms=9_000, base_offset=5), 5)
    assert reopened.largest_timestamp == 9_000
    reopened.recover(1 << 20)
    assert reopened.largest_timestamp == 9_000
    reopened.close()


def test_empty_segment_largest_timestamp_is_its_file_mtime(tmp_path):
    segment = LogSegment(tmp_path, 0, index_interval_bytes=0, max_index_size_bytes=4096)
    assert segment.largest_timestamp == int(segment.log_path.stat().st_mtime * 1000)
    segment.close()


def test_retention_ms_deletes_expired_segments_below_the_high_watermark_and_advances_log_start(
    tmp_path, make_batch
):
    log = _log(tmp_path, retention_ms=10_000)
    _segments_of_one_batch(log, make_batch, [1_000, 2_000, 30_000])
    log.update_high_watermark(log.log_end_offset)
    renamed = log.delete_old_segments(now_ms=20_000)  # 1_004 and 2_004 are older than 10 s; 30_004 is not
    assert [s.base_offset for s in log.segments] == [10, 15]
    assert log.log_start_offset == 10
    assert sorted(p.name for p in renamed) == [
        f"{base:020d}.{kind}.deleted" for base in (0, 5) for kind in ("index", "log", "timeindex")
    ]
    assert all(p.exists() for p in renamed)
    with pytest.raises(OffsetOutOfRangeError):
        log.read(9, 1 << 20)
    assert log.read(10, 1 << 20).first_batch_offset == 10


def test_retention_never_deletes_the_active_segment(tmp_path, make_batch):
    log = _log(tmp_path, retention_ms=0, retention_bytes=0)
    log.append_as_leader(bytearray(make_batch(5, timestamp_ms=1_000)), 1)
    log.update_high_watermark(log.log_end_offset)
    assert log.delete_old_segments(now_ms=10**12) == []
    assert [s.base_offset for s in log.segments] == [0]
    assert log.log_start_offset == 0


def test_retention_keeps_segments_holding_offsets_at_or_above_the_high_watermark(tmp_path, make_batch):
    log = _log(tmp_path, retention_ms=0)
    _segments_of_one_batch(log, make_batch, [1_000, 1_000, 1_000])
    log.update_high_watermark(7)  # inside the second segment [5, 10)
    log.delete_old_segments(now_ms=10**12)
    assert [s.base_offset for s in log.segments] == [5, 10, 15]
    log.update_high_watermark(10)
    log.delete_old_segments(now_ms=10**12)
    assert [s.base_offset for s in log.segments] == [10, 15]
    assert log.log_start_offset == 10


def test_retention_bytes_deletes_oldest_segments_until_the_log_fits(tmp_path, make_batch):
    log = _log(tmp_path)
    _segments_of_one_batch(log, make_batch, [1_000] * 4)
    log.update_high_watermark(log.log_end_offset)
    segment_size = log.segments[0].size
    log.update_config(replace(log.config, retention_bytes=2 * segment_size + segment_size // 2))
    log.delete_old_segments(now_ms=0)  # as Kafka: a segment goes only if the rest still holds retention.bytes
    assert [s.base_offset for s in log.segments] == [5, 10, 15, 20]
    log.update_config(replace(log.config, retention_bytes=2 * segment_size))
    log.delete_old_segments(now_ms=0)
    assert [s.base_offset for s in log.segments] == [10, 15, 20]
    assert log.size_in_bytes == log.config.retention_bytes
    assert log.log_start_offset == 10


def test_unlimited_retention_and_compact_only_policy_keep_everything(tmp_path, make_batch):
    log = _log(tmp_path)
    _segments_of_one_batch(log, make_batch, [1_000] * 3)
    log.update_high_watermark(log.log_end_offset)
    assert log.delete_old_segments(now_ms=10**12) == []
    log.update_config(replace(log.config, retention_ms=0, retention_bytes=0, cleanup_policy="compact"))
    assert log.delete_old_segments(now_ms=10**12) == []
    assert [s.base_offset for s in log.segments] == [0, 5, 10, 15]
    log.update_config(replace(log.config, cleanup_policy="compact,delete"))
    log.delete_old_segments(now_ms=10**12)
    assert [s.base_offset for s in log.segments] == [15]


def test_maybe_increment_log_start_offset_moves_up_only_and_not_past_the_high_watermark(tmp_path, make_batch):
    log = _log(tmp_path)
    _segments_of_one_batch(log, make_batch, [1_000] * 3)
    log.update_high_watermark(12)
    assert log.maybe_increment_log_start_offset(7, "test") is True
    assert log.log_start_offset == 7
    assert log.maybe_increment_log_start_offset(3, "test") is False
    assert log.log_start_offset == 7
    with pytest.raises(OffsetOutOfRangeError):
        log.maybe_increment_log_start_offset(13, "test")
    with pytest.raises(OffsetOutOfRangeError):
        log.read(6, 1 << 20)
    assert log.read(7, 1 << 20).first_batch_offset == 5  # the batch holding offset 7


def test_segments_wholly_below_the_log_start_offset_are_deleted_under_any_policy(tmp_path, make_batch):
    log = _log(tmp_path, cleanup_policy="compact")
    _segments_of_one_batch(log, make_batch, [1_000] * 3)
    log.update_high_watermark(log.log_end_offset)
    log.maybe_increment_log_start_offset(12, "test")
    log.delete_old_segments(now_ms=0)
    assert [s.base_offset for s in log.segments] == [10, 15]  # [10, 15) still holds offset 12
    assert log.log_start_offset == 12


def test_deleted_segment_files_of_every_index_kind_are_renamed(tmp_path, make_batch):
    log = _log(tmp_path, retention_ms=0)
    _segments_of_one_batch(log, make_batch, [1_000, 1_000])
    (log.dir / "00000000000000000000.timeindex").write_bytes(b"")
    log.update_high_watermark(5)
    renamed = log.delete_old_segments(now_ms=10**12)
    assert sorted(p.name for p in renamed) == [
        "00000000000000000000.index.deleted",
        "00000000000000000000.log.deleted",
        "00000000000000000000.timeindex.deleted",
    ]
    assert "00000000000000000000.log" not in _files(log)


def test_log_start_offset_after_retention_survives_a_reopen(tmp_path, make_batch):
    log = _log(tmp_path, retention_ms=0)
    _segments_of_one_batch(log, make_batch, [1_000, 1_000])
    log.update_high_watermark(log.log_end_offset)
    log.delete_old_segments(now_ms=10**12)
    log.close()
    reopened = UnifiedLog.open(
        tmp_path / "flights-0", TP, BASE_CONFIG, log_start_offset=0, had_clean_shutdown=True
    )
    assert not any(p.name.endswith(".deleted") for p in reopened.dir.iterdir())
    assert (reopened.log_start_offset, reopened.log_end_offset) == (10, 10)
