from __future__ import annotations

import struct

import pytest

from kafkette.broker.log.abstract_index import CorruptIndexError
from kafkette.broker.log.time_index import TimeIndex


def _index(tmp_path, base_offset=100, max_bytes=1200):
    return TimeIndex(tmp_path / "x.timeindex", base_offset, max_bytes)


def test_lookup_on_empty_index_returns_no_timestamp_and_base_offset(tmp_path):
    index = _index(tmp_path)
    assert index.lookup(5_000) == (-1, 100)
    assert index.last_entry == (-1, 100)


def test_lookup_returns_largest_entry_with_timestamp_not_above_target(tmp_path):
    index = _index(tmp_path)
    for i in range(1, 40):
        assert index.maybe_append(1_000 * i, 100 + 10 * i)
    assert index.lookup(999) == (-1, 100)
    assert index.lookup(1_000) == (1_000, 110)
    assert index.lookup(1_999) == (1_000, 110)
    assert index.lookup(25_500) == (25_000, 350)
    assert index.lookup(10**12) == (39_000, 490)


def test_maybe_append_only_writes_when_timestamp_grows(tmp_path):
    index = _index(tmp_path)
    assert index.maybe_append(500, 105)
    assert not index.maybe_append(500, 110)
    assert index.entries == 1
    assert index.maybe_append(501, 110)
    assert index.size_in_bytes == 24 == index.path.stat().st_size


def test_maybe_append_rejects_smaller_timestamp_or_offset(tmp_path):
    index = _index(tmp_path)
    index.maybe_append(500, 120)
    with pytest.raises(ValueError):
        index.maybe_append(400, 130)
    with pytest.raises(ValueError):
        index.maybe_append(600, 119)
    with pytest.raises(ValueError):
        index.maybe_append(600, 99)


def test_truncate_to_drops_entries_at_and_after_offset_in_memory_and_file(tmp_path):
    index = _index(tmp_path)
    for i in range(1, 6):
        index.maybe_append(i * 1_000, 100 + i * 10)
    index.truncate_to(130)
    assert index.entries == 2
    assert index.lookup(10_000) == (2_000, 120)
    assert index.path.stat().st_size == 24
    index.maybe_append(2_500, 125)
    index.close()
    reopened = _index(tmp_path)
    assert [reopened.entry(i) for i in range(reopened.entries)] == [(1_000, 110), (2_000, 120), (2_500, 125)]


def test_is_full_keeps_the_last_slot_for_the_roll_entry(tmp_path):
    index = _index(tmp_path, max_bytes=12 * 3)
    index.maybe_append(1, 100)
    assert not index.is_full
    index.maybe_append(2, 101)
    assert index.is_full
    with pytest.raises(ValueError):
        index.maybe_append(3, 102)
    assert index.maybe_append(3, 102, skip_full_check=True)
    assert index.entries == 3


def test_torn_file_is_reported_corrupt(tmp_path):
    (tmp_path / "x.timeindex").write_bytes(b"\0" * 13)
    with pytest.raises(CorruptIndexError):
        _index(tmp_path)


def test_decreasing_timestamps_are_reported_corrupt(tmp_path):
    (tmp_path / "x.timeindex").write_bytes(struct.pack(">qiqi", 2_000, 1, 1_000, 2))
    with pytest.raises(CorruptIndexError):
        _index(tmp_path)


def test_offset_below_base_offset_is_reported_corrupt(tmp_path):
    (tmp_path / "x.timeindex").write_bytes(struct.pack(">qi", 2_000, -3))
    with pytest.raises(CorruptIndexError):
        _index(tmp_path)


def test_sanity_check_rejects_offsets_past_the_segment(tmp_path):
    index = _index(tmp_path)
    index.maybe_append(1_000, 150)
    index.sanity_check(151)
    with pytest.raises(CorruptIndexError):
        index.sanity_check(150)


def test_room_is_segment_index_bytes_over_twelve_with_at_least_two_entries_and_negative_refused(tmp_path):
    assert TimeIndex(tmp_path / "a.timeindex", 0, 100).max_entries == 8
    assert TimeIndex(tmp_path / "b.timeindex", 0, 12).max_entries == 2
    with pytest.raises(ValueError, match="max_index_size_bytes must be >= 0"):
        TimeIndex(tmp_path / "c.timeindex", 0, -1)
    assert not (tmp_path / "c.timeindex").exists()
