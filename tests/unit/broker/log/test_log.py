from __future__ import annotations

import pytest

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnexpectedAppendOffsetError, UnifiedLog
from kafkette.protocol.errors import KafkaStorageError, MessageTooLargeError, OffsetOutOfRangeError
from kafkette.protocol.record_batch import CorruptRecordError, iter_batches
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("flights", 0)


def _open(tmp_path, config, *, clean=True, recovery_point=0, log_start_offset=0):
    return UnifiedLog.open(
        tmp_path / "flights-0",
        TP,
        config,
        recovery_point=recovery_point,
        log_start_offset=log_start_offset,
        had_clean_shutdown=clean,
    )


def _append(log, make_batch, batches=1, records=5, epoch=3):
    infos = []
    for _ in range(batches):
        infos.append(log.append_as_leader(bytearray(make_batch(records)), epoch))
    return infos


def _base_offsets(data):
    return [header.base_offset for _, header in iter_batches(data)]


def test_leader_append_assigns_contiguous_offsets_across_batches_and_segments(
    tmp_path, make_batch, small_config
):
    log = _open(tmp_path, small_config)
    info = log.append_as_leader(bytearray(make_batch(3) + make_batch(2)), 7)
    assert (info.first_offset, info.last_offset, info.num_records) == (0, 4, 5)
    assert info.log_append_time_ms == -1 and info.max_timestamp == 1_002
    infos = _append(log, make_batch, batches=20)
    assert [i.first_offset for i in infos] == list(range(5, 105, 5))
    assert log.log_end_offset == 105
    assert len(log.segments) > 1
    headers = [h for s in log.segments for _, h in iter_batches(s.read(0, 1 << 20))]
    assert [h.base_offset for h in headers] == [0, 3] + list(range(5, 105, 5))
    assert {h.partition_leader_epoch for h in headers[:2]} == {7}


def test_segment_rolls_when_segment_bytes_would_be_exceeded(tmp_path, make_batch):
    batch_size = len(make_batch(5))
    log = _open(tmp_path, LogConfig(segment_bytes=batch_size * 3))
    _append(log, make_batch, batches=7)
    assert [s.base_offset for s in log.segments] == [0, 15, 30]
    assert all(s.size <= batch_size * 3 for s in log.segments)
    assert sorted(p.name for p in log.dir.iterdir())[0] == "00000000000000000000.index"


def test_segment_rolls_when_index_is_full(tmp_path, make_batch):
    # 36 bytes: 4 offset index entries; the time index (3 slots, one kept for the roll) never
    # fills because every batch has the same timestamps.
    log = _open(tmp_path, LogConfig(index_interval_bytes=0, segment_index_bytes=36))
    _append(log, make_batch, batches=9)
    assert [s.base_offset for s in log.segments] == [0, 20, 40]


def test_read_from_middle_of_batch_returns_containing_batch(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=30)
    fetch = log.read(77, 1 << 20)
    assert fetch.first_batch_offset == 75
    assert _base_offsets(fetch.records)[0] == 75


def test_read_respects_max_offset_exclusive(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=4)
    assert _base_offsets(log.read(0, 1 << 20, max_offset_exclusive=10).records) == [0, 5]
    assert log.read(10, 1 << 20, max_offset_exclusive=10).records == b""


def test_read_at_log_end_offset_is_empty(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=2)
    fetch = log.read(10, 1 << 20)
    assert fetch.records == b"" and fetch.first_batch_offset == 10


def test_read_out_of_range_raises_offset_out_of_range(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config, log_start_offset=0)
    _append(log, make_batch, batches=2)
    with pytest.raises(OffsetOutOfRangeError):
        log.read(11, 1 << 20)
    log.truncate_fully_and_start_at(50)
    with pytest.raises(OffsetOutOfRangeError):
        log.read(49, 1 << 20)
    assert log.read(50, 1 << 20).records == b""


def test_message_larger_than_max_message_bytes_is_rejected(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(max_message_bytes=200))
    with pytest.raises(MessageTooLargeError):
        log.append_as_leader(bytearray(make_batch(1, value_bytes=500)), 0)
    assert log.log_end_offset == 0


