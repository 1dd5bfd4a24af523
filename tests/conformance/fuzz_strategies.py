"""Hypothesis strategies for the byte-level fuzz (``fuzz``): request values drawn from Kafka's own
request specs (``kafka_specs``), kept in ranges that reach the brokers' logic rather than only
their parsers (topic names from a small set including the fuzz's own topics, small partition
indexes, short arrays, short timeouts), and the byte-level mutations of a valid request
(truncated, a byte flipped, a length that lies).

Owns the value ranges; not the encoding (``kafka_specs``) nor the sending (``fuzz``).  Every name
the fuzz can touch is a fuzz-only one (``fuzz-*``), and the APIs that would change the clusters'
shape (CreateTopics, CreatePartitions, AlterConfigs, IncrementalAlterConfigs) always run with
``ValidateOnly``, so the fuzz breaks nothing the other scenarios need and both clusters stay alike.
"""

from __future__ import annotations

import struct
from typing import Any

from hypothesis import strategies as st

from kafkette.protocol.record_batch import build_kafka_batch
from tests.conformance.kafka_specs import PRIMITIVES, Field, Spec, in_range

TOPICS = ("fuzz-a", "fuzz-b")
"""The fuzz's topics, created before it on both clusters: fuzz-a with 2 partitions, fuzz-b with 1."""
TOPIC_PARTITIONS = {"fuzz-a": 2, "fuzz-b": 1}
ABSENT_TOPICS = ("fuzz-absent", "", "fuzz bad name")
GROUPS = ("fuzz-group", "fuzz-group-b", "")
TRANSACTIONAL_IDS = ("fuzz-txn", "")
NODES = (1, 2, 3)
ZERO_UUID = bytes(16)
SOME_UUID = bytes.fromhex("5f3c1f0e9b2a4c7d8e6f10213243a5b6")
TIMESTAMP_MS = 1_700_000_000_000
# APIs whose requests would change the clusters: always validate only.
VALIDATE_ONLY = frozenset(
    {
        "CreateTopicsRequest",
        "CreatePartitionsRequest",
        "AlterConfigsRequest",
        "IncrementalAlterConfigsRequest",
    }
)
# APIs that must not name a live topic (they would delete it).
NO_LIVE_TOPICS = frozenset({"DeleteTopicsRequest"})
_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "uint32": (0, (1 << 32) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
}


def _batch(producer_id: int, transactional: bool) -> bytes:
    return build_kafka_batch(
        [(b"k", b"fuzz", [], TIMESTAMP_MS)],
        producer_id=producer_id,
        producer_epoch=0 if producer_id >= 0 else -1,
        base_sequence=0 if producer_id >= 0 else -1,
        transactional=transactional,
    )


RECORDS = st.sampled_from(
    [
        b"",
        _batch(-1, False),
        _batch(-1, False) + _batch(-1, False),
        _batch(1000, False),
        _batch(1000, True),
        _batch(-1, False)[:-3],
        b"\x00" * 12,
    ]
)


def _ints(f: Field, api: str) -> st.SearchStrategy[int]:
    """A number field's values by its name and entity type, else small ones and its bounds."""
    name = f.name
    low, high = _RANGES.get(f.type, (0, 0))
    if name == "Acks":
        return st.sampled_from([-1, 1])
    if f.entity == "brokerId" or name in ("NodeId", "BrokerId", "LeaderId", "ReplicaId"):
        return st.sampled_from([-1, *NODES, 99])
    if f.entity == "producerId":
        return st.sampled_from([-1, 0, 1000])
    if name.endswith(("TimeoutMs", "WaitMs")) and name not in ("SessionTimeoutMs", "TransactionTimeoutMs"):
        return st.sampled_from([0, 10, 100, -1])
    if name == "SessionTimeoutMs":
        return st.sampled_from([10000, 100, -1])
    if name == "TransactionTimeoutMs":
        return st.sampled_from([60000, 0, -1])
    if "Partition" in name or name in ("Index", "Partitions"):
        return st.sampled_from([0, 1, 2, -1, 7])
    if "Offset" in name or "Timestamp" in name or name in ("Time",):
        return st.sampled_from([-2, -1, 0, 1, 5, 1 << 40])
    if "Epoch" in name:
        return st.sampled_from([-1, 0, 1, 5])
    if "Bytes" in name:
        return st.sampled_from([0, 1024, 1 << 20, -1])
    if name in ("NumPartitions", "Count", "ReplicationFactor"):
        return st.sampled_from([-1, 0, 1, 2, 3, 4])
    if name == "SessionId":
        return st.sampled_from([0, 1, -1])
    small = st.sampled_from([v for v in (0, 1, 2, 3, -1, 4, 8, 99) if low <= v <= high])
    if f.type in ("int64", "int32"):
        return st.one_of(small, st.integers(-5, 5))
    return st.one_of(small, st.integers(low, high)) if f.type in _RANGES else small


