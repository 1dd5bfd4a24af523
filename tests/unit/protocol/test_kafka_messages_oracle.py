"""Kafkette's Kafka message schemas against an independent oracle: kafka-python's message
classes, which it generates from Kafka's own JSON message specs.

For every API of ``KAFKA_APIS`` that kafka-python has (``ORACLE_APIS``: all but KIP-848's
ConsumerGroupHeartbeat and ConsumerGroupDescribe, which kafka-python 2.x does not generate; those are
checked against Kafka's JSON specs by ``test_kafka_declarations_match_kafka_specs`` and parsed by
Kafka's own classes in the conformance run), every version in its range, request and response:

- the fields at that version (order, names, wire types, nullability) and whether the version
  is flexible are Kafka's;
- a message of random values that we build and encode, kafka-python reads back with the same
  values and no byte left over;
- a message of random values that kafka-python builds and encodes, we read back with the same
  values;
- the tagged fields kafka-python sends (Fetch v12, ApiVersions v3+, CreateTopics v5+) are
  skipped, the other values read as without them;
- a field a version lacks decodes to Kafka's default for it;
- a record set large enough to go to the socket as its own buffer still reads back.

Names are Kafka's in snake_case on both sides; the exceptions are in ``ALIASES``.  kafka-python
reads the authorized-operations int32s as bit sets (its ``bitfield`` patch) and a zero UUID as
None, so values are compared after mapping those.  Both sides treat a ``records`` field as
opaque bytes (kafka-python's is a plain ``Bytes``), so record sets are random bytes here and
compared as bytes (``test_kafka_records_oracle`` checks the batches themselves).
"""

from __future__ import annotations

import functools
import io
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from kafka.protocol import admin, consumer, metadata, producer, sasl
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.schemas.fields.codecs import BitField

from kafkette.protocol.api_keys import KAFKA_APIS, ApiSpec
from kafkette.protocol.apis import fetch, produce
from kafkette.protocol.kafka_schema import SPLICE_MIN_BYTES, ZERO_UUID, Array, KafkaField, KafkaStruct

EXAMPLES = settings(
    max_examples=8,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],  # no explain: slow on big messages
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

THEIR_CLASSES: dict[str, type[ApiMessage]] = {
    name: getattr(module, name)
    for module in (admin, consumer, metadata, producer, sasl)
    for name in module.__all__
}

ALIASES = {
    # (our struct, our field): kafka-python's name, where the two differ (same wire layout)
    ("OffsetCommitRequest", "generation_id"): "generation_id_or_member_epoch",  # Kafka renamed it (KIP-848)
    ("OffsetForLeaderTopic", "name"): "topic",  # Kafka's field is Topic; ours keeps the msgpack name
    ("OffsetForLeaderTopicResult", "name"): "topic",
    ("MetadataResponse", "cluster_authorized_operations"): "authorized_operations",  # kafka-python renames
    ("MetadataResponseTopic", "topic_authorized_operations"): "authorized_operations",
    ("DescribeClusterResponse", "cluster_authorized_operations"): "authorized_operations",
}
SAME_WIRE = {"bitfield": "int32"}  # kafka-python's bit set is Kafka's int32

NOT_IN_KAFKA_PYTHON = frozenset({"ConsumerGroupHeartbeat", "ConsumerGroupDescribe"})
"""The Kafka listener's APIs kafka-python has no message classes for."""
ORACLE_APIS = [api for api in KAFKA_APIS.values() if api.name not in NOT_IN_KAFKA_PYTHON]

KINDS = ("Request", "Response")


def _ours(api: ApiSpec, kind: str) -> type[KafkaStruct]:
    return api.request if kind == "Request" else api.response


def _theirs(api: ApiSpec, kind: str) -> type[ApiMessage]:
    return THEIR_CLASSES[api.name + kind]


def _their_name(cls: type[KafkaStruct], f: KafkaField) -> str:
    return ALIASES.get((cls.__name__, f.name), f.name)


def _our_type(f: KafkaField) -> str:
    if f.struct_cls is not None:
        return "struct"
    if isinstance(f.type, Array):
        return "[]struct" if f.type.struct_cls is not None else "[]" + f.type.inner.name
    return f.type.name


