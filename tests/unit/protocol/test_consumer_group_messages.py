"""KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe messages (``protocol.apis.consumer_group``)
on both codecs at each version, Kafka's bytes of a heartbeat, and neither listener answering them yet."""

from __future__ import annotations

import msgpack
import pytest

from kafkette.protocol.api_keys import APIS, ApiKey
from kafkette.protocol.apis.consumer_group import (
    MEMBER_TYPE_CONSUMER,
    MEMBER_TYPE_UNKNOWN,
    ConsumerGroupDescribeAssignment,
    ConsumerGroupDescribeGroup,
    ConsumerGroupDescribeMember,
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupDescribeTopicPartitions,
    ConsumerGroupHeartbeatAssignment,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_codec import KafkaWireCodec
from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header
from kafkette.protocol.schema import Struct
from kafkette.protocol.wire_codec import MsgpackCodec

TOPIC_ID = bytes(range(1, 17))
VERSIONS = [0, 1]


def _heartbeat_request() -> ConsumerGroupHeartbeatRequest:
    return ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="m",
        member_epoch=3,
        instance_id="i",
        rack_id="r",
        rebalance_timeout_ms=300000,
        subscribed_topic_names=["t", "u"],
        subscribed_topic_regex="orders-.*",
        server_assignor="range",
        topic_partitions=[ConsumerGroupHeartbeatTopicPartitions(topic_id=TOPIC_ID, partitions=[0, 2])],
    )


def _heartbeat_response() -> ConsumerGroupHeartbeatResponse:
    return ConsumerGroupHeartbeatResponse(
        throttle_time_ms=1,
        error_code=0,
        error_message=None,
        member_id="m",
        member_epoch=4,
        heartbeat_interval_ms=5000,
        assignment=ConsumerGroupHeartbeatAssignment(
            topic_partitions=[ConsumerGroupHeartbeatTopicPartitions(topic_id=TOPIC_ID, partitions=[1])]
        ),
    )


def _describe_request() -> ConsumerGroupDescribeRequest:
    return ConsumerGroupDescribeRequest(group_ids=["g", "h"], include_authorized_operations=True)


def _describe_response() -> ConsumerGroupDescribeResponse:
    assigned = ConsumerGroupDescribeAssignment(
        topic_partitions=[
            ConsumerGroupDescribeTopicPartitions(topic_id=TOPIC_ID, topic_name="t", partitions=[0, 1])
        ]
    )
    member = ConsumerGroupDescribeMember(
        member_id="m",
        instance_id=None,
        rack_id="r",
        member_epoch=4,
        client_id="c",
        client_host="/127.0.0.1",
        subscribed_topic_names=["t"],
        subscribed_topic_regex="orders-.*",
        assignment=assigned,
        target_assignment=assigned,
        member_type=MEMBER_TYPE_CONSUMER,
    )
    return ConsumerGroupDescribeResponse(
        throttle_time_ms=0,
        groups=[
            ConsumerGroupDescribeGroup(
                group_id="g",
                group_state="Stable",
                group_epoch=4,
                assignment_epoch=4,
                assignor_name="uniform",
                members=[member],
                authorized_operations=0,
            ),
            ConsumerGroupDescribeGroup(
                error_code=int(Errors.GROUP_ID_NOT_FOUND), error_message="Group h not found.", group_id="h"
            ),
        ],
    )


MESSAGES = {
    "heartbeat-request": _heartbeat_request,
    "heartbeat-response": _heartbeat_response,
    "describe-request": _describe_request,
    "describe-response": _describe_response,
}


def _at_version(message: Struct, version: int) -> Struct:
    """The message as a version carries it: v0 has no regex in a heartbeat, no member type in a describe."""
    if version == 0 and isinstance(message, ConsumerGroupHeartbeatRequest):
        message.subscribed_topic_regex = None
    if version == 0 and isinstance(message, ConsumerGroupDescribeResponse):
        for group in message.groups:
            for member in group.members:
                member.member_type = MEMBER_TYPE_UNKNOWN
    return message


