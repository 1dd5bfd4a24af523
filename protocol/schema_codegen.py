"""Generated encoders, decoders and constructors for ``Struct`` classes, one per class and version.

Owns: turning a struct's field list for one version into plain Python functions (built with
``exec``, as ``dataclasses`` builds ``__init__``): a decoder that checks every value's type
inline and builds the instance, an encoder that lists the field values, and a keyword
constructor.  They accept and produce exactly what ``Struct``'s field-by-field
interpretation does; a decoder that meets anything it does not accept raises ``Mismatch``,
and ``Struct.from_wire`` then re-runs the interpretation for the error message with the
field's path.  Does not own the field types or the wire framing.

Kafka concept: the message classes Kafka generates from its JSON message specs
(``clients/src/main/resources/common/message``, ``MessageDataGenerator``), here generated at
run time on first use.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafkette.protocol.schema import FieldType, Struct

Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], list[Any]]


class Mismatch(Exception):
    """A generated decoder met a value it does not accept (the caller re-decodes for the message)."""


_MISSING = object()
_IMMUTABLE = (int, str, bytes, float, bool, type(None))


class _Source:
    """Lines of one generated function and the names its body refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"Mismatch": Mismatch}
        self._count = 0

    def bind(self, value: Any, hint: str = "n") -> str:
        """A fresh global name of the generated function bound to ``value``."""
        self._count += 1
        name = f"_{hint}{self._count}"
        self.names[name] = value
        return name

    def fresh(self, hint: str = "v") -> str:
        self._count += 1
        return f"{hint}{self._count}"


def _usable(names: tuple[str, ...]) -> bool:
    return all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_") for n in names)


# ----------------------------------------------------------------------------- decoding


def _decode_stmts(src: _Source, ftype: FieldType, var: str, version: int, indent: str) -> list[str]:
    """Statements that check ``var`` against ``ftype`` and leave the decoded value in ``var``."""
    from kafkette.protocol.schema import Array, Nullable, StructType, _Bool, _Bytes, _Float, _Int, _Str

    kind = type(ftype)
    if kind is _Int:
        return [
            f"{indent}if type({var}) is not int or not {ftype._lo} <= {var} <= {ftype._hi}: raise Mismatch"
        ]
    if kind is _Str:
        return [f"{indent}if type({var}) is not str: raise Mismatch"]
    if kind is _Bytes:
        return [f"{indent}if type({var}) is not bytes: raise Mismatch"]
    if kind is _Bool:
        return [f"{indent}if type({var}) is not bool: raise Mismatch"]
    if kind is _Float:
        return [
            f"{indent}if type({var}) is float: pass",
            f"{indent}elif type({var}) is int: {var} = float({var})",
            f"{indent}else: raise Mismatch",
        ]
    if kind is Nullable:
        inner = _decode_stmts(src, ftype.inner, var, version, indent + "    ")
        return [f"{indent}if {var} is not None:", *inner]
    if kind is StructType:
        decode = src.bind(decoder(ftype.cls, version), "d")
        return [f"{indent}{var} = {decode}({var})"]
    if kind is Array:
        lines = [f"{indent}if type({var}) is not list: raise Mismatch"]
        inner = ftype.inner
        if type(inner) is StructType:
            decode = src.bind(decoder(inner.cls, version), "d")
            # An empty array (most are: a produce response's record_errors) is kept as msgpack made
            # it; a comprehension is a function call in CPython 3.11.
            return [*lines, f"{indent}if {var}: {var} = [{decode}(e) for e in {var}]"]
        element = src.fresh("e")
        body = _decode_stmts(src, inner, element, version, indent + "    ")
        out = src.fresh("a")
        return [
            *lines,
            f"{indent}{out} = []",
            f"{indent}for {element} in {var}:",
            *body,
            f"{indent}    {out}.append({element})",
            f"{indent}{var} = {out}",
        ]
    return []  # FieldType itself: any value, as is


def compile_decoder(cls: type[Struct], version: int) -> Decoder | None:
    """The decoder of ``cls`` at ``version``: ``decode(wire_list) -> instance``; None when a field
    name cannot be an attribute in source (the struct is then interpreted).

    Raises (from the decoder):
        Mismatch: anything ``cls.from_wire`` would refuse.
    """
    if not _usable(cls._field_names):
        return None
    fields = cls.fields_for(version)
    absent = [f for f in cls.FIELDS if not f.in_version(version)]
    src = _Source()
    klass = src.bind(cls, "K")
    new = src.bind(object.__new__, "new")
    body = [
        f"    if type(obj) is not list or len(obj) != {len(fields)}: raise Mismatch",
        f"    inst = {new}({klass})",
    ]
    if fields:
        targets = ", ".join(f"v{i}" for i in range(len(fields)))
        body.append(f"    {targets}{',' if len(fields) == 1 else ''} = obj")
    for i, f in enumerate(fields):
        body += _decode_stmts(src, f.type, f"v{i}", version, "    ")
        body.append(f"    inst.{f.name} = v{i}")
    for f in absent:
        body.append(f"    inst.{f.name} = {src.bind(f.default, 'D')}()")
    body.append("    return inst")
    return _build("decode", "obj", body, src)


