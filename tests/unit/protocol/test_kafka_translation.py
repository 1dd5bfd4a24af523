"""The Kafka listener's translation of requests and answers (``kafka_translation``): the
per-API differences Kafka's versions make, checked on messages alone (no broker)."""

from __future__ import annotations

from kafkette.protocol import apis as internal
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis import group_admin
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_messages import cluster, configs
from kafkette.protocol.kafka_translation import TRANSLATIONS


def _list_offsets(version: int, timestamps: list[int]):
    request = internal.list_offsets.ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[
            internal.list_offsets.ListOffsetsTopic(
                name="t",
                partitions=[
                    internal.list_offsets.ListOffsetsPartition(partition_index=i, timestamp=ts)
                    for i, ts in enumerate(timestamps)
                ],
            )
        ],
    )
    answer = internal.list_offsets.ListOffsetsResponse(
        topics=[
            internal.list_offsets.ListOffsetsTopicResponse(
                name="t",
                partitions=[
                    internal.list_offsets.ListOffsetsPartitionResponse(
                        partition_index=i, error_code=0, timestamp=5, offset=3, leader_epoch=0
                    )
                    for i in range(len(timestamps))
                ],
            )
        ]
    )
    out = TRANSLATIONS[int(ApiKey.LIST_OFFSETS)].to_kafka(answer, version, request)
    return [(p.error_code, p.offset) for p in out.topics[0].partitions]


def test_max_timestamp_before_list_offsets_v7_is_unsupported_version():
    assert _list_offsets(6, [-3, -1, 7]) == [(Errors.UNSUPPORTED_VERSION, -1), (0, 3), (0, 3)]
    assert _list_offsets(7, [-3]) == [(0, 3)]


def _aborted_transactions(isolation_level: int) -> list:
    request = internal.fetch.FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=isolation_level,
        topics=[],
        forgotten_topics_data=[],
        rack_id="",
    )
    answer = internal.fetch.FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        responses=[
            internal.fetch.FetchTopicResponse(
                topic="t",
                partitions=[
                    internal.fetch.FetchPartitionData(
                        partition_index=0, error_code=0, high_watermark=0, records=b""
                    ),
                    internal.fetch.FetchPartitionData(
                        partition_index=1, error_code=Errors.NOT_LEADER_OR_FOLLOWER
                    ),
                    internal.fetch.FetchPartitionData(
                        partition_index=2, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION
                    ),
                    internal.fetch.FetchPartitionData(
                        partition_index=3, error_code=Errors.TOPIC_AUTHORIZATION_FAILED
                    ),
                ],
            )
        ],
    )
    out = TRANSLATIONS[int(ApiKey.FETCH)].to_kafka(answer, 12, request)
    return [p.aborted_transactions for p in out.responses[0].partitions]


def test_fetch_answers_aborted_transactions_as_kafka_null_unless_read_committed_and_read():
    assert _aborted_transactions(0) == [None, None, [], []], (
        "read_uncommitted: Kafka's LocalLog.read collects none; KafkaApis' own refusals: the default []"
    )
    assert _aborted_transactions(1) == [[], None, [], []], (
        "read_committed: a list for a partition read, null on an error"
    )


def test_a_produce_refused_as_an_internal_topic_carries_no_message_on_the_kafka_listener():
    produce = internal.produce
    answer = produce.ProduceResponse(
        responses=[
            produce.ProduceTopicResponse(
                name="__consumer_offsets",
                partition_responses=[
                    produce.ProducePartitionResponse(
                        index=0,
                        error_code=Errors.INVALID_TOPIC_EXCEPTION,
                        base_offset=-1,
                        error_message="Cannot append to internal topic __consumer_offsets",
                        record_errors=[],
                    ),
                    produce.ProducePartitionResponse(index=1, error_code=0, base_offset=4, record_errors=[]),
                ],
            )
        ]
    )
    out = TRANSLATIONS[int(ApiKey.PRODUCE)].to_kafka(answer, 9, None)
    assert [
        (p.index, p.error_code, p.error_message, p.base_offset) for p in out.responses[0].partition_responses
    ] == [(0, Errors.INVALID_TOPIC_EXCEPTION, None, -1), (1, 0, None, 4)]


def _metadata(version: int, topic_ops: bool, cluster_ops: bool):
    answer = internal.metadata.MetadataResponse(
        brokers=[],
        cluster_id="c",
        controller_id=1,
        topics=[
            internal.metadata.MetadataResponseTopic(error_code=0, name="t", is_internal=False, partitions=[])
        ],
    )
    request = internal.metadata.MetadataRequest(
        topics=None,
        include_topic_authorized_operations=topic_ops,
        include_cluster_authorized_operations=cluster_ops,
    )
    out = TRANSLATIONS[int(ApiKey.METADATA)].to_kafka(answer, version, request)
    return out.topics[0].topic_authorized_operations, out.cluster_authorized_operations


