"""The record batch format: a fixed binary header with CRC32C, then records in one of two encodings.

On-disk and on-wire layout of one batch (big-endian), modeled on Kafka's RecordBatch
v2 (``DefaultRecordBatch``)::

    offset  size  field
         0     8  base_offset              (assigned by the leader, in place)
         8     4  batch_length             (bytes after this field)
        12     4  partition_leader_epoch   (assigned by the leader, in place)
        16     1  magic                    (2)
        17     4  crc                      (CRC32C of bytes 21..end)
        21     2  attributes               (Kafka's: bits 0-2 codec, bit 3 timestamp
                                            type, 4 transactional, 5 control, 6 delete
                                            horizon; Kafkette's: bit 7
                                            RECORDS_MSGPACK_MASK, the records encoding)
        23     4  last_offset_delta
        27     8  base_timestamp           (ms)
        35     8  max_timestamp            (ms)
        43     8  producer_id              (-1: none)
        51     2  producer_epoch
        53     4  base_sequence
        57     4  records_count
        61     -  records, the whole section compressed when the codec bits say so
                  (codecs and ``CorruptRecordError`` live in
                  ``kafkette.protocol.compression`` and are re-exported here):
                  bit 7 set: Kafkette's msgpack array of rows [offset_delta,
                    timestamp_delta, key, value, headers], headers a list of
                    [key, value], compressed with ``compress`` (Kafkette's framings);
                  bit 7 clear: Kafka's varint records (``DefaultRecord``, see
                    ``kafkette.protocol.kafka_records``), compressed with
                    ``compress_kafka`` (Kafka's framings: xerial snappy, ...).

Both encodings live in one log: Kafkette's SDK produces msgpack batches (one msgpack
call per batch), Kafka's clients produce varint ones.  Kafka leaves bit 7 unused, so a
Kafka client never sets it, and must never see it: ``to_kafka_encoding`` re-encodes
msgpack batches for the Kafka listener's fetch path.  Every reader goes through
``decode_rows``/``decode_records``, which dispatch on the bit and yield the same rows
for both; every re-encoding (``rebuild_batch``) keeps the source batch's encoding.

Because the CRC starts at ``attributes``, the leader can write the base offset and
leader epoch without recomputing it, and the broker moves batches as bytes without
decoding records.  Pure code, no I/O.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import crc32c
import msgpack

from kafkette.protocol.compression import (  # noqa: F401  (codec ids and the error are part of this module's API)
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    NAME_BY_CODEC,
    CorruptRecordError,
    check_codec,
    compress,
    compress_kafka,
    decompress,
    decompress_kafka,
)
from kafkette.protocol.kafka_records import decode_default_records, encode_default_records

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # base_offset + batch_length: bytes not counted in batch_length
MAGIC = 2
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
BASE_OFFSET_AND_LENGTH = struct.Struct(">qi")
# The header split at the CRC: what precedes it (base offset .. magic, then the CRC) and what
# it covers (attributes .. records count), so a batch is built with one pack of each.
_HEADER_HEAD = struct.Struct(">qiibI")
_HEADER_TAIL = struct.Struct(">hiqqqhii")
BATCH_LENGTH = struct.Struct(">i")  # at byte 8, after the base offset
LEADER_EPOCH = struct.Struct(">i")
BASE_OFFSET = struct.Struct(">q")

COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08  # set: LogAppendTime; clear: CreateTime
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20
DELETE_HORIZON_MASK = 0x40
"""Attribute bit 6 (KIP-534): set by the log cleaner, the base timestamp is the batch's delete
horizon (ms), after which its tombstones and its transaction marker may be removed."""
RECORDS_MSGPACK_MASK = 0x80
"""Attribute bit 7, Kafkette's own: set, the records are a msgpack array of rows compressed with
``compress``; clear, they are Kafka's varint records compressed with ``compress_kafka``."""

CREATE_TIME = 0
LOG_APPEND_TIME = 1