def test_corrupt_batch_is_rejected_on_leader_append(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    data = bytearray(make_batch(2))
    data[-1] ^= 0xFF
    with pytest.raises(CorruptRecordError):
        log.append_as_leader(data, 0)


def test_follower_append_skips_batches_below_log_end_offset(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    leader_data = make_batch(5, base_offset=0, leader_epoch=2) + make_batch(5, base_offset=5, leader_epoch=2)
    info = log.append_as_follower(leader_data)
    assert (info.first_offset, info.last_offset) == (0, 9)
    again = leader_data + make_batch(3, base_offset=10, leader_epoch=2)
    info = log.append_as_follower(again)
    assert (info.first_offset, info.last_offset, info.num_records) == (10, 12, 3)
    assert log.append_as_follower(leader_data) is None
    assert log.log_end_offset == 13
    assert _base_offsets(log.read(0, 1 << 20).records) == [0, 5, 10]


def test_follower_append_below_log_end_offset_raises_unexpected_append_offset(
    tmp_path, make_batch, small_config
):
    log = _open(tmp_path, small_config)
    log.append_as_follower(make_batch(5, base_offset=0))
    with pytest.raises(UnexpectedAppendOffsetError) as excinfo:
        log.append_as_follower(make_batch(5, base_offset=3))
    assert excinfo.value.log_end_offset == 5


def test_follower_append_accepts_a_gap_left_by_compaction_on_the_leader(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    log.append_as_follower(make_batch(5, base_offset=0))
    info = log.append_as_follower(make_batch(5, base_offset=7) + make_batch(2, base_offset=20))
    assert (info.first_offset, info.last_offset) == (7, 21)
    assert log.log_end_offset == 22
    assert _base_offsets(log.read(5, 1 << 20).records) == [7, 20]
    assert _base_offsets(log.read(12, 1 << 20).records) == [20]


def test_follower_append_ignores_trailing_partial_batch(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    info = log.append_as_follower(make_batch(5, base_offset=0) + make_batch(5, base_offset=5)[:40])
    assert info.last_offset == 4 and log.log_end_offset == 5


def test_truncate_to_across_segments_drops_later_segments(tmp_path, make_batch):
    batch_size = len(make_batch(5))
    log = _open(tmp_path, LogConfig(segment_bytes=batch_size * 2, index_interval_bytes=0))
    _append(log, make_batch, batches=6)
    assert [s.base_offset for s in log.segments] == [0, 10, 20]
    log.flush_sync()
    assert log.truncate_to(12)
    assert [s.base_offset for s in log.segments] == [0, 10]
    assert log.log_end_offset == 10  # the batch 10..14 straddled 12 and was dropped
    assert log.recovery_point == 10
    assert not (log.dir / "00000000000000000020.log").exists()
    assert log.append_as_leader(bytearray(make_batch(5)), 4).first_offset == 10
    assert not log.truncate_to(100)


def test_truncate_to_before_first_segment_empties_the_log(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=3)
    log.truncate_to(0)
    assert log.log_end_offset == 0 and log.size_in_bytes == 0 and len(log.segments) == 1


def test_truncate_fully_and_start_at_sets_every_offset(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=3)
    log.truncate_fully_and_start_at(1000)
    assert (log.log_start_offset, log.log_end_offset, log.recovery_point) == (1000, 1000, 1000)
    assert [s.base_offset for s in log.segments] == [1000]
    assert log.append_as_leader(bytearray(make_batch(1)), 0).first_offset == 1000


def test_reopen_after_clean_close_keeps_everything(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=25)
    before = log.read(0, 1 << 20).records
    bases = [s.base_offset for s in log.segments]
    log.flush_sync()
    log.close()
    reopened = _open(tmp_path, small_config, clean=True)
    assert reopened.log_end_offset == 125 and reopened.recovery_point == 125
    assert [s.base_offset for s in reopened.segments] == bases
    assert reopened.read(0, 1 << 20).records == before
    assert reopened.append_as_leader(bytearray(make_batch(1)), 0).first_offset == 125


def test_torn_tail_is_dropped_on_unclean_reopen(tmp_path, make_batch, small_config, caplog):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=3)
    log.close()
    active = tmp_path / "flights-0" / "00000000000000000000.log"
    size = active.stat().st_size
    with open(active, "r+b") as fh:
        fh.truncate(size - 7)
    reopened = _open(tmp_path, small_config, clean=False)
    assert reopened.log_end_offset == 10
    assert active.stat().st_size == size - len(make_batch(5))
    assert "dropped" in caplog.text


def test_flipped_byte_in_last_batch_is_dropped_on_unclean_reopen(
    tmp_path, make_batch, small_config, flip_byte
):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=3)
    log.close()
    active = tmp_path / "flights-0" / "00000000000000000000.log"
    flip_byte(active, -3, 0x01)
    reopened = _open(tmp_path, small_config, clean=False, recovery_point=0)
    assert reopened.log_end_offset == 10
    assert _base_offsets(reopened.read(0, 1 << 20).records) == [0, 5]


def test_corrupt_batch_in_a_segment_with_later_segments_takes_the_log_offline_and_keeps_every_file(
    tmp_path, make_batch, flip_byte
):
    batch_size = len(make_batch(5))
    config = LogConfig(segment_bytes=batch_size * 2, index_interval_bytes=0)
    log = _open(tmp_path, config)
    _append(log, make_batch, batches=6)
    log.close()
    part = tmp_path / "flights-0"
    middle = part / "00000000000000000010.log"
    flip_byte(middle, batch_size + 65, 0xFF)
    sizes = {p.name: p.stat().st_size for p in part.glob("*.log")}
    reopened = _open(tmp_path, config, clean=False, recovery_point=10)
    assert reopened.is_offline
    assert str(middle) in reopened.offline_reason and f"position {batch_size}" in reopened.offline_reason
    assert {p.name: p.stat().st_size for p in part.glob("*.log")} == sizes  # nothing truncated or deleted
    assert reopened.recovery_point == 10
    with pytest.raises(KafkaStorageError):
        reopened.read(0, 1 << 20)
    with pytest.raises(KafkaStorageError):
        reopened.append_as_leader(bytearray(make_batch(1)), 3)
    with pytest.raises(KafkaStorageError):
        reopened.append_as_follower(make_batch(1))


def test_corrupt_batch_below_the_recovery_point_in_the_last_segment_takes_the_log_offline(
    tmp_path, make_batch, flip_byte
):
    log = _open(tmp_path, LogConfig(index_interval_bytes=0))
    _append(log, make_batch, batches=4)
    log.close()
    active = tmp_path / "flights-0" / "00000000000000000000.log"
    data = flip_byte(active, len(make_batch(5)) + 65, 0xFF)
    (tmp_path / "flights-0" / "00000000000000000000.index").unlink()  # forces the scan of that segment
    reopened = _open(tmp_path, LogConfig(index_interval_bytes=0), clean=True, recovery_point=20)
    assert reopened.is_offline
    assert active.stat().st_size == len(data)


def test_torn_tail_past_the_recovery_point_is_still_truncated(tmp_path, make_batch, flip_byte):
    log = _open(tmp_path, LogConfig(index_interval_bytes=0))
    _append(log, make_batch, batches=4)
    log.close()
    active = tmp_path / "flights-0" / "00000000000000000000.log"
    flip_byte(
        active, 3 * len(make_batch(5)) + 65, 0xFF
    )  # the last batch, offsets 15..19, past recovery point 10
    reopened = _open(tmp_path, LogConfig(index_interval_bytes=0), clean=False, recovery_point=10)
    assert not reopened.is_offline
    assert reopened.log_end_offset == 15


def test_torn_tail_followed_only_by_an_empty_rolled_segment_is_truncated_and_the_empty_segment_dropped(
    tmp_path, make_batch, flip_byte
):
    log = _open(tmp_path, LogConfig(index_interval_bytes=0))
    _append(log, make_batch, batches=4)
    log.roll("test")  # a crash right after a roll leaves an empty segment at offset 20
    log.close()
    part = tmp_path / "flights-0"
    active = part / "00000000000000000000.log"
    flip_byte(
        active, 3 * len(make_batch(5)) + 65, 0xFF
    )  # the last batch, offsets 15..19, past recovery point 10
    reopened = _open(tmp_path, LogConfig(index_interval_bytes=0), clean=False, recovery_point=10)
    assert not reopened.is_offline
    assert reopened.log_end_offset == 15 and [s.base_offset for s in reopened.segments] == [0]
    assert not (part / "00000000000000000020.log").exists()
    assert reopened.append_as_leader(bytearray(make_batch(1)), 0).first_offset == 15


def test_read_meeting_a_crc_mismatch_takes_the_log_offline(tmp_path, make_batch, caplog):
    log = _open(tmp_path, LogConfig(index_interval_bytes=0))
    _append(log, make_batch, batches=4)
    segment = log.segments[0]
    with open(segment.log_path, "r+b") as f:  # a bit flips on disk under a running broker
        f.seek(len(make_batch(5)) + 70)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0x10]))
    assert _base_offsets(log.read(0, 10).records) == [0]  # min one message: the intact first batch
    with pytest.raises(KafkaStorageError):
        log.read(5, 1 << 20)
    assert log.is_offline and "CRC" in log.offline_reason and str(segment.log_path) in log.offline_reason
    assert f"at position {len(make_batch(5))} " in log.offline_reason  # the corrupt batch, not the read start
    assert any(r.levelname == "ERROR" and str(segment.log_path) in r.getMessage() for r in caplog.records)
    with pytest.raises(KafkaStorageError):
        log.read(0, 10)  # offline now, even for the intact batch
    with pytest.raises(KafkaStorageError):
        log.append_as_leader(bytearray(make_batch(1)), 3)