def _their_type(k: Any) -> str:
    if k.is_struct_array():
        return "[]struct"
    if k.is_array():
        return "[]" + k.array_of.type_str
    return "struct" if k.is_struct() else k.type_str


def _our_struct(f: KafkaField) -> type[KafkaStruct] | None:
    """The struct class of a struct field or of an array of structs, else None."""
    if f.struct_cls is not None:
        return f.struct_cls
    return f.type.struct_cls if isinstance(f.type, Array) else None


def _their_struct(k: Any) -> Any:
    """kafka-python's ``StructField`` describing the elements of ``k`` (or ``k`` itself)."""
    return k.array_of if k.is_struct_array() else k


def _has_tags(kstruct: Any, version: int) -> bool:
    return bool(kstruct.tagged_fields(version)._fields) or any(
        _has_tags(_their_struct(k), version)
        for k in kstruct.untagged_fields(version)
        if k.is_struct() or k.is_struct_array()
    )


CASES = [
    pytest.param(api, version, kind, id=f"{api.name}{kind}-v{version}")
    for api in ORACLE_APIS
    for version in range(api.min_version, api.max_version + 1)
    for kind in KINDS
]
TAGGED_CASES = [
    case for case in CASES if _has_tags(_theirs(case.values[0], case.values[2])._struct, case.values[1])
]


# -- the schemas, field by field ------------------------------------------------------------


def _compare_schemas(
    cls: type[KafkaStruct], kstruct: Any, version: int, path: str, problems: list[str]
) -> None:
    ours = [f for f in cls.kafka_fields() if f.in_version(version) and f.tag is None]
    theirs = kstruct.untagged_fields(version)
    names = [_their_name(cls, f) for f in ours]
    if names != [k.name for k in theirs]:
        problems.append(f"{path}: fields {names}, Kafka's {[k.name for k in theirs]}")
        return
    their_tagged = {k.name: k for k in kstruct.tagged_fields(version)._fields}
    for f in cls.kafka_fields():  # the tagged fields we declare (Kafka's others are read and dropped)
        k = their_tagged.get(_their_name(cls, f))
        if f.tag is not None and f.in_version(version) and (k is None or k.tag != f.tag):
            problems.append(f"{path}.{f.name}: tag {f.tag}, Kafka's {None if k is None else k.tag}")
        elif f.tag is not None and f.in_version(version):
            ours.append(f)
            theirs = [*theirs, k]
    for f, k in zip(ours, theirs, strict=True):
        where = f"{path}.{f.name}"
        their_type = _their_type(k)
        if _our_type(f) != SAME_WIRE.get(their_type, their_type):
            problems.append(f"{where}: type {_our_type(f)}, Kafka's {their_type}")
        if f.nullable_in(version) != k.nullable_for_version_q(version):
            problems.append(
                f"{where}: nullable {f.nullable_in(version)}, Kafka's {k.nullable_for_version_q(version)}"
            )
        sub = _our_struct(f)
        if sub is not None:
            _compare_schemas(sub, _their_struct(k), version, where, problems)


@pytest.mark.parametrize(("api", "version", "kind"), CASES)
def test_our_fields_at_each_version_are_kafkas(api, version, kind):
    theirs = _theirs(api, kind)
    assert theirs.API_KEY == api.key
    assert api.flexible(version) == theirs.flexible_version_q(version)
    problems: list[str] = []
    _compare_schemas(_ours(api, kind), theirs._struct, version, f"{api.name}{kind} v{version}", problems)
    assert not problems, "\n".join(problems)


# -- random messages ------------------------------------------------------------------------

_SCALARS = {
    "int8": st.integers(-(1 << 7), (1 << 7) - 1),
    "int16": st.integers(-(1 << 15), (1 << 15) - 1),
    "uint16": st.integers(0, (1 << 16) - 1),
    "int32": st.integers(-(1 << 31), (1 << 31) - 1),
    "int64": st.integers(-(1 << 63), (1 << 63) - 1),
    "float64": st.floats(allow_nan=False),
    "bool": st.booleans(),
    "string": st.text(max_size=12),
    "bytes": st.binary(max_size=24),
    "records": st.binary(max_size=64),
}
_OUR_SCALARS = {**_SCALARS, "uuid": st.binary(min_size=16, max_size=16)}
_THEIR_SCALARS = {
    **_SCALARS,
    "uuid": st.just(uuid.UUID(int=0)) | st.uuids(),
    "bitfield": st.none() | st.sets(st.integers(0, 31)),
}
_NEVER_NULL = ("uuid", "bitfield")  # kafka-python's None for these is a value (zero, bit 31), not a null


