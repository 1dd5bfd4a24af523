"""Kafka's binary message schemas: one class per request/response, all versions at once.

Owns: ``KafkaField`` (name, type, the versions holding it, the versions where it may be
null, its default), the field types of Kafka's message specs (``int8`` to ``int64``,
``uint16``, ``float64``, ``bool``, ``uuid``, ``string``, ``bytes``, ``records`` and arrays
of them or of structs), and ``KafkaStruct``, the base of every message, which encodes and
decodes itself at a version in the classic encoding or, from its message's first flexible
version on, in KIP-482's compact encoding (unsigned-varint lengths, ``length + 1`` with 0
for null, a tagged-field section after every struct).  A field declared with a ``tag``
(KIP-482's tagged fields, such as ApiVersions' feature flags) goes in that section, written
only when it is not its default, as Kafka's generated writers do; tags a message does not
declare are read and dropped (a client treats a missing tagged field as its default).  A struct
field where its version allows null (DescribeTopicPartitions' cursor) is preceded by an int8
marker, -1 for null and 1 before the struct, as Kafka's generated code writes it.

A record set (``records``) is encoded as bytes; a large one is not copied into the
answer but handed to the socket as its own buffer (``KafkaWriter.parts``), as the
msgpack listener does for fetched batches.

Does not own the header (``kafka_header``) or which APIs exist (``kafka_apis``).  Pure
code, no I/O.  Kafka concept: the JSON message specs in
``clients/src/main/resources/common/message`` and the ``Message`` classes Kafka
generates from them (``Readable``/``Writable``, ``ByteBufferAccessor``).
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from typing import Any, ClassVar

from kafkette.protocol.kafka_binary import BinaryReader, write_tagged_fields, write_unsigned_varint

SPLICE_MIN_BYTES = 4096
"""A record set at least this long goes to the socket as its own buffer, not copied."""

ZERO_UUID = bytes(16)
_NO_DEFAULT = object()
_CLASS = type


def parse_versions(spec: str) -> tuple[int, int]:
    """Parse a version range of Kafka's message specs, ``"0+"`` (from 0 on), ``"1-3"`` or ``"2"``,
    into an inclusive ``(min, max)``; an open range ends at 32768."""
    spec = spec.strip()
    if spec.endswith("+"):
        return int(spec[:-1]), 1 << 15
    if "-" in spec:
        lo, hi = spec.split("-", 1)
        return int(lo), int(hi)
    return int(spec), int(spec)


class KafkaSchemaError(ValueError):
    """A body that does not match its schema: truncated, a bad length, left-over bytes, a
    null where the version allows none, or a value out of its type's range."""


class KafkaWriter:
    """Collects an encoded message: small fields in ``buf``, large record sets as parts of their own.

    ``parts()`` returns the buffers whose concatenation is the message.
    """

    __slots__ = ("buf", "_parts", "version")

    def __init__(self, version: int = 0) -> None:
        self.version = version
        self.buf = bytearray()
        self._parts: list[bytes | memoryview] = []

    def splice(self, data: bytes | memoryview) -> None:
        """Append ``data`` as its own buffer (after what ``buf`` holds so far)."""
        if self.buf:
            self._parts.append(bytes(self.buf))
            self.buf.clear()
        self._parts.append(data)

    def parts(self) -> list[bytes | memoryview]:
        if self.buf:
            self._parts.append(bytes(self.buf))
            self.buf.clear()
        return self._parts

    def size(self) -> int:
        return sum(len(p) for p in self._parts) + len(self.buf)


class KafkaType:
    """One wire type: ``write(writer, value, flexible, nullable)`` and
    ``read(reader, flexible, nullable)``."""

    name = "?"

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        raise NotImplementedError

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        raise NotImplementedError

    def default(self) -> Any:
        return None


class _Fixed(KafkaType):
    def __init__(self, name: str, fmt: str, lo: int | None = None, hi: int | None = None) -> None:
        self.name = name
        self._struct = struct.Struct(fmt)
        self._lo, self._hi = lo, hi

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        try:
            out.buf += self._struct.pack(value)
        except struct.error as exc:
            raise KafkaSchemaError(f"{value!r} does not fit {self.name}: {exc}") from None

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        return self._struct.unpack(reader.take(self._struct.size))[0]

    def default(self) -> Any:
        return 0


class _Bool(_Fixed):
    def __init__(self) -> None:
        super().__init__("bool", ">?")

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        return reader.take(1) != b"\x00"

    def default(self) -> Any:
        return False