async def test_offline_log_is_not_flushed(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(flush_messages=1))
    _append(log, make_batch, batches=2)
    log.mark_offline("test")
    await log.flush()
    log.flush_sync()
    assert log.recovery_point == 0


def test_segments_below_recovery_point_are_not_rescanned(tmp_path, make_batch, flip_byte):
    batch_size = len(make_batch(5))
    config = LogConfig(segment_bytes=batch_size * 2, index_interval_bytes=0)
    log = _open(tmp_path, config)
    _append(log, make_batch, batches=6)
    log.close()
    first = tmp_path / "flights-0" / "00000000000000000000.log"
    flip_byte(first, -3, 0x01)  # corrupt payload, header intact: only a CRC scan would notice
    reopened = _open(tmp_path, config, clean=False, recovery_point=20)
    assert reopened.log_end_offset == 30


def test_missing_or_corrupt_index_is_rebuilt_on_open(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=4)
    expected = log.read(12, 1 << 20).records
    log.close()
    index = tmp_path / "flights-0" / "00000000000000000000.index"
    index.unlink()
    reopened = _open(tmp_path, small_config)
    assert reopened.segments[0].index.entries == 4
    assert reopened.read(12, 1 << 20).records == expected
    reopened.close()
    index.write_bytes(b"\x00\x00\x00")
    again = _open(tmp_path, small_config)
    assert again.segments[0].index.entries == 4
    assert again.read(12, 1 << 20).records == expected


