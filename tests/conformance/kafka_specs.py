"""Apache Kafka's own message specs (the JSON message definitions under ``common/message/`` inside
the pinned kafka-clients jar) read as data, and a request body encoded from them at any version.

Owns the reading of the specs (requests and responses; ``test_kafka_declarations_match_kafka_specs``
compares Kafkette's declarations with them) and the spec-driven encoding (classic and KIP-482 flexible, tagged
fields included) for the byte-level fuzz (``fuzz``); not the values (``fuzz_strategies``) and
not Kafkette's own codecs (``protocol/kafka_messages``), so that a request can say whatever
Kafka's schema allows, beyond what Kafkette's codec can.  A value is a ``dict`` by the spec's
field names (``TopicData``), a list for an array, ``None`` for null; a field missing from the
dict is written as its type's blank value.
"""

from __future__ import annotations

import json
import struct
import uuid
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tests.peers.kafka_peer import resolve

PRIMITIVES = {
    "bool": ">?",
    "int8": ">b",
    "int16": ">h",
    "uint16": ">H",
    "int32": ">i",
    "uint32": ">I",
    "int64": ">q",
    "float64": ">d",
}


def in_range(versions: str | None, version: int) -> bool:
    """Whether ``version`` is in a spec's version range (``"3+"``, ``"0-12"``, ``"none"``, ``"5"``)."""
    if not versions or versions == "none":
        return False
    if versions.endswith("+"):
        return version >= int(versions[:-1])
    low, _, high = versions.partition("-")
    return int(low) <= version <= int(high or low)


@dataclass(frozen=True)
class Field:
    """One field of a spec.

    Attributes:
        name / type: the spec's (``type`` without its ``[]``).
        array: the type is ``[]...``.
        versions / nullable / tagged: the spec's ``versions``, ``nullableVersions``, ``taggedVersions``.
        tag: the tag of a tagged field, else None.
        entity: the spec's ``entityType`` (``topicName``, ``groupId`` ...), else None.
        default: the spec's ``default`` as written, else None.
        fields: a struct's own fields.
    """

    name: str
    type: str
    array: bool
    versions: str
    nullable: str | None
    tagged: str | None
    tag: int | None
    entity: str | None
    default: str | None
    fields: tuple[Field, ...] = field(default=())

    @property
    def struct(self) -> bool:
        return self.type not in PRIMITIVES and self.type not in ("string", "bytes", "records", "uuid")


@dataclass(frozen=True)
class Spec:
    """One request's spec: its API key, name, valid and flexible versions and fields."""

    api_key: int
    name: str
    valid: str
    flexible: str
    fields: tuple[Field, ...]


def _field(raw: dict[str, Any], common: dict[str, list[dict[str, Any]]]) -> Field:
    typ = raw["type"]
    array = typ.startswith("[]")
    base = typ[2:] if array else typ
    children = raw.get("fields") or common.get(base, [])
    return Field(
        raw["name"],
        base,
        array,
        raw["versions"],
        raw.get("nullableVersions"),
        raw.get("taggedVersions"),
        raw.get("tag"),
        raw.get("entityType"),
        None if raw.get("default") is None else str(raw["default"]),
        tuple(_field(c, common) for c in children),
    )


def request_specs(jar: Path | None = None) -> dict[int, Spec]:
    """Every request spec of kafka-clients' jar (default: the Apache Kafka peer's), by API key.

    Raises:
        PeerUnavailable: the Kafka jars cannot be resolved.
    """
    return message_specs("request", jar)


def response_specs(jar: Path | None = None) -> dict[int, Spec]:
    """Every response spec of kafka-clients' jar (default: the Apache Kafka peer's), by API key.

    Raises:
        PeerUnavailable: the Kafka jars cannot be resolved.
    """
    return message_specs("response", jar)


