"""KafkaReply.error_response answers a failed request item by item, as Kafka's
``AbstractRequest.getErrorResponse``."""

import uuid

from kafkette.protocol.api_keys import KAFKA_APIS, ApiKey
from kafkette.protocol.apis.client_quotas import DescribeClientQuotasRequest
from kafkette.protocol.apis.configs import (
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.apis.consumer_group import ConsumerGroupDescribeRequest
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicState
from kafkette.protocol.apis.describe_log_dirs import DescribableLogDirTopic, DescribeLogDirsRequest
from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersRequestTopic
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestTopic,
)
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.group_admin import DeleteGroupsRequest, DescribeGroupsRequest
from kafkette.protocol.apis.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.user_scram_credentials import DescribeUserScramCredentialsRequest, ScramUserName
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.kafka_codec import KafkaReply
from kafkette.protocol.kafka_messages.configs import AlterConfigsRequest, LegacyAlterConfigsResource
from kafkette.protocol.kafka_schema import ZERO_UUID

CODE = Errors.UNKNOWN_SERVER_ERROR


def _answer(key, version, request):
    reply = KafkaReply(7, KAFKA_APIS[key], version, request)
    out = reply.error_response(CODE)
    assert out is not None and reply.translate is False
    reply.encode(out)  # fits the version's schema
    return out


def test_produce_every_partition_carries_the_error():
    request = ProduceRequest(
        acks=-1,
        timeout_ms=1000,
        topic_data=[
            ProduceTopicData(name="a", partition_data=[ProducePartitionData(index=0, records=None)]),
            ProduceTopicData(name="b", partition_data=[ProducePartitionData(index=1, records=None)]),
        ],
    )
    out = _answer(ApiKey.PRODUCE, 9, request)
    assert [
        (t.name, [(p.index, p.error_code, p.base_offset) for p in t.partition_responses])
        for t in out.responses
    ] == [
        ("a", [(0, CODE, -1)]),
        ("b", [(1, CODE, -1)]),
    ]


def _fetch_request():
    return FetchRequest(
        max_wait_ms=1,
        min_bytes=1,
        isolation_level=0,
        session_id=42,
        topics=[
            FetchTopic(
                topic="a",
                topic_id=uuid.uuid4(),
                partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1)],
            ),
            FetchTopic(
                topic="b",
                topic_id=uuid.uuid4(),
                partitions=[FetchPartition(partition=3, fetch_offset=0, partition_max_bytes=1)],
            ),
        ],
        forgotten_topics_data=[],
        rack_id="",
    )


def test_fetch_before_v13_errors_every_partition_and_the_top_level():
    out = _answer(ApiKey.FETCH, 12, _fetch_request())
    assert out.error_code == CODE and out.session_id == 42
    assert [
        (t.topic, [(p.partition_index, p.error_code, p.high_watermark) for p in t.partitions])
        for t in out.responses
    ] == [
        ("a", [(0, CODE, -1)]),
        ("b", [(3, CODE, -1)]),
    ]


def test_fetch_v13_plus_answers_the_top_level_error_only():
    out = _answer(ApiKey.FETCH, 17, _fetch_request())
    assert out.error_code == CODE and out.session_id == 42 and out.responses == []


def test_list_offsets_every_partition_offset_and_timestamp_minus_one():
    request = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[
            ListOffsetsTopic(name="a", partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)]),
            ListOffsetsTopic(name="b", partitions=[ListOffsetsPartition(partition_index=2, timestamp=-2)]),
        ],
    )
    out = _answer(ApiKey.LIST_OFFSETS, 9, request)
    assert [
        (t.name, [(p.partition_index, p.error_code, p.offset, p.timestamp) for p in t.partitions])
        for t in out.topics
    ] == [
        ("a", [(0, CODE, -1, -1)]),
        ("b", [(2, CODE, -1, -1)]),
    ]


def test_offset_commit_every_partition():
    request = OffsetCommitRequest(
        group_id="g",
        member_id="m",
        topics=[
            OffsetCommitRequestTopic(
                name="a",
                partitions=[
                    OffsetCommitRequestPartition(partition_index=i, committed_offset=5, committed_metadata="")
                    for i in (0, 1)
                ],
            )
        ],
    )
    out = _answer(ApiKey.OFFSET_COMMIT, 8, request)
    assert [(p.partition_index, p.error_code) for p in out.topics[0].partitions] == [(0, CODE), (1, CODE)]


