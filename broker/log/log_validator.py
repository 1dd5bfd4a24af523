"""The leader's validation of producer batches and their offsets: one walk over the batches.

Owns everything between "the bytes are whole CRC-valid batches" (``record_batch.validate_batches``)
and "the bytes can be written": per batch, the header checks Kafka makes of a client's
batch (offset range against the record count, a sequence for an idempotent producer,
``max.message.bytes``), the record checks that need the records decoded (keys on a
compacted topic, CreateTime timestamps within ``message.timestamp.before.max.ms`` and ``after.max.ms`` of
the broker's clock, offset deltas), the topic's ``compression.type`` and
``message.timestamp.type``, and writing the offsets and the leader epoch into the
batches.  Records are decoded at most once per batch, and only when a check or a
recompression needs them.  Does not own producer id/sequence state
(``ProducerStateManager``) or writing (``LocalLog``): ``UnifiedLog.append_as_leader``
calls this between the two.

The three conversion cases, as Kafka's ``LogValidator.validateMessagesAndAssignOffsets``:

A. topic ``compression.type=producer`` (the default), or the batch already uses the
   topic codec: the batch is kept byte for byte (offsets and epoch written in place,
   outside the CRC), records are decoded only for the checks above (the hot path
   decodes nothing);
B. the topic codec differs from the batch codec (``uncompressed`` means none): the
   records are decoded, checked, re-encoded in the batch's own record encoding (Kafkette's
   msgpack or Kafka's varint records, ``record_batch.RECORDS_MSGPACK_MASK``) and compressed
   with the topic codec in that encoding's framing; the header is rebuilt with the same
   timestamps, producer id, epoch and sequence;
C. ``message.timestamp.type=LogAppendTime``: every batch gets the timestamp-type bit and
   the broker's clock as ``max_timestamp`` (CRC recomputed); consumers then see that
   time on every record of the batch, and the produce response carries it as
   ``log_append_time_ms``.  CreateTime leaves timestamps as sent.

Kafka concept: ``org.apache.kafka.storage.internals.log.LogValidator``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any, NamedTuple

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_config import LogConfig
from kafkette.common.config_def import LONG_MAX
from kafkette.protocol.compression import (
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_ZSTD,
    NAME_BY_CODEC,
    check_codec,
    topic_codec,
)
from kafkette.protocol.errors import InvalidRecordError, InvalidTimestampError, MessageTooLargeError
from kafkette.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    BASE_OFFSET,
    COMPRESSION_CODEC_MASK,
    CONTROL_MASK,
    CRC_OFFSET,
    LEADER_EPOCH,
    TIMESTAMP_TYPE_MASK,
    BatchHeader,
    CorruptRecordError,
    compute_crc,
    decode_rows,
    iter_batches,
    rebuild_batch,
)
from kafkette.protocol.topic_partition import TopicPartition

NO_TIMESTAMP = -1  # RecordBatch.NO_TIMESTAMP: a record without a timestamp is not checked

LOG_APPEND_TIME = "LogAppendTime"
"""``message.timestamp.type`` value that makes the broker stamp its own clock."""

_ATTRIBUTES = struct.Struct(">h")
_MAX_TIMESTAMP = struct.Struct(">q")
_MAX_TIMESTAMP_OFFSET = 35
_CRC = struct.Struct(">I")


class ValidationResult(NamedTuple):
    """The batches to append, offsets assigned, and what the walk found.

    Attributes:
        records: the batches, CRCs valid, offsets and leader epoch written; the input
            bytearray itself unless a batch was recompressed.
        positions: ``[(position, header)]`` of every batch in ``records``, in order (the
            headers as received: producer fields and offset deltas, not the new offsets).
        last_offset: the last offset assigned.
        num_records: records in the batches.
        max_timestamp: largest batch ``max_timestamp`` after conversion (ms).
        offset_of_max_timestamp: last offset of the first batch carrying it.
        log_append_time_ms: the stamped broker time (ms), or -1 under CreateTime.
        recompressed: number of batches recompressed to the topic codec.
    """

    records: bytearray
    positions: list[tuple[int, BatchHeader]]
    last_offset: int
    num_records: int
    max_timestamp: int
    offset_of_max_timestamp: int
    log_append_time_ms: int
    recompressed: int


def validate_messages_and_assign_offsets(
    records: bytearray,
    positions: Sequence[tuple[int, BatchHeader]],
    *,
    tp: TopicPartition,
    config: LogConfig,
    first_offset: int,
    leader_epoch: int,
    now_ms: int,
    origin: AppendOrigin = AppendOrigin.CLIENT,
) -> ValidationResult:
    """Check and convert producer batches and assign their offsets (cases A-C above).

    Args:
        records: the batches of one Produce partition, already checked whole and CRC-valid
            by ``record_batch.validate_batches``; written in place.
        positions: ``validate_batches(records)``.
        tp: the partition (for error messages).
        config: its LogConfig (``compression.type``, ``message.timestamp.type``,
            ``message.timestamp.before.max.ms`` and ``after.max.ms``, ``cleanup.policy``,
            ``max.message.bytes``).
        first_offset: offset of the first record (the log end offset).
        leader_epoch: the leader's epoch, written into every batch.
        now_ms: the broker's wall clock (ms since the epoch).
        origin: who appends: only ``AppendOrigin.COORDINATOR`` may write control batches.

    Returns:
        The ValidationResult.

    Raises:
        InvalidRecordError: a batch's offset range differs from its record count, an
            idempotent batch has no sequence, a client wrote a control batch, or a record has
            no key on a compacted topic (INVALID_RECORD).
        InvalidTimestampError: a CreateTime record is more than ``message.timestamp.before.max.ms``
            before ``now_ms`` or ``message.timestamp.after.max.ms`` after it (INVALID_TIMESTAMP).
        MessageTooLargeError: a batch (after recompression) is larger than ``max.message.bytes``.
        UnsupportedCompressionTypeError: a batch's attributes name an unknown codec.
        CorruptRecordError: a batch to decode does not decompress or its records do not match
            its header (CORRUPT_MESSAGE).
        ValueError: an unknown ``compression_type`` (topic configs are validated before).
    """
    checks = _RecordChecks(tp, config, now_ms)
    target = topic_codec(config.compression_type)
    for _, header in positions:
        _check_batch(header, tp, origin)
    recompressed = 0
    if target is not None and any(header.compression != target for _, header in positions):
        parts: list[bytes] = []
        for pos, header in positions:
            rows = (
                checks.rows(records, pos, header) if checks.needed or header.compression != target else None
            )
            if header.compression == target:
                parts.append(bytes(records[pos : pos + header.size_in_bytes]))
            else:
                parts.append(_recompress(rows or [], header, target, _level(config, target)))
                recompressed += 1
        records = bytearray(b"".join(parts))
        positions = list(iter_batches(records))
        checks.needed = False  # every batch was checked on the way
    log_append = config.message_timestamp_type == LOG_APPEND_TIME
    offset = first_offset
    num_records = 0
    max_timestamp, offset_of_max = -1, first_offset
    for pos, header in positions:
        if checks.needed or checks.past_latest(header):
            checks.rows(records, pos, header)
        if header.size_in_bytes > config.max_message_bytes:
            raise MessageTooLargeError(
                f"batch of {header.size_in_bytes} bytes is larger than max.message.bytes "
                f"{config.max_message_bytes} of {tp}"
            )
        BASE_OFFSET.pack_into(records, pos, offset)
        LEADER_EPOCH.pack_into(records, pos + 12, leader_epoch)
        batch_max = header.max_timestamp
        if log_append:
            batch_max = now_ms
            _ATTRIBUTES.pack_into(records, pos + ATTRIBUTES_OFFSET, header.attributes | TIMESTAMP_TYPE_MASK)
            _MAX_TIMESTAMP.pack_into(records, pos + _MAX_TIMESTAMP_OFFSET, now_ms)
            _CRC.pack_into(records, pos + CRC_OFFSET, compute_crc(records, pos, header.size_in_bytes))
        last = offset + header.last_offset_delta
        if batch_max > max_timestamp:
            max_timestamp, offset_of_max = batch_max, last
        num_records += header.records_count
        offset = last + 1
    return ValidationResult(
        records,
        list(positions),
        offset - 1,
        num_records,
        max_timestamp,
        offset_of_max,
        now_ms if log_append else -1,
        recompressed,
    )


def check_control_batch_origin(tp: TopicPartition, origin: AppendOrigin) -> None:
    """Refuse a control batch that does not come from the coordinator.

    Raises:
        InvalidRecordError: ``origin`` is not ``AppendOrigin.COORDINATOR`` (Kafka's
            ``LogValidator.validateBatch``: "Clients are not allowed to write control records").
    """
    if origin != AppendOrigin.COORDINATOR:
        raise InvalidRecordError(f"Clients are not allowed to write control records in topic partition {tp}")


def _check_batch(header: BatchHeader, tp: TopicPartition, origin: AppendOrigin) -> None:
    """Kafka's ``LogValidator.validateBatch`` for a v2 batch (header fields only), and its codec:
    only the coordinator may write control batches, a client's idempotent batch needs a sequence."""
    check_codec(header.compression)
    if header.attributes & CONTROL_MASK:
        check_control_batch_origin(tp, origin)
        return
    if header.last_offset_delta + 1 != header.records_count:
        raise InvalidRecordError(
            f"Inconsistent batch offset range [0, {header.last_offset_delta}] and count of records "
            f"{header.records_count} in topic partition {tp}"
        )
    if header.producer_id >= 0 and header.base_sequence < 0:
        raise InvalidRecordError(
            f"Invalid sequence number {header.base_sequence} in record batch with producer id "
            f"{header.producer_id} in topic partition {tp}"
        )


