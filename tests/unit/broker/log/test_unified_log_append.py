"""UnifiedLog.append_as_leader as one place: record checks (keys on compacted topics,
message.timestamp.difference.max.ms, batch offset ranges), producer state, offsets and
the flush request, and the follower append feeding the same producer state."""

from __future__ import annotations

import struct

import msgpack
import pytest
from broker_fakes import make_batch

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.protocol.errors import (
    DuplicateSequenceNumberError,
    InvalidRecordError,
    InvalidTimestampError,
    OutOfOrderSequenceNumberError,
)
from kafkette.protocol.record_batch import (
    RECORDS_MSGPACK_MASK,
    build_batch,
    build_batch_from_payload,
    compute_crc,
    iter_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("flights", 0)
NOW_MS = 1_700_000_000_000
MINUTE_MS = 60_000
HOUR_MS = 3_600_000


def _open(tmp_path, **config):
    return UnifiedLog.open(
        tmp_path / "flights-0",
        TP,
        LogConfig(**config),
        had_clean_shutdown=True,
        time=MockTime(wall_ms=NOW_MS),
    )


def _batch_at(*timestamps_ms, keys=None, **producer):
    keys = keys or [b"k%d" % i for i in range(len(timestamps_ms))]
    return bytearray(
        build_batch([(key, b"v", None, ts) for key, ts in zip(keys, timestamps_ms, strict=True)], **producer)
    )


def _idempotent(records, base_sequence, producer_id=7, epoch=0):
    return bytearray(
        make_batch(records, producer_id=producer_id, producer_epoch=epoch, base_sequence=base_sequence)
    )


# --- message.timestamp.before.max.ms and message.timestamp.after.max.ms (KIP-937) -------------------


@pytest.mark.parametrize("offset_ms", [-MINUTE_MS - 1, MINUTE_MS + 1])
def test_a_create_time_record_outside_the_timestamp_bounds_is_invalid_timestamp(tmp_path, offset_ms):
    log = _open(tmp_path, message_timestamp_before_max_ms=MINUTE_MS, message_timestamp_after_max_ms=MINUTE_MS)
    # the bad record is the second: the header's base and max timestamps alone cannot show it
    records = (
        _batch_at(NOW_MS, NOW_MS + offset_ms, NOW_MS)
        if offset_ms < 0
        else _batch_at(NOW_MS, NOW_MS + offset_ms)
    )
    with pytest.raises(InvalidTimestampError, match="rejected due to invalid timestamp") as raised:
        log.append_as_leader(records, 0)
    (record_error,) = raised.value.record_errors  # the record is named in the record errors, as Kafka's
    assert record_error[0] == 1 and record_error[1].startswith(
        f"Timestamp {NOW_MS + offset_ms} of message with offset 1"
    )
    assert log.log_end_offset == 0 and log.size_in_bytes == 0
    info = log.append_as_leader(_batch_at(NOW_MS - MINUTE_MS, NOW_MS + MINUTE_MS), 0)
    assert (info.first_offset, info.last_offset) == (0, 1)


def test_by_default_old_timestamps_pass_and_those_over_an_hour_ahead_do_not(tmp_path):
    log = _open(tmp_path / "default")
    assert log.append_as_leader(_batch_at(1, NOW_MS + HOUR_MS), 0).last_offset == 1
    with pytest.raises(InvalidTimestampError, match="rejected due to invalid timestamp") as raised:
        log.append_as_leader(_batch_at(1, NOW_MS + HOUR_MS + 1), 0)
    assert raised.value.record_errors[0][1].startswith(f"Timestamp {NOW_MS + HOUR_MS + 1} ")
    stamped = _open(
        tmp_path / "append-time",
        message_timestamp_before_max_ms=0,
        message_timestamp_after_max_ms=0,
        message_timestamp_type="LogAppendTime",
    )
    assert stamped.append_as_leader(_batch_at(1, 2), 0).log_append_time_ms == NOW_MS


def test_a_record_without_a_timestamp_is_not_checked(tmp_path):
    log = _open(tmp_path, message_timestamp_before_max_ms=MINUTE_MS)
    assert log.append_as_leader(_batch_at(-1, NOW_MS), 0).last_offset == 1


def test_the_timestamp_bounds_are_checked_after_recompression_too(tmp_path):
    log = _open(tmp_path, compression_type="zstd", message_timestamp_before_max_ms=MINUTE_MS)
    with pytest.raises(InvalidTimestampError):
        log.append_as_leader(_batch_at(NOW_MS, 5), 0)
    assert log.size_in_bytes == 0


# --- keys on compacted topics and batch header checks ----------------------------------------------


@pytest.mark.parametrize("policy", ["compact", "compact,delete"])
def test_a_keyless_record_on_a_compacted_topic_is_invalid_record_and_nothing_is_written(tmp_path, policy):
    log = _open(tmp_path, cleanup_policy=policy)
    with pytest.raises(InvalidRecordError, match="Compacted topic cannot accept message without key"):
        log.append_as_leader(_batch_at(1, 2, 3, keys=[b"a", None, b"c"]), 0)
    assert log.log_end_offset == 0 and log.size_in_bytes == 0
    assert log.append_as_leader(_batch_at(1, 2, keys=[b"a", b"b"]), 0).last_offset == 1


def test_keyless_records_are_fine_on_a_delete_topic(tmp_path):
    assert _open(tmp_path).append_as_leader(_batch_at(1, keys=[None]), 0).last_offset == 0


def test_a_batch_whose_offset_range_differs_from_its_record_count_is_invalid_record(tmp_path):
    payload = msgpack.packb([[0, 0, b"k", b"v", []], [1, 0, b"k", b"v", []]], use_bin_type=True)
    batch = bytearray(
        build_batch_from_payload(
            payload, record_count=2, base_timestamp=1, max_timestamp=1, attributes=RECORDS_MSGPACK_MASK
        )
    )
    struct.pack_into(">i", batch, 23, 4)  # last offset delta 4 for 2 records, with a CRC to match
    struct.pack_into(">I", batch, 17, compute_crc(batch, 0, len(batch)))
    log = _open(tmp_path)
    with pytest.raises(InvalidRecordError, match="Inconsistent batch offset range"):
        log.append_as_leader(batch, 0)
    assert log.log_end_offset == 0


def test_an_idempotent_batch_without_a_sequence_is_invalid_record(tmp_path):
    log = _open(tmp_path)
    with pytest.raises(InvalidRecordError, match="Invalid sequence number -1"):
        log.append_as_leader(_idempotent(2, base_sequence=-1), 0)


# --- producer state inside the log ------------------------------------------------------------------


def test_a_retried_batch_gets_its_original_offsets_and_nothing_is_written(tmp_path):
    log = _open(tmp_path)
    first = log.append_as_leader(_idempotent(3, 0), 1)
    log.append_as_leader(_idempotent(2, 3), 1)
    size = log.size_in_bytes
    retry = log.append_as_leader(_idempotent(3, 0), 1)
    assert (retry.first_offset, retry.last_offset, retry.valid_bytes) == (
        first.first_offset,
        first.last_offset,
        0,
    )
    assert log.size_in_bytes == size and log.log_end_offset == 5
    with pytest.raises(OutOfOrderSequenceNumberError):
        log.append_as_leader(_idempotent(1, 9), 1)
    with pytest.raises(DuplicateSequenceNumberError):
        log.append_as_leader(_idempotent(3, 0) + _idempotent(1, 5), 1)
    assert log.log_end_offset == 5


def test_a_retried_batch_is_answered_with_the_original_batch_timestamp_as_its_log_append_time(tmp_path):
    log = _open(tmp_path)
    first = log.append_as_leader(_idempotent(2, 0), 1)
    assert first.log_append_time_ms == -1, "CreateTime: no log append time"
    retry = log.append_as_leader(_idempotent(2, 0), 1)
    assert retry.log_append_time_ms == 1_001, "Kafka answers the original batch's max timestamp"
    stamped = _open(tmp_path / "stamped", message_timestamp_type="LogAppendTime")
    original = stamped.append_as_leader(_idempotent(1, 0), 1)
    assert (
        stamped.append_as_leader(_idempotent(1, 0), 1).log_append_time_ms
        == original.log_append_time_ms
        == NOW_MS
    )


def test_follower_appends_and_truncation_keep_the_producer_state(tmp_path):
    leader = _open(tmp_path / "leader")
    for sequence in (0, 2, 4):
        leader.append_as_leader(_idempotent(2, sequence), 1)
    follower = _open(tmp_path / "follower")
    follower.append_as_follower(leader.read(0, 1 << 20).records)
    assert follower.producer_state_manager.entries[7].last_seq == 5
    # a follower that becomes leader answers a retry with the leader's offsets
    assert follower.append_as_leader(_idempotent(2, 4), 2).first_offset == 4
    follower.truncate_to(4)
    assert follower.producer_state_manager.entries[7].last_seq == 3
    assert (
        follower.append_as_leader(_idempotent(2, 4), 2).first_offset == 4
    )  # appended again after the truncation
    follower.truncate_fully_and_start_at(6)
    assert follower.producer_state_manager.entries == {}


def test_the_producer_state_is_rebuilt_when_the_log_is_opened(tmp_path):
    log = _open(tmp_path, segment_bytes=200)
    for sequence in range(0, 12, 2):
        log.append_as_leader(_idempotent(2, sequence), 1)
    assert len(log.segments) > 2
    log.close()
    reopened = _open(tmp_path, segment_bytes=200)
    assert reopened.producer_state_manager.entries[7].last_seq == 11
    assert reopened.append_as_leader(_idempotent(2, 10), 1).first_offset == 10  # a retry after a restart


# --- offsets, epochs and the flush request in the same append ---------------------------------------


async def test_the_append_assigns_offsets_and_epoch_and_requests_the_flush_flush_messages_asks_for(tmp_path):
    log = _open(tmp_path, flush_messages=4)
    log.append_as_leader(bytearray(make_batch(3)), 5)
    await log.pending_flush  # a new leader epoch: its checkpoint is written first
    assert not log.leader_epoch_checkpoint_dirty and log.recovery_point == 0
    log.append_as_leader(bytearray(make_batch(3)), 5)
    assert log.pending_flush is not None
    await log.pending_flush
    assert log.recovery_point == 6
    stored = [
        (h.base_offset, h.partition_leader_epoch) for _, h in iter_batches(log.read(0, 1 << 20).records)
    ]
    assert stored == [(0, 5), (3, 5)]
    await log.stop_flushing(5)
    log.append_as_leader(bytearray(make_batch(5)), 5)
    assert log.pending_flush is None  # stopped: LogManager's shutdown flushes what is left