def test_stray_temporary_files_are_deleted_on_open(tmp_path, small_config):
    part = tmp_path / "flights-0"
    part.mkdir()
    (part / "00000000000000000000.log.cleaned").write_bytes(b"x")
    (part / "whatever.tmp").write_bytes(b"x")
    (part / "00000000000000000099.index").write_bytes(b"")
    (part / "00000000000000000099.timeindex").write_bytes(b"")
    (part / "leader-epoch-checkpoint").write_bytes(b"0\n0\n")
    _open(tmp_path, small_config)
    assert sorted(p.name for p in part.iterdir()) == [
        "00000000000000000000.index",
        "00000000000000000000.log",
        "00000000000000000000.timeindex",
        "leader-epoch-checkpoint",
    ]


def test_log_start_offset_checkpoint_is_honoured(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=4)
    log.close()
    reopened = _open(tmp_path, small_config, log_start_offset=7)
    assert reopened.log_start_offset == 7
    assert reopened.read(7, 1 << 20).first_batch_offset == 5
    with pytest.raises(OffsetOutOfRangeError):
        reopened.read(6, 1 << 20)


async def test_flush_advances_recovery_point_and_resets_unflushed_messages(tmp_path, make_batch):
    log = _open(tmp_path, LogConfig(flush_messages=10))
    _append(log, make_batch, batches=1)
    assert log.unflushed_messages == 5 and not log.flush_needed
    _append(log, make_batch, batches=1)
    assert log.flush_needed
    await log.flush(up_to=5)
    assert log.recovery_point == 5
    await log.flush()
    assert log.recovery_point == 10 and log.unflushed_messages == 0 and not log.flush_needed


def test_delete_removes_directory(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch, batches=1)
    log.delete()
    assert not (tmp_path / "flights-0").exists()


def test_leader_append_accepts_immutable_bytes(tmp_path, make_batch, small_config):
    log = _open(tmp_path, small_config)
    _append(log, make_batch)
    info = log.append_as_leader(make_batch(2), 9)
    assert (info.first_offset, info.last_offset) == (5, 6)
    assert log.read(5, 1 << 20).first_batch_offset == 5


@pytest.mark.parametrize(
    ("byte", "what"), [(16, "invalid batch header"), (8, "invalid batch header"), (70, "CRC mismatch")]
)
def test_read_meeting_a_bad_magic_length_or_crc_in_a_later_batch_takes_the_log_offline(
    tmp_path, make_batch, byte, what
):
    log = _open(tmp_path, LogConfig(index_interval_bytes=1 << 20))
    _append(log, make_batch, batches=4)
    batch_size = len(make_batch(5))
    with open(
        log.segments[0].log_path, "r+b"
    ) as f:  # magic (16), length (8) or payload (70) of the third batch
        f.seek(2 * batch_size + byte)
        value = f.read(1)[0]
        f.seek(2 * batch_size + byte)
        f.write(bytes([value ^ 0x7F]))
    with pytest.raises(KafkaStorageError):
        log.read(10, 1 << 20)  # a consumer reaching the third batch
    assert what in log.offline_reason and f"at position {2 * batch_size} " in log.offline_reason