class _RecordChecks:
    """The per-record checks of one topic: keys when compacted, CreateTime timestamps against
    ``message.timestamp.before.max.ms`` and ``message.timestamp.after.max.ms`` (KIP-937; a
    record without a timestamp, -1, is not checked).  ``needed`` is True when records must be
    decoded: a compacted topic or a finite ``before`` bound; the ``after`` bound alone (finite
    by default, one hour) is checked on each batch's max timestamp first (``past_latest``)."""

    def __init__(self, tp: TopicPartition, config: LogConfig, now_ms: int) -> None:
        self.tp = tp
        self.now_ms = now_ms
        self.compacted = config.is_compacted
        create_time = config.message_timestamp_type != LOG_APPEND_TIME
        before, after = config.message_timestamp_before_max_ms, config.message_timestamp_after_max_ms
        self.lower_bounded = create_time and before < LONG_MAX
        self.upper_bounded = create_time and after < LONG_MAX
        self.earliest_ms = now_ms - before if self.lower_bounded else -(1 << 63)
        self.earliest_shown_ms = now_ms - before  # Kafka's message shows now - before also when unbounded
        self.latest_ms = now_ms + after if self.upper_bounded else LONG_MAX
        self.needed = self.compacted or self.lower_bounded

    def past_latest(self, header: BatchHeader) -> bool:
        """True when the batch's max timestamp is past ``message.timestamp.after.max.ms``: its
        records are then decoded (``rows``) to name each one that is (INVALID_TIMESTAMP)."""
        return self.upper_bounded and header.max_timestamp > self.latest_ms

    def rows(self, records: bytearray, pos: int, header: BatchHeader) -> list[list[Any]]:
        """Decode the batch's rows once, check their shape, keys and timestamps, and return them.

        Every record is checked and each one that fails is named (Kafka's ``ApiRecordError``s,
        collected by ``LogValidator.processRecordErrors``): the exception's ``record_errors`` is
        ``[(index in the batch, message)]``, and it is INVALID_TIMESTAMP when any record has a
        bad timestamp, else INVALID_RECORD.
        """
        rows = decode_rows(records, pos, header)
        base_timestamp = header.base_timestamp
        record_errors: list[tuple[int, str]] = []
        bad_timestamp = False
        for index, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != 5 or row[0] != index or not isinstance(row[1], int):
                raise CorruptRecordError(
                    f"record {index} of the {NAME_BY_CODEC.get(header.compression, '?')} batch at producer "
                    f"offset {header.base_offset} is malformed (expected [offset_delta={index}, "
                    "timestamp_delta, key, value, headers])"
                )
            if self.compacted and row[2] is None:
                record_errors.append(
                    (index, f"Compacted topic cannot accept message without key in topic partition {self.tp}")
                )
                continue
            timestamp = base_timestamp + row[1]
            if timestamp != NO_TIMESTAMP and not self.earliest_ms <= timestamp <= self.latest_ms:
                bad_timestamp = True
                record_errors.append(
                    (
                        index,
                        f"Timestamp {timestamp} of message with offset {index} is out of range. The "
                        f"timestamp should be within [{self.earliest_shown_ms}, {self.latest_ms}]",
                    )
                )
        if record_errors:
            raise _record_validation_error(record_errors, bad_timestamp)
        return rows