class _Float64(_Fixed):
    def __init__(self) -> None:
        super().__init__("float64", ">d")

    def default(self) -> Any:
        return 0.0


class _Uuid(KafkaType):
    name = "uuid"

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        raw = value.bytes if isinstance(value, uuid.UUID) else bytes(value or ZERO_UUID)
        if len(raw) != 16:
            raise KafkaSchemaError(f"a uuid has 16 bytes, not {len(raw)}")
        out.buf += raw

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        return reader.take(16)

    def default(self) -> Any:
        return ZERO_UUID


class _Bytes(KafkaType):
    """``bytes`` (int32 length) or compact bytes; ``records`` is the same encoding, spliced when large."""

    def __init__(self, name: str, splice: bool) -> None:
        self.name = name
        self._splice = splice

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        if value is None:
            if not nullable:
                raise KafkaSchemaError(f"null {self.name} in a version where it is not nullable")
            out.buf += b"\x00" if flexible else b"\xff\xff\xff\xff"
            return
        size = len(value)
        out.buf += write_unsigned_varint(size + 1) if flexible else struct.pack(">i", size)
        if self._splice and size >= SPLICE_MIN_BYTES:
            out.splice(value)
        else:
            out.buf += value

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        value = reader.compact_nullable_bytes() if flexible else reader.nullable_bytes()
        if value is None and not nullable:
            raise KafkaSchemaError(f"null {self.name} in a version where it is not nullable")
        return value

    def default(self) -> Any:
        return b""


class _String(KafkaType):
    name = "string"

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        if value is None:
            if not nullable:
                raise KafkaSchemaError("null string in a version where it is not nullable")
            out.buf += b"\x00" if flexible else b"\xff\xff"
            return
        data = value.encode("utf-8")
        if flexible:
            out.buf += write_unsigned_varint(len(data) + 1)
        elif len(data) > 0x7FFF:
            raise KafkaSchemaError(f"a string of {len(data)} bytes is longer than 32767")
        else:
            out.buf += struct.pack(">h", len(data))
        out.buf += data

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        value = reader.compact_nullable_string() if flexible else reader.nullable_string()
        if value is None and not nullable:
            raise KafkaSchemaError("null string in a version where it is not nullable")
        return value

    def default(self) -> Any:
        return ""


class Array(KafkaType):
    """An array of one element type (a ``KafkaType`` or a ``KafkaStruct`` subclass)."""

    def __init__(self, inner: KafkaType | type[KafkaStruct]) -> None:
        self.struct_cls = inner if isinstance(inner, type) and issubclass(inner, KafkaStruct) else None
        self.inner = inner
        self.name = f"[]{getattr(inner, '__name__', None) or getattr(inner, 'name', '?')}"

    def write(self, out: KafkaWriter, value: Any, flexible: bool, nullable: bool) -> None:
        if value is None:
            if not nullable:
                raise KafkaSchemaError(f"null {self.name} in a version where it is not nullable")
            out.buf += b"\x00" if flexible else b"\xff\xff\xff\xff"
            return
        out.buf += write_unsigned_varint(len(value) + 1) if flexible else struct.pack(">i", len(value))
        if self.struct_cls is not None:
            for item in value:
                item._write(out, out.version, flexible)
        else:
            inner = self.inner
            for item in value:
                inner.write(out, item, flexible, False)  # type: ignore[union-attr]

    def read(self, reader: BinaryReader, flexible: bool, nullable: bool) -> Any:
        if flexible:
            count = reader.compact_array_length()
        else:
            count = reader.i32()
            if count < 0:
                count = None
            elif count > reader.remaining():
                raise KafkaSchemaError(f"an array of {count} elements in {reader.remaining()} bytes")
        if count is None:
            if not nullable:
                raise KafkaSchemaError(f"null {self.name} in a version where it is not nullable")
            return None
        if self.struct_cls is not None:
            cls, version = self.struct_cls, reader.version  # type: ignore[attr-defined]
            return [cls._read(reader, version, flexible) for _ in range(count)]
        inner = self.inner
        return [inner.read(reader, flexible, False) for _ in range(count)]  # type: ignore[union-attr]

    def default(self) -> Any:
        return []


INT8 = _Fixed("int8", ">b")
INT16 = _Fixed("int16", ">h")
UINT16 = _Fixed("uint16", ">H")
INT32 = _Fixed("int32", ">i")
INT64 = _Fixed("int64", ">q")
BOOL = _Bool()
FLOAT64 = _Float64()
UUID = _Uuid()
STRING = _String()
BYTES = _Bytes("bytes", splice=False)
RECORDS = _Bytes("records", splice=True)


