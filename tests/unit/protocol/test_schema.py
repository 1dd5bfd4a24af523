"""Declarative schemas: version ranges, defaults and validation."""

import pytest

from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatOfflineReplicaTopic,
    BrokerHeartbeatRequest,
)
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.schema import Array, Field, Int8, Int32, SchemaError, String, Struct, parse_versions


class Sample(Struct):
    FIELDS = (
        Field("a", Int32),
        Field("b", String, versions="1+", default="x"),
        Field("c", Array(Int8), versions="0-1"),
    )


def test_versions_parse_open_closed_and_single_ranges():
    assert parse_versions("0+") == (0, 1 << 15)
    assert parse_versions("1-3") == (1, 3)
    assert parse_versions("2") == (2, 2)


def test_fields_outside_a_version_are_left_out_and_defaulted():
    s = Sample(a=5, b="y", c=[1])
    assert s.to_wire(0) == [5, [1]]
    assert s.to_wire(1) == [5, "y", [1]]
    assert s.to_wire(2) == [5, "y"]
    back = Sample.from_wire([5, [1]], 0)
    assert back.b == "x" and back.c == [1]


def test_wrong_type_arity_and_range_raise_schema_error():
    with pytest.raises(SchemaError, match="expected int32"):
        Sample.from_wire(["5", [1]], 0)
    with pytest.raises(SchemaError, match="expected 2 fields"):
        Sample.from_wire([5], 0)
    with pytest.raises(SchemaError, match="out of range"):
        Sample.from_wire([5, [300]], 0)
    with pytest.raises(SchemaError, match="expected array"):
        Sample.from_wire({"a": 5}, 0)


def test_metadata_v4_adds_allow_auto_topic_creation_as_kafkas_versions_do():
    req = MetadataRequest(topics=[MetadataRequestTopic(name="t")], allow_auto_topic_creation=False)
    assert len(req.to_wire(3)) == 1
    assert MetadataRequest.from_wire(req.to_wire(3), 3).allow_auto_topic_creation is True
    assert MetadataRequest.from_wire(req.to_wire(4), 4).allow_auto_topic_creation is False


def test_nested_structs_round_trip_and_compare_equal():
    req = ProduceRequest(
        acks=1,
        topic_data=[
            ProduceTopicData(name="t", partition_data=[ProducePartitionData(index=0, records=b"abc")])
        ],
    )
    assert ProduceRequest.from_wire(req.to_wire(0), 0) == req


def test_unknown_constructor_field_is_a_type_error():
    with pytest.raises(TypeError):
        Sample(nope=1)


def test_broker_heartbeat_carries_offline_replicas_from_version_1():
    request = BrokerHeartbeatRequest(
        broker_id=2,
        broker_epoch=7,
        offline_replicas=[BrokerHeartbeatOfflineReplicaTopic(topic_name="t", partitions=[0, 3])],
    )
    assert API_REGISTRY[ApiKey.BROKER_HEARTBEAT].max_version == 1
    v1 = BrokerHeartbeatRequest.from_wire(request.to_wire(1), 1)
    assert [(t.topic_name, t.partitions) for t in v1.offline_replicas] == [("t", [0, 3])]
    assert BrokerHeartbeatRequest.from_wire(request.to_wire(0), 0).offline_replicas == []


def test_a_bad_nested_value_is_reported_with_its_full_path():
    request = ProduceRequest(
        acks=1,
        topic_data=[
            ProduceTopicData(
                name="t",
                partition_data=[
                    ProducePartitionData(index=0, records=b"ok"),
                    ProducePartitionData(index=1, records=b"ok"),
                ],
            )
        ],
    )
    wire = request.to_wire(0)
    wire[3][0][1][1][1] = "not bytes"
    with pytest.raises(
        SchemaError,
        match=r"^ProduceRequest\.topic_data\[0\]\.partition_data\[1\]\.records: "
        r"expected bytes, got str$",
    ):
        ProduceRequest.from_wire(wire, 0)
    assert ProduceRequest.from_wire(request.to_wire(0), 0) == request