def _kafka_bytes(message: Struct, version: int) -> bytes:
    return b"".join(bytes(p) for p in message.encode(version, flexible=True))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_each_message_round_trips_on_msgpack(name, version):
    message = MESSAGES[name]()
    wire = msgpack.unpackb(msgpack.packb(message.to_wire(version)))
    assert type(message).from_wire(wire, version) == _at_version(MESSAGES[name](), version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_each_message_round_trips_on_kafkas_wire(name, version):
    message = MESSAGES[name]()
    back = type(message).decode(_kafka_bytes(message, version), version, True)
    assert back == _at_version(MESSAGES[name](), version)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_heartbeat_with_nothing_changed_reads_back_as_nulls_on_both_codecs(version):
    heartbeat = ConsumerGroupHeartbeatRequest(group_id="g", member_id="m", member_epoch=5)
    assert (heartbeat.instance_id, heartbeat.subscribed_topic_names, heartbeat.topic_partitions) == (
        None,
        None,
        None,
    )
    assert heartbeat.rebalance_timeout_ms == -1
    assert ConsumerGroupHeartbeatRequest.from_wire(heartbeat.to_wire(version), version) == heartbeat
    assert ConsumerGroupHeartbeatRequest.decode(_kafka_bytes(heartbeat, version), version, True) == heartbeat


def test_a_joining_heartbeat_is_kafkas_compact_encoding_with_the_regex_from_v1():
    join = ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="m",
        member_epoch=0,
        rebalance_timeout_ms=300000,
        subscribed_topic_names=["t"],
        subscribed_topic_regex="",
        server_assignor="uniform",
        topic_partitions=[],
    )
    head = b"\x02g\x02m" + b"\x00\x00\x00\x00" + b"\x00\x00" + (300000).to_bytes(4, "big") + b"\x02\x02t"
    tail = b"\x08uniform" + b"\x01" + b"\x00"  # owned partitions [], no tagged fields
    assert _kafka_bytes(join, 0) == head + tail
    assert _kafka_bytes(join, 1) == head + b"\x01" + tail, "v1: the empty regex (not null) after the names"


def test_describe_v1_carries_the_member_type_as_one_byte_after_the_target_assignment():
    v0, v1 = _kafka_bytes(_describe_response(), 0), _kafka_bytes(_describe_response(), 1)
    assert len(v1) == len(v0) + 1
    assert ConsumerGroupDescribeResponse.decode(v1, 1, True).groups[0].members[0].member_type == 1
    assert ConsumerGroupDescribeResponse.decode(v0, 0, True).groups[0].members[0].member_type == -1


def test_a_null_assignment_in_a_heartbeat_answer_means_unchanged_on_both_codecs():
    answer = ConsumerGroupHeartbeatResponse(member_id="m", member_epoch=4, heartbeat_interval_ms=5000)
    assert answer.assignment is None and answer.error_message is None
    assert ConsumerGroupHeartbeatResponse.decode(_kafka_bytes(answer, 1), 1, True).assignment is None
    assert ConsumerGroupHeartbeatResponse.from_wire(answer.to_wire(1), 1).assignment is None


def test_the_apis_have_kafkas_keys():
    specs = {spec.key: spec for spec in APIS}
    assert (ApiKey.CONSUMER_GROUP_HEARTBEAT, ApiKey.CONSUMER_GROUP_DESCRIBE) == (68, 69)
    assert specs[68].request is ConsumerGroupHeartbeatRequest
    assert specs[69].response is ConsumerGroupDescribeResponse
    assert all(specs[key].flexible(0) for key in (68, 69))


@pytest.mark.parametrize("key", [ApiKey.CONSUMER_GROUP_HEARTBEAT, ApiKey.CONSUMER_GROUP_DESCRIBE])
def test_the_kafka_listener_reads_them_into_their_declared_messages(key):
    header = KafkaRequestHeader(api_key=int(key), api_version=1, correlation_id=7, client_id="c")
    sent = _heartbeat_request() if key == 68 else _describe_request()
    decoded = KafkaWireCodec().decode(encode_request_header(header, 2) + _kafka_bytes(sent, 1))
    assert decoded.request == sent


def test_the_msgpack_listener_reads_a_heartbeat_into_its_declared_message():
    sent = _heartbeat_request()
    frame = msgpack.packb([68, 1, 7, "c", sent.to_wire(1)])
    assert MsgpackCodec().decode(frame).request == sent