class BatchHeader(NamedTuple):
    """The decoded fixed header of one batch (see the module docstring for layout).

    A NamedTuple, built straight from ``HEADER.unpack_from``'s tuple: one is decoded per batch
    on every append, fetch and recovery walk, and a frozen dataclass's constructor sets its 13
    fields one ``object.__setattr__`` at a time.
    """

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def size_in_bytes(self) -> int:
        """Whole batch size in bytes, header included."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> int:
        return self.attributes & COMPRESSION_CODEC_MASK

    @property
    def timestamp_type(self) -> int:
        return LOG_APPEND_TIME if self.attributes & TIMESTAMP_TYPE_MASK else CREATE_TIME

    @property
    def msgpack_records(self) -> bool:
        """True for Kafkette's msgpack records, False for Kafka's varint records."""
        return bool(self.attributes & RECORDS_MSGPACK_MASK)


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded record with absolute offset and timestamp (ms)."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]


_new_header = tuple.__new__


def read_header(buf: bytes | bytearray | memoryview, pos: int = 0) -> BatchHeader:
    """Decode the fixed header of the batch starting at ``pos``.

    Raises:
        CorruptRecordError: fewer than HEADER_SIZE bytes are left.
    """
    if len(buf) - pos < HEADER_SIZE:
        raise CorruptRecordError(f"batch header needs {HEADER_SIZE} bytes, {len(buf) - pos} left")
    return _new_header(BatchHeader, HEADER.unpack_from(buf, pos))


Row = list[Any]
"""``[offset_delta, timestamp_delta, key, value, headers]``, headers ``[[str, bytes | None], ...]``."""

RecordTuple = tuple[bytes | None, bytes | None, Sequence[tuple[str, bytes | None]] | None, int]
"""``(key, value, headers, timestamp_ms)``: one record to build a batch from."""


def _rows(records: Sequence[RecordTuple]) -> tuple[list[Row], int, int]:
    """The rows of ``records`` (offset deltas 0..n-1), their base and max timestamps (ms)."""
    if not records:
        raise ValueError("a batch needs at least one record")
    base_timestamp = records[0][3]
    max_timestamp = base_timestamp
    rows: list[Row] = []
    for delta, (key, value, headers, ts) in enumerate(records):
        if ts > max_timestamp:
            max_timestamp = ts
        rows.append([delta, ts - base_timestamp, key, value, [list(h) for h in headers] if headers else []])
    return rows, base_timestamp, max_timestamp


def encode_payload(rows: Sequence[Row], attributes: int, level: int | None = None) -> bytes:
    """The records section holding ``rows`` in the encoding and codec ``attributes`` name.

    Args:
        rows: ``[offset_delta, timestamp_delta, key, value, headers]`` each.
        attributes: a batch's attributes: ``RECORDS_MSGPACK_MASK`` picks msgpack and
            ``compress``, its absence Kafka's varint records and ``compress_kafka``; the
            codec bits pick the codec.
        level: the codec's level (KIP-390; None: its default).

    Returns:
        The (compressed) records section.

    Raises:
        UnsupportedCompressionTypeError: an unknown codec id.
        ValueError, TypeError: a row Kafka's encoding cannot hold (see
            ``kafka_records.encode_default_records``).
    """
    codec = attributes & COMPRESSION_CODEC_MASK
    if attributes & RECORDS_MSGPACK_MASK:
        return compress(codec, msgpack.packb(rows, use_bin_type=True), level)
    return compress_kafka(codec, encode_default_records(rows), level)


def build_batch(
    records: Sequence[RecordTuple],
    *,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
    compression: int = COMPRESSION_NONE,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
) -> bytes:
    """Build one batch of Kafkette's msgpack records from ``(key, value, headers, timestamp_ms)`` tuples.

    The records are encoded with one msgpack call and, unless ``compression`` is
    ``COMPRESSION_NONE``, the whole msgpack array is compressed with one codec call
    (Kafka's per-batch compression); the codec and ``RECORDS_MSGPACK_MASK`` go into the
    attributes.

    Args:
        records: ``(key, value, headers, timestamp_ms)`` tuples, at least one.
        compression: a ``COMPRESSION_*`` codec id.

    Returns:
        The batch bytes, CRC set.

    Raises:
        ValueError: no records.
        UnsupportedCompressionTypeError: an unknown codec id.
    """
    return _build(
        records,
        compression | RECORDS_MSGPACK_MASK,
        base_offset,
        partition_leader_epoch,
        producer_id,
        producer_epoch,
        base_sequence,
    )


def build_kafka_batch(
    records: Sequence[RecordTuple],
    *,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
    compression: int = COMPRESSION_NONE,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
) -> bytes:
    """Build one batch of Kafka's varint records, as a Kafka client's producer does.

    The same arguments and header as ``build_batch``; the records section is Kafka's
    (``kafka_records.encode_default_records``), compressed whole in Kafka's framing
    (``compress_kafka``), and ``RECORDS_MSGPACK_MASK`` is clear.

    Args:
        records: ``(key, value, headers, timestamp_ms)`` tuples, at least one.
        compression: a ``COMPRESSION_*`` codec id.
        transactional: set Kafka's transactional bit (4).

    Returns:
        The batch bytes, CRC set.

    Raises:
        ValueError: no records, or a timestamp too far from the first for an int64 delta.
        TypeError: a key, value or header of the wrong type.
        UnsupportedCompressionTypeError: an unknown codec id.

    Kafka concept: ``MemoryRecordsBuilder`` writing a ``DefaultRecordBatch``.
    """
    return _build(
        records,
        compression | (TRANSACTIONAL_MASK if transactional else 0),
        base_offset,
        partition_leader_epoch,
        producer_id,
        producer_epoch,
        base_sequence,
    )


def _build(
    records: Sequence[RecordTuple],
    attributes: int,
    base_offset: int,
    partition_leader_epoch: int,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
) -> bytes:
    """A batch of ``records`` in the encoding and codec ``attributes`` name (``encode_payload``)."""
    check_codec(attributes & COMPRESSION_CODEC_MASK)
    rows, base_timestamp, max_timestamp = _rows(records)
    return build_batch_from_payload(
        encode_payload(rows, attributes),
        record_count=len(records),
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        base_offset=base_offset,
        partition_leader_epoch=partition_leader_epoch,
        attributes=attributes,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
    )


def build_batch_from_payload(
    payload: bytes,
    *,
    record_count: int,
    base_timestamp: int,
    max_timestamp: int,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
    attributes: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    last_offset_delta: int | None = None,
) -> bytes:
    """Wrap an already-encoded records section in a batch header (CRC computed).

    Args:
        payload: the (possibly compressed) records section.
        record_count: number of records.
        attributes: written as given: a msgpack payload needs ``RECORDS_MSGPACK_MASK``
            (without it the payload is read as Kafka's varint records), plus the codec.
        last_offset_delta: the batch's last offset delta; ``record_count - 1`` (deltas
            0..record_count-1) unless given (a compacted batch keeps its offset range).
    """
    tail = _HEADER_TAIL.pack(
        attributes,
        record_count - 1 if last_offset_delta is None else last_offset_delta,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        record_count,
    )
    head = _HEADER_HEAD.pack(
        base_offset,
        HEADER_SIZE - LOG_OVERHEAD + len(payload),
        partition_leader_epoch,
        MAGIC,
        crc32c.crc32c(payload, crc32c.crc32c(tail)),
    )
    return b"".join((head, tail, payload))


def rebuild_batch(
    header: BatchHeader,
    rows: Sequence[Row],
    *,
    attributes: int | None = None,
    max_timestamp: int | None = None,
    level: int | None = None,
) -> bytes:
    """A batch holding ``rows`` with ``header``'s base offset, leader epoch, last offset delta,
    base timestamp and producer fields (CRC recomputed).

    Args:
        header: the source batch's header.
        rows: the records to hold, at least one (their offset deltas are kept as they are).
        attributes: the new attributes, ``header.attributes`` unless given; the records are
            encoded in the encoding and codec they name (``encode_payload``).
        max_timestamp: the new max timestamp (ms), ``header.max_timestamp`` unless given.
        level: the codec's level (KIP-390; None: its default).

    Returns:
        The batch bytes; ``records_count`` is ``len(rows)``.

    Raises:
        ValueError: no rows, or (also TypeError) a row the target encoding cannot hold.
        UnsupportedCompressionTypeError: the attributes name an unknown codec.
    """
    if not rows:
        raise ValueError("a batch needs at least one record")
    attributes = header.attributes if attributes is None else attributes
    return build_batch_from_payload(
        encode_payload(rows, attributes, level),
        record_count=len(rows),
        base_timestamp=header.base_timestamp,
        max_timestamp=header.max_timestamp if max_timestamp is None else max_timestamp,
        base_offset=header.base_offset,
        partition_leader_epoch=header.partition_leader_epoch,
        attributes=attributes,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        last_offset_delta=header.last_offset_delta,
    )


def compute_crc(buf: bytes | bytearray | memoryview, pos: int, size: int) -> int:
    """CRC32C over ``buf[pos+21 : pos+size]`` (the bytes the batch CRC covers)."""
    return crc32c.crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : pos + size])


def iter_batches(
    buf: bytes | bytearray | memoryview, *, verify_crc: bool = False
) -> Iterator[tuple[int, BatchHeader]]:
    """Yield ``(position, header)`` for each complete batch in ``buf``.

    Stops silently at a trailing partial batch (as a fetch response may end in one).

    Raises:
        CorruptRecordError: a batch has a bad magic, an impossible length, or (with
            ``verify_crc``) a CRC mismatch.
    """
    pos = 0
    end = len(buf)
    while end - pos >= HEADER_SIZE:
        header = read_header(buf, pos)
        size = header.batch_length + LOG_OVERHEAD
        if header.magic != MAGIC:
            raise CorruptRecordError(f"batch at byte {pos} has magic {header.magic}, expected {MAGIC}")
        if size < HEADER_SIZE or header.records_count < 0 or header.last_offset_delta < 0:  # 0: compacted
            raise CorruptRecordError(f"batch at byte {pos} has invalid length {header.batch_length}")
        if pos + size > end:
            return
        if verify_crc and compute_crc(buf, pos, size) != header.crc:
            raise CorruptRecordError(f"batch at byte {pos} (base offset {header.base_offset}) fails its CRC")
        yield pos, header
        pos += size


def validate_batches(buf: bytes | bytearray | memoryview) -> list[tuple[int, BatchHeader]]:
    """Check that ``buf`` is a sequence of whole, CRC-valid batches (produce path).

    Returns:
        ``[(position, header)]`` of every batch, in order.

    Raises:
        CorruptRecordError: empty input, trailing bytes, bad length, magic or CRC.
    """
    end = len(buf)
    if end >= HEADER_SIZE:  # the common case, one valid batch filling ``buf``, without the generator
        header = _new_header(BatchHeader, HEADER.unpack_from(buf, 0))
        if (
            header.batch_length + LOG_OVERHEAD == end
            and header.magic == MAGIC
            and header.records_count >= 0
            and header.last_offset_delta >= 0
            and compute_crc(buf, 0, end) == header.crc
        ):
            return [(0, header)]
    found = list(iter_batches(buf, verify_crc=True))
    consumed = found[-1][0] + found[-1][1].size_in_bytes if found else 0
    if not found:
        raise CorruptRecordError("no complete record batch in the records field")
    if consumed != len(buf):
        raise CorruptRecordError(f"{len(buf) - consumed} trailing bytes after the last batch")
    return found


def assign_offsets(
    buf: bytearray, positions: Sequence[tuple[int, BatchHeader]], base_offset: int, leader_epoch: int
) -> int:
    """Write base offsets and the leader epoch into batches in place (leader append).

    Args:
        buf: the batches, mutable.
        positions: output of ``validate_batches`` for ``buf``.
        base_offset: offset of the first record of the first batch.
        leader_epoch: the leader's current epoch.

    Returns:
        The next offset after the last record (the new log end offset).
    """
    offset = base_offset
    for pos, header in positions:
        BASE_OFFSET.pack_into(buf, pos, offset)
        LEADER_EPOCH.pack_into(buf, pos + 12, leader_epoch)
        offset += header.last_offset_delta + 1
    return offset


def set_timestamps_log_append_time(
    buf: bytearray, positions: Sequence[tuple[int, BatchHeader]], now_ms: int
) -> None:
    """Mark batches LogAppendTime with ``now_ms`` as max timestamp (recomputes CRCs)."""
    for pos, header in positions:
        struct.pack_into(">h", buf, pos + ATTRIBUTES_OFFSET, header.attributes | TIMESTAMP_TYPE_MASK)
        struct.pack_into(">q", buf, pos + 35, now_ms)
        struct.pack_into(">I", buf, pos + CRC_OFFSET, compute_crc(buf, pos, header.size_in_bytes))


def records_payload(
    batch: bytes | bytearray | memoryview, pos: int, header: BatchHeader
) -> bytes | memoryview:
    """The uncompressed records section of the batch at ``pos`` (msgpack or Kafka's varint
    records, as ``RECORDS_MSGPACK_MASK`` says; decompressed in that encoding's framing).

    Returns:
        A view into ``batch`` for an uncompressed batch, else the decompressed bytes.

    Raises:
        CorruptRecordError: the payload does not decompress or the attributes name an
            unknown codec.
    """
    payload = memoryview(batch)[pos + HEADER_SIZE : pos + header.size_in_bytes]
    codec = header.attributes & COMPRESSION_CODEC_MASK
    if codec == COMPRESSION_NONE:
        return payload
    if codec not in NAME_BY_CODEC:
        raise CorruptRecordError(f"batch at offset {header.base_offset} names unknown codec id {codec}")
    try:
        if header.attributes & RECORDS_MSGPACK_MASK:
            return decompress(codec, payload)
        return decompress_kafka(codec, payload)
    except CorruptRecordError as exc:
        raise CorruptRecordError(f"records of batch at offset {header.base_offset}: {exc}") from exc


def decode_rows(batch: bytes | bytearray | memoryview, pos: int, header: BatchHeader) -> list[list[Any]]:
    """The raw record rows ``[offset_delta, timestamp_delta, key, value, headers]`` of a batch,
    from either encoding (``RECORDS_MSGPACK_MASK``): one msgpack call, or one pass over Kafka's
    varint records (``kafka_records.decode_default_records``).

    Raises:
        CorruptRecordError: an unknown codec, the payload does not decompress, is not a
            msgpack array (or valid varint records), or its length differs from
            ``records_count``.
    """
    payload = records_payload(batch, pos, header)
    if not header.attributes & RECORDS_MSGPACK_MASK:
        try:
            return decode_default_records(payload, header.records_count)
        except CorruptRecordError as exc:
            raise CorruptRecordError(f"records of batch at offset {header.base_offset}: {exc}") from exc
    try:
        rows = msgpack.unpackb(payload, raw=False, use_list=True)
    except Exception as exc:
        raise CorruptRecordError(
            f"records of batch at offset {header.base_offset} are not msgpack: {exc}"
        ) from exc
    if not isinstance(rows, list) or len(rows) != header.records_count:
        count = len(rows) if isinstance(rows, list) else type(rows).__name__
        raise CorruptRecordError(
            f"batch at offset {header.base_offset} declares {header.records_count} records but holds {count}"
        )
    return rows


def decode_records(
    batch: bytes | bytearray | memoryview, pos: int = 0, header: BatchHeader | None = None
) -> list[Record]:
    """Decode the records of the batch at ``pos`` (client side; one msgpack call or one pass
    over Kafka's varint records, see ``decode_rows``).

    A compressed batch is decompressed first (one codec call), transparently.

    Raises:
        CorruptRecordError: an unknown codec, the payload does not decompress, is not
            a msgpack array of records, holds a different number of records than the
            header says, or a record that is not ``[offset delta, timestamp delta, key,
            value, headers]``.
    """
    header = header or read_header(batch, pos)
    rows = decode_rows(batch, pos, header)
    base_offset = header.base_offset
    log_append = header.timestamp_type == LOG_APPEND_TIME
    base_ts = header.base_timestamp
    out = []
    try:
        for delta, ts_delta, key, value, headers in rows:
            ts = header.max_timestamp if log_append else base_ts + ts_delta
            out.append(Record(base_offset + delta, ts, key, value, [(h[0], h[1]) for h in headers]))
    except (
        TypeError,
        ValueError,
        IndexError,
        KeyError,
    ) as exc:  # a row that is not [int, int, k, v, [[k, v]]]
        raise CorruptRecordError(
            f"record {len(out)} of the batch at offset {base_offset} is malformed: {exc}"
        ) from None
    return out


_LENGTH_MAGIC_CRC = struct.Struct(">8xi4xbI")  # batch_length, magic, crc of a batch header


def first_invalid_batch(data: bytes | bytearray | memoryview) -> tuple[int, str] | None:
    """Check that ``data`` is whole batches with valid magic, length and CRC32C (the read path).

    A tight loop (one unpack and one CRC per batch, no header objects): about 6x
    cheaper than ``iter_batches(verify_crc=True)`` on small batches.

    Returns:
        None when all is valid, else ``(position in data, what is wrong)``.
    """
    view = memoryview(data)
    pos, end = 0, len(data)
    unpack = _LENGTH_MAGIC_CRC.unpack_from
    while pos < end:
        if end - pos < HEADER_SIZE:
            return pos, f"{end - pos} bytes after the last whole batch"
        length, magic, crc = unpack(view, pos)
        size = length + LOG_OVERHEAD
        if magic != MAGIC or size < HEADER_SIZE or pos + size > end:
            return pos, f"invalid batch header (magic {magic}, length {length})"
        if crc32c.crc32c(view[pos + ATTRIBUTES_OFFSET : pos + size]) != crc:
            return pos, "CRC mismatch"
        pos += size
    return None


_LENGTH_MAGIC_ATTRIBUTES = struct.Struct(">8xi4xb4xh")  # batch_length, magic, attributes of a batch header


def to_kafka_encoding(data: bytes | bytearray | memoryview) -> bytes | bytearray | memoryview:
    """The batches of a fetch's records field with every msgpack batch re-encoded as Kafka's
    varint records, for a Kafka client (which must never see ``RECORDS_MSGPACK_MASK``).

    A batch already in Kafka's encoding is passed through untouched.  A msgpack batch is
    checked against its CRC, decoded, and rebuilt with the same base offset, leader epoch,
    attributes minus ``RECORDS_MSGPACK_MASK`` (codec, timestamp type and the other bits
    kept, the records compressed in Kafka's framing), timestamps, producer id, epoch and
    base sequence, record count and last offset delta, and a new CRC32C.  A trailing
    partial batch (a fetch may end inside one) is kept unless its visible attributes
    carry the msgpack bit, in which case it is dropped.

    Args:
        data: whole batches, possibly followed by a partial one.

    Returns:
        ``data`` itself when nothing needs converting (no copy), a view of its leading
        part when only a msgpack partial tail is dropped, else new bytes.

    Raises:
        CorruptRecordError: a batch header has a bad magic or length, or a msgpack batch
            fails its CRC or holds records that do not decode or that Kafka's encoding
            cannot hold (a key that is not bytes, say).

    Kafka concept: the down-conversion on Kafka's fetch path (``LazyDownConversionRecords``),
    here from Kafkette's record encoding to Kafka's instead of between magic versions.
    """
    view = memoryview(data)
    end = len(view)
    pos = 0
    kept_from = 0  # view[kept_from:pos] holds batches that pass through, not yet in parts
    parts: list[bytes | memoryview] | None = None
    unpack = _LENGTH_MAGIC_ATTRIBUTES.unpack_from
    while end - pos > ATTRIBUTES_OFFSET + 1:
        length, magic, attributes = unpack(view, pos)
        size = length + LOG_OVERHEAD
        if magic != MAGIC or size < HEADER_SIZE:
            raise CorruptRecordError(f"invalid batch header at byte {pos} (magic {magic}, length {length})")
        if pos + size > end:
            break  # the partial tail
        if attributes & RECORDS_MSGPACK_MASK:
            if parts is None:
                parts = []
            if kept_from < pos:
                parts.append(view[kept_from:pos])
            parts.append(_msgpack_batch_to_kafka(view, pos, size))
            kept_from = pos + size
        pos += size
    tail_is_msgpack = (
        end - pos > ATTRIBUTES_OFFSET + 1
        and _LENGTH_MAGIC_ATTRIBUTES.unpack_from(view, pos)[2] & RECORDS_MSGPACK_MASK
    )
    if parts is None:
        return view[:pos] if tail_is_msgpack else data
    parts.append(view[kept_from:pos] if tail_is_msgpack else view[kept_from:])
    return b"".join(parts)


def _msgpack_batch_to_kafka(view: memoryview, pos: int, size: int) -> bytes:
    """The msgpack batch at ``pos`` rebuilt with Kafka's varint records (see ``to_kafka_encoding``)."""
    header = read_header(view, pos)
    if compute_crc(view, pos, size) != header.crc:
        raise CorruptRecordError(f"batch at byte {pos} (base offset {header.base_offset}) fails its CRC")
    rows = decode_rows(view, pos, header)
    try:
        return rebuild_batch(header, rows, attributes=header.attributes & ~RECORDS_MSGPACK_MASK)
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(
            f"records of the msgpack batch at offset {header.base_offset} do not fit Kafka's encoding: {exc}"
        ) from exc
