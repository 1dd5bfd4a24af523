"""The Kafka listener's codec end to end, at the frame level, against kafka-python: request
frames (header and body) that kafka-python builds become the broker's own request structs,
and the answers the codec encodes are frames kafka-python reads.

Covered: ApiVersions answered by the codec itself (at the version asked, and at v0 with
UNSUPPORTED_VERSION for a version it lacks, KIP-511); Metadata, Produce (a Kafka RecordBatch),
Fetch, FindCoordinator, LeaveGroup and JoinGroup at their oldest and newest versions, both
ways; an error answer for every API and version; and refusals: an unknown API key, a version
the listener lacks, every truncation of every frame.  Fuzzing checks that no input makes the
codec raise anything but ``RequestDecodeError`` or ``FrameError``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.protocol import admin, consumer, metadata, producer, sasl
from kafka.protocol.consumer import (
    FetchRequest,
    FetchResponse,
    JoinGroupRequest,
    LeaveGroupRequest,
    LeaveGroupResponse,
)
from kafka.protocol.metadata import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    MetadataRequest,
    MetadataResponse,
)
from kafka.protocol.producer import ProduceRequest, ProduceResponse
from kafka.record.memory_records import MemoryRecords

from kafkette.protocol import apis
from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.apis.api_versions import ApiVersionsResponse as OurApiVersionsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import FrameError
from kafkette.protocol.kafka_codec import FeatureFlags, KafkaReply, KafkaWireCodec, api_versions_response
from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header, request_header_version
from kafkette.protocol.kafka_schema import KafkaStruct
from kafkette.protocol.kafka_translation import TRANSLATIONS
from kafkette.protocol.record_batch import build_kafka_batch
from kafkette.protocol.wire_codec import RequestDecodeError

CORRELATION_ID = 1234
CLIENT_ID = "kafka-python-oracle"
CLIENT_ADDRESS = "10.1.2.3"
BATCH = build_kafka_batch(
    [(b"k%d" % i, b"value-%d" % i, [("h", b"x")], 1_700_000_000_000 + i) for i in range(3)], base_offset=40
)

FUZZ = settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _frame(message: Any) -> bytes:
    """``message``'s header and body as kafka-python sends them, without the length prefix."""
    message.with_header(correlation_id=CORRELATION_ID, client_id=CLIENT_ID)
    return bytes(message.encode(header=True))


def _decode(payload: bytes) -> Any:
    return KafkaWireCodec("KAFKA").decode(payload, CLIENT_ADDRESS)


def _read_answer(buffers: list[bytes | memoryview], response_class: Any, version: int) -> Any:
    """kafka-python's reading of an answer frame (length prefix, response header, body)."""
    frame = b"".join(bytes(b) for b in buffers)
    assert struct.unpack(">i", frame[:4])[0] == len(frame) - 4
    response = response_class.decode(frame, version=version, header=True, framed=True)
    assert response.header.correlation_id == CORRELATION_ID
    return response


def _our_ranges() -> set[tuple[int, int, int]]:
    return {(api.key, api.min_version, api.max_version) for api in KAFKA_APIS.values()}


# -- ApiVersions: answered by the codec ----------------------------------------------------


@pytest.mark.parametrize("version", [0, 3])
def test_api_versions_is_answered_with_our_version_ranges(version):
    request = ApiVersionsRequest[version](
        **({"client_software_name": "kafka-python", "client_software_version": "3.0"} if version >= 3 else {})
    )
    decoded = _decode(_frame(request))
    assert decoded.request is None and decoded.answer is not None
    response = _read_answer(decoded.reply.encode(decoded.answer), ApiVersionsResponse, version)
    assert response.error_code == 0
    assert {(k.api_key, k.min_version, k.max_version) for k in response.api_keys} == _our_ranges()


FEATURES = FeatureFlags(
    {"metadata.version": (7, 7), "group.version": (0, 0)}, {"metadata.version": 7, "group.version": 0}, 41
)


