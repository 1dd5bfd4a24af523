"""LogSegment's time index: maintenance on append, rebuild, truncation, lookups by timestamp."""

from __future__ import annotations

import os
import struct

from kafkette.broker.log.log_segment import LogSegment, TimestampAndOffset


def _segment(tmp_path, base_offset=0, index_interval_bytes=0, max_index_size_bytes=4096):
    return LogSegment(
        tmp_path,
        base_offset,
        index_interval_bytes=index_interval_bytes,
        max_index_size_bytes=max_index_size_bytes,
    )


def _append(segment, make_batch, timestamps_ms, records=5):
    """One batch of ``records`` records per timestamp; record i of a batch has timestamp ts + i."""
    for ts in timestamps_ms:
        offset = segment.next_offset()
        segment.append(make_batch(records, base_offset=offset, timestamp_ms=ts), offset + records - 1)


def _entries(segment):
    return [segment.time_index.entry(i) for i in range(segment.time_index.entries)]


def test_time_index_gets_the_max_timestamp_so_far_on_the_offset_index_cadence(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 5_000, 3_000, 7_000])
    # index.interval.bytes=0: every append is on the cadence, but 3_000 does not raise the max.
    assert _entries(segment) == [(1_004, 4), (5_004, 9), (7_004, 19)]
    assert segment.max_timestamp_so_far == 7_004
    assert segment.offset_of_max_timestamp_so_far == 19
    assert segment.largest_timestamp == 7_004


def test_time_index_entry_added_every_index_interval_bytes(tmp_path, make_batch):
    batch_size = len(make_batch(5))
    segment = _segment(tmp_path, index_interval_bytes=batch_size * 3)
    _append(segment, make_batch, [1_000 * i for i in range(1, 11)])
    assert [offset for _, offset in _entries(segment)] == [19, 34, 49]
    assert segment.index.entries == 3


def test_largest_timestamp_of_an_empty_segment_is_the_log_file_mtime_in_ms(tmp_path):
    segment = _segment(tmp_path)
    os.utime(segment.log_path, ns=(1_234_567_000_000, 1_234_567_000_000))
    assert segment.max_timestamp_so_far == -1
    assert segment.largest_timestamp == 1_234_567


def test_on_become_inactive_segment_writes_the_max_into_the_kept_slot(tmp_path, make_batch):
    segment = _segment(tmp_path, max_index_size_bytes=12 * 3)
    _append(segment, make_batch, [1_000, 2_000, 3_000, 4_000])
    assert segment.time_index.is_full and segment.time_index.entries == 2
    segment.on_become_inactive_segment()
    assert segment.time_index.last_entry == (4_004, 19)


def test_find_offset_by_timestamp_returns_the_exact_first_record_at_or_after_target(tmp_path, make_batch):
    segment = _segment(tmp_path, base_offset=100)
    _append(segment, make_batch, [1_000, 2_000, 3_000, 4_000])
    leader_epoch = -1
    assert segment.find_offset_by_timestamp(0) == TimestampAndOffset(1_000, 100, leader_epoch)
    assert segment.find_offset_by_timestamp(2_002) == TimestampAndOffset(2_002, 107, leader_epoch)
    assert segment.find_offset_by_timestamp(2_005) == TimestampAndOffset(3_000, 110, leader_epoch)
    assert segment.find_offset_by_timestamp(4_004) == TimestampAndOffset(4_004, 119, leader_epoch)
    assert segment.find_offset_by_timestamp(4_005) is None


def test_find_offset_by_timestamp_with_out_of_order_timestamps_returns_first_matching_offset(
    tmp_path, make_batch
):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [5_000, 1_000, 9_000, 2_000])
    assert segment.find_offset_by_timestamp(1_500).offset == 0
    assert segment.find_offset_by_timestamp(6_000).offset == 10
    assert segment.find_offset_by_timestamp(6_000, starting_offset=12).offset == 12


def test_read_max_timestamp_and_offset_returns_the_record_with_the_largest_timestamp(tmp_path, make_batch):
    segment = _segment(tmp_path, base_offset=50)
    assert segment.read_max_timestamp_and_offset() is None
    _append(segment, make_batch, [1_000, 9_000, 2_000])
    assert segment.read_max_timestamp_and_offset() == TimestampAndOffset(9_004, 59, -1)


def test_missing_time_index_is_rebuilt_by_recover(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 2_000, 3_000])
    expected = _entries(segment)
    segment.close()
    segment.time_index_path.unlink()
    reopened = _segment(tmp_path)
    assert reopened.needs_recovery
    assert reopened.recover(1 << 20) == 0
    assert _entries(reopened) == expected
    assert reopened.max_timestamp_so_far == 3_004
    assert reopened.find_offset_by_timestamp(2_001).offset == 6


def test_corrupt_time_index_is_deleted_and_rebuilt(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 2_000, 3_000])
    expected = _entries(segment)
    segment.close()
    segment.time_index_path.write_bytes(struct.pack(">qiqi", 9_000, 4, 1_000, 9))  # decreasing timestamps
    reopened = _segment(tmp_path)
    assert reopened.needs_recovery and reopened.time_index.entries == 0
    reopened.recover(1 << 20)
    assert _entries(reopened) == expected


def test_time_index_pointing_past_the_log_is_rebuilt(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 2_000, 3_000])
    segment.close()
    segment.time_index_path.write_bytes(struct.pack(">qi", 9_000, 500))
    reopened = _segment(tmp_path)
    assert reopened.needs_recovery and reopened.time_index.entries == 0
    reopened.recover(1 << 20)
    assert reopened.time_index.last_entry == (3_004, 14)


def test_max_timestamp_is_restored_on_reopen_from_index_and_tail_scan(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 8_000, 3_000])
    segment.close()
    reopened = _segment(tmp_path)
    assert not reopened.needs_recovery
    assert (reopened.max_timestamp_so_far, reopened.offset_of_max_timestamp_so_far) == (8_004, 9)


def test_truncate_to_drops_time_index_entries_and_lowers_the_max_timestamp(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _append(segment, make_batch, [1_000, 2_000, 3_000, 4_000])
    segment.truncate_to(12)
    assert all(offset < 10 for _, offset in _entries(segment))
    assert segment.max_timestamp_so_far == 2_004
    assert segment.find_offset_by_timestamp(3_000) is None
    _append(segment, make_batch, [2_500])
    assert segment.max_timestamp_so_far == 2_504


def test_time_waited_for_roll_uses_the_first_batch_timestamp_else_creation_time(tmp_path, make_batch):
    segment = LogSegment(tmp_path, 0, index_interval_bytes=0, max_index_size_bytes=4096, created_ms=10_000)
    assert segment.time_waited_for_roll(now_ms=12_500, max_timestamp_in_messages=99_999) == 2_500
    _append(segment, make_batch, [50_000])
    assert segment.time_waited_for_roll(now_ms=12_500, max_timestamp_in_messages=60_000) == 9_996


def test_one_append_of_several_batches_tracks_the_first_batch_carrying_the_max(tmp_path, make_batch):
    segment = _segment(tmp_path)
    records = (
        make_batch(5, base_offset=0, timestamp_ms=3_000)
        + make_batch(5, base_offset=5, timestamp_ms=1_000)
        + make_batch(5, base_offset=10, timestamp_ms=3_000)
    )
    segment.append(records, 14)
    assert (segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far) == (3_004, 4)
    assert _entries(segment) == [(3_004, 4)]
    assert segment.find_offset_by_timestamp(2_000).offset == 0