def test_offset_fetch_v8_every_group_and_v1_every_partition():
    out = _answer(
        ApiKey.OFFSET_FETCH,
        8,
        OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id=g, topics=None) for g in ("x", "y")]),
    )
    assert [(g.group_id, g.error_code, g.topics) for g in out.groups] == [("x", CODE, []), ("y", CODE, [])]
    request = OffsetFetchRequest(
        group_id="g", topics=[OffsetFetchRequestTopic(name="a", partition_indexes=[0, 4])]
    )
    out = _answer(ApiKey.OFFSET_FETCH, 1, request)
    assert [
        (p.partition_index, p.error_code, p.committed_offset, p.metadata) for p in out.topics[0].partitions
    ] == [
        (0, CODE, -1, ""),
        (4, CODE, -1, ""),
    ]


def test_find_coordinator_v4_one_coordinator_per_key():
    out = _answer(ApiKey.FIND_COORDINATOR, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=["x", "y"]))
    assert [(c.key, c.error_code, c.node_id, c.host, c.port) for c in out.coordinators] == [
        ("x", CODE, -1, "", -1),
        ("y", CODE, -1, "", -1),
    ]
    # Kafka writes Errors.message() whatever the failure said
    assert {c.error_message for c in out.coordinators} == {default_message(CODE)}
    old = _answer(ApiKey.FIND_COORDINATOR, 3, FindCoordinatorRequest(key="x", key_type=0))
    assert (old.error_code, old.error_message, old.node_id) == (CODE, default_message(CODE), -1)


def test_group_admin_every_group():
    out = _answer(ApiKey.DESCRIBE_GROUPS, 5, DescribeGroupsRequest(groups=["x", "y"]))
    assert [(g.group_id, g.error_code, g.members) for g in out.groups] == [("x", CODE, []), ("y", CODE, [])]
    out = _answer(ApiKey.DELETE_GROUPS, 2, DeleteGroupsRequest(groups_names=["x", "y"]))
    assert [(g.group_id, g.error_code) for g in out.results] == [("x", CODE), ("y", CODE)]


def test_delete_topics_every_topic_by_name_and_by_id():
    out = _answer(ApiKey.DELETE_TOPICS, 5, DeleteTopicsRequest(topic_names=["a", "b"], timeout_ms=1))
    assert [(r.name, r.error_code) for r in out.responses] == [("a", CODE), ("b", CODE)]
    ids = [uuid.uuid4(), uuid.uuid4()]
    request = DeleteTopicsRequest(topics=[DeleteTopicState(name=None, topic_id=i) for i in ids], timeout_ms=1)
    out = _answer(ApiKey.DELETE_TOPICS, 6, request)
    assert [(r.topic_id, r.error_code) for r in out.responses] == [(ids[0], CODE), (ids[1], CODE)]


def test_fetch_v4_has_no_top_level_error_but_every_partition_carries_it():
    out = _answer(ApiKey.FETCH, 4, _fetch_request())
    assert [p.error_code for t in out.responses for p in t.partitions] == [CODE, CODE]


def test_metadata_every_topic_asked_and_none_for_all_topics():
    from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic

    request = MetadataRequest(topics=[MetadataRequestTopic(name=n) for n in ("a", "b")])
    for version in (1, 12, 13):
        out = _answer(ApiKey.METADATA, version, request)
        assert [(t.name, t.error_code, t.is_internal, t.partitions) for t in out.topics] == [
            ("a", CODE, False, []),
            ("b", CODE, False, []),
        ]
        assert out.error_code == CODE  # written from v13 (KIP-1102)
    assert _answer(ApiKey.METADATA, 12, MetadataRequest(topics=None)).topics == []


def test_delete_records_and_offset_for_leader_epoch_every_partition():
    from kafkette.protocol.apis.delete_records import (
        DeleteRecordsPartition,
        DeleteRecordsRequest,
        DeleteRecordsTopic,
    )
    from kafkette.protocol.apis.offsets_for_leader_epoch import (
        OffsetForLeaderPartition,
        OffsetForLeaderTopic,
        OffsetsForLeaderEpochRequest,
    )

    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsTopic(name=n, partitions=[DeleteRecordsPartition(partition_index=1, offset=5)])
            for n in "ab"
        ],
        timeout_ms=1,
    )
    out = _answer(ApiKey.DELETE_RECORDS, 2, request)
    assert [
        (t.name, p.partition_index, p.error_code, p.low_watermark) for t in out.topics for p in t.partitions
    ] == [
        ("a", 1, CODE, -1),
        ("b", 1, CODE, -1),
    ]
    request = OffsetsForLeaderEpochRequest(
        topics=[
            OffsetForLeaderTopic(name=n, partitions=[OffsetForLeaderPartition(partition=2, leader_epoch=3)])
            for n in "ab"
        ]
    )
    out = _answer(ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, request)
    assert [
        (t.name, p.partition, p.error_code, p.leader_epoch, p.end_offset)
        for t in out.topics
        for p in t.partitions
    ] == [
        ("a", 2, CODE, -1, -1),
        ("b", 2, CODE, -1, -1),
    ]


