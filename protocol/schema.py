"""Declarative message schemas: one class per request/response, all versions at once.

Owns: ``Field`` (name, type, version range, default), the field types, and ``Struct``,
the base of every message.  A struct is encoded for a given version as a msgpack
array holding, in declaration order, the fields whose version range contains that
version; decoding checks the array length and every value's type and raises
``SchemaError`` (which the broker answers with INVALID_REQUEST) on any mismatch.

Kafka concept: the JSON message specs in ``clients/src/main/resources/common/message``
(``"versions": "1+"`` per field), which Kafka turns into generated classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from kafkette.protocol.schema_codegen import Mismatch, compile_init, decoder, encoder


class SchemaError(ValueError):
    """A value does not match its schema (wrong type, wrong arity, bad version)."""


class FieldType:
    """A wire type: checks a decoded value and converts between Python and wire forms."""

    name = "?"

    def to_wire(self, value: Any, version: int) -> Any:
        return value

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        return value

    def default(self) -> Any:
        return None


class _Int(FieldType):
    def __init__(self, name: str, bits: int) -> None:
        self.name = name
        self._lo = -(1 << (bits - 1))
        self._hi = (1 << (bits - 1)) - 1

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

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not bool:
            raise SchemaError(f"{path}: expected bool, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return False


class _Float(FieldType):
    name = "float64"

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) not in (float, int):
            raise SchemaError(f"{path}: expected float64, got {type(value).__name__}")
        return float(value)

    def default(self) -> Any:
        return 0.0


class _Str(FieldType):
    name = "string"

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not str:
            raise SchemaError(f"{path}: expected string, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return ""


class _Bytes(FieldType):
    name = "bytes"

    def to_wire(self, value: Any, version: int) -> Any:
        return value if type(value) is bytes else bytes(value)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        if type(value) is not bytes:
            raise SchemaError(f"{path}: expected bytes, got {type(value).__name__}")
        return value

    def default(self) -> Any:
        return b""


class Nullable(FieldType):
    """Wraps a type so that None (msgpack nil) is also accepted."""

    def __init__(self, inner: FieldType) -> None:
        self.inner = inner
        self.name = f"{inner.name}?"

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

    def to_wire(self, value: Any, version: int) -> Any:
        return value.to_wire(version)

    def from_wire(self, value: Any, version: int, path: str) -> Any:
        return self.cls.interpret_wire(value, version, path)

    def default(self) -> Any:
        return self.cls()


Int8 = _Int("int8", 8)
Int16 = _Int("int16", 16)
Int32 = _Int("int32", 32)
Int64 = _Int("int64", 64)
Bool = _Bool()
Float64 = _Float()
String = _Str()
Bytes = _Bytes()


def _as_type(t: FieldType | type[Struct]) -> FieldType:
    if isinstance(t, FieldType):
        return t
    if isinstance(t, type) and issubclass(t, Struct):
        return StructType(t)
    raise TypeError(f"not a field type: {t!r}")


class Field:
    """One field of a message.

    Args:
        name: snake_case Kafka field name (``leader_epoch``).
        type: a FieldType, a Struct subclass, ``Array(...)`` or ``Nullable(...)``.
        versions: ``"0+"`` (from 0 on), ``"1-3"`` or ``"2"``: the versions holding it.
        default: value used when the field is absent from a version or not given;
            None means the type's own default (0, "", [], ...).
    """

    __slots__ = ("name", "type", "min_version", "max_version", "_default")

    def __init__(self, name: str, type: FieldType | type[Struct], versions: str = "0+", default: Any = None):
        self.name = name
        self.type = _as_type(type)
        self.min_version, self.max_version = parse_versions(versions)
        self._default = default

    def default(self) -> Any:
        if self._default is not None:
            return list(self._default) if isinstance(self._default, list) else self._default
        return self.type.default()

    def in_version(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


def parse_versions(spec: str) -> tuple[int, int]:
    """Parse ``"0+"``, ``"1-3"`` or ``"2"`` into an inclusive (min, max) version range."""
    spec = spec.strip()
    if spec.endswith("+"):
        return int(spec[:-1]), 1 << 15
    if "-" in spec:
        lo, hi = spec.split("-", 1)
        return int(lo), int(hi)
    return int(spec), int(spec)


class Struct:
    """Base of every message and nested structure.

    Subclasses set ``FIELDS``; instances get one attribute per field (keyword
    constructor, defaults for the rest).  ``to_wire(version)`` gives a msgpack-ready
    list; ``from_wire(obj, version)`` validates and builds an instance.
    """

    FIELDS: ClassVar[Sequence[Field]] = ()
    _field_names: ClassVar[tuple[str, ...]] = ()
    _by_version: ClassVar[dict[int, tuple[Field, ...]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._field_names = tuple(f.name for f in cls.FIELDS)
        cls._by_version = {}
        if "__init__" not in cls.__dict__:
            cls.__init__ = _STRUCT_INIT  # type: ignore[method-assign]  # its own, generated on first use

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