@cache
def message_specs(kind: str, jar: Path | None = None) -> dict[int, Spec]:
    """Every spec of one kind (``request`` or ``response``) of kafka-clients' jar, by API key.

    Raises:
        PeerUnavailable: the Kafka jars cannot be resolved.
    """
    jar = jar or next(resolve().glob("kafka-clients-*.jar"))
    suffix = kind.capitalize() + ".json"
    specs: dict[int, Spec] = {}
    with zipfile.ZipFile(jar) as archive:
        for name in archive.namelist():
            if not (name.startswith("common/message/") and name.endswith(suffix)):
                continue
            text = "\n".join(
                line for line in archive.read(name).decode().splitlines() if not line.strip().startswith("//")
            )
            raw = json.loads(text)
            if raw.get("type") != kind or "apiKey" not in raw:
                continue
            common = {c["name"]: c["fields"] for c in raw.get("commonStructs", [])}
            specs[raw["apiKey"]] = Spec(
                raw["apiKey"],
                raw["name"],
                raw["validVersions"],
                raw.get("flexibleVersions", "none"),
                tuple(_field(f, common) for f in raw.get("fields", [])),
            )
    return specs


def _uvarint(n: int) -> bytes:
    out = bytearray()
    n &= 0xFFFFFFFF
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _length(n: int | None, flexible: bool, fmt: str) -> bytes:
    """A length prefix: compact (``n + 1``, 0 for null) when flexible, else ``fmt`` (-1 for null)."""
    if flexible:
        return _uvarint(0 if n is None else n + 1)
    return struct.pack(fmt, -1 if n is None else n)


def blank(f: Field, version: int) -> Any:
    """A field's blank value: null where nullable, else 0, false, empty."""
    if f.nullable and in_range(f.nullable, version):
        return None
    if f.array:
        return []
    if f.struct:
        return {}
    if f.type == "string":
        return ""
    if f.type in ("bytes", "records"):
        return b""
    if f.type == "uuid":
        return bytes(16)
    return False if f.type == "bool" else 0


def _value(f: Field, value: Any, version: int, flexible: bool) -> bytes:
    if f.array:
        if value is None:
            return _length(None, flexible, ">i")
        element = Field(f.name, f.type, False, f.versions, None, None, None, f.entity, None, f.fields)
        return _length(len(value), flexible, ">i") + b"".join(
            _value(element, v, version, flexible) for v in value
        )
    if f.struct:
        body = b"" if value is None else encode_struct(f.fields, value, version, flexible)
        if f.nullable and in_range(f.nullable, version):  # Kafka's nullable struct: int8 -1 null, 1 present
            return b"\xff" if value is None else b"\x01" + body
        return body or encode_struct(f.fields, {}, version, flexible)
    if f.type in PRIMITIVES:
        return struct.pack(PRIMITIVES[f.type], value)
    if f.type == "uuid":
        return value.bytes if isinstance(value, uuid.UUID) else bytes(value)
    if f.type == "string":
        data = None if value is None else value.encode()
        return _length(None if data is None else len(data), flexible, ">h") + (data or b"")
    return _length(None if value is None else len(value), flexible, ">i") + (value or b"")


def encode_struct(fields: tuple[Field, ...], values: dict[str, Any], version: int, flexible: bool) -> bytes:
    """The fields present at ``version``, in order, then (when ``flexible``) the tagged fields
    whose value ``values`` holds, by tag.

    Raises:
        struct.error: a number out of its type's range.
    """
    out = bytearray()
    tagged: list[tuple[int, bytes]] = []
    for f in fields:
        if not in_range(f.versions, version):
            continue
        value = values.get(f.name, blank(f, version))
        if f.tag is not None and in_range(f.tagged, version):
            if flexible and f.name in values:
                tagged.append((f.tag, _value(f, value, version, flexible)))
            continue
        out += _value(f, value, version, flexible)
    if flexible:
        out += _uvarint(len(tagged))
        for tag, data in sorted(tagged):
            out += _uvarint(tag) + _uvarint(len(data)) + data
    return bytes(out)


def encode_request(spec: Spec, values: dict[str, Any], version: int) -> bytes:
    """A request body (header excluded) of ``spec`` at ``version``."""
    return encode_struct(spec.fields, values, version, in_range(spec.flexible, version))
