"""Generated struct codecs against the field-by-field interpretation they replace.

Every request and response of every API and version in ``API_REGISTRY`` (and the structs
nested in them) is decoded from random wire values, valid ones and ones with a value of the
wrong type, out of range, or a wrong arity, by both the generated decoder and
``Struct.interpret_wire``: both must accept with equal results or both refuse.  Encoding
compares the generated encoder with the field types' own ``to_wire``.  The seed is printed;
``KAFKETTE_CODEGEN_SEED=N`` replays a run.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from kafkette.protocol.api_keys import API_REGISTRY
from kafkette.protocol.schema import (
    Array,
    Bool,
    Field,
    Float64,
    Int16,
    Nullable,
    SchemaError,
    String,
    Struct,
    StructType,
    _Bool,
    _Bytes,
    _Float,
    _Int,
    _Str,
)
from kafkette.protocol.schema_codegen import Mismatch, decoder, encoder

SEED = int(os.environ.get("KAFKETTE_CODEGEN_SEED", random.randrange(1 << 30)))
CASES_PER_SCHEMA = 12
CASES_PER_LOCAL_SCHEMA = 300  # Outer holds every field type: it gets the most cases


class Inner(Struct):
    FIELDS = (Field("ratio", Float64), Field("flag", Bool), Field("note", Nullable(String), versions="1+"))


class Outer(Struct):
    FIELDS = (
        Field("code", Int16),
        Field("inner", Inner),
        Field("many", Array(Inner)),
        Field("grid", Array(Array(Int16))),
        Field("names", Nullable(Array(String)), versions="0-1"),
        Field("later", Int16, versions="2+", default=7),
    )


def _schemas() -> list[tuple[type[Struct], int]]:
    found = [(Outer, v) for v in range(3)]
    for spec in API_REGISTRY.values():
        for version in range(spec.min_version, spec.max_version + 1):
            found += [(spec.request, version), (spec.response, version)]
    return found


def _valid(rng: random.Random, ftype: Any, version: int, depth: int = 0) -> Any:
    kind = type(ftype)
    if kind is _Int:
        return rng.choice([ftype._lo, ftype._hi, 0, rng.randint(ftype._lo, ftype._hi)])
    if kind is _Str:
        return rng.choice(["", "t", "topic-ü"])
    if kind is _Bytes:
        return rng.choice([b"", b"\x00\x01"])
    if kind is _Bool:
        return rng.random() < 0.5
    if kind is _Float:
        return rng.choice([0.5, 3, -1.25])
    if kind is Nullable:
        return None if rng.random() < 0.3 else _valid(rng, ftype.inner, version, depth)
    if kind is Array:
        return [
            _valid(rng, ftype.inner, version, depth + 1) for _ in range(rng.randint(0, 2 if depth < 3 else 0))
        ]
    if kind is StructType:
        return [_valid(rng, f.type, version, depth + 1) for f in ftype.cls.fields_for(version)]
    return rng.choice([None, 1, "x"])


def _wrong(rng: random.Random, ftype: Any) -> Any:
    kind = type(ftype)
    if kind is _Int:
        return rng.choice([ftype._hi + 1, ftype._lo - 1, True, 1.0, "1", None])
    if kind is _Float:
        return rng.choice([True, "1.0", None])
    return rng.choice([1, True, 1.5, "s", b"b", None, {}, [1]])


def _mutate(rng: random.Random, wire: Any, cls: type[Struct], version: int) -> Any:
    """``wire`` with one value somewhere replaced by a wrong one (or one field dropped)."""
    fields = cls.fields_for(version)
    if not fields or rng.random() < 0.1:
        return wire + [0] if rng.random() < 0.5 else wire[:-1] if wire else {}
    i = rng.randrange(len(fields))
    out = list(wire)
    ftype = fields[i].type
    inner = ftype.inner if type(ftype) is Nullable else ftype
    if type(inner) is StructType and type(out[i]) is list and rng.random() < 0.7:
        out[i] = _mutate(rng, out[i], inner.cls, version)
    elif type(inner) is Array and type(out[i]) is list and out[i] and rng.random() < 0.7:
        j = rng.randrange(len(out[i]))
        element = inner.inner
        if type(element) is StructType and type(out[i][j]) is list:
            out[i] = out[i][:j] + [_mutate(rng, out[i][j], element.cls, version)] + out[i][j + 1 :]
        else:
            out[i] = out[i][:j] + [_wrong(rng, element)] + out[i][j + 1 :]
    else:
        out[i] = _wrong(rng, ftype)
    return out


def _reference_encode(ftype: Any, value: Any, version: int) -> Any:
    """The field types' own ``to_wire``, with nested structs interpreted too."""
    if type(ftype) is StructType:
        return [
            _reference_encode(f.type, getattr(value, f.name), version) for f in ftype.cls.fields_for(version)
        ]
    if type(ftype) is Array:
        return [_reference_encode(ftype.inner, v, version) for v in value]
    if type(ftype) is Nullable:
        return None if value is None else _reference_encode(ftype.inner, value, version)
    return ftype.to_wire(value, version)


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except (SchemaError, Mismatch):
        return "refused", None