def test_metadata_answers_every_topic_and_cluster_operation_when_asked_as_kafka_without_an_authorizer():
    not_asked = -2147483648
    assert _metadata(10, True, True) == (3576, 8096), (
        "READ..ALTER_CONFIGS on topics, CREATE..IDEMPOTENT_WRITE"
    )
    assert _metadata(12, True, False) == (3576, not_asked)
    assert _metadata(8, False, False) == (not_asked, not_asked)


def test_metadata_leaves_the_operations_of_refused_and_unknown_id_topics_not_asked_as_kafka():
    answer = internal.metadata.MetadataResponse(
        brokers=[],
        cluster_id="c",
        controller_id=1,
        topics=[
            internal.metadata.MetadataResponseTopic(
                error_code=code, name=name, is_internal=False, partitions=[]
            )
            for code, name in (
                (Errors.NONE, "seen"),
                (Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown"),
                (Errors.TOPIC_AUTHORIZATION_FAILED, "refused"),
                (Errors.UNKNOWN_TOPIC_ID, None),
            )
        ],
    )
    request = internal.metadata.MetadataRequest(topics=None, include_topic_authorized_operations=True)
    out = TRANSLATIONS[int(ApiKey.METADATA)].to_kafka(answer, 12, request)
    assert [t.topic_authorized_operations for t in out.topics] == [3576, 3576, -2147483648, -2147483648], (
        "handleTopicMetadataRequest sets the operations of the topics it answers, then adds the others"
    )


def test_describe_cluster_answers_every_cluster_operation_when_asked():
    answer = internal.metadata.MetadataResponse(brokers=[], cluster_id="c", controller_id=1, topics=[])
    translation = TRANSLATIONS[ApiKey.DESCRIBE_CLUSTER]
    asked = translation.to_kafka(
        answer, 1, cluster.DescribeClusterRequest(include_cluster_authorized_operations=True)
    )
    not_asked = translation.to_kafka(answer, 1, cluster.DescribeClusterRequest())
    assert (asked.cluster_authorized_operations, not_asked.cluster_authorized_operations) == (
        8096,
        -2147483648,
    )


def test_describe_cluster_v2_adds_the_fenced_brokers_by_id_only_when_asked():
    translation = TRANSLATIONS[ApiKey.DESCRIBE_CLUSTER]
    answer = internal.metadata.MetadataResponse(
        brokers=[
            internal.metadata.MetadataResponseBroker(node_id=3, host="h3", port=9092, rack=None),
            internal.metadata.MetadataResponseBroker(node_id=1, host="h1", port=9092, rack="r"),
        ],
        cluster_id="c",
        controller_id=1,
        topics=[],
        fenced_brokers=[internal.metadata.MetadataResponseBroker(node_id=2, host="h2", port=9092, rack=None)],
    )
    out = translation.to_kafka(answer, 2, cluster.DescribeClusterRequest(include_fenced_brokers=True))
    assert [(b.broker_id, b.host, b.rack, b.is_fenced) for b in out.brokers] == [
        (1, "h1", "r", False),
        (2, "h2", None, True),
        (3, "h3", None, False),
    ]
    for version, include in ((2, False), (1, True)):
        out = translation.to_kafka(
            answer, version, cluster.DescribeClusterRequest(include_fenced_brokers=include)
        )
        assert [(b.broker_id, b.is_fenced) for b in out.brokers] == [(1, False), (3, False)]


def test_alter_configs_becomes_an_incremental_alter_configs_of_sets_that_replaces_the_configs():
    request = configs.AlterConfigsRequest(
        validate_only=True,
        resources=[
            configs.LegacyAlterConfigsResource(
                resource_type=2,
                resource_name="t",
                configs=[configs.LegacyAlterableConfig(name="retention.ms", value="5")],
            )
        ],
    )
    translation = TRANSLATIONS[ApiKey.ALTER_CONFIGS]

    out = translation.to_internal(request, 1)

    assert (translation.internal, out.validate_only, out.replace_all) == (
        ApiKey.INCREMENTAL_ALTER_CONFIGS,
        True,
        True,
    )
    assert [(c.name, c.config_operation, c.value) for c in out.resources[0].configs] == [
        ("retention.ms", 0, "5")
    ]
    answer = internal.configs.IncrementalAlterConfigsResponse(
        responses=[
            internal.configs.AlterConfigsResourceResponse(error_code=0, resource_type=2, resource_name="t")
        ]
    )
    assert translation.to_kafka(answer, 1, request).responses[0].resource_name == "t"


def _describe_configs(version: int, include_documentation: bool, error_code: int = 0):
    request = internal.configs.DescribeConfigsRequest(
        resources=[
            internal.configs.DescribeConfigsResource(
                resource_type=2, resource_name="t", configuration_keys=None
            )
        ],
        include_synonyms=False,
        include_documentation=include_documentation,
    )
    answer = internal.configs.DescribeConfigsResponse(
        results=[
            internal.configs.DescribeConfigsResult(
                error_code=error_code,
                error_message=None,
                resource_type=2,
                resource_name="t",
                configs=[]
                if error_code
                else [
                    internal.configs.DescribeConfigsResourceResult(
                        name="retention.ms",
                        value="1000",
                        read_only=False,
                        config_source=1,
                        is_sensitive=False,
                    )
                ],
            )
        ]
    )
    return TRANSLATIONS[int(ApiKey.DESCRIBE_CONFIGS)].to_kafka(answer, version, request).results[0]


def test_describe_configs_answers_an_empty_error_message_on_success_and_no_documentation_unless_asked():
    for version in (1, 2, 3, 4):
        result = _describe_configs(version, include_documentation=False)
        assert result.error_message == ""
        if version >= 3:
            assert result.configs[0].documentation is None
    assert _describe_configs(4, include_documentation=True).configs[0].documentation == ""
    assert _describe_configs(4, False, error_code=Errors.INVALID_REQUEST).error_message is None
    assert _describe_configs(4, False, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION).error_message == ""


def test_delete_topics_answers_a_topic_named_twice_once_as_kafkas_answer_keyed_by_name():
    from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse

    answer = DeleteTopicsResponse(
        responses=[
            DeletableTopicResult(
                name="t", error_code=int(Errors.INVALID_REQUEST), error_message="Duplicate topic name."
            ),
            DeletableTopicResult(
                name="t", error_code=int(Errors.INVALID_REQUEST), error_message="Duplicate topic name."
            ),
            DeletableTopicResult(
                name="u", error_code=int(Errors.UNKNOWN_TOPIC_OR_PARTITION), error_message=None
            ),
        ]
    )
    out = TRANSLATIONS[int(ApiKey.DELETE_TOPICS)].to_kafka(answer, 5, None)
    assert [(r.name, r.error_code) for r in out.responses] == [
        ("t", Errors.INVALID_REQUEST),
        ("u", Errors.UNKNOWN_TOPIC_OR_PARTITION),
    ]


def test_delete_topics_v6_keeps_every_answer_without_a_name():
    """Kafka's controller answers each entry with neither a name nor an id (the fuzz found two such
    entries answered twice by Kafka), one answer per id given twice, one per unknown id."""
    from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse

    invalid, unknown_id = int(Errors.INVALID_REQUEST), int(Errors.UNKNOWN_TOPIC_ID)
    answer = DeleteTopicsResponse(
        responses=[
            DeletableTopicResult(name=None, topic_id=bytes(16), error_code=invalid),
            DeletableTopicResult(name=None, topic_id=bytes(16), error_code=invalid),
            DeletableTopicResult(name=None, topic_id=b"\x01" * 16, error_code=invalid),
            DeletableTopicResult(name=None, topic_id=b"\x02" * 16, error_code=unknown_id),
        ]
    )
    out = TRANSLATIONS[int(ApiKey.DELETE_TOPICS)].to_kafka(answer, 6, None)
    assert [(r.topic_id, r.error_code) for r in out.responses] == [
        (bytes(16), invalid),
        (bytes(16), invalid),
        (b"\x01" * 16, invalid),
        (b"\x02" * 16, unknown_id),
    ]


def test_delete_groups_deletes_a_group_named_twice_once_as_kafka():
    request = group_admin.DeleteGroupsRequest(groups_names=["b", "a", "b", ""])
    assert TRANSLATIONS[int(ApiKey.DELETE_GROUPS)].to_internal(request, 2).groups_names == ["b", "a", ""]


def test_delete_topics_refused_as_a_whole_answers_every_entry_a_name_asked_twice_twice():
    """Kafka's ``DeleteTopicsRequest.getErrorResponse`` (a deadline already past, no controller)
    answers each entry of the request; only the controller's own answer is keyed by name."""
    from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse

    for code in (Errors.REQUEST_TIMED_OUT, Errors.NOT_CONTROLLER):
        answer = DeleteTopicsResponse(
            responses=[DeletableTopicResult(name=n, error_code=int(code)) for n in ("", "a", "")]
        )
        out = TRANSLATIONS[int(ApiKey.DELETE_TOPICS)].to_kafka(answer, 5, None)
        assert [(r.name, r.error_code) for r in out.responses] == [("", code), ("a", code), ("", code)]