@functools.cache
def _our_message(cls: type[KafkaStruct], version: int) -> st.SearchStrategy:
    return st.builds(
        cls, **{f.name: _our_value(f, version) for f in cls.kafka_fields() if f.in_version(version)}
    )


def _our_value(f: KafkaField, version: int) -> st.SearchStrategy:
    sub = _our_struct(f)
    if f.struct_cls is not None:
        value = _our_message(sub, version)
    elif isinstance(f.type, Array):
        value = st.lists(_our_message(sub, version) if sub else _OUR_SCALARS[f.type.inner.name], max_size=3)
    else:
        value = _OUR_SCALARS[f.type.name]
    return st.none() | value if f.nullable_in(version) else value


_THEIR_MESSAGES: dict[tuple[int, int, bool], st.SearchStrategy] = {}


def _their_message(kstruct: Any, data_class: Any, version: int, tagged: bool) -> st.SearchStrategy:
    """kafka-python's message, its untagged fields random and, when ``tagged``, its tagged ones too
    (else they keep their defaults, which kafka-python leaves off the wire)."""
    key = (id(kstruct), version, tagged)
    if key not in _THEIR_MESSAGES:
        fields = {k.name: _their_value(k, version, tagged) for k in kstruct.untagged_fields(version)}
        if tagged:  # a tagged struct is written without tagged fields of its own
            fields.update(
                {k.name: _their_value(k, version, False) for k in kstruct.tagged_fields(version)._fields}
            )
        _THEIR_MESSAGES[key] = st.builds(functools.partial(data_class, version=version), **fields)
    return _THEIR_MESSAGES[key]


def _their_value(k: Any, version: int, tagged: bool) -> st.SearchStrategy:
    if k.is_struct_array():
        value = st.lists(_their_message(k.array_of, k.data_class, version, tagged), max_size=3)
    elif k.is_array():
        value = st.lists(_THEIR_SCALARS[k.array_of.type_str], max_size=3)
    elif k.is_struct():
        value = _their_message(k, k.data_class, version, tagged)
    else:
        value = _THEIR_SCALARS[k.type_str]
    nullable = k.nullable_for_version_q(version) and _their_type(k) not in _NEVER_NULL
    return st.none() | value if nullable else value


# -- comparing values -----------------------------------------------------------------------


def _normal(their_type: str, value: Any) -> Any:
    """``value`` as both sides can compare it: UUIDs as 16 bytes, bit sets as sets (None for
    Kafka's -2**31, "not asked for"), byte strings as bytes."""
    if their_type == "uuid":
        return value.bytes if isinstance(value, uuid.UUID) else bytes(value or ZERO_UUID)
    if their_type == "bitfield":
        if value is None:
            return None
        bits = BitField.from_32_bit_field(value & 0xFFFFFFFF) if isinstance(value, int) else set(value)
        return None if bits == {31} else bits
    if their_type in ("bytes", "records") and value is not None:
        return bytes(value)
    return value