class KafkaField:
    """One field of a message.

    Args:
        name: snake_case of Kafka's field name (``partition_index``).
        type: a ``KafkaType``, ``Array(...)`` or a ``KafkaStruct`` subclass (a nested struct).
        versions: the versions holding it (``"0+"``, ``"3-7"``, ``"4"``).
        nullable: the versions where it may be null (``""``: none).
        default: its value where a version lacks it or a caller does not set it (None for a field
            Kafka defaults to null); when not given, the type's own default (0, "", [], a
            struct with its defaults).
        tag: its tag when it is a tagged field (in flexible versions only, Kafka's ``taggedVersions``
            being its ``versions``), else None.
        null_as_default: a null in a version where the field may not be null is written as its
            default instead of refused (a struct shared with the msgpack protocol, which lets
            the field be null at every version).
    """

    __slots__ = (
        "name",
        "type",
        "struct_cls",
        "min_version",
        "max_version",
        "nullable_min",
        "nullable_max",
        "_default",
        "tag",
        "null_as_default",
    )

    def __init__(
        self,
        name: str,
        type: KafkaType | type[KafkaStruct],
        versions: str = "0+",
        *,
        nullable: str = "",
        default: Any = _NO_DEFAULT,
        tag: int | None = None,
        null_as_default: bool = False,
    ) -> None:
        self.name = name
        self.struct_cls = type if isinstance(type, _CLASS) and issubclass(type, KafkaStruct) else None
        self.type = type
        self.min_version, self.max_version = parse_versions(versions)
        self.nullable_min, self.nullable_max = parse_versions(nullable) if nullable else (1 << 15, -1)
        self._default = default
        self.tag = tag
        self.null_as_default = null_as_default

    def default(self) -> Any:
        if self._default is not _NO_DEFAULT:
            return list(self._default) if isinstance(self._default, list) else self._default
        if self.struct_cls is not None:
            return self.struct_cls()
        return self.type.default()  # type: ignore[union-attr]

    def in_version(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version

    def nullable_in(self, version: int) -> bool:
        return self.nullable_min <= version <= self.nullable_max


F = KafkaField


class KafkaStruct:
    """Base of every Kafka message and nested structure.

    Subclasses set ``FIELDS``; instances get one attribute per field (keyword constructor,
    defaults for the rest).  ``encode(version, flexible)`` gives the body's buffers and
    ``decode(data, version, flexible)`` reads one back.  A subclass whose ``FIELDS`` are not
    ``KafkaField`` s (the messages of ``kafkette.protocol.schema``, shared with the msgpack
    protocol) says by ``_declare_kafka_fields`` which fields Kafka's wire carries and how.
    """

    FIELDS: ClassVar[Sequence[Any]] = ()
    _field_names: ClassVar[tuple[str, ...]] = ()
    _plans: ClassVar[dict[tuple[int, bool], list[tuple[KafkaField, bool]]]]
    _kafka_fields: ClassVar[tuple[KafkaField, ...]] = ()
    _unwired: ClassVar[tuple[Any, ...]] = ()
    _tagged: ClassVar[tuple[KafkaField, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._field_names = tuple(f.name for f in cls.FIELDS)
        cls._plans = {}
        cls._kafka_fields = cls._declare_kafka_fields()
        carried = {f.name for f in cls._kafka_fields}
        cls._unwired = tuple(f for f in cls.FIELDS if f.name not in carried)
        cls._tagged = tuple(
            sorted((f for f in cls._kafka_fields if f.tag is not None), key=lambda f: f.tag or 0)
        )

    @classmethod
    def _declare_kafka_fields(cls) -> tuple[KafkaField, ...]:
        """The fields Kafka's wire carries, in order: here every one of ``FIELDS``."""
        return tuple(cls.FIELDS)

    @classmethod
    def kafka_fields(cls) -> tuple[KafkaField, ...]:
        """The fields Kafka's wire carries, in declaration order (tagged ones included)."""
        return cls._kafka_fields

    def __init__(self, **kwargs: Any) -> None:
        for f in self.FIELDS:
            setattr(self, f.name, kwargs.pop(f.name) if f.name in kwargs else f.default())
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(kwargs)}")

    @classmethod
    def _plan(cls, version: int, flexible: bool) -> list[tuple[KafkaField, bool]]:
        plan = cls._plans.get((version, flexible))
        if plan is None:
            plan = [
                (f, f.nullable_in(version))
                for f in cls._kafka_fields
                if f.in_version(version) and f.tag is None
            ]
            cls._plans[(version, flexible)] = plan
        return plan

    def encode(self, version: int, flexible: bool) -> list[bytes | memoryview]:
        """The body at ``version`` as buffers whose concatenation is its bytes.

        Raises:
            KafkaSchemaError: a value does not fit its type, or is null where the version allows none.
        """
        out = KafkaWriter(version)
        self._write(out, version, flexible)
        return out.parts()

    def _write(self, out: KafkaWriter, version: int, flexible: bool) -> None:
        for f, nullable in self._plan(version, flexible):
            value = getattr(self, f.name)
            if value is None and not nullable and f.null_as_default:
                value = f.default()
            if f.struct_cls is not None:
                if nullable:  # Kafka's nullable struct: an int8 marker, -1 null, 1 present
                    out.buf += b"\xff" if value is None else b"\x01"
                    if value is None:
                        continue
                value._write(out, version, flexible)
            else:
                f.type.write(out, value, flexible, nullable)  # type: ignore[union-attr]
        if flexible:
            out.buf += self._tagged_section(version) if self._tagged else b"\x00"

    def _tagged_section(self, version: int) -> bytes:
        """The tagged-field section at ``version``: each tagged field of the version whose value
        is not its default (an empty list for an array), in tag order."""
        fields: dict[int, bytes] = {}
        for f in self._tagged:
            value = getattr(self, f.name)
            if not f.in_version(version) or value == f.default():
                continue
            inner = KafkaWriter(version)
            if f.struct_cls is not None:
                value._write(inner, version, True)
            else:
                f.type.write(inner, value, True, f.nullable_in(version))  # type: ignore[union-attr]
            fields[f.tag] = b"".join(inner.parts())  # type: ignore[index]
        return write_tagged_fields(fields)

    @classmethod
    def decode(
        cls, data: bytes | memoryview, version: int, flexible: bool, reader: BinaryReader | None = None
    ) -> KafkaStruct:
        """Read a body at ``version`` (the whole of ``data`` unless a ``reader`` is given).

        Raises:
            KafkaSchemaError: truncated, malformed or followed by left-over bytes.
        """
        own = reader is None
        if reader is None:
            reader = BinaryReader(bytes(data), KafkaSchemaError, cls.__name__)
        reader.version = version  # type: ignore[attr-defined]
        inst = cls._read(reader, version, flexible)
        if own:
            reader.end()
        return inst

    @classmethod
    def _read(cls, reader: BinaryReader, version: int, flexible: bool) -> KafkaStruct:
        inst = cls.__new__(cls)
        plan = cls._plan(version, flexible)
        for f, nullable in plan:
            if f.struct_cls is not None:
                if nullable and reader.i8() < 0:  # Kafka's nullable struct: -1 null, else present
                    setattr(inst, f.name, None)
                    continue
                setattr(inst, f.name, f.struct_cls._read(reader, version, flexible))
            else:
                setattr(inst, f.name, f.type.read(reader, flexible, nullable))  # type: ignore[union-attr]
        tags = reader.tagged_fields() if flexible else {}
        if len(plan) != len(cls.FIELDS):
            for f in cls._kafka_fields:
                if f.tag is not None and f.tag in tags and f.in_version(version):
                    setattr(inst, f.name, cls._read_tagged(f, tags[f.tag], reader, version))
                elif f.tag is not None or not f.in_version(version):
                    setattr(inst, f.name, f.default())
            for unwired in cls._unwired:
                setattr(inst, unwired.name, unwired.default())
        return inst

    @staticmethod
    def _read_tagged(f: KafkaField, raw: bytes, outer: BinaryReader, version: int) -> Any:
        """A tagged field's value from its bytes, which it must fill exactly."""
        reader = BinaryReader(raw, outer._error, f"tagged field {f.name}")
        reader.version = version  # type: ignore[attr-defined]
        if f.struct_cls is not None:
            value: Any = f.struct_cls._read(reader, version, True)
        else:
            value = f.type.read(reader, True, f.nullable_in(version))  # type: ignore[union-attr]
        reader.end()
        return value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, n) == getattr(other, n) for n in self._field_names
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}"[:200] for n in self._field_names)
        return f"{type(self).__name__}({inner})"