def test_create_partitions_every_topic():
    from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsTopic

    request = CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name=n, count=3, assignments=None) for n in "ab"],
        timeout_ms=1,
        validate_only=False,
    )
    out = _answer(ApiKey.CREATE_PARTITIONS, 3, request)
    assert [(r.name, r.error_code) for r in out.results] == [("a", CODE), ("b", CODE)]


def test_create_topics_every_topic_named_twice_twice_with_the_message():
    request = CreateTopicsRequest(
        topics=[
            CreatableTopic(name=n, num_partitions=1, replication_factor=1, assignments=[], configs=[])
            for n in ("a", "b", "a")
        ],
        timeout_ms=1000,
        validate_only=False,
    )
    reply = KafkaReply(7, KAFKA_APIS[ApiKey.CREATE_TOPICS], 7, request)
    out = reply.error_response(Errors.TOPIC_ALREADY_EXISTS, "exists")
    reply.encode(out)
    assert [
        (t.name, t.error_code, t.error_message, t.num_partitions, t.replication_factor) for t in out.topics
    ] == [(n, Errors.TOPIC_ALREADY_EXISTS, "exists", -1, -1) for n in ("a", "b", "a")]
    assert all(t.topic_id == ZERO_UUID and t.configs == [] for t in out.topics)
    _answer(ApiKey.CREATE_TOPICS, 2, request)


def test_describe_configs_every_resource_with_the_errors_own_message():
    request = DescribeConfigsRequest(
        resources=[
            DescribeConfigsResource(resource_type=2, resource_name="t", configuration_keys=None),
            DescribeConfigsResource(resource_type=4, resource_name="1", configuration_keys=["x"]),
        ],
        include_synonyms=False,
        include_documentation=False,
    )
    for version in (1, 4):
        reply = KafkaReply(7, KAFKA_APIS[ApiKey.DESCRIBE_CONFIGS], version, request)
        out = reply.error_response(CODE, "ignored")
        reply.encode(out)
        assert [
            (r.resource_type, r.resource_name, r.error_code, r.error_message, r.configs) for r in out.results
        ] == [
            (2, "t", CODE, default_message(CODE), []),
            (4, "1", CODE, default_message(CODE), []),
        ]


def test_alter_configs_and_incremental_every_resource_with_the_message():
    legacy = AlterConfigsRequest(
        resources=[
            LegacyAlterConfigsResource(resource_type=2, resource_name="t", configs=[]),
            LegacyAlterConfigsResource(resource_type=2, resource_name="t", configs=[]),
        ],
        validate_only=False,
    )
    incremental = IncrementalAlterConfigsRequest(
        resources=[AlterConfigsResource(resource_type=4, resource_name="1", configs=[])], validate_only=False
    )
    for key, request, version in (
        (ApiKey.ALTER_CONFIGS, legacy, 0),
        (ApiKey.ALTER_CONFIGS, legacy, 2),
        (ApiKey.INCREMENTAL_ALTER_CONFIGS, incremental, 0),
        (ApiKey.INCREMENTAL_ALTER_CONFIGS, incremental, 1),
    ):
        out = _answer(key, version, request)
        assert [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in out.responses] == [
            (r.resource_type, r.resource_name, CODE, None) for r in request.resources
        ]


def test_describe_log_dirs_top_level_error_and_no_dirs():
    request = DescribeLogDirsRequest(topics=[DescribableLogDirTopic(topic="a", partitions=[0])])
    for version in (1, 3, 5):
        out = _answer(ApiKey.DESCRIBE_LOG_DIRS, version, request)
        assert out.error_code == CODE and out.results == []


def test_describe_producers_every_partition_listed():
    request = DescribeProducersRequest(
        topics=[DescribeProducersRequestTopic(name="a", partition_indexes=[0, 1, 0])]
    )
    out = _answer(ApiKey.DESCRIBE_PRODUCERS, 0, request)
    assert [
        (t.name, [(p.partition_index, p.error_code, p.error_message) for p in t.partitions])
        for t in out.topics
    ] == [("a", [(0, CODE, None), (1, CODE, None), (0, CODE, None)])]


def test_consumer_group_describe_every_group():
    request = ConsumerGroupDescribeRequest(group_ids=["g", "h", "g"], include_authorized_operations=True)
    for version in (0, 1):
        out = _answer(ApiKey.CONSUMER_GROUP_DESCRIBE, version, request)
        assert [
            (g.group_id, g.error_code, g.error_message, g.group_state, g.members) for g in out.groups
        ] == [(g, CODE, None, "", []) for g in ("g", "h", "g")]
        assert all(g.authorized_operations == -2147483648 for g in out.groups)


