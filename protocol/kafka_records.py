"""Kafka's record encoding inside a batch: the varint records of ``DefaultRecord``.

Owns the records section of a batch whose attributes do not carry Kafkette's msgpack bit
(``record_batch.RECORDS_MSGPACK_MASK``): ``encode_default_records`` turns record rows into
that section's bytes (uncompressed) and ``decode_default_records`` turns them back.  Rows
are the shape Kafkette uses for both encodings::

    [offset_delta, timestamp_delta, key, value, headers]
    headers: [[str key, bytes | None value], ...]

One record on the wire (zig-zag varints and varlongs, as ``ByteUtils``)::

    length          varint     bytes of the record after this field
    attributes      int8       unused, 0
    timestampDelta  varlong    ms after the batch's base timestamp
    offsetDelta     varint     offset after the batch's base offset
    keyLength       varint     -1: null key
    key             bytes
    valueLength     varint     -1: null value
    value           bytes
    headerCount     varint
    headers         per header: keyLength varint (>= 0), UTF-8 key,
                    valueLength varint (-1: null), value

Does not own the batch header, its CRC or compression (``record_batch``,
``compression.compress_kafka``).  Pure code, no I/O.  The decoding loop reads one- and
two-byte varints inline (lengths and deltas below 8192, the common case) and calls
``_read_unsigned`` for longer ones.

Kafka concept: ``org.apache.kafka.common.record.DefaultRecord`` (``writeTo``,
``readFrom``) inside ``DefaultRecordBatch``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kafkette.protocol.compression import CorruptRecordError

VARINT_MAX_BYTES = 5  # Kafka's "Varint is too long" beyond these
VARLONG_MAX_BYTES = 10
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_NULL_LENGTH = b"\x01"  # zig-zag -1
_EMPTY_LENGTH = b"\x00"  # zig-zag 0: no headers, or an empty key or value
_SMALL_VARINTS = [bytes([z]) if z < 0x80 else bytes([(z & 0x7F) | 0x80, z >> 7]) for z in range(2048)]
"""The encodings of the zig-zag values below 2048 (deltas from -1024 to 1023, lengths below 1024):
one table lookup instead of a loop for the common fields (about 90 KiB)."""
_SMALL_LIMIT = len(_SMALL_VARINTS)


def _put_unsigned(out: bytearray, z: int) -> None:
    """Append the (zig-zagged, non-negative) ``z`` in 7-bit groups, low group first."""
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)


def encode_default_records(rows: Iterable[Sequence[Any]]) -> bytes:
    """The records section (uncompressed) holding ``rows`` in Kafka's varint encoding.

    Args:
        rows: ``[offset_delta, timestamp_delta, key, value, headers]`` each; offset deltas
            int32, timestamp deltas (ms) int64, key and value bytes-like or None,
            headers ``[(str, bytes-like | None)]`` (or empty / None).

    Returns:
        The concatenated records, each prefixed by its length; attributes 0.

    Raises:
        ValueError: a row without five fields, a delta outside int32 / int64, or a header
            key that is not UTF-8 encodable.
        TypeError: a key, value or header value that is not bytes-like, or a header key
            that is not a str.
    """
    out = bytearray()
    record = bytearray()
    small, limit, put = _SMALL_VARINTS, _SMALL_LIMIT, _put_unsigned
    for offset_delta, timestamp_delta, key, value, headers in rows:
        if not (_INT32_MIN <= offset_delta <= _INT32_MAX and _INT64_MIN <= timestamp_delta <= _INT64_MAX):
            raise ValueError(f"offset delta {offset_delta} or timestamp delta {timestamp_delta} out of range")
        record.clear()
        record.append(0)  # attributes
        z = (timestamp_delta << 1) ^ (timestamp_delta >> 63)
        if z < limit:
            record += small[z]
        else:
            put(record, z)
        z = (offset_delta << 1) ^ (offset_delta >> 63)
        if z < limit:
            record += small[z]
        else:
            put(record, z)
        if key is None:
            record += _NULL_LENGTH
        else:
            z = len(key) << 1
            if z < limit:
                record += small[z]
            else:
                put(record, z)
            record += key
        if value is None:
            record += _NULL_LENGTH
        else:
            z = len(value) << 1
            if z < limit:
                record += small[z]
            else:
                put(record, z)
            record += value
        if headers:
            put(record, len(headers) << 1)
            for header_key, header_value in headers:
                if type(header_key) is not str:
                    raise TypeError(f"a header key must be a str, not {type(header_key).__name__}")
                encoded_key = header_key.encode("utf-8")
                put(record, len(encoded_key) << 1)
                record += encoded_key
                if header_value is None:
                    record += _NULL_LENGTH
                else:
                    put(record, len(header_value) << 1)
                    record += header_value
        else:
            record += _EMPTY_LENGTH
        z = len(record) << 1
        if z < limit:
            out += small[z]
        else:
            put(out, z)
        out += record
    return bytes(out)


def _read_unsigned(buf: bytes, pos: int, max_bytes: int, limit: int) -> tuple[int, int]:
    """The unsigned varint at ``pos`` (at most ``max_bytes`` long, at most ``limit``)
    and the position after it.

    Raises:
        CorruptRecordError: too many bytes or a value over ``limit``.
        IndexError: the buffer ends inside it.
    """
    value = shift = 0
    for _ in range(max_bytes):
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            if value > limit:
                raise CorruptRecordError(f"a varint over {limit.bit_length()} bits ending at byte {pos}")
            return value, pos
        shift += 7
    raise CorruptRecordError(f"a varint longer than {max_bytes} bytes ending at byte {pos}")


def _zigzag_at(
    buf: bytes, pos: int, max_bytes: int = VARINT_MAX_BYTES, limit: int = 0xFFFFFFFF
) -> tuple[int, int]:
    """The zig-zag varint (a varlong with ``max_bytes=VARLONG_MAX_BYTES``) at ``pos`` and the
    position after it; one and two bytes (most lengths and deltas) without a loop.

    Raises:
        CorruptRecordError: too long or too large.
        IndexError: the buffer ends inside it.
    """
    u = buf[pos]
    if u < 0x80:
        pos += 1
    elif buf[pos + 1] < 0x80:
        u = (u & 0x7F) | (buf[pos + 1] << 7)
        pos += 2
    else:
        u, pos = _read_unsigned(buf, pos, max_bytes, limit)
    return (u >> 1) ^ -(u & 1), pos


def _nullable_bytes_at(buf: bytes, pos: int, index: int, field: str) -> tuple[bytes | None, int]:
    """A varint length (-1: null) and that many bytes at ``pos``; the position after them.

    Raises:
        CorruptRecordError: a length below -1 (of ``field`` of record ``index``).
        IndexError: the buffer ends inside the length.
    """
    u = buf[pos]
    if u < 0x80:
        pos += 1
    else:
        u, pos = _read_unsigned(buf, pos, VARINT_MAX_BYTES, 0xFFFFFFFF)
    size = (u >> 1) ^ -(u & 1)
    if size >= 0:
        return buf[pos : pos + size], pos + size
    if size == -1:
        return None, pos
    raise CorruptRecordError(f"record {index} has a {field} length {size}")


def decode_default_records(data: bytes | bytearray | memoryview, records_count: int) -> list[list[Any]]:
    """The rows of a records section (uncompressed) in Kafka's varint encoding.

    Args:
        data: the records section, exactly (no trailing bytes).
        records_count: the count the batch header declares.

    Returns:
        ``[[offset_delta, timestamp_delta, key, value, [[header_key, header_value], ...]], ...]``;
        keys and values are bytes or None, header keys str.

    Raises:
        CorruptRecordError: the section ends before ``records_count`` records or holds bytes
            after them, a varint is longer than 5 bytes (a varlong 10) or exceeds 32 (64)
            bits, a length is negative (other than -1 for a null key, value or header value),
            a header key is not UTF-8, or a record's fields do not fill its length.
    """
    buf = data if type(data) is bytes else bytes(data)
    end = len(buf)
    pos = 0
    rows: list[list[Any]] = []
    append = rows.append
    zigzag, nullable = _zigzag_at, _nullable_bytes_at
    index = 0
    try:
        for index in range(records_count):
            length, pos = zigzag(buf, pos)
            record_end = pos + length
            if length < 1 or record_end > end:
                raise CorruptRecordError(
                    f"record {index} of {records_count} declares {length} bytes, {end - pos} are left"
                )
            timestamp_delta, pos = zigzag(
                buf, pos + 1, VARLONG_MAX_BYTES, 0xFFFFFFFFFFFFFFFF
            )  # after attributes
            offset_delta, pos = zigzag(buf, pos)
            key, pos = nullable(buf, pos, index, "key")
            value, pos = nullable(buf, pos, index, "value")
            header_count, pos = zigzag(buf, pos)
            headers: list[list[Any]] = []
            if header_count:
                if header_count < 0 or 2 * header_count > record_end - pos:
                    raise CorruptRecordError(
                        f"record {index} declares {header_count} headers in {record_end - pos} bytes"
                    )
                headers, pos = _decode_headers(buf, pos, header_count, index)
            if pos != record_end:
                raise CorruptRecordError(
                    f"record {index} declares {length} bytes but its fields take {length + pos - record_end}"
                )
            append([offset_delta, timestamp_delta, key, value, headers])
    except IndexError:
        raise CorruptRecordError(
            f"the records section of {end} bytes ends inside record {index} of {records_count}"
        ) from None
    if pos != end:
        raise CorruptRecordError(f"{end - pos} bytes after the {records_count} records the batch declares")
    return rows


def _decode_headers(buf: bytes, pos: int, count: int, index: int) -> tuple[list[list[Any]], int]:
    """``count`` headers of record ``index`` from ``pos``, and the position after them."""
    headers: list[list[Any]] = []
    for _ in range(count):
        size, pos = _zigzag_at(buf, pos)
        if size < 0:
            raise CorruptRecordError(f"record {index} has a header key length {size}")
        try:
            header_key = buf[pos : pos + size].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CorruptRecordError(f"record {index} has a header key that is not UTF-8: {exc}") from None
        header_value, pos = _nullable_bytes_at(buf, pos + size, index, "header value")
        headers.append([header_key, header_value])
    return headers, pos