@pytest.mark.parametrize("cls,version", _schemas(), ids=lambda x: getattr(x, "__name__", str(x)))
def test_generated_decoder_accepts_and_refuses_what_the_interpretation_does(cls, version):
    print(f"seed {SEED} (KAFKETTE_CODEGEN_SEED={SEED} replays)")
    rng = random.Random(f"{SEED}-{cls.__name__}-{version}")
    for _ in range(CASES_PER_LOCAL_SCHEMA if cls is Outer else CASES_PER_SCHEMA):
        wire = _valid(rng, StructType(cls), version)
        for candidate in (wire, _mutate(rng, wire, cls, version)):
            generated = _outcome(lambda c=candidate: decoder(cls, version)(c))
            interpreted = _outcome(lambda c=candidate: cls.interpret_wire(c, version))
            assert generated == interpreted, f"{cls.__name__} v{version}: {candidate!r}"
            if generated[0] == "ok":
                assert cls.from_wire(candidate, version) == interpreted[1]
                assert encoder(cls, version)(interpreted[1]) == _reference_encode(
                    StructType(cls), interpreted[1], version
                )


def test_from_wire_still_names_the_path_of_a_refused_value():
    wire = [1, [0.5, True], [[0.5, True], [0.5, "no"]], [], None]
    with pytest.raises(SchemaError, match=r"Outer\.many\[1\]"):
        Outer.from_wire(wire, 0)


def test_generated_constructor_gives_fresh_defaults_and_refuses_unknown_fields():
    first, second = Outer(), Outer(code=3)
    assert first.many == [] and first.many is not second.many
    assert first.inner == Inner() and first.inner is not second.inner
    # a nullable field defaults to its type's default, as Kafka's message specs default (null only when
    # declared default=None)
    assert (first.code, second.code, first.later, first.names) == (0, 3, 7, [])
    assert first.names is not second.names
    with pytest.raises(TypeError, match="no field"):
        Outer(nope=1)
    assert Outer(names=None).names is None


def test_generated_encoder_converts_as_the_field_types_do():
    value = Outer(code=True, inner=Inner(ratio=2, flag=False), grid=[[True, 2]], names=("a", "b"))
    wire = encoder(Outer, 1)(value)
    assert wire == _reference_encode(StructType(Outer), value, 1)
    assert type(wire[0]) is int and [type(x) for x in wire[3][0]] == [int, int] and wire[4] == ["a", "b"]


def test_a_compile_that_fails_leaves_no_stand_in_behind(monkeypatch):
    from kafkette.protocol import schema_codegen

    class Once(Struct):
        FIELDS = (Field("code", Int16),)

    def broken(cls, version):
        raise RuntimeError("compile failed")

    monkeypatch.setattr(schema_codegen, "compile_encoder", broken)
    with pytest.raises(RuntimeError, match="compile failed"):
        Once(code=1).to_wire(0)
    monkeypatch.undo()
    assert Once(code=1).to_wire(0) == [1]
