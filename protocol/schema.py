"""Declarative message schemas: one class per request/response, all versions at once, and
both wire protocols of each.

Owns: ``Field`` (name, type, version range, default and, as Kafka's message specs declare
them, the versions where it may be null and its tag), the field types, and ``Struct``, the
base of every message.  A struct is encoded for a given version as a msgpack array holding,
in declaration order, the fields whose version range contains that version (tagged fields
too, in their place); decoding checks the array length and every value's type and raises
``SchemaError`` (which the broker answers with INVALID_REQUEST) on any mismatch.  A
``Struct`` is a ``KafkaStruct`` too: the same class and version read and write Kafka's
binary encoding (``kafka_schema``), so a message declared once in Kafka's versions serves
both listeners.  A field Kafka's wire does not carry is declared ``kafka=False``.

Kafka concept: the JSON message specs in ``clients/src/main/resources/common/message``
(``"versions"``, ``"nullableVersions"``, ``"tag"``, ``"default"`` per field), which Kafka turns
into generated classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from kafkette.protocol import kafka_schema as kafka
from kafkette.protocol.kafka_schema import KafkaField, KafkaStruct, KafkaType, parse_versions
from kafkette.protocol.schema_codegen import Mismatch, compile_init, decoder, encoder

_NO_DEFAULT: Any = kafka._NO_DEFAULT


class SchemaError(ValueError):
    """A value does not match its schema (wrong type, wrong arity, bad version)."""


class FieldType:
    """A wire type: checks a decoded value and converts between Python and wire forms.

    Attributes:
        kafka: the same type in Kafka's binary encoding (``kafka_schema``).
    """

    name = "?"
    kafka: KafkaType | type[KafkaStruct] = kafka.KafkaType()

    def to_wire(self, value: Any, version: int) -> Any:
        return value

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        return value

    def default(self) -> Any:
        return None


class _Int(FieldType):
    def __init__(self, name: str, bits: int, kafka_type: KafkaType, signed: bool = True) -> None:
        self.name = name
        self.kafka = kafka_type
        self._lo = -(1 << (bits - 1)) if signed else 0
        self._hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1

    def to_wire(self, value: Any, version: int) -> Any:
        return int(value)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not int:
            raise SchemaError(f"{path}: expected {self.name}, got {type(value).__name__}")
        if not self._lo <= value <= self._hi:
            raise SchemaError(f"{path}: {value} out of range for {self.name}")
        return value

    def default(self) -> Any:
        return 0


class _Bool(FieldType):
    name = "bool"
    kafka = kafka.BOOL

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not bool:
            raise SchemaError(f"{path}: expected bool, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return False


class _Float(FieldType):
    name = "float64"
    kafka = kafka.FLOAT64

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) not in (float, int):
            raise SchemaError(f"{path}: expected float64, got {type(value).__name__}")
        return float(value)

    def default(self) -> Any:
        return 0.0


class _Str(FieldType):
    name = "string"
    kafka = kafka.STRING

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not str:
            raise SchemaError(f"{path}: expected string, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return ""


class _Bytes(FieldType):
    """Bytes on msgpack; Kafka's ``bytes``, ``records`` or ``uuid`` (16 bytes) by ``kafka_type``."""

    def __init__(self, kafka_type: KafkaType, default: bytes = b"") -> None:
        self.name = kafka_type.name
        self.kafka = kafka_type
        self._default = default

    def to_wire(self, value: Any, version: int) -> Any:
        return value if type(value) is bytes else bytes(value)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not bytes:
            raise SchemaError(f"{path}: expected bytes, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return self._default


class Nullable(FieldType):
    """Wraps a type so that None (msgpack nil) is also accepted."""

    def __init__(self, inner: FieldType) -> None:
        self.inner = inner
        self.name = f"{inner.name}?"
        self.kafka = inner.kafka

    def to_wire(self, value: Any, version: int) -> Any:
        return None if value is None else self.inner.to_wire(value, version)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        return None if value is None else self.inner.from_wire(value, version, path)

    def default(self) -> Any:
        return None


class Array(FieldType):
    """A list of one element type."""

    def __init__(self, inner: FieldType | type[Struct]) -> None:
        self.inner = _as_type(inner)
        self.name = f"[{self.inner.name}]"
        self.kafka = kafka.Array(self.inner.kafka)

    def to_wire(self, value: Any, version: int) -> Any:
        conv = self.inner.to_wire
        return [conv(v, version) for v in value]

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not list:
            raise SchemaError(f"{path}: expected array, got {type(value).__name__}")
        conv = self.inner.from_wire
        try:
            return [conv(v, version, path) for v in value]
        except SchemaError:
            # Decoding is pure: redo it with each element's own path for the error message
            # (building those paths up front costs more than the decoding of a valid array).
            return [conv(v, version, f"{path}[{i}]") for i, v in enumerate(value)]

    def default(self) -> Any:
        return []


class StructType(FieldType):
    """A nested struct field (built by ``Field`` from a Struct subclass)."""

    def __init__(self, cls: type[Struct]) -> None:
        self.cls = cls
        self.name = cls.__name__
        self.kafka = cls

    def to_wire(self, value: Any, version: int) -> Any:
        return value.to_wire(version)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        return self.cls.interpret_wire(value, version, path)

    def default(self) -> Any:
        return self.cls()


Int8 = _Int("int8", 8, kafka.INT8)
Int16 = _Int("int16", 16, kafka.INT16)
Uint16 = _Int("uint16", 16, kafka.UINT16, signed=False)
Int32 = _Int("int32", 32, kafka.INT32)
Int64 = _Int("int64", 64, kafka.INT64)
Bool = _Bool()
Float64 = _Float()
String = _Str()
Bytes = _Bytes(kafka.BYTES)
Records = _Bytes(kafka.RECORDS)
"""Record batches (``record_batch``): bytes on msgpack, Kafka's ``records`` (spliced when large)."""
Uuid = _Bytes(kafka.UUID, default=kafka.ZERO_UUID)
"""A topic id: 16 bytes, all zero when not set (Kafka's ``Uuid.ZERO_UUID``)."""


def _as_type(t: FieldType | type[Struct]) -> FieldType:
    if isinstance(t, FieldType):
        return t
    if isinstance(t, type) and issubclass(t, Struct):
        return StructType(t)
    raise TypeError(f"not a field type: {t!r}")


class Field:
    """One field of a message, as Kafka's message specs declare it.

    Args:
        name: snake_case Kafka field name (``leader_epoch``).
        type: a FieldType, a Struct subclass, ``Array(...)`` or ``Nullable(...)``.
        versions: ``"0+"`` (from 0 on), ``"1-3"`` or ``"2"``: the versions holding it.
        default: value used when the field is absent from a version or not given (None: null);
            when not given, the type's own default (0, "", [], a struct of defaults), also for a
            nullable field, as Kafka's message specs default.
        nullable: the versions where Kafka's wire lets it be null (``""``: none); msgpack lets
            a field so declared be null at every version.
        tag: its tag when it is a tagged field in Kafka's flexible versions (KIP-482), else None.
        kafka: False for a field only the msgpack protocol carries (Kafka's wire has no place for it).
    """

    __slots__ = ("name", "type", "min_version", "max_version", "_default", "nullable", "tag", "kafka")

    def __init__(
        self,
        name: str,
        type: FieldType | type[Struct],
        versions: str = "0+",
        default: Any = _NO_DEFAULT,
        *,
        nullable: str = "",
        tag: int | None = None,
        kafka: bool = True,
    ):
        self.name = name
        field_type = _as_type(type)
        self.type = Nullable(field_type) if nullable and not isinstance(field_type, Nullable) else field_type
        self.min_version, self.max_version = parse_versions(versions)
        self._default = default
        self.nullable = nullable
        self.tag = tag
        self.kafka = kafka

    def default(self) -> Any:
        """The field's value where a version lacks it or a caller does not set it: the declared
        default, else the type's own, as Kafka's generated messages default (a nullable field is
        null only when declared ``default=None``). One value for both codecs."""
        if self._default is not _NO_DEFAULT:
            return list(self._default) if isinstance(self._default, list) else self._default
        inner = self.type.inner if isinstance(self.type, Nullable) else self.type
        return inner.default()

    def in_version(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version

    def kafka_field(self) -> KafkaField:
        """This field as Kafka's binary encoding carries it (a null where its version allows none is
        written as the default, as msgpack lets it be null at every version)."""
        inner = self.type.inner if isinstance(self.type, Nullable) else self.type
        out = KafkaField(
            self.name,
            inner.kafka,
            "0",
            nullable=self.nullable,
            default=self._default,
            tag=self.tag,
            null_as_default=True,
        )
        out.min_version, out.max_version = self.min_version, self.max_version
        return out


class Struct(KafkaStruct):
    """Base of every message and nested structure.

    Subclasses set ``FIELDS``; instances get one attribute per field (keyword
    constructor, defaults for the rest).  ``to_wire(version)`` gives a msgpack-ready
    list; ``from_wire(obj, version)`` validates and builds an instance.  ``encode`` and
    ``decode`` (``KafkaStruct``) do the same in Kafka's binary encoding.
    """

    FIELDS: ClassVar[Sequence[Field]] = ()
    _by_version: ClassVar[dict[int, tuple[Field, ...]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._by_version = {}
        if "__init__" not in cls.__dict__:
            cls.__init__ = _STRUCT_INIT  # type: ignore[method-assign]  # its own, generated on first use

    @classmethod
    def _declare_kafka_fields(cls) -> tuple[KafkaField, ...]:
        """The fields Kafka's wire carries (all but those declared ``kafka=False``), as ``KafkaField`` s."""
        return tuple(f.kafka_field() for f in cls.FIELDS if f.kafka)

    def __init__(self, **kwargs: Any) -> None:
        """Keyword per field, defaults for the rest; a subclass's generated ``__init__`` replaces
        this one at its first instance (``schema_codegen.compile_init``).

        Raises:
            TypeError: a keyword that is no field.
        """
        cls = type(self)
        if cls is Struct:
            self._interpret_init(**kwargs)
            return
        cls.__init__ = compile_init(cls) or Struct._interpret_init  # type: ignore[method-assign]
        cls.__init__(self, **kwargs)

    def _interpret_init(self, **kwargs: Any) -> None:
        for f in self.FIELDS:
            if f.name in kwargs:
                setattr(self, f.name, kwargs.pop(f.name))
            else:
                setattr(self, f.name, f.default())
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(kwargs)}")

    @classmethod
    def fields_for(cls, version: int) -> tuple[Field, ...]:
        """The fields present in ``version``, in wire order."""
        fields = cls._by_version.get(version)
        if fields is None:
            fields = tuple(f for f in cls.FIELDS if f.in_version(version))
            cls._by_version[version] = fields
        return fields

    def to_wire(self, version: int) -> list[Any]:
        """Encode for ``version`` as a list of field values (msgpack-ready), with the class's
        generated encoder (``schema_codegen``)."""
        return encoder(type(self), version)(self)

    @classmethod
    def from_wire(cls, obj: Any, version: int, path: str | None = None) -> Struct:
        """Decode and validate with the class's generated decoder (``schema_codegen``); what it
        refuses is decoded again field by field for the error message.

        Raises:
            SchemaError: wrong container, arity or field type (the message names the field's path).
        """
        try:
            return decoder(cls, version)(obj)
        except Mismatch:
            return cls.interpret_wire(obj, version, path)

    @classmethod
    def interpret_wire(cls, obj: Any, version: int, path: str | None = None) -> Struct:
        """``from_wire`` field by field through the field types (the reference the generated
        decoders follow; the error messages come from here).

        Raises:
            SchemaError: wrong container, arity or field type.
        """
        path = path or cls.__name__
        fields = cls._by_version.get(version) or cls.fields_for(version)
        if type(obj) is not list:
            raise SchemaError(f"{path}: expected array, got {type(obj).__name__}")
        if len(obj) != len(fields):
            raise SchemaError(f"{path}: expected {len(fields)} fields for v{version}, got {len(obj)}")
        inst = cls.__new__(cls)
        try:
            for f, value in zip(fields, obj, strict=True):
                setattr(inst, f.name, f.type.from_wire(value, version, path))
        except SchemaError:  # redo with each field's own path for the error message (decoding is pure)
            for f, value in zip(fields, obj, strict=True):
                setattr(inst, f.name, f.type.from_wire(value, version, f"{path}.{f.name}"))
        if len(fields) != len(cls.FIELDS):
            for f in cls.FIELDS:
                if not f.in_version(version):
                    setattr(inst, f.name, f.default())
        return inst

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, n) == getattr(other, n) for n in self._field_names
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={_short(getattr(self, n))}" for n in self._field_names)
        return f"{type(self).__name__}({inner})"


_STRUCT_INIT = Struct.__init__


def _short(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(value)} bytes>"
    text = repr(value)
    return text if len(text) < 200 else text[:200] + "..."