@pytest.mark.parametrize("version", [2, 3, 4])
def test_api_versions_lists_feature_flags_from_v3_as_kafkas_builder_does(version):
    answer = api_versions_response(version=version, features=FEATURES)
    body = b"".join(answer.encode(version, version >= 3))
    read = OurApiVersionsResponse.decode(body, version, version >= 3)
    supported = [(f.name, f.min_version, f.max_version) for f in read.supported_features]
    finalized = [(f.name, f.min_version_level, f.max_version_level) for f in read.finalized_features]
    if version < 3:
        assert (supported, finalized, read.finalized_features_epoch) == ([], [], -1), (
            "no tagged fields before v3"
        )
    else:
        assert finalized == [("metadata.version", 7, 7)], "a finalized level 0 is left out"
        assert read.finalized_features_epoch == 41
        assert supported == [("metadata.version", 7, 7)] + (
            [("group.version", 0, 0)] if version >= 4 else []
        ), "before v4 a feature whose minimum level is 0 is left out (KAFKA-17492)"
    if version == 3:  # kafka-python skips the tagged fields
        frame = KafkaReply(CORRELATION_ID, KAFKA_APIS[18], 3, translate=False).encode(answer)
        assert _read_answer(frame, ApiVersionsResponse, 3).error_code == 0


def test_an_api_versions_error_answer_lists_no_features():
    answer = api_versions_response(int(Errors.INVALID_REQUEST), 3, FEATURES)
    assert (answer.supported_features, answer.finalized_features, answer.finalized_features_epoch) == (
        [],
        [],
        -1,
    )


def test_the_codec_answers_api_versions_with_the_features_of_the_moment():
    epochs = iter([5, 9])
    codec = KafkaWireCodec("KAFKA", lambda: FeatureFlags({}, {"metadata.version": 7}, next(epochs)))
    request = ApiVersionsRequest[3](client_software_name="kafka-python", client_software_version="3.0")
    assert [codec.decode(_frame(request)).answer.finalized_features_epoch for _ in range(2)] == [5, 9]


@pytest.mark.parametrize(("name", "version"), [("", "1"), ("c", ""), ("-c", "1"), ("c", "1."), ("c d", "1")])
def test_api_versions_v3_with_a_client_software_name_or_version_not_of_kip_511s_form_is_an_invalid_request(
    name, version
):
    decoded = _decode(
        _frame(ApiVersionsRequest[3](client_software_name=name, client_software_version=version))
    )
    frame = b"".join(bytes(b) for b in decoded.reply.encode(decoded.answer))
    # kafka-python reads any ApiVersions error answer at v0; this one is at v3, as Kafka's
    # (response header v0, then error code 42, an empty compact array, throttle time, no tags)
    assert (
        frame
        == struct.pack(">iih", len(frame) - 4, CORRELATION_ID, 42) + b"\x01" + struct.pack(">i", 0) + b"\x00"
    )


def test_api_versions_v3_accepts_librdkafkas_software_name_and_version():
    decoded = _decode(
        _frame(
            ApiVersionsRequest[3](
                client_software_name="confluent-kafka-python", client_software_version="2.12.1-rdkafka-2.12.1"
            )
        )
    )
    response = _read_answer(decoded.reply.encode(decoded.answer), ApiVersionsResponse, 3)
    assert response.error_code == 0


def test_api_versions_at_a_version_we_lack_is_answered_at_v0_with_unsupported_version():
    frame = bytearray(_frame(ApiVersionsRequest[3](client_software_name="c", client_software_version="1")))
    frame[2:4] = struct.pack(">h", 99)
    decoded = _decode(bytes(frame))
    assert decoded.reply.version == 0
    # kafka-python asked for v99 (it would retry at a version it shares); the body is v0
    response = _read_answer(decoded.reply.encode(decoded.answer), ApiVersionsResponse, 3)
    assert response.error_code == Errors.UNSUPPORTED_VERSION == 35
    assert {(k.api_key, k.min_version, k.max_version) for k in response.api_keys} == _our_ranges()