def test_describe_topic_partitions_every_topic():
    request = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in ("a", "a")], cursor=None
    )
    out = _answer(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, request)
    assert [(t.name, t.error_code, t.topic_id, t.is_internal, t.partitions) for t in out.topics] == [
        ("a", CODE, ZERO_UUID, False, []),
        ("a", CODE, ZERO_UUID, False, []),
    ]
    assert out.next_cursor is None


def test_produce_partitions_in_the_order_of_kafkas_partition_sizes_hash_map():
    request = ProduceRequest(
        acks=-1,
        timeout_ms=1000,
        topic_data=[
            ProduceTopicData(
                name="a", partition_data=[ProducePartitionData(index=i, records=None) for i in (0, 1, 0)]
            ),
            ProduceTopicData(name="b", partition_data=[ProducePartitionData(index=2, records=None)]),
            ProduceTopicData(
                name="a", partition_data=[ProducePartitionData(index=i, records=None) for i in (1, 3)]
            ),
        ],
    )
    out = _answer(ApiKey.PRODUCE, 9, request)
    # what Kafka 4.3.1's ProduceRequest.getErrorResponse answers (HashMap<TopicIdPartition, Integer>)
    assert [(t.name, [p.index for p in t.partition_responses]) for t in out.responses] == [
        ("a", [3, 1, 0]),
        ("b", [2]),
    ]


def test_fetch_partitions_have_an_empty_aborted_transactions_list():
    out = _answer(ApiKey.FETCH, 4, _fetch_request())
    assert {repr(p.aborted_transactions) for t in out.responses for p in t.partitions} == {"[]"}


def test_delete_topics_carries_no_message_of_the_failure_as_kafkas_get_error_response():
    """``DeleteTopicsRequest.getErrorResponse`` sets only the name, topic id and error code."""
    request = DeleteTopicsRequest(topic_names=["a"], timeout_ms=1)
    reply = KafkaReply(7, KAFKA_APIS[ApiKey.DELETE_TOPICS], 5, request)
    out = reply.error_response(Errors.POLICY_VIOLATION, "not allowed")
    reply.encode(out)
    assert [(r.name, r.error_code, r.error_message) for r in out.responses] == [
        ("a", Errors.POLICY_VIOLATION, None)
    ]


def test_top_level_only_answers_carry_the_message_where_kafkas_get_error_response_writes_one():
    """DescribeCluster writes ``ApiError.fromThrowable(e).message()``, DescribeQuorum (v2+) the error's own
    message (``getTopLevelErrorResponse``), ConsumerGroupHeartbeat none."""
    cluster = KafkaReply(
        7, KAFKA_APIS[ApiKey.DESCRIBE_CLUSTER], 1, KAFKA_APIS[ApiKey.DESCRIBE_CLUSTER].request()
    )
    out = cluster.error_response(Errors.INVALID_REQUEST, "bad endpoint")
    cluster.encode(out)
    assert (out.error_code, out.error_message) == (Errors.INVALID_REQUEST, "bad endpoint")
    out = cluster.error_response(Errors.INVALID_REQUEST)
    assert (out.error_code, out.error_message) == (Errors.INVALID_REQUEST, None)
    for version in (1, 2):  # the field is v2+
        quorum = KafkaReply(7, KAFKA_APIS[ApiKey.DESCRIBE_QUORUM], version, None)
        out = quorum.error_response(Errors.NOT_LEADER_OR_FOLLOWER, "ignored")
        quorum.encode(out)
        assert out.error_code == Errors.NOT_LEADER_OR_FOLLOWER
    assert out.error_message == default_message(Errors.NOT_LEADER_OR_FOLLOWER)
    heartbeat = KafkaReply(7, KAFKA_APIS[ApiKey.CONSUMER_GROUP_HEARTBEAT], 0, None)
    out = heartbeat.error_response(Errors.INVALID_REQUEST, "ignored")
    heartbeat.encode(out)
    assert (out.error_code, out.error_message) == (Errors.INVALID_REQUEST, None)


def test_describe_client_quotas_answers_the_error_with_null_entries_and_no_message():
    out = _answer(ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, DescribeClientQuotasRequest(components=[], strict=False))
    assert (out.error_code, out.error_message, out.entries) == (CODE, None, None)


def test_describe_user_scram_credentials_answers_the_error_once_per_user_named_without_its_name():
    request = DescribeUserScramCredentialsRequest(
        users=[ScramUserName(name="alice"), ScramUserName(name="bob")]
    )
    out = _answer(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, request)
    assert (out.error_code, out.error_message) == (CODE, None)
    assert [(r.user, r.error_code, r.error_message) for r in out.results] == [("", CODE, None)] * 2
    everyone = _answer(
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, DescribeUserScramCredentialsRequest(users=None)
    )
    assert everyone.results == []
