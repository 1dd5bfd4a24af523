"""Kafkette's message declarations (``protocol.api_keys.APIS``) against Apache Kafka's own JSON
message specs (``tests/conformance/kafka_specs``), over the versions each API declares (for the Kafka
listener, the versions its ApiVersions answer offers).

Owns the comparison: for one API and kind (request or response), every field of every struct
present in an offered version is matched by name (Kafka's ``CamelCase`` as Kafkette's
``snake_case``, or a rename of ``RENAMES``) and compared on its type (``int8`` ... ``float64``,
``string``, ``bytes``, ``records``, ``bool``, ``uuid``, arrays, structs recursively), the offered
versions holding it, the versions where it may be null, its tag and tagged versions (KIP-482)
and its default; the order of the untagged fields at each version; and the flexible versions.
Each difference is one sentence, so that a table of known ones can name it exactly.  Does not
own the reading of the specs (``kafka_specs``) nor which differences are accepted (the test).
Only the offered versions count: a field that Kafka adds in a later version is no difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from kafkette.protocol.api_keys import ApiSpec
from kafkette.protocol.kafka_schema import ZERO_UUID, Array, KafkaField, KafkaStruct
from tests.conformance.kafka_specs import Field, Spec, in_range

RENAMES = {
    # (Kafkette's struct, Kafkette's field): Kafka's field name, where the two differ (same wire layout)
    ("OffsetForLeaderTopic", "name"): "Topic",
    ("OffsetForLeaderTopicResult", "name"): "Topic",
    ("OffsetCommitRequest", "generation_id"): "GenerationIdOrMemberEpoch",
}
"""Fields Kafkette names otherwise than Kafka (the name is not on the wire): compared with Kafka's
field of that name, the renaming itself being one difference (``... is Kafka's Topic, named otherwise``)."""


def snake_case(name: str) -> str:
    """Kafka's ``CamelCase`` field name as Kafkette names it (``ThrottleTimeMs`` -> ``throttle_time_ms``)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def version_ranges(versions: Iterable[int]) -> str:
    """A set of versions as ranges (``3-5, 8``; ``none`` when empty)."""
    ordered = sorted(versions)
    if not ordered:
        return "none"
    parts: list[str] = []
    start = prev = ordered[0]
    for v in ordered[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def _their_versions(range_: str | None, offered: frozenset[int]) -> frozenset[int]:
    return frozenset(v for v in offered if in_range(range_, v))


def _our_versions(f: KafkaField, offered: frozenset[int]) -> frozenset[int]:
    return frozenset(v for v in offered if f.in_version(v))


def _our_type(f: KafkaField) -> str:
    if f.struct_cls is not None:
        return "struct"
    if isinstance(f.type, Array):
        return "[]struct" if f.type.struct_cls is not None else "[]" + f.type.inner.name
    return f.type.name  # type: ignore[union-attr]


def _their_type(f: Field) -> str:
    base = "struct" if f.struct else f.type
    return "[]" + base if f.array else base


def _their_default(f: Field) -> Any:
    """Kafka's default of a field as the value Kafkette would hold (``None`` for ``null``)."""
    if f.default == "null":
        return None
    if f.array:
        return []
    if f.type == "bool":
        return f.default in ("true", "True")
    if f.type in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        return int(f.default.strip(), 0) if f.default else 0
    if f.type == "float64":
        return float(f.default) if f.default else 0.0
    if f.type == "string":
        return f.default or ""
    if f.type in ("bytes", "records"):
        return b""
    if f.type == "uuid":
        return ZERO_UUID
    return "struct"


def _our_default(f: KafkaField) -> Any:
    if f.struct_cls is not None:
        return None if f.default() is None else "struct"  # a nullable struct may default to null
    value = f.default()
    return value.bytes if hasattr(value, "bytes") and not isinstance(value, bytes) else value


def _struct_of(f: KafkaField) -> type[KafkaStruct] | None:
    if f.struct_cls is not None:
        return f.struct_cls
    return f.type.struct_cls if isinstance(f.type, Array) else None


def compare_struct(
    ours: type[KafkaStruct], theirs: Sequence[Field], offered: frozenset[int], path: str
) -> list[str]:
    """The differences between one of Kafkette's structs and Kafka's fields of it.

    Args:
        ours: Kafkette's struct (a message or a nested struct).
        theirs: Kafka's fields of the same struct.
        offered: the versions to compare (those offered in which the struct is present).
        path: where the struct is (``ProduceRequest.topic_data``), for the sentences.

    Returns:
        One sentence per difference, in field order.
    """
    out: list[str] = []
    their_live = [f for f in theirs if _their_versions(f.versions, offered)]
    by_name = {snake_case(f.name): f for f in their_live}
    matched: list[tuple[KafkaField, Field]] = []
    for f in ours.kafka_fields():
        where = f"{path}.{f.name}"
        their_name = RENAMES.get((ours.__name__, f.name))
        their = by_name.pop(snake_case(their_name or f.name), None)
        present = _our_versions(f, offered)
        if their is None:
            if present:
                out.append(
                    f"{where} is declared in versions {version_ranges(present)}; Kafka's spec has no such "
                    "field"
                )
            continue
        if their_name is not None:
            out.append(f"{where} is Kafka's {their.name}, named otherwise")
        matched.append((f, their))
        out += _compare_field(f, their, offered, where)
    for name, their in by_name.items():
        tag = (
            f", tag {their.tag} in versions {version_ranges(_their_versions(their.tagged, offered))}"
            if their.tag is not None
            else ""
        )
        out.append(
            f"{path}.{name} is not declared (Kafka's {their.name}: {_their_type(their)}, versions "
            f"{version_ranges(_their_versions(their.versions, offered))}{tag})"
        )
    out += _compare_order(matched, theirs, offered, path)
    return out


def _compare_field(f: KafkaField, their: Field, offered: frozenset[int], where: str) -> list[str]:
    out: list[str] = []
    ours_type, their_type = _our_type(f), _their_type(their)
    if ours_type != their_type:
        out.append(f"{where} is {ours_type}; Kafka's is {their_type}")
    present, their_present = _our_versions(f, offered), _their_versions(their.versions, offered)
    if present != their_present:
        out.append(
            f"{where} is in versions {version_ranges(present)}; Kafka's in {version_ranges(their_present)}"
        )
    both = present & their_present
    nullable = frozenset(v for v in both if f.nullable_in(v))
    their_nullable = _their_versions(their.nullable, both)
    if nullable != their_nullable:
        out.append(
            f"{where} is nullable in versions {version_ranges(nullable)}; "
            f"Kafka's in {version_ranges(their_nullable)}"
        )
    tagged = (f.tag, version_ranges(both) if f.tag is not None else "none")
    their_tagged = (their.tag, version_ranges(_their_versions(their.tagged, both)))
    if tagged != their_tagged:
        out.append(
            f"{where} is tagged {tagged[0]} in versions {tagged[1]}; "
            f"Kafka's tagged {their_tagged[0]} in versions {their_tagged[1]}"
        )
    default, their_default = _our_default(f), _their_default(their)
    if default != their_default:
        # what a field not set holds, what an older version or an absent tag decodes to, what a tag omits
        out.append(f"{where} defaults to {default!r}; Kafka's to {their_default!r}")
    inner = _struct_of(f)
    if inner is not None and their.struct and both:
        out += compare_struct(inner, their.fields, both, where)
    return out


def _compare_order(
    matched: list[tuple[KafkaField, Field]], theirs: Sequence[Field], offered: frozenset[int], path: str
) -> list[str]:
    """The versions where the untagged fields both sides hold come in another order than Kafka's."""
    position = {id(f): i for i, f in enumerate(theirs)}
    orders: dict[tuple[tuple[str, ...], tuple[str, ...]], set[int]] = {}
    for v in sorted(offered):
        live = [
            (f, t)
            for f, t in matched
            if f.in_version(v) and in_range(t.versions, v) and f.tag is None and not in_range(t.tagged, v)
        ]
        ours = tuple(f.name for f, _ in live)
        kafkas = tuple(f.name for f, _ in sorted(live, key=lambda pair: position[id(pair[1])]))
        if ours != kafkas:
            orders.setdefault((ours, kafkas), set()).add(v)
    return [
        f"{path} has its fields in the order {', '.join(ours)} at versions {version_ranges(vs)}; "
        f"Kafka's order is {', '.join(kafkas)}"
        for (ours, kafkas), vs in orders.items()
    ]


def compare_api(api: ApiSpec, kind: str, spec: Spec) -> list[str]:
    """The differences between one API's request or response as Kafkette declares it and Kafka's
    spec of it, over the versions the API declares (the Kafka listener's ApiVersions range).

    Args:
        api: the API as ``APIS`` holds it.
        kind: ``"request"`` or ``"response"``.
        spec: Kafka's spec of the same API and kind.

    Returns:
        One sentence per difference (the API's valid and flexible versions first, then its fields).
    """
    offered = frozenset(range(api.min_version, api.max_version + 1))
    message = api.request if kind == "request" else api.response
    out: list[str] = []
    valid = _their_versions(spec.valid, offered)
    if valid != offered:
        out.append(
            f"{api.name} {kind} is offered in versions {version_ranges(offered)}; "
            f"Kafka's spec has versions {spec.valid}"
        )
    flexible = frozenset(v for v in offered if api.flexible(v))
    their_flexible = _their_versions(spec.flexible, offered)
    if flexible != their_flexible:
        out.append(
            f"{api.name} {kind} is flexible in versions {version_ranges(flexible)}; "
            f"Kafka's in {version_ranges(their_flexible)}"
        )
    return out + compare_struct(message, spec.fields, valid, message.__name__)