# -- requests in, answers out --------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One request kafka-python sends, the broker request it must become, and optionally an
    answer from the broker with a check of what kafka-python reads of it."""

    request: Any
    expected: Any
    answer: Any = None
    response_class: Any = None
    check: Callable[[Any], None] | None = None


def _metadata(version: int) -> Exchange:
    names = ["flights", "airports"]
    if version >= 10:
        topics = [MetadataRequest.MetadataRequestTopic(topic_id=None, name=n) for n in names]
    else:
        topics = [MetadataRequest.MetadataRequestTopic(name=n) for n in names]
    extra = {"allow_auto_topic_creation": False} if version >= 4 else {}
    broker = apis.metadata.MetadataResponseBroker(node_id=1, host="broker1", port=9092, rack="r1")
    partition = apis.metadata.MetadataResponsePartition(
        error_code=0,
        partition_index=0,
        leader_id=1,
        leader_epoch=4,
        replica_nodes=[1, 2],
        isr_nodes=[1],
        offline_replicas=[2],
    )
    answer = apis.metadata.MetadataResponse(
        brokers=[broker],
        cluster_id="cluster-a",
        controller_id=1,
        topics=[
            apis.metadata.MetadataResponseTopic(
                error_code=0, name="flights", is_internal=False, partitions=[partition]
            )
        ],
    )

    def check(response: Any) -> None:
        assert [(b.node_id, b.host, b.port) for b in response.brokers] == [(1, "broker1", 9092)]
        assert response.controller_id == 1
        (topic,) = response.topics
        (p,) = topic.partitions
        assert (topic.name, p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes) == (
            "flights",
            0,
            1,
            [1, 2],
            [1],
        )
        if version >= 7:
            assert p.leader_epoch == 4

    return Exchange(
        MetadataRequest[version](topics=topics, **extra),
        apis.metadata.MetadataRequest(
            topics=[apis.metadata.MetadataRequestTopic(name=n) for n in names],
            allow_auto_topic_creation=version < 4,
        ),
        answer,
        MetadataResponse,
        check,
    )


def _produce(version: int) -> Exchange:
    request = ProduceRequest[version](
        transactional_id=None,
        acks=-1,
        timeout_ms=1500,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name="flights",
                partition_data=[ProduceRequest.TopicProduceData.PartitionProduceData(index=2, records=BATCH)],
            )
        ],
    )
    expected = apis.produce.ProduceRequest(
        transactional_id=None,
        acks=-1,
        timeout_ms=1500,
        topic_data=[
            apis.produce.ProduceTopicData(
                name="flights", partition_data=[apis.produce.ProducePartitionData(index=2, records=BATCH)]
            )
        ],
    )
    answer = apis.produce.ProduceResponse(
        responses=[
            apis.produce.ProduceTopicResponse(
                name="flights",
                partition_responses=[
                    apis.produce.ProducePartitionResponse(
                        index=2, error_code=0, base_offset=40, log_start_offset=0
                    )
                ],
            )
        ]
    )

    def check(response: Any) -> None:
        (topic,) = response.responses
        (p,) = topic.partition_responses
        assert (topic.name, p.index, p.error_code, p.base_offset, p.log_append_time_ms) == (
            "flights",
            2,
            0,
            40,
            -1,
        )

    return Exchange(request, expected, answer, ProduceResponse, check)


def _fetch(version: int) -> Exchange:
    partition = {"partition": 2, "fetch_offset": 40, "partition_max_bytes": 65536}
    if version >= 9:
        partition["current_leader_epoch"] = 5
    if version >= 5:
        partition["log_start_offset"] = 0
    request = FetchRequest[version](
        replica_id=-1,
        max_wait_ms=250,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=1,
        topics=[
            FetchRequest.FetchTopic(
                topic="flights", partitions=[FetchRequest.FetchTopic.FetchPartition(**partition)]
            )
        ],
    )
    expected = apis.fetch.FetchRequest(
        replica_id=-1,
        max_wait_ms=250,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=1,
        topics=[
            apis.fetch.FetchTopic(
                topic="flights",
                partitions=[
                    apis.fetch.FetchPartition(
                        partition=2,
                        fetch_offset=40,
                        partition_max_bytes=65536,
                        current_leader_epoch=5 if version >= 9 else -1,
                        log_start_offset=0 if version >= 5 else -1,
                    )
                ],
            )
        ],
    )
    answer = apis.fetch.FetchResponse(
        responses=[
            apis.fetch.FetchTopicResponse(
                topic="flights",
                partitions=[
                    apis.fetch.FetchPartitionData(
                        partition_index=2,
                        error_code=0,
                        high_watermark=43,
                        last_stable_offset=43,
                        log_start_offset=0,
                        records=BATCH,
                    )
                ],
            )
        ]
    )

    def check(response: Any) -> None:
        (topic,) = response.responses
        (p,) = topic.partitions
        assert (topic.topic, p.partition_index, p.high_watermark, p.aborted_transactions) == (
            "flights",
            2,
            43,
            [],
        )
        assert bytes(p.records) == BATCH
        batch = MemoryRecords(bytes(p.records)).next_batch()
        assert [(r.offset, r.key, r.value) for r in batch] == [
            (40 + i, b"k%d" % i, b"value-%d" % i) for i in range(3)
        ]

    return Exchange(request, expected, answer, FetchResponse, check)


def _find_coordinator(version: int) -> Exchange:
    if version >= 4:
        request = FindCoordinatorRequest[version](key_type=0, coordinator_keys=["g1", "g2"])
        keys = ["g1", "g2"]
    else:
        request = FindCoordinatorRequest[version](key="g1")
        keys = ["g1"]
    coordinators = [
        apis.find_coordinator.Coordinator(key=k, node_id=3, host="broker3", port=9094, error_code=0)
        for k in keys
    ]
    answer = apis.find_coordinator.FindCoordinatorResponse(coordinators=coordinators)

    def check(response: Any) -> None:
        if version >= 4:
            assert [
                (c.key, c.node_id, c.host, c.port, c.error_code, c.error_message)
                for c in response.coordinators
            ] == [(k, 3, "broker3", 9094, 0, "") for k in keys]
        else:  # the first (only) coordinator in the top-level fields, with Kafka's Errors.message()
            assert (response.error_code, response.node_id, response.host, response.port) == (
                0,
                3,
                "broker3",
                9094,
            )
            if version >= 1:
                assert response.error_message == "NONE"

    expected = apis.find_coordinator.FindCoordinatorRequest(
        key="g1" if version < 4 else "", key_type=0, coordinator_keys=keys
    )
    return Exchange(request, expected, answer, FindCoordinatorResponse, check)


def _leave_group(version: int) -> Exchange:
    if version >= 3:
        request = LeaveGroupRequest[version](
            group_id="g",
            members=[
                LeaveGroupRequest.MemberIdentity(member_id="m1", group_instance_id=None),
                LeaveGroupRequest.MemberIdentity(member_id="", group_instance_id="static-2"),
            ],
        )
        members = [
            apis.group_membership.MemberIdentity(member_id="m1"),
            apis.group_membership.MemberIdentity(member_id="", group_instance_id="static-2"),
        ]
    else:
        request = LeaveGroupRequest[version](group_id="g", member_id="m1")
        members = [apis.group_membership.MemberIdentity(member_id="m1")]
    answer = apis.group_membership.LeaveGroupResponse(
        members=[
            apis.group_membership.MemberResponse(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                error_code=Errors.UNKNOWN_MEMBER_ID,
            )
            for m in members
        ]
    )

    def check(response: Any) -> None:
        if version >= 3:
            assert response.error_code == 0
            assert [(m.member_id, m.group_instance_id, m.error_code) for m in response.members] == [
                ("m1", None, 25),
                ("", "static-2", 25),
            ]
        else:  # one member: its error is the request's
            assert response.error_code == Errors.UNKNOWN_MEMBER_ID

    return Exchange(
        request,
        apis.group_membership.LeaveGroupRequest(
            group_id="g", member_id="m1" if version < 3 else "", members=members
        ),
        answer,
        LeaveGroupResponse,
        check,
    )


def _join_group(version: int) -> Exchange:
    fields = {
        "group_id": "g",
        "session_timeout_ms": 10_000,
        "member_id": "",
        "protocol_type": "consumer",
        "protocols": [JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"\x00\x01")],
    }
    if version >= 1:
        fields["rebalance_timeout_ms"] = 30_000
    return Exchange(
        JoinGroupRequest[version](**fields),
        apis.group_membership.JoinGroupRequest(
            group_id="g",
            session_timeout_ms=10_000,
            rebalance_timeout_ms=30_000 if version >= 1 else 10_000,
            member_id="",
            group_instance_id=None,  # before v5: a dynamic member, never the static member ""
            protocol_type="consumer",
            protocols=[apis.group_membership.JoinGroupRequestProtocol(name="range", metadata=b"\x00\x01")],
        ),
    )


EXCHANGES = {
    f"{build.__name__[1:]}-v{version}": (build, version)
    for build, versions in (
        (_metadata, (1, 12)),
        (_produce, (3, 9)),
        (_fetch, (4, 12)),
        (_find_coordinator, (0, 4)),
        (_leave_group, (0, 4)),
        (_join_group, (0, 4)),
    )
    for version in versions
}


@pytest.mark.parametrize("name", EXCHANGES)
def test_a_kafka_python_request_becomes_the_brokers_request(name):
    build, version = EXCHANGES[name]
    exchange = build(version)
    decoded = _decode(_frame(exchange.request))
    assert decoded.answer is None
    assert decoded.request == exchange.expected
    assert decoded.spec.request is type(exchange.expected)
    header = decoded.header
    assert (header.api_key, header.correlation_id, header.client_id) == (
        decoded.spec.key,
        CORRELATION_ID,
        CLIENT_ID,
    )
    assert (header.listener_name, header.client_address) == ("KAFKA", CLIENT_ADDRESS)
    assert (decoded.reply.version, decoded.reply.correlation_id) == (version, CORRELATION_ID)
    shared = decoded.reply.api.request is decoded.spec.request
    assert header.api_version == (version if shared else decoded.spec.max_version), (
        "a message declared once reaches the broker at the version the client asked for (Fetch's client "
        "metadata is v11's, KIP-392)"
    )


@pytest.mark.parametrize(
    "name", [name for name, (build, version) in EXCHANGES.items() if build(version).answer is not None]
)
def test_the_brokers_answer_is_a_frame_kafka_python_reads(name):
    build, version = EXCHANGES[name]
    exchange = build(version)
    decoded = _decode(_frame(exchange.request))
    exchange.check(_read_answer(decoded.reply.encode(exchange.answer), exchange.response_class, version))


def test_metadata_v0_with_no_topics_asks_for_every_topic():
    decoded = _decode(_frame(MetadataRequest[0](topics=[])))
    assert decoded.request == apis.metadata.MetadataRequest(topics=None, allow_auto_topic_creation=True)


@pytest.mark.parametrize("version", range(5))
def test_find_coordinator_error_answer_carries_kafkas_generic_message(version):
    """Kafka words a failed lookup with ``Errors.message()`` before v4 and leaves every v4 entry's
    message empty, whatever detail the broker had."""
    answer = apis.find_coordinator.FindCoordinatorResponse(
        coordinators=[
            apis.find_coordinator.Coordinator(
                key="g1",
                error_code=Errors.COORDINATOR_NOT_AVAILABLE,
                error_message="__consumer_offsets is being created",
            )
        ]
    )
    response = TRANSLATIONS[10].to_kafka(answer, version, None)
    if version >= 4:
        assert [(c.error_code, c.error_message) for c in response.coordinators] == [(15, "")]
    else:
        assert response.error_code == 15
        assert response.error_message == "The coordinator is not available."


@pytest.mark.parametrize("version", range(6))
def test_describe_groups_asked_for_authorized_operations_answers_every_group_operation(version):
    """Without an authorizer Kafka grants every group operation (READ, DELETE, DESCRIBE,
    DESCRIBE_CONFIGS, ALTER_CONFIGS: 3400) to each group described without error, from v3 when asked."""

    def answer() -> Any:  # the broker builds each answer anew
        return apis.group_admin.DescribeGroupsResponse(
            groups=[
                apis.group_admin.DescribedGroup(error_code=0, group_id="g", group_state="Stable"),
                apis.group_admin.DescribedGroup(error_code=Errors.NOT_COORDINATOR, group_id="h"),
            ]
        )

    request = KAFKA_APIS[15].request(groups=["g", "h"], include_authorized_operations=True)
    asked = TRANSLATIONS[15].to_kafka(answer(), version, request)
    not_asked = TRANSLATIONS[15].to_kafka(answer(), version, KAFKA_APIS[15].request(groups=["g", "h"]))
    unset = -(1 << 31)
    assert [g.authorized_operations for g in asked.groups] == (
        [3400, unset] if version >= 3 else [unset, unset]
    )
    assert [g.authorized_operations for g in not_asked.groups] == [unset, unset]


def _our_frame(key: int, version: int, request: KafkaStruct) -> bytes:
    """``request``'s header and body as this listener's own Kafka schema encodes them."""
    flexible = KAFKA_APIS[key].flexible(version)
    head = encode_request_header(
        KafkaRequestHeader(key, version, CORRELATION_ID, CLIENT_ID), request_header_version(flexible)
    )
    return head + b"".join(bytes(p) for p in request.encode(version, flexible))


@pytest.mark.parametrize(
    ("version", "protocol_type", "protocol_name", "refused"),
    [
        (5, None, None, True),
        (5, "consumer", None, True),
        (5, None, "range", True),
        (5, "consumer", "range", False),
        (4, None, None, False),
    ],
)
def test_sync_group_v5_without_protocol_type_or_name_is_refused_before_the_coordinator_sees_it(
    version, protocol_type, protocol_name, refused
):
    """Kafka's ``KafkaApis.handleSyncGroupRequest`` answers INCONSISTENT_GROUP_PROTOCOL to a v5+
    request lacking either, before it asks the coordinator about the group or the member."""
    request = KAFKA_APIS[14].request(
        group_id="g",
        generation_id=1,
        member_id="unknown-member",
        protocol_type=protocol_type,
        protocol_name=protocol_name,
        assignments=[],
    )
    decoded = _decode(_our_frame(14, version, request))
    if not refused:
        assert decoded.answer is None and decoded.request is not None
        return
    assert decoded.request is None
    assert (
        decoded.answer.error_code,
        decoded.answer.protocol_type,
        decoded.answer.protocol_name,
        decoded.answer.assignment,
    ) == (Errors.INCONSISTENT_GROUP_PROTOCOL, None, None, b"")
    frame = b"".join(bytes(b) for b in decoded.reply.encode(decoded.answer))
    assert struct.unpack_from(">i", frame, 4)[0] == CORRELATION_ID


KIP_848_APIS = frozenset({"ConsumerGroupHeartbeat", "ConsumerGroupDescribe"})


def _their_response_class(api_name: str) -> Any:
    (module,) = [m for m in (admin, consumer, metadata, producer, sasl) if api_name + "Response" in m.__all__]
    return getattr(module, api_name + "Response")


@pytest.mark.parametrize(
    ("key", "version"),
    [
        pytest.param(api.key, version, id=f"{api.name}-v{version}")
        for api in KAFKA_APIS.values()
        for version in range(api.min_version, api.max_version + 1)
        # kafka-python reads an ApiVersions answer carrying an error as v0 whatever it asked (Kafka's
        # client tries the version asked first); the codec answers ApiVersions itself, never this way.
        # kafka-python has no KIP-848 ConsumerGroup* classes: Kafka's own parser reads those error
        # answers in the conformance run (the consumer-groups/heartbeat/invalid scenarios)
        if not (api.key == 18 and version >= 3) and api.name not in KIP_848_APIS
    ],
)
def test_an_error_answer_encodes_at_every_version_and_kafka_python_reads_its_code(key, version):
    api = KAFKA_APIS[key]
    reply = KafkaReply(CORRELATION_ID, api, version)
    answer = reply.error_response(Errors.UNKNOWN_SERVER_ERROR)
    if answer is None:  # no top-level error code: the connection is closed instead
        assert "error_code" not in {f.name for f, _ in api.response._plan(version, api.flexible(version))}
        return
    assert isinstance(answer, KafkaStruct)
    response = _read_answer(reply.encode(answer), _their_response_class(api.name), version)
    assert response.error_code == Errors.UNKNOWN_SERVER_ERROR


# -- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize("api_key", [4, 5, 76, 999, -1])  # LeaderAndIsr, StopReplica, ShareGroupHeartbeat...
def test_an_api_the_listener_lacks_is_refused(api_key):
    payload = struct.pack(">hhih", api_key, 0, CORRELATION_ID, -1)
    with pytest.raises(RequestDecodeError) as caught:
        _decode(payload)
    assert caught.value.code == Errors.UNSUPPORTED_VERSION


@pytest.mark.parametrize(
    ("request_class", "version"),
    [(MetadataRequest, 14), (FetchRequest, 19), (ProduceRequest, 2), (JoinGroupRequest, 10)],
)
def test_a_version_the_listener_lacks_is_refused(request_class, version):
    payload = bytearray(_frame(request_class[0]()))
    payload[2:4] = struct.pack(">h", version)
    with pytest.raises(RequestDecodeError) as caught:
        _decode(bytes(payload))
    assert caught.value.code == Errors.UNSUPPORTED_VERSION


VALID_FRAMES = [_frame(build(version).request) for build, version in EXCHANGES.values()] + [
    _frame(ApiVersionsRequest[0]()),
    _frame(ApiVersionsRequest[3](client_software_name="a", client_software_version="b")),
]


@pytest.mark.parametrize(
    "frame", VALID_FRAMES, ids=[f"{name}" for name in EXCHANGES] + ["ApiVersions-v0", "ApiVersions-v3"]
)
def test_every_truncation_of_a_frame_is_refused(frame):
    _decode(frame)  # whole, it decodes
    for size in range(len(frame)):
        with pytest.raises((RequestDecodeError, FrameError)):
            _decode(frame[:size])


# -- fuzzing -------------------------------------------------------------------------------


def _decode_or_refuse(payload: bytes) -> None:
    """Decode ``payload``: refusing it with ``RequestDecodeError``/``FrameError`` is fine, any
    other exception fails the test; what decodes must have an answer that encodes."""
    try:
        decoded = _decode(payload)
    except (RequestDecodeError, FrameError):
        return
    if decoded.answer is not None:
        decoded.reply.encode(decoded.answer)
    else:
        assert decoded.request is not None and decoded.header.listener_name == "KAFKA"


SUPPORTED = [
    (api.key, version)
    for api in KAFKA_APIS.values()
    for version in range(api.min_version, api.max_version + 1)
]


@FUZZ
@given(payload=st.binary(max_size=300))
def test_arbitrary_bytes_are_decoded_or_refused(payload):
    _decode_or_refuse(payload)


@FUZZ
@given(
    api=st.sampled_from(SUPPORTED),
    correlation_id=st.integers(-(1 << 31), (1 << 31) - 1),
    rest=st.binary(max_size=300),
)
def test_arbitrary_bodies_of_every_supported_api_and_version_are_decoded_or_refused(
    api, correlation_id, rest
):
    _decode_or_refuse(struct.pack(">hhi", *api, correlation_id) + rest)


@FUZZ
@given(frame=st.sampled_from(VALID_FRAMES), data=st.data())
def test_mutated_valid_frames_are_decoded_or_refused(frame, data):
    mutated = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        position = data.draw(st.integers(0, len(mutated) - 1), label="position")
        choice = data.draw(st.sampled_from(["set", "insert", "delete"]), label="how")
        if choice == "set":
            mutated[position] = data.draw(st.integers(0, 255), label="byte")
        elif choice == "insert":
            mutated[position:position] = data.draw(st.binary(min_size=1, max_size=8), label="inserted")
        elif len(mutated) > 1:
            del mutated[position]
    _decode_or_refuse(bytes(mutated))


# -- DescribeCluster of another endpoint type: answered by the codec (KIP-919) --------------


def _describe_cluster_frame(endpoint_type: int) -> bytes:
    from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header
    from kafkette.protocol.kafka_messages.cluster import DescribeClusterRequest

    head = encode_request_header(KafkaRequestHeader(60, 1, CORRELATION_ID, CLIENT_ID), 2)
    body = DescribeClusterRequest(include_cluster_authorized_operations=False, endpoint_type=endpoint_type)
    return head + b"".join(bytes(p) for p in body.encode(1, True))


@pytest.mark.parametrize(
    ("endpoint_type", "code", "message"),
    [
        (0, Errors.UNSUPPORTED_ENDPOINT_TYPE, "Unsupported endpoint type 0"),
        (7, Errors.UNSUPPORTED_ENDPOINT_TYPE, "Unsupported endpoint type 7"),
        (
            2,
            Errors.MISMATCHED_ENDPOINT_TYPE,
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type "
            "CONTROLLER",
        ),
    ],
)
def test_describe_cluster_for_an_endpoint_type_other_than_broker_is_refused_as_kafka_refuses_it(
    endpoint_type, code, message
):
    decoded = _decode(_describe_cluster_frame(endpoint_type))
    assert decoded.request is None and decoded.answer is not None
    assert (decoded.answer.error_code, decoded.answer.error_message) == (int(code), message)
    assert decoded.answer.brokers == [] and decoded.answer.endpoint_type == 1


def test_describe_cluster_for_brokers_goes_to_the_broker():
    decoded = _decode(_describe_cluster_frame(1))
    assert decoded.answer is None and decoded.request is not None


# -- strings that are not UTF-8: read as Java reads them ------------------------------------


@pytest.mark.parametrize("version", [1, 12])
def test_a_topic_name_that_is_not_utf8_is_read_with_replacement_characters_as_kafka_reads_it(version):
    from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
    from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header

    flexible = KAFKA_APIS[3].flexible(version)
    head = encode_request_header(
        KafkaRequestHeader(3, version, CORRELATION_ID, CLIENT_ID), 2 if flexible else 1
    )
    body = b"".join(
        bytes(p)
        for p in MetadataRequest(topics=[MetadataRequestTopic(name="ab\x7fd")]).encode(version, flexible)
    )
    # the name's third byte becomes 0xff, which no UTF-8 sequence holds (Kafka's ByteUtils.readUtf8
    # decodes it as U+FFFD, it does not refuse the request)
    at = body.index(b"ab\x7fd") + 2
    decoded = _decode(head + body[:at] + b"\xff" + body[at + 1 :])
    assert decoded.reply.request.topics[0].name == "ab\ufffdd"


# -- Fetch sessions are the broker's (KIP-227) --------------------------------------------


def _fetch_frame(version: int, session_id: int, session_epoch: int) -> bytes:
    from kafkette.protocol.apis.fetch import FetchRequest
    from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header

    flexible = KAFKA_APIS[1].flexible(version)
    head = encode_request_header(
        KafkaRequestHeader(1, version, CORRELATION_ID, CLIENT_ID), 2 if flexible else 1
    )
    body = FetchRequest(
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        session_id=session_id,
        session_epoch=session_epoch,
        topics=[],
        forgotten_topics_data=[],
        rack_id="",
    )
    return head + b"".join(bytes(p) for p in body.encode(version, flexible))


@pytest.mark.parametrize(
    ("version", "session_id", "session_epoch"), [(12, 0, 0), (12, 0, -1), (7, 12, 5), (13, 0, 2), (18, 7, 1)]
)
def test_every_fetch_full_or_incremental_goes_to_the_broker_which_keeps_the_fetch_sessions(
    version, session_id, session_epoch
):
    decoded = _decode(_fetch_frame(version, session_id, session_epoch))
    assert decoded.answer is None and decoded.request is not None