_decoders: dict[tuple[type, int], Decoder] = {}


def decoder(cls: type[Struct], version: int) -> Decoder:
    """The cached decoder of ``cls`` at ``version`` (compiled on first use; an interpreting one
    when ``compile_decoder`` gives None)."""
    found = _decoders.get((cls, version))
    if found is not None:
        return found
    return _cached(
        _decoders,
        (cls, version),
        lambda: compile_decoder(cls, version) or _interpreting_decoder(cls, version),
    )


def _cached(cache: dict[tuple[type, int], Any], key: tuple[type, int], compile_one: Callable[[], Any]) -> Any:
    """``cache[key]`` compiled by ``compile_one`` (the caller found it missing).  While it compiles, the key
    holds a stand-in that calls the finished function (a struct holding itself refers to its own); a
    compile that fails leaves nothing behind."""
    cache[key] = lambda value: cache[key](value)
    try:
        found = cache[key] = compile_one()
    except BaseException:
        del cache[key]
        raise
    return found


def _interpreting_decoder(cls: type[Struct], version: int) -> Decoder:
    from kafkette.protocol.schema import SchemaError

    def decode(obj: Any) -> Any:
        try:
            return cls.interpret_wire(obj, version, cls.__name__)
        except SchemaError as exc:
            raise Mismatch from exc

    return decode


# ----------------------------------------------------------------------------- encoding


def _encode_expr(src: _Source, ftype: FieldType, expr: str, version: int) -> str:
    """An expression giving the wire form of ``expr`` (evaluated once)."""
    from kafkette.protocol.schema import Array, Nullable, StructType, _Bytes, _Int

    kind = type(ftype)
    if kind is _Int:
        v = src.fresh()
        return f"({v} if type({v} := {expr}) is int else int({v}))"
    if kind is _Bytes:
        v = src.fresh()
        return f"({v} if type({v} := {expr}) is bytes else bytes({v}))"
    if kind is Nullable:
        v = src.fresh()
        return f"(None if ({v} := {expr}) is None else {_encode_expr(src, ftype.inner, v, version)})"
    if kind is StructType:
        v = src.fresh()
        klass = src.bind(ftype.cls, "C")
        encode = src.bind(encoder(ftype.cls, version), "E")
        return f"({encode}({v}) if type({v} := {expr}) is {klass} else {v}.to_wire({version}))"
    if kind is Array:
        e = src.fresh("e")
        v = src.fresh()
        return f"([{_encode_expr(src, ftype.inner, e, version)} for {e} in {v}] if ({v} := {expr}) else [])"
    return expr  # strings, bools, floats and untyped values go as they are


def compile_encoder(cls: type[Struct], version: int) -> Encoder:
    """The encoder of ``cls`` at ``version``: ``encode(instance) -> msgpack-ready list``."""
    if not _usable(cls._field_names):
        return lambda self: [f.type.to_wire(getattr(self, f.name), version) for f in cls.fields_for(version)]
    src = _Source()
    items = [_encode_expr(src, f.type, f"self.{f.name}", version) for f in cls.fields_for(version)]
    return _build("encode", "self", [f"    return [{', '.join(items)}]"], src)


_encoders: dict[tuple[type, int], Encoder] = {}


def encoder(cls: type[Struct], version: int) -> Encoder:
    """The cached encoder of ``cls`` at ``version`` (compiled on first use)."""
    found = _encoders.get((cls, version))
    if found is not None:
        return found
    return _cached(_encoders, (cls, version), lambda: compile_encoder(cls, version))


# ----------------------------------------------------------------------------- construction


def compile_init(cls: type[Struct]) -> Callable[..., None] | None:
    """A keyword-only ``__init__`` for ``cls`` that sets every field (defaults as ``Field.default``)
    and raises ``TypeError`` for an unknown keyword; None when a field name cannot be a parameter."""
    names = cls._field_names
    if not _usable(names) or "self" in names or "kwargs" in names:
        return None
    src = _Source()
    missing = src.bind(_MISSING, "M")
    params = ", ".join(f"{n}={missing}" for n in names)
    body = [
        "    if kwargs:",
        f'        raise TypeError(f"{cls.__name__} has no field(s) {{sorted(kwargs)}}")',
    ]
    for f in cls.FIELDS:
        value = f.default()
        # A fresh value per instance unless it is immutable (a list, a nested struct are made anew).
        default = src.bind(value, "V") if type(value) in _IMMUTABLE else f"{src.bind(f.default, 'D')}()"
        body.append(f"    self.{f.name} = {default} if {f.name} is {missing} else {f.name}")
    return _build("__init__", f"self, *{', ' if params else ''}{params}, **kwargs", body, src)


def _build(name: str, params: str, body: list[str], src: _Source) -> Any:
    text = f"def {name}({params}):\n" + "\n".join(body) + "\n"
    namespace: dict[str, Any] = {}
    exec(compile(text, f"<generated {name}>", "exec"), dict(src.names), namespace)  # noqa: S102
    return namespace[name]