def _strings(f: Field, path: str, api: str) -> st.SearchStrategy[str]:
    name = f.name
    if f.entity == "topicName" or name in ("Topic", "TopicName") or (name == "Name" and "Topic" in path):
        pool = ABSENT_TOPICS if api in NO_LIVE_TOPICS else TOPICS + ABSENT_TOPICS
        return st.sampled_from(pool)
    if f.entity == "groupId" or name == "GroupId":
        return st.sampled_from(GROUPS)
    if f.entity == "transactionalId":
        return st.sampled_from(TRANSACTIONAL_IDS)
    if name == "ResourceName":
        return st.sampled_from([*TOPICS, "fuzz-absent", "1", "", "7"])
    if "Config" in path and name in ("Name", "Key", "ConfigurationKeys"):
        return st.sampled_from(
            [
                "retention.ms",
                "cleanup.policy",
                "max.message.bytes",
                "fuzz.unknown",
                "",
                "log.retention.ms",
                "segment.bytes",
            ]
        )
    if name == "Value":
        return st.sampled_from(["1", "-1", "compact", "delete", "abc", "", "86400000"])
    if name in ("MemberId", "GroupInstanceId"):
        return st.sampled_from(["", "fuzz-member", "fuzz-instance"])
    if name == "ProtocolType":
        return st.sampled_from(["consumer", "", "fuzz"])
    if name in ("ProtocolName", "Name") and "Protocol" in path:
        return st.sampled_from(["range", "roundrobin", "", "fuzz"])
    if name.startswith("ClientSoftware"):
        return st.sampled_from(["fuzz", "", "bad name!", "1.0-x"])
    return st.one_of(st.sampled_from(["", "fuzz", "fuzz-a"]), st.text(max_size=6))


def field_values(f: Field, version: int, path: str, api: str) -> st.SearchStrategy[Any]:
    """The values of one field at ``version`` (``path``: the names of the structs above it)."""
    nullable = f.nullable is not None and in_range(f.nullable, version)
    if f.array:
        element = Field(f.name, f.type, False, f.versions, None, None, None, f.entity, None, f.fields)
        values: st.SearchStrategy[Any] = st.lists(field_values(element, version, path, api), max_size=3)
    elif f.struct:
        values = struct_values(f.fields, version, f"{path}/{f.name}", api)
    elif f.type == "bool":
        values = st.just(True) if f.name.lower() == "validateonly" and api in VALIDATE_ONLY else st.booleans()
    elif f.type in PRIMITIVES:
        values = st.sampled_from([0.0, 1.5, -1.0]) if f.type == "float64" else _ints(f, api)
    elif f.type == "string":
        values = _strings(f, path, api)
    elif f.type == "uuid":
        values = st.sampled_from([ZERO_UUID, SOME_UUID])
    elif f.type == "records":
        values = st.one_of(RECORDS, st.binary(max_size=16))
    else:
        values = st.binary(max_size=12)
    return st.one_of(values, st.none()) if nullable else values


def struct_values(
    fields: tuple[Field, ...], version: int, path: str, api: str
) -> st.SearchStrategy[dict[str, Any]]:
    """A struct's values at ``version``: every field present, the tagged ones sometimes."""
    required, optional = {}, {}
    for f in fields:
        if not in_range(f.versions, version):
            continue
        target = optional if f.tag is not None and in_range(f.tagged, version) else required
        target[f.name] = field_values(f, version, path, api)
    return st.fixed_dictionaries(required, optional=optional)


def request_values(spec: Spec, version: int) -> st.SearchStrategy[dict[str, Any]]:
    """The values of one request of ``spec`` at ``version``."""
    return struct_values(spec.fields, version, spec.name, spec.name)


MUTATIONS = ("none", "truncate", "flip", "length_short", "length_long", "length_huge", "length_negative")


@st.composite
def mutated(draw: st.DrawFn, body: bytes) -> tuple[str, int, bytes]:
    """A byte-level mutation of a request body: ``(kind, frame length to announce minus the
    header, body bytes to send)``."""
    kind = draw(st.sampled_from(MUTATIONS[1:]))
    if kind == "truncate" and body:
        cut = draw(st.integers(0, len(body) - 1))
        return kind, cut, body[:cut]
    if kind == "flip" and body:
        at = draw(st.integers(0, len(body) - 1))
        value = draw(st.integers(1, 255))
        flipped = bytearray(body)
        flipped[at] ^= value
        return kind, len(body), bytes(flipped)
    if kind == "length_short" and body:
        return kind, draw(st.integers(0, len(body) - 1)), body
    if kind == "length_long":
        return kind, len(body) + draw(st.integers(1, 64)), body
    if kind == "length_negative":
        return kind, -draw(st.integers(1, 1 << 20)), body
    return "length_huge", 200 * 1024 * 1024, body


def pack_length(n: int) -> bytes:
    """A frame's 4-byte length prefix (signed: a lying negative one too)."""
    return struct.pack(">i", n)
