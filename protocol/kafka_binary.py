"""Kafka's binary encoding of fields: the classic types, for the byte layouts Kafkette shares
with Kafka outside its own wire protocol (the records of ``__consumer_offsets``, the consumer
protocol's subscriptions and assignments), and the flexible ones of KIP-482 (unsigned
varints, compact strings, bytes and arrays, tagged fields) with the zig-zag varints of
record batches, for Kafka's own wire protocol.

Owns: the writers (int16-length strings, nullable with -1; int32-length bytes, nullable with
-1; big-endian integers; unsigned varints; zig-zag varints and varlongs; compact strings and
bytes, ``length + 1`` as an unsigned varint, 0 for null; compact array lengths; tagged
fields; UUIDs) and ``BinaryReader``, which reads them back and raises a given ``ValueError``
subclass on truncated or malformed input (a varint longer than Kafka allows included).  Pure
code, no I/O.

Kafka concept: the ``Type`` primitives of ``org.apache.kafka.common.protocol.types``
(``INT8`` to ``INT64``, ``STRING``, ``NULLABLE_STRING``, ``BYTES``, ``COMPACT_STRING``,
``COMPACT_BYTES``, ``COMPACT_ARRAY``, ``UNSIGNED_VARINT``, ``VARINT``, ``VARLONG``,
``UUID``, ``TaggedFields``) and ``ByteUtils``' varint readers and writers.
"""

from __future__ import annotations

import struct

I8 = struct.Struct(">b")
I16 = struct.Struct(">h")
I32 = struct.Struct(">i")
I64 = struct.Struct(">q")


def write_string(value: str) -> bytes:
    """An int16 length, then the UTF-8 bytes."""
    data = value.encode("utf-8")
    return I16.pack(len(data)) + data


def write_nullable_string(value: str | None) -> bytes:
    """Length -1 for None, else as ``write_string``."""
    return I16.pack(-1) if value is None else write_string(value)


def write_bytes(value: bytes) -> bytes:
    """An int32 length, then the bytes."""
    return I32.pack(len(value)) + value


def write_nullable_bytes(value: bytes | None) -> bytes:
    """Length -1 for None, else as ``write_bytes``."""
    return I32.pack(-1) if value is None else write_bytes(value)


def write_unsigned_varint(value: int) -> bytes:
    """An unsigned 32-bit value in 7-bit groups, low first (1 to 5 bytes).

    Raises:
        ValueError: ``value`` outside 0..2**32-1.
    """
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"{value} does not fit an unsigned varint")
    return _groups(value)


def write_varint(value: int) -> bytes:
    """A signed 32-bit value, zig-zag encoded, as an unsigned varint (a record's fields).

    Raises:
        ValueError: ``value`` outside the int32 range.
    """
    return _zigzag(value, 32, "varint")


def write_varlong(value: int) -> bytes:
    """A signed 64-bit value, zig-zag encoded, in 7-bit groups (1 to 10 bytes).

    Raises:
        ValueError: ``value`` outside the int64 range.
    """
    return _zigzag(value, 64, "varlong")


def _zigzag(value: int, bits: int, name: str) -> bytes:
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise ValueError(f"{value} does not fit a {name}")
    return _groups(((value << 1) ^ (value >> (bits - 1))) & ((1 << bits) - 1))


