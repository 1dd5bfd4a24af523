"""One declaration per message: a ``Struct`` declared in Kafka's versions is both the msgpack
listener's message and the Kafka listener's, and every API both listeners speak is so declared
(a new API declared twice fails)."""

from __future__ import annotations

import pytest

from kafkette.protocol.api_keys import API_REGISTRY, APIS, KAFKA_APIS, ApiKey
from kafkette.protocol.apis.acls import DescribeAclsRequest
from kafkette.protocol.apis.group_membership import (
    JoinGroupResponse,
    MemberResponse,
    join_error_response,
)
from kafkette.protocol.kafka_schema import INT32, STRING, F, KafkaStruct
from kafkette.protocol.kafka_translation import translation_of
from kafkette.protocol.schema import Array, Field, Int32, Int64, Nullable, String, Struct, StructType


class Shared(Struct):
    FIELDS = (
        Field("topic", String),
        Field("leader_epoch", Int32, "2+", default=-1),
        Field("rack", String, "1+", nullable="1+", default=None),
        Field("replica_epoch", Int64, default=-1, kafka=False),
        Field("cluster_id", String, "3+", nullable="3+", default=None, tag=0),
    )


class KafkaOnly(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("leader_epoch", INT32, "2+", default=-1),
        F("rack", STRING, "1+", nullable="1+", default=None),
        F("cluster_id", STRING, "3+", nullable="3+", default=None, tag=0),
    )


def _kafka_bytes(message: KafkaStruct, version: int) -> bytes:
    return b"".join(bytes(p) for p in message.encode(version, flexible=version >= 3))


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_a_shared_struct_writes_kafkas_bytes_as_a_kafka_only_declaration_does(version):
    shared = Shared(topic="t", leader_epoch=7, rack="r", replica_epoch=9, cluster_id="c")
    kafka_only = KafkaOnly(topic="t", leader_epoch=7, rack="r", cluster_id="c")
    assert _kafka_bytes(shared, version) == _kafka_bytes(kafka_only, version)


def test_a_field_kafka_does_not_carry_rides_msgpack_only_and_is_its_default_when_read_from_kafka():
    shared = Shared(topic="t", leader_epoch=7, rack="r", replica_epoch=9, cluster_id="c")
    assert shared.to_wire(3) == ["t", 7, "r", 9, "c"], (
        "msgpack: every field of the version, tagged ones in place"
    )
    assert Shared.from_wire(shared.to_wire(3), 3) == shared
    back = Shared.decode(_kafka_bytes(shared, 3), 3, True)
    assert (back.topic, back.leader_epoch, back.rack, back.cluster_id) == ("t", 7, "r", "c")
    assert back.replica_epoch == -1, "not on Kafka's wire: its default"


def test_fields_absent_from_a_kafka_version_read_back_as_their_defaults():
    back = Shared.decode(
        _kafka_bytes(Shared(topic="t", leader_epoch=7, rack="r", cluster_id="c"), 0), 0, False
    )
    assert (back.topic, back.leader_epoch, back.rack, back.cluster_id) == ("t", -1, None, None)


def test_a_null_where_kafkas_version_allows_none_is_written_as_the_default_and_kept_on_msgpack():
    assert Shared.decode(_kafka_bytes(Shared(topic=None), 1), 1, False).topic == "", (
        "Kafka's wire: a null where the version allows none is the default"
    )
    assert Shared.from_wire(Shared(topic="t", rack=None).to_wire(3), 3).rack is None, (
        "msgpack: nullable at every version"
    )


def _shared_apis() -> list[tuple[str, int]]:
    return [(api.name, key) for key, api in KAFKA_APIS.items() if key in API_REGISTRY]


def test_every_api_is_declared_once_and_both_listeners_read_the_same_entry():
    keys = [spec.key for spec in APIS]
    assert sorted(keys) == sorted(set(keys)), "one ApiSpec per api key"
    classes = [cls for spec in APIS for cls in (spec.request, spec.response)]
    assert len(classes) == len(set(classes)), "one message class per request or response"
    assert all(KAFKA_APIS[key] is API_REGISTRY[key] for _, key in _shared_apis())
    assert set(KAFKA_APIS) | set(API_REGISTRY) == {spec.key for spec in APIS if spec.listeners}


# requests whose every-field-at-its-default form Kafka's own parser refuses, written as Kafka parses them:
# DescribeAcls' default codes are all UNKNOWN (0), which DescribeAclsRequest's validation refuses
VALID_DEFAULTS = {
    ApiKey.DESCRIBE_ACLS: lambda: DescribeAclsRequest(
        resource_type_filter=1, pattern_type_filter=1, operation=1, permission_type=1
    ),
}


@pytest.mark.parametrize(("name", "key"), _shared_apis())
def test_an_api_declared_once_speaks_kafkas_versions_on_msgpack_and_reaches_the_broker_as_decoded(name, key):
    api = KAFKA_APIS[key]
    if key != ApiKey.API_VERSIONS:  # ApiVersions is answered by the Kafka listener itself
        request = VALID_DEFAULTS.get(key, api.request)()
        assert translation_of(key).to_internal(request, api.max_version) is request


def _declared_structs() -> list[type[Struct]]:
    seen: dict[type[Struct], None] = {}

    def visit(cls: type[Struct]) -> None:
        if cls in seen:
            return
        seen[cls] = None
        for f in cls.FIELDS:
            inner = f.type.inner if isinstance(f.type, Nullable) else f.type
            inner = inner.inner if isinstance(inner, Array) else inner
            if isinstance(inner, StructType):
                visit(inner.cls)

    for spec in APIS:
        for cls in (spec.request, spec.response):
            if issubclass(cls, Struct):
                visit(cls)
    return list(seen)


@pytest.mark.parametrize("cls", _declared_structs(), ids=lambda c: c.__name__)
def test_a_field_has_one_default_for_both_codecs(cls):
    """Kafka's rule: a field defaults to its type's default unless declared otherwise (``default=None``
    for null), nullable or not; the msgpack constructor and Kafka's decoder agree."""
    differ = {
        f.name: (f.default(), f.kafka_field().default())
        for f in cls.FIELDS
        if f.kafka and f.default() != f.kafka_field().default()
    }
    assert differ == {}, "msgpack default vs Kafka's"


def test_a_nullable_field_without_a_declared_default_is_not_null_on_either_codec():
    assert JoinGroupResponse().protocol_name == ""
    v0 = b"".join(bytes(p) for p in JoinGroupResponse(protocol_name="range").encode(0, flexible=False))
    assert JoinGroupResponse.decode(v0, 0, False) == JoinGroupResponse(protocol_name="range")
    assert MemberResponse().group_instance_id == ""
    assert join_error_response(25, "m").protocol_name is None, "Kafka's error answer carries null"


def test_the_sdk_producer_names_topics_at_produce_v12_whatever_the_highest_version():
    assert API_REGISTRY[ApiKey.PRODUCE].max_version >= 13, "the listeners offer Produce by topic id"
    assert API_REGISTRY[ApiKey.PRODUCE].send_version == 12, "the SDK's metadata keeps no topic ids"


def test_the_sdk_commits_and_fetches_offsets_of_one_group_by_topic_name():
    assert API_REGISTRY[ApiKey.OFFSET_COMMIT].send_version == 8, "v10 names topics by id"
    assert API_REGISTRY[ApiKey.OFFSET_FETCH].send_version == 7, "v8 asks several groups, v10 by id"