def _compare_values(
    cls: type[KafkaStruct], ours: Any, kstruct: Any, theirs: Any, version: int, path: str, problems: list[str]
) -> None:
    """Append to ``problems`` every field of ``cls`` whose value differs between our message
    ``ours`` and kafka-python's ``theirs`` (described by ``kstruct``): those of ``version``, and
    those it lacks, which both sides give their default."""
    their_fields = {k.name: k for k in kstruct.untagged_fields(version)}
    if cls._tagged and kstruct.tagged_fields(version) is not None:
        their_fields.update((k.name, k) for k in kstruct.tagged_fields(version)._fields)
    for f in cls.kafka_fields():
        where = f"{path}.{f.name}"
        if not f.in_version(version):
            k = kstruct.fields.get(_their_name(cls, f))
            if k is not None and f.struct_cls is None:  # (kafka-python has no default for a struct)
                a, b = (
                    _normal(_their_type(k), getattr(ours, f.name)),
                    _normal(_their_type(k), getattr(theirs, k.name)),
                )
                if a != b:
                    problems.append(f"{where}: absent from v{version}, ours {a!r}, Kafka's default {b!r}")
            continue
        k = their_fields.get(_their_name(cls, f))
        if k is None:
            problems.append(f"{where}: not in Kafka's v{version}")
            continue
        a, b = getattr(ours, f.name), getattr(theirs, k.name)
        if b is None and f.tag is not None and f.struct_cls is not None and a == f.default():
            continue  # a tagged struct left off the wire: kafka-python reads None, we read its default
        their_type = _their_type(k)
        if their_type not in _NEVER_NULL and (a is None or b is None):
            if (a is None) != (b is None):
                problems.append(f"{where}: ours {a!r}, Kafka's {b!r}")
            elif not (f.nullable_in(version) and k.nullable_for_version_q(version)):
                problems.append(
                    f"{where}: null, but nullable ours {f.nullable_in(version)}, "
                    f"Kafka's {k.nullable_for_version_q(version)}"
                )
            continue
        sub = _our_struct(f)
        if f.struct_cls is not None:
            _compare_values(sub, a, k, b, version, where, problems)
        elif sub is not None:
            if len(a) != len(b):
                problems.append(f"{where}: {len(a)} elements, Kafka's {len(b)}")
                continue
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                _compare_values(sub, x, k.array_of, y, version, f"{where}[{i}]", problems)
        elif their_type.startswith("[]"):
            if [_normal(their_type[2:], x) for x in a] != [_normal(their_type[2:], y) for y in b]:
                problems.append(f"{where}: ours {a!r}, Kafka's {b!r}")
        elif _normal(their_type, a) != _normal(their_type, b):
            problems.append(f"{where}: ours {a!r}, Kafka's {b!r}")


def _their_decode(theirs: type[ApiMessage], body: bytes, version: int) -> Any:
    """kafka-python's reading of ``body``, checking that it used every byte.

    Its stream decoder, not the compiled one ``decode`` runs: the same schema, but it raises on
    a short read where the compiled one slices past the end (and, misled by a bad length,
    could loop for 2**31 elements) and does not say where it stopped.
    """
    flexible = theirs.flexible_version_q(version)
    stream = io.BytesIO(body)
    decoded = theirs._struct.decode(
        stream, version=version, compact=flexible, tagged=flexible, data_class=theirs
    )
    assert stream.tell() == len(body), f"kafka-python read {stream.tell()} of our {len(body)} bytes"
    return decoded


def _check_we_read(api: ApiSpec, version: int, kind: str, message: Any) -> None:
    ours = _ours(api, kind)
    body = bytes(message.encode(version=version))
    decoded = ours.decode(body, version, api.flexible(version))
    problems: list[str] = []
    _compare_values(
        ours, decoded, _theirs(api, kind)._struct, message, version, f"{api.name}{kind} v{version}", problems
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("api", "version", "kind"), CASES)
@EXAMPLES
@given(data=st.data())
def test_kafka_python_reads_what_we_encode(api, version, kind, data):
    ours, theirs = _ours(api, kind), _theirs(api, kind)
    message = data.draw(_our_message(ours, version), label="ours")
    body = b"".join(message.encode(version, api.flexible(version)))
    decoded = _their_decode(theirs, body, version)
    problems: list[str] = []
    _compare_values(ours, message, theirs._struct, decoded, version, f"{api.name}{kind} v{version}", problems)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("api", "version", "kind"), CASES)
@EXAMPLES
@given(data=st.data())
def test_we_read_what_kafka_python_encodes(api, version, kind, data):
    theirs = _theirs(api, kind)
    _check_we_read(
        api, version, kind, data.draw(_their_message(theirs._struct, theirs, version, False), label="theirs")
    )


@pytest.mark.parametrize(("api", "version", "kind"), TAGGED_CASES)
@EXAMPLES
@given(data=st.data())
def test_we_skip_the_tagged_fields_kafka_python_sends(api, version, kind, data):
    theirs = _theirs(api, kind)
    _check_we_read(
        api, version, kind, data.draw(_their_message(theirs._struct, theirs, version, True), label="theirs")
    )