def _groups(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def write_compact_nullable_bytes(value: bytes | None) -> bytes:
    """``len + 1`` as an unsigned varint (0 for None), then the bytes."""
    return b"\x00" if value is None else write_unsigned_varint(len(value) + 1) + value


def write_compact_nullable_string(value: str | None) -> bytes:
    """As ``write_compact_nullable_bytes`` with the UTF-8 bytes."""
    return write_compact_nullable_bytes(None if value is None else value.encode("utf-8"))


def write_compact_string(value: str) -> bytes:
    """A non-null compact string."""
    return write_compact_nullable_string(value)


def write_compact_array_length(count: int | None) -> bytes:
    """``count + 1`` as an unsigned varint (0 for a null array); the elements follow."""
    return b"\x00" if count is None else write_unsigned_varint(count + 1)


def write_tagged_fields(fields: dict[int, bytes] | None = None) -> bytes:
    """The tagged-field section: their count, then each ``tag, size, bytes`` in tag order
    (one 0 byte when there are none, as almost always)."""
    if not fields:
        return b"\x00"
    parts = [write_unsigned_varint(len(fields))]
    for tag in sorted(fields):
        parts += [write_unsigned_varint(tag), write_unsigned_varint(len(fields[tag])), fields[tag]]
    return b"".join(parts)


def write_uuid(value: bytes) -> bytes:
    """A UUID's 16 bytes (Kafka's topic ids).

    Raises:
        ValueError: not 16 bytes.
    """
    if len(value) != 16:
        raise ValueError(f"a UUID has 16 bytes, not {len(value)}")
    return bytes(value)


class BinaryReader:
    """Reads Kafka's classic field encoding from ``data``, front to back.

    Args:
        data: the bytes.
        error: the ``ValueError`` subclass raised on truncated or malformed input.
        what: how messages name the data ("record", "consumer protocol data").
        replace_bad_utf8: read a string that is not UTF-8 with U+FFFD for each bad sequence, as
            Java's ``new String(bytes, UTF_8)`` in Kafka's ``ByteUtils.readUtf8`` does, instead
            of raising (Kafka's request parser never rejects a request for its strings' bytes).
    """

    def __init__(
        self,
        data: bytes,
        error: type[ValueError] = ValueError,
        what: str = "data",
        replace_bad_utf8: bool = False,
    ) -> None:
        self.data = memoryview(data)
        self.pos = 0
        self._error = error
        self._what = what
        self._utf8_errors = "replace" if replace_bad_utf8 else "strict"

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def error(self, message: str) -> ValueError:
        """This reader's error (the given ``ValueError`` subclass) for ``message``, naming the data."""
        return self._error(f"{message} in {self._what}")

    def nested(self, data: bytes, what: str) -> BinaryReader:
        """A reader of ``data`` (a tagged field's bytes, say) raising this reader's error."""
        return BinaryReader(data, self._error, what, self._utf8_errors == "replace")

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes.

        Raises:
            ValueError (the given subclass): fewer are left.
        """
        if n < 0 or self.pos + n > len(self.data):
            raise self._error(
                f"truncated {self._what}: needs {n} bytes at byte {self.pos} of {len(self.data)}"
            )
        out = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return out

    def i8(self) -> int:
        return int(I8.unpack(self.take(1))[0])

    def boolean(self) -> bool:
        return self.take(1) != b"\x00"

    def i16(self) -> int:
        return int(I16.unpack(self.take(2))[0])

    def i32(self) -> int:
        return int(I32.unpack(self.take(4))[0])

    def i64(self) -> int:
        return int(I64.unpack(self.take(8))[0])

    def _utf8(self, data: bytes | None) -> str | None:
        if data is None:
            return None
        try:
            return data.decode("utf-8", self._utf8_errors)
        except UnicodeDecodeError as exc:
            raise self._error(f"a string that is not UTF-8 in {self._what}: {exc}") from None

    def _required(self, value: str | bytes | None, kind: str) -> str | bytes:
        if value is None:
            raise self._error(f"null where {kind} required in {self._what}")
        return value

    def nullable_string(self) -> str | None:
        n = self.i16()
        return None if n == -1 else self._utf8(self.take(n))

    def string(self) -> str:
        return self._required(self.nullable_string(), "a string is")  # type: ignore[return-value]

    def nullable_bytes(self) -> bytes | None:
        n = self.i32()
        return None if n == -1 else self.take(n)

    def bytes_(self) -> bytes:
        return self._required(self.nullable_bytes(), "bytes are")  # type: ignore[return-value]

    def _varint_groups(self, max_bytes: int) -> int:
        value = shift = 0
        for _ in range(max_bytes):
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
        raise self._error(f"a varint longer than {max_bytes} bytes at byte {self.pos} of {self._what}")

    def unsigned_varint(self) -> int:
        """Raises the error for more than 5 bytes (Kafka's "Varint is too long")."""
        value = self._varint_groups(5)
        if value > 0xFFFFFFFF:
            raise self._error(f"an unsigned varint over 32 bits in {self._what}")
        return value

    def varint(self) -> int:
        """A zig-zag int32."""
        value = self.unsigned_varint()
        return (value >> 1) ^ -(value & 1)

    def varlong(self) -> int:
        """A zig-zag int64 (at most 10 bytes)."""
        value = self._varint_groups(10)
        if value > 0xFFFFFFFFFFFFFFFF:
            raise self._error(f"a varlong over 64 bits in {self._what}")
        return (value >> 1) ^ -(value & 1)

    def compact_nullable_bytes(self) -> bytes | None:
        n = self.unsigned_varint()
        return None if n == 0 else self.take(n - 1)

    def compact_bytes(self) -> bytes:
        return self._required(self.compact_nullable_bytes(), "bytes are")  # type: ignore[return-value]

    def compact_nullable_string(self) -> str | None:
        return self._utf8(self.compact_nullable_bytes())

    def compact_string(self) -> str:
        return self._required(self.compact_nullable_string(), "a string is")  # type: ignore[return-value]

    def compact_array_length(self) -> int | None:
        """The element count, None for a null array.

        Raises the error when the count exceeds the bytes left (each element takes at least one).
        """
        n = self.unsigned_varint()
        if n == 0:
            return None
        if n - 1 > self.remaining():
            raise self._error(f"an array of {n - 1} elements in {self.remaining()} bytes of {self._what}")
        return n - 1

    def tagged_fields(self) -> dict[int, bytes]:
        """``{tag: raw bytes}`` of the tagged-field section (unknown tags are kept, as Kafka keeps
        them as unknown tagged fields).

        Raises the error for a tag repeated or out of order.
        """
        fields: dict[int, bytes] = {}
        last = -1
        for _ in range(self.unsigned_varint()):
            tag = self.unsigned_varint()
            if tag <= last:
                raise self._error(f"tagged field {tag} out of order in {self._what}")
            fields[tag] = self.take(self.unsigned_varint())
            last = tag
        return fields

    def uuid(self) -> bytes:
        return self.take(16)

    def end(self) -> None:
        """Raises the error when bytes are left over."""
        if self.remaining():
            raise self._error(f"{self.remaining()} bytes left after the {self._what}")
