from __future__ import annotations

from kafkette.broker.log.log_segment import LogSegment
from kafkette.protocol.record_batch import BASE_OFFSET, iter_batches


def _segment(tmp_path, base_offset=0, index_interval_bytes=0):
    return LogSegment(
        tmp_path, base_offset, index_interval_bytes=index_interval_bytes, max_index_size_bytes=4096
    )


def _fill(segment, make_batch, batches, records=5):
    """Append ``batches`` batches of ``records`` records from segment.next_offset()."""
    for _ in range(batches):
        offset = segment.next_offset()
        segment.append(make_batch(records, base_offset=offset), offset + records - 1)


def _base_offsets(data):
    return [header.base_offset for _, header in iter_batches(data)]


def test_files_are_named_by_twenty_digit_base_offset(tmp_path):
    segment = _segment(tmp_path, 42)
    assert segment.log_path.name == "00000000000000000042.log"
    assert segment.index_path.name == "00000000000000000042.index"
    assert segment.next_offset() == 42 and segment.size == 0


def test_read_from_middle_of_batch_returns_the_containing_batch(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 4)
    data = segment.read(7, 10_000)
    assert _base_offsets(data) == [5, 10, 15]
    assert segment.next_offset() == 20


def test_read_stops_at_max_offset_exclusive_and_max_bytes(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 4)
    batch_size = len(make_batch(5))
    assert _base_offsets(segment.read(0, 10_000, max_offset_exclusive=10)) == [0, 5]
    assert _base_offsets(segment.read(0, batch_size * 2 + 10)) == [0, 5]
    assert segment.read(10, 10_000, max_offset_exclusive=10) == b""


def test_read_returns_first_batch_larger_than_max_bytes_only_with_min_one_message(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 2)
    assert _base_offsets(segment.read(0, 10, min_one_message=True)) == [0]
    assert segment.read(0, 10, min_one_message=False) == b""


def test_translate_offset_uses_index_and_returns_none_past_end(tmp_path, make_batch):
    segment = _segment(tmp_path, 100)
    _fill(segment, make_batch, 10)
    assert segment.index.entries == 10  # index.interval.bytes=0: every append gets an entry
    position, header = segment.translate_offset(133)
    assert header.base_offset == 130
    assert BASE_OFFSET.unpack_from(segment.log_path.read_bytes(), position)[0] == 130
    assert segment.translate_offset(150) is None


def test_index_entry_added_every_index_interval_bytes(tmp_path, make_batch):
    batch_size = len(make_batch(5))
    segment = _segment(tmp_path, index_interval_bytes=batch_size * 3)
    _fill(segment, make_batch, 10)
    assert [segment.index.entry(i)[0] for i in range(segment.index.entries)] == [19, 34, 49]
    assert _base_offsets(segment.read(27, 10_000)) == [25, 30, 35, 40, 45]


def test_truncate_to_drops_straddling_batch(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 4)
    batch_size = len(make_batch(5))
    removed = segment.truncate_to(12)
    assert removed == 2 * batch_size
    assert segment.next_offset() == 10
    assert segment.size == 2 * batch_size
    assert segment.index.lookup(100)[0] < 10
    assert segment.truncate_to(10) == 0
    _fill(segment, make_batch, 1)
    assert _base_offsets(segment.read(0, 10_000)) == [0, 5, 10]


def test_recover_truncates_torn_tail_and_rebuilds_index(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 3)
    good_size = segment.size
    segment.close()
    with open(tmp_path / "00000000000000000000.log", "ab") as fh:
        fh.write(make_batch(5, base_offset=15)[:30])
    (tmp_path / "00000000000000000000.index").unlink()
    reopened = _segment(tmp_path)
    assert reopened.needs_recovery
    assert reopened.recover(1_000_000) == 30
    assert reopened.size == good_size
    assert reopened.next_offset() == 15
    assert reopened.index.entries == 3
    assert reopened.last_recovery_error


def test_recover_truncates_at_batch_with_bad_crc(tmp_path, make_batch, flip_byte):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 3)
    batch_size = len(make_batch(5))
    flip_byte(segment.log_path, batch_size + 70, 0xFF)
    assert segment.recover(1_000_000) == 2 * batch_size
    assert segment.next_offset() == 5
    assert "CRC" in segment.last_recovery_error


def test_recover_rejects_batch_larger_than_max_message_bytes(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 2)
    size = segment.size
    assert segment.recover(len(make_batch(5)) - 1) == size
    assert segment.next_offset() == 0


def test_recover_of_valid_segment_keeps_everything(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 3)
    size = segment.size
    assert segment.recover(1_000_000) == 0
    assert segment.size == size and segment.next_offset() == 15


def test_reopen_finds_next_offset_and_flags_torn_tail(tmp_path, make_batch):
    segment = _segment(tmp_path, 10)
    _fill(segment, make_batch, 3)
    segment.flush()
    segment.close()
    reopened = _segment(tmp_path, 10)
    assert reopened.next_offset() == 25 and not reopened.needs_recovery
    reopened.close()
    with open(tmp_path / "00000000000000000010.log", "ab") as fh:
        fh.write(b"\x00" * 20)
    assert _segment(tmp_path, 10).needs_recovery


def test_delete_removes_both_files(tmp_path, make_batch):
    segment = _segment(tmp_path)
    _fill(segment, make_batch, 1)
    segment.delete()
    assert list(tmp_path.iterdir()) == []


def test_a_short_write_is_completed_from_where_it_stopped(tmp_path, make_batch, monkeypatch):
    import os

    from kafkette.broker.log import log_segment

    segment = _segment(tmp_path)
    _fill(segment, make_batch, 1)
    real_pwrite = os.pwrite
    calls = []

    def short_pwrite(fd, data, offset):  # the kernel may write less than asked (a full disk, a signal)
        calls.append(len(data))
        return real_pwrite(fd, bytes(data)[:7] if len(calls) == 1 else data, offset)

    monkeypatch.setattr(log_segment.os, "pwrite", short_pwrite)
    batch = make_batch(5, base_offset=5)
    segment.append(batch, 9)
    monkeypatch.undo()
    assert calls[:2] == [len(batch), len(batch) - 7]  # then the index entries
    assert _base_offsets(segment.read(0, 10_000)) == [0, 5] and segment.next_offset() == 10
    assert segment.size == segment.log_path.stat().st_size