def _level(config: LogConfig, codec: int) -> int | None:
    """The topic's level for ``codec`` (``compression.gzip.level``, ``compression.lz4.level``,
    ``compression.zstd.level``; KIP-390), None for a codec without levels."""
    return {
        COMPRESSION_GZIP: config.compression_gzip_level,
        COMPRESSION_LZ4: config.compression_lz4_level,
        COMPRESSION_ZSTD: config.compression_zstd_level,
    }.get(codec)


def _record_validation_error(
    record_errors: list[tuple[int, str]], bad_timestamp: bool
) -> InvalidRecordError | InvalidTimestampError:
    """The error of a batch some of whose records failed their checks, carrying them as
    ``record_errors`` (the Produce answer's ``record_errors``, v8+).

    Kafka concept: ``LogValidator.processRecordErrors`` and ``RecordValidationException``.
    """
    exc: InvalidRecordError | InvalidTimestampError
    if bad_timestamp:
        exc = InvalidTimestampError("One or more records have been rejected due to invalid timestamp")
    else:
        shown = ", ".join(
            f"RecordError(batchIndex={index}, message='{message}')" for index, message in record_errors[:3]
        )
        exc = InvalidRecordError(
            f"One or more records have been rejected due to {len(record_errors)} record errors in total, "
            f"and only showing the first three errors at most: [{shown}]"
        )
    exc.record_errors = record_errors  # type: ignore[union-attr]
    return exc


def _recompress(rows: list[list[Any]], header: BatchHeader, target: int, level: int | None = None) -> bytes:
    """Rebuild a batch with its (checked) rows compressed by ``target`` (case B), in the batch's
    own record encoding (msgpack, or Kafka's varint records in Kafka's framing); offsets and the
    leader epoch are written afterwards.

    Raises:
        CorruptRecordError: a row Kafka's encoding cannot hold (a key that is not bytes, say).
    """
    try:
        return rebuild_batch(
            header, rows, attributes=(header.attributes & ~COMPRESSION_CODEC_MASK) | target, level=level
        )
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(
            f"records of the batch at producer offset {header.base_offset} cannot be re-encoded: {exc}"
        ) from exc
