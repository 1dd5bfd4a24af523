"""Kafka's classic (non-flexible) binary encoding of fields, for the byte layouts Kafkette
shares with Kafka outside its own wire protocol: the records of ``__consumer_offsets`` and
the consumer protocol's subscriptions and assignments.

Owns: the writers (int16-length strings, nullable with -1; int32-length bytes, nullable with
-1; big-endian integers) and ``BinaryReader``, which reads them back and raises a given
``ValueError`` subclass on truncated or malformed input.  Pure code, no I/O.

Kafka concept: the ``Type`` primitives of ``org.apache.kafka.common.protocol.types``
(``INT16``, ``INT32``, ``INT64``, ``STRING``, ``NULLABLE_STRING``, ``BYTES``).
"""

from __future__ import annotations

import struct

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


class BinaryReader:
    """Reads Kafka's classic field encoding from ``data``, front to back.

    Args:
        data: the bytes.
        error: the ``ValueError`` subclass raised on truncated or malformed input.
        what: how messages name the data ("record", "consumer protocol data").
    """

    def __init__(self, data: bytes, error: type[ValueError] = ValueError, what: str = "data") -> None:
        self.data = memoryview(data)
        self.pos = 0
        self._error = error
        self._what = what

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes.

        Raises:
            ValueError (the given subclass): fewer are left.
        """
        if n < 0 or self.pos + n > len(self.data):
            raise self._error(f"truncated {self._what}: needs {n} bytes at byte {self.pos} of {len(self.data)}")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out

    def i16(self) -> int:
        return int(I16.unpack(self.take(2))[0])

    def i32(self) -> int:
        return int(I32.unpack(self.take(4))[0])

    def i64(self) -> int:
        return int(I64.unpack(self.take(8))[0])

    def nullable_string(self) -> str | None:
        n = self.i16()
        if n == -1:
            return None
        try:
            return self.take(n).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self._error(f"a string that is not UTF-8 in {self._what}: {exc}") from None

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise self._error(f"null where a string is required in {self._what}")
        return value

    def nullable_bytes(self) -> bytes | None:
        n = self.i32()
        return None if n == -1 else self.take(n)

    def bytes_(self) -> bytes:
        value = self.nullable_bytes()
        if value is None:
            raise self._error(f"null where bytes are required in {self._what}")
        return value

    def end(self) -> None:
        """Raises the error when bytes are left over."""
        if self.remaining():
            raise self._error(f"{self.remaining()} bytes left after the {self._what}")