def test_tagged_fields_are_checked_where_kafka_has_them():
    names = {case.id for case in TAGGED_CASES}
    assert {
        "FetchRequest-v12",
        "FetchResponse-v12",
        "ApiVersionsResponse-v3",
        "CreateTopicsResponse-v7",
    } <= names


# -- what a version lacks -------------------------------------------------------------------


def _compare_defaults(
    cls: type[KafkaStruct], kstruct: Any, version: int, path: str, problems: list[str]
) -> None:
    """Every field of ``cls`` (and of the structs it holds at ``version``) absent from ``version``
    must default, when decoded, to Kafka's default for it."""
    for f in cls.kafka_fields():
        k = kstruct.fields[_their_name(cls, f)]
        where = f"{path}.{f.name}"
        sub = _our_struct(f)
        if f.in_version(version):
            if sub is not None:
                _compare_defaults(sub, _their_struct(k), version, where, problems)
        elif sub is None:
            ours, theirs = _normal(_their_type(k), f.default()), _normal(_their_type(k), k.default)
            if ours != theirs:
                problems.append(f"{where} v{version}: ours {ours!r}, Kafka's {theirs!r}")


@pytest.mark.parametrize(
    ("api", "kind"),
    [pytest.param(api, kind, id=api.name + kind) for api in ORACLE_APIS for kind in KINDS],
)
def test_a_field_a_version_lacks_reads_as_kafkas_default(api, kind):
    problems: list[str] = []
    for version in range(api.min_version, api.max_version + 1):
        _compare_defaults(
            _ours(api, kind), _theirs(api, kind)._struct, version, f"{api.name}{kind}", problems
        )
    assert not problems, "\n".join(problems)


# -- record sets handed to the socket uncopied ---------------------------------------------


def _large(name: str, records: bytes, version: int) -> KafkaStruct:
    if name == "Produce":
        by_id = version >= produce.PRODUCE_TOPIC_ID_VERSION  # a topic named by id, not by name
        return produce.ProduceRequest(
            acks=-1,
            timeout_ms=30_000,
            topic_data=[
                produce.ProduceTopicData(
                    name="" if by_id else "t",
                    topic_id=bytes(range(1, 17)) if by_id else bytes(16),
                    partition_data=[produce.ProducePartitionData(index=0, records=records)],
                )
            ],
        )
    return fetch.FetchResponse(
        responses=[
            fetch.FetchTopicResponse(
                **({"topic": "t"} if version < 13 else {"topic_id": bytes(range(16))}),  # by id from v13
                partitions=[
                    fetch.FetchPartitionData(
                        partition_index=0, high_watermark=1, aborted_transactions=None, records=records
                    )
                ],
            )
        ]
    )


@pytest.mark.parametrize(
    ("api", "version", "kind"),
    [
        pytest.param(KAFKA_APIS[key], version, kind, id=f"{KAFKA_APIS[key].name}{kind}-v{version}")
        for key, kind in ((0, "Request"), (1, "Response"))
        for version in (KAFKA_APIS[key].min_version, KAFKA_APIS[key].max_version)
    ],
)
def test_a_large_record_set_sent_as_its_own_buffer_reads_back_in_kafka_python(api, version, kind):
    records = bytes(range(256)) * (SPLICE_MIN_BYTES // 256 + 1)
    ours = _large(api.name, records, version)
    parts = ours.encode(version, api.flexible(version))
    assert any(part is records for part in parts)  # spliced, not copied
    theirs = _their_decode(_theirs(api, kind), b"".join(parts), version)
    problems: list[str] = []
    _compare_values(type(ours), ours, _theirs(api, kind)._struct, theirs, version, api.name, problems)
    assert not problems, "\n".join(problems)


def test_only_the_apis_kafka_python_lacks_are_left_out():
    theirs = {name.removesuffix("Request") for name in THEIR_CLASSES if name.endswith("Request")}
    assert {api.name for api in KAFKA_APIS.values()} - theirs == NOT_IN_KAFKA_PYTHON
