from __future__ import annotations

import pytest

from kafkette.broker.log.abstract_index import CorruptIndexError
from kafkette.broker.log.offset_index import OffsetIndex


def test_lookup_on_empty_index_returns_base_offset_and_position_zero(tmp_path):
    index = OffsetIndex(tmp_path / "0.index", 100, 1024)
    assert index.lookup(150) == (100, 0)
    assert index.lookup(5) == (100, 0)


def test_lookup_returns_largest_entry_not_above_target(tmp_path):
    index = OffsetIndex(tmp_path / "0.index", 100, 1024)
    for i in range(1, 50):
        index.append(100 + i * 10, i * 1000)
    assert index.lookup(100) == (100, 0)
    assert index.lookup(109) == (100, 0)
    assert index.lookup(110) == (110, 1000)
    assert index.lookup(255) == (250, 15000)
    assert index.lookup(10_000) == (590, 49000)


def test_append_rejects_offsets_that_do_not_increase(tmp_path):
    index = OffsetIndex(tmp_path / "0.index", 0, 1024)
    index.append(10, 100)
    with pytest.raises(ValueError):
        index.append(10, 200)
    with pytest.raises(ValueError):
        index.append(5, 200)


def test_truncate_to_drops_entries_at_and_after_offset_in_memory_and_file(tmp_path):
    path = tmp_path / "0.index"
    index = OffsetIndex(path, 0, 1024)
    for i in range(1, 6):
        index.append(i * 10, i * 100)
    index.truncate_to(30)
    assert index.entries == 2
    assert index.lookup(45) == (20, 200)
    assert path.stat().st_size == 16
    index.close()
    assert OffsetIndex(path, 0, 1024).entries == 2


def test_entries_survive_reopen(tmp_path):
    path = tmp_path / "0.index"
    index = OffsetIndex(path, 7, 1024)
    index.append(8, 61)
    index.append(20, 500)
    index.flush()
    index.close()
    reopened = OffsetIndex(path, 7, 1024)
    assert [reopened.entry(i) for i in range(reopened.entries)] == [(8, 61), (20, 500)]


def test_is_full_after_max_entries(tmp_path):
    index = OffsetIndex(tmp_path / "0.index", 0, 16)
    index.append(1, 0)
    assert not index.is_full
    index.append(2, 10)
    assert index.is_full
    with pytest.raises(ValueError):
        index.append(3, 20)


def test_file_size_not_multiple_of_entry_size_is_corrupt(tmp_path):
    path = tmp_path / "0.index"
    path.write_bytes(b"\x00" * 12)
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0, 1024)


def test_offsets_not_increasing_are_corrupt(tmp_path):
    path = tmp_path / "0.index"
    path.write_bytes(bytes.fromhex("00000005 00000010 00000003 00000020".replace(" ", "")))
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0, 1024)


def test_sanity_check_rejects_positions_past_end_of_log(tmp_path):
    index = OffsetIndex(tmp_path / "0.index", 0, 1024)
    index.append(3, 500)
    index.sanity_check(501)
    with pytest.raises(CorruptIndexError):
        index.sanity_check(500)


def test_delete_removes_file(tmp_path):
    path = tmp_path / "0.index"
    index = OffsetIndex(path, 0, 1024)
    index.delete()
    assert not path.exists()


def test_room_is_segment_index_bytes_over_eight_with_at_least_one_entry_and_negative_refused(tmp_path):
    assert OffsetIndex(tmp_path / "a.index", 0, 100).max_entries == 12
    assert OffsetIndex(tmp_path / "b.index", 0, 0).max_entries == 1
    with pytest.raises(ValueError, match="max_index_size_bytes must be >= 0"):
        OffsetIndex(tmp_path / "c.index", 0, -1)
    assert not (tmp_path / "c.index").exists()
