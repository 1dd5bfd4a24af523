"""The leader's validation and conversion of producer batches before they are appended.

Owns the per-topic rewrite of incoming batches: recompression to the topic's
``compression.type`` and LogAppendTime stamping (``message.timestamp.type``).  It
works on batches already checked by ``record_batch.validate_batches`` (lengths,
magic, CRC) and hands back batches whose CRCs are valid again.  Does not own offset
and leader epoch assignment (``Log.append_as_leader`` writes them in place
afterwards, outside the CRC), size limits (``max.message.bytes`` is checked by the
Log on the converted batches), nor producer id/sequence checks
(``ProducerStateManager``).

The three cases, as Kafka's ``LogValidator.validateMessagesAndAssignOffsets``:

A. topic ``compression.type=producer`` (the default), or the batch already uses the
   topic codec: the batch is kept byte for byte, records are never decoded (the hot
   path);
B. the topic codec differs from the batch codec (``uncompressed`` means none): the
   records are decompressed, decoded and checked (``records_count`` rows of five
   fields, offset deltas 0..n-1), re-encoded and compressed with the topic codec; the header is rebuilt with
   the same timestamps, producer id, epoch and sequence and a fresh CRC;
C. ``message.timestamp.type=LogAppendTime``: after A or B, every batch gets the
   timestamp-type bit and the broker's clock as ``max_timestamp`` (CRC recomputed);
   consumers then see that time on every record of the batch, and the produce
   response carries it as ``log_append_time_ms``.  CreateTime leaves timestamps as sent.

Kafka concept: ``org.apache.kafka.storage.internals.log.LogValidator``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgpack

from kafkette.protocol.compression import NAME_BY_CODEC, check_codec, compress, topic_codec
from kafkette.protocol.record_batch import (
    COMPRESSION_CODEC_MASK,
    BatchHeader,
    CorruptRecordError,
    build_batch_from_payload,
    decode_rows,
    iter_batches,
    set_timestamps_log_append_time,
)

LOG_APPEND_TIME = "LogAppendTime"
"""``message.timestamp.type`` value that makes the broker stamp its own clock."""


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The batches to append and what the validator did to them.

    Attributes:
        records: the batches, CRCs valid; the input bytearray itself when nothing was
            recompressed (stamping happens in place), else a new bytearray.
        positions: ``[(position, header)]`` of every batch in ``records``, in order.
        max_timestamp: largest batch ``max_timestamp`` after conversion (ms).
        log_append_time_ms: the stamped broker time (ms), or -1 under CreateTime.
        recompressed: number of batches recompressed to the topic codec.
    """

    records: bytearray
    positions: list[tuple[int, BatchHeader]]
    max_timestamp: int
    log_append_time_ms: int
    recompressed: int


def validate_and_convert(
    records: bytearray,
    positions: Sequence[tuple[int, BatchHeader]],
    *,
    compression_type: str,
    timestamp_type: str,
    now_ms: int,
) -> ValidationResult:
    """Apply the topic's compression and timestamp type to producer batches (cases A-C).

    Args:
        records: the batches of one Produce partition, already validated by
            ``record_batch.validate_batches`` (whole, CRC-valid).
        positions: ``validate_batches(records)``.
        compression_type: topic ``compression.type`` (``producer``, ``uncompressed``,
            ``gzip``, ``snappy``, ``lz4``, ``zstd``).
        timestamp_type: topic ``message.timestamp.type`` (``CreateTime`` or ``LogAppendTime``).
        now_ms: the broker's wall clock (ms since the epoch), used for LogAppendTime.

    Returns:
        The ValidationResult; offsets and the leader epoch are still to be assigned.

    Raises:
        UnsupportedCompressionTypeError: a batch's attributes name an unknown codec
            (UNSUPPORTED_COMPRESSION_TYPE).
        CorruptRecordError: a batch to recompress does not decompress or its records do
            not match its header (CORRUPT_MESSAGE).
        ValueError: an unknown ``compression_type`` (the topic config is validated
            before it gets here).
    """
    target = topic_codec(compression_type)
    for _, header in positions:
        check_codec(header.compression)
    converted = records
    new_positions = list(positions)
    recompressed = 0
    if target is not None and any(header.compression != target for _, header in positions):
        parts: list[bytes] = []
        for pos, header in positions:
            if header.compression == target:
                parts.append(bytes(records[pos : pos + header.size_in_bytes]))
            else:
                parts.append(_recompress(records, pos, header, target))
                recompressed += 1
        converted = bytearray(b"".join(parts))
        new_positions = list(iter_batches(converted))
    log_append_time_ms = -1
    if timestamp_type == LOG_APPEND_TIME:
        set_timestamps_log_append_time(converted, new_positions, now_ms)
        new_positions = list(iter_batches(converted))
        log_append_time_ms = now_ms
    max_timestamp = max(header.max_timestamp for _, header in new_positions)
    return ValidationResult(converted, new_positions, max_timestamp, log_append_time_ms, recompressed)


def _recompress(records: bytearray, pos: int, header: BatchHeader, target: int) -> bytes:
    """Rebuild the batch at ``pos`` with its records compressed by ``target`` (case B)."""
    rows = decode_rows(records, pos, header)
    if header.last_offset_delta != header.records_count - 1:
        raise CorruptRecordError(
            f"batch at producer offset {header.base_offset} has last offset delta {header.last_offset_delta} "
            f"but {header.records_count} records"
        )
    for index, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 5 or row[0] != index:
            raise CorruptRecordError(
                f"record {index} of the {NAME_BY_CODEC[header.compression]} batch at producer offset "
                f"{header.base_offset} is malformed (expected [offset_delta={index}, timestamp_delta, key, "
                f"value, headers])"
            )
    payload = compress(target, msgpack.packb(rows, use_bin_type=True))
    return build_batch_from_payload(
        payload,
        record_count=header.records_count,
        base_timestamp=header.base_timestamp,
        max_timestamp=header.max_timestamp,
        base_offset=header.base_offset,
        partition_leader_epoch=header.partition_leader_epoch,
        attributes=(header.attributes & ~COMPRESSION_CODEC_MASK) | target,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
    )
