"""Whole-request error answers of the Kafka listener, item by item as Kafka answers them.

When a handler fails a request as a whole, Apache Kafka answers with the request class's
``getErrorResponse(throttleTimeMs, e)``: the error on every item the request named (each partition
of each topic, each group, ...), the item's key fields echoed and the other fields at Kafka's
documented values.  This module reproduces that for the APIs whose response has no top-level
``error_code`` (or only at some versions); ``KafkaReply.error_response`` uses it, and keeps the
top-level-only answer for the others.

Owns: the per-API error answer builders (``ERROR_RESPONSES``).
Does not own: encoding (``kafka_codec``), the choice of error code (the socket server).

Kafka concept: ``AbstractRequest.getErrorResponse`` (``ProduceRequest``, ``FetchRequest``,
``ListOffsetsRequest``, ``OffsetCommitRequest``, ``OffsetFetchRequest``, ``FindCoordinatorRequest``,
``DescribeGroupsRequest``, ``DeleteGroupsRequest``, ``DeleteTopicsRequest``, ``MetadataRequest``,
``DeleteRecordsRequest``, ``OffsetsForLeaderEpochRequest``, ``CreatePartitionsRequest``,
``ElectLeadersRequest``, ``CreateTopicsRequest``, ``DescribeConfigsRequest``, ``AlterConfigsRequest``,
``IncrementalAlterConfigsRequest``, ``DescribeLogDirsRequest``, ``DescribeProducersRequest``,
``ConsumerGroupDescribeRequest``, ``DescribeTopicPartitionsRequest``, ``WriteTxnMarkersRequest``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntryResult,
    AlterClientQuotasResponse,
    ClientQuotaEntityData,
    DescribeClientQuotasResponse,
)
from kafkette.protocol.apis.configs import (
    AlterConfigsResourceResponse,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.consumer_group import ConsumerGroupDescribeGroup, ConsumerGroupDescribeResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsResponse, CreatePartitionsTopicResult
from kafkette.protocol.apis.create_topics import CreatableTopicResult, CreateTopicsResponse
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartitionResult,
    DeleteRecordsResponse,
    DeleteRecordsTopicResult,
)
from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse
from kafkette.protocol.apis.describe_log_dirs import DescribeLogDirsResponse
from kafkette.protocol.apis.describe_producers import (
    DescribeProducersPartitionResponse,
    DescribeProducersResponse,
    DescribeProducersTopicResponse,
)
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponseTopic,
)
from kafkette.protocol.apis.elect_leaders import (
    ElectLeadersPartitionResult,
    ElectLeadersReplicaElectionResult,
    ElectLeadersResponse,
)
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchResponse, FetchTopicResponse
from kafkette.protocol.apis.find_coordinator import Coordinator, FindCoordinatorResponse
from kafkette.protocol.apis.group_admin import (
    DeletableGroupResult,
    DeleteGroupsResponse,
    DescribedGroup,
    DescribeGroupsResponse,
)
from kafkette.protocol.apis.list_offsets import (
    ListOffsetsPartitionResponse,
    ListOffsetsResponse,
    ListOffsetsTopicResponse,
)
from kafkette.protocol.apis.metadata import MetadataResponse, MetadataResponseTopic
from kafkette.protocol.apis.offsets import (
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponseTopic,
)
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    EpochEndOffset,
    OffsetForLeaderTopicResult,
    OffsetsForLeaderEpochResponse,
)
from kafkette.protocol.apis.produce import ProducePartitionResponse, ProduceResponse, ProduceTopicResponse
from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
)
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
    DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResult,
)
from kafkette.protocol.apis.write_txn_markers import write_txn_markers_response
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.kafka_messages.configs import AlterConfigsResponse
from kafkette.protocol.kafka_schema import ZERO_UUID

ErrorResponse = Callable[[Any, int, int, "str | None"], Any]
"""(request as decoded, version, error code, error message or None) -> response struct."""

INVALID_OFFSET = -1
NO_AUTHORIZED_OPERATIONS = -2147483648
"""Kafka's ``Integer.MIN_VALUE`` default of ``authorizedOperations``: not asked."""
NO_TIMESTAMP = -1


def _int32(value: int) -> int:
    """``value`` wrapped to a Java ``int``."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units)."""
    units = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i : i + 2], "big")) & 0xFFFFFFFF
    return _int32(h)


def _topic_id_partition_hash(topic_id: bytes, name: str, partition: int) -> int:
    """Kafka's ``TopicIdPartition.hashCode`` (``Uuid.hashCode`` and ``TopicPartition.hashCode``)."""
    xor = int.from_bytes(topic_id[:8], "big") ^ int.from_bytes(topic_id[8:16], "big")
    uuid_hash = _int32(xor >> 32) ^ _int32(xor)
    topic_partition_hash = _int32(31 * (31 + partition) + _java_string_hash(name))
    return _int32(31 * (31 + uuid_hash) + topic_partition_hash)


def _java_hash_map_order(keys: list[tuple[str, bytes, int]]) -> list[tuple[str, bytes, int]]:
    """``keys`` (distinct, in insertion order) in the iteration order of a Java ``HashMap`` keyed by
    ``TopicIdPartition``: by bucket (the spread hash masked by the table size, 16 doubled while the
    entries exceed three quarters of it), insertion order within a bucket.  Buckets of 8 or more
    colliding entries (a tree bin, or an early resize) are not reproduced."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: tuple[str, bytes, int]) -> int:
        h = _topic_id_partition_hash(key[1], key[0], key[2]) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # stable: insertion order within a bucket


def produce_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``ProduceRequest.getErrorResponse``: every partition with the error, base offset, log append
    time and log start offset -1, no record errors, the error message.  Kafka builds the answer
    from ``partitionSizes``, a ``HashMap`` keyed by topic id, name and partition: a partition listed
    twice is answered once, the partitions come in that map's iteration order, each under the
    topic entry its first one opened."""
    seen: dict[tuple[str, bytes, int], None] = {}
    for topic in request.topic_data:
        for p in topic.partition_data:
            seen.setdefault((topic.name, topic.topic_id, p.index))
    topics: dict[tuple[str, bytes], ProduceTopicResponse] = {}
    for name, topic_id, index in _java_hash_map_order(list(seen)):
        entry = topics.get((name, topic_id))
        if entry is None:
            entry = topics[(name, topic_id)] = ProduceTopicResponse(
                name=name, topic_id=topic_id, partition_responses=[]
            )
        entry.partition_responses.append(
            ProducePartitionResponse(
                index=index,
                error_code=code,
                base_offset=INVALID_OFFSET,
                log_append_time_ms=NO_TIMESTAMP,
                log_start_offset=INVALID_OFFSET,
                record_errors=[],
                error_message=message,
            )
        )
    return ProduceResponse(throttle_time_ms=0, responses=list(topics.values()))


def fetch_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``FetchRequest.getErrorResponse``: the top-level error and the session id echoed; before v13
    also every partition with the error (high watermark, last stable offset and log start offset -1,
    no aborted transactions (an empty list), no records), from v13 no partitions."""
    topics = []
    if version < 13:
        topics = [
            FetchTopicResponse(
                topic=topic.topic,
                topic_id=topic.topic_id,
                partitions=[
                    FetchPartitionData(
                        partition_index=p.partition,
                        error_code=code,
                        high_watermark=INVALID_OFFSET,
                        last_stable_offset=INVALID_OFFSET,
                        log_start_offset=INVALID_OFFSET,
                        aborted_transactions=[],
                        records=b"",
                    )
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ]
    return FetchResponse(
        throttle_time_ms=0, error_code=code, session_id=getattr(request, "session_id", 0), responses=topics
    )


def list_offsets_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``ListOffsetsRequest.getErrorResponse``: every partition with the error, offset and
    timestamp -1 (and leader epoch -1)."""
    return ListOffsetsResponse(
        throttle_time_ms=0,
        topics=[
            ListOffsetsTopicResponse(
                name=topic.name,
                partitions=[
                    ListOffsetsPartitionResponse(
                        partition_index=p.partition_index, error_code=code, timestamp=-1, offset=-1
                    )
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ],
    )


def offset_commit_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``OffsetCommitRequest.getErrorResponse``: every partition of every topic with the error."""
    return OffsetCommitResponse(
        throttle_time_ms=0,
        topics=[
            OffsetCommitResponseTopic(
                name=topic.name,
                topic_id=topic.topic_id,
                partitions=[
                    OffsetCommitResponsePartition(partition_index=p.partition_index, error_code=code)
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ],
    )


def txn_offset_commit_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``TxnOffsetCommitRequest.getErrorResponse``: every partition of every topic with the error."""
    return TxnOffsetCommitResponse(
        throttle_time_ms=0,
        topics=[
            TxnOffsetCommitResponseTopic(
                name=topic.name,
                partitions=[
                    TxnOffsetCommitResponsePartition(partition_index=p.partition_index, error_code=code)
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ],
    )


def offset_fetch_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``OffsetFetchRequest.getErrorResponse``: v8+ every group with the error (no topics); v0-1
    every partition asked with the error, offset -1 and empty metadata; v2-7 the top-level error."""
    if version >= 8:
        return OffsetFetchResponse(
            throttle_time_ms=0,
            groups=[
                OffsetFetchResponseGroup(group_id=g.group_id, topics=[], error_code=code)
                for g in request.groups
            ],
        )
    topics = []
    if version < 2:
        topics = [
            OffsetFetchResponseTopic(
                name=topic.name,
                partitions=[
                    OffsetFetchResponsePartition(
                        partition_index=index, committed_offset=INVALID_OFFSET, metadata="", error_code=code
                    )
                    for index in topic.partition_indexes
                ],
            )
            for topic in request.topics or []
        ]
    return OffsetFetchResponse(throttle_time_ms=0, topics=topics, error_code=code)


def find_coordinator_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``FindCoordinatorRequest.getErrorResponse``: v4+ one coordinator per key with the error
    (node id -1, host "", port -1); before v4 the top-level error with node id -1.  The message is
    always the error's own (``Errors.message()``), whatever the failure said."""
    message = default_message(Errors(code))
    if version >= 4:
        return FindCoordinatorResponse(
            throttle_time_ms=0,
            coordinators=[
                Coordinator(key=key, node_id=-1, host="", port=-1, error_code=code, error_message=message)
                for key in request.coordinator_keys
            ],
        )
    return FindCoordinatorResponse(
        throttle_time_ms=0, error_code=code, error_message=message, node_id=-1, host="", port=-1
    )


def describe_groups_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DescribeGroupsRequest.getErrorResponse``: every group with the error, empty state,
    protocol type and protocol data, no members."""
    return DescribeGroupsResponse(
        throttle_time_ms=0,
        groups=[
            DescribedGroup(
                error_code=code,
                group_id=group_id,
                group_state="",
                protocol_type="",
                protocol_data="",
                members=[],
            )
            for group_id in request.groups
        ],
    )


def delete_groups_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DeleteGroupsRequest.getErrorResponse``: every group with the error."""
    return DeleteGroupsResponse(
        throttle_time_ms=0,
        results=[DeletableGroupResult(group_id=g, error_code=code) for g in request.groups_names],
    )


def delete_topics_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DeleteTopicsRequest.getErrorResponse``: every topic (by name before v6, by name and topic
    id from v6) with the error and, from v5, the error message."""
    if version >= 6:
        results = [
            DeletableTopicResult(name=t.name, topic_id=t.topic_id, error_code=code, error_message=message)
            for t in request.topics
        ]
    else:
        results = [
            DeletableTopicResult(name=n, error_code=code, error_message=message) for n in request.topic_names
        ]
    return DeleteTopicsResponse(throttle_time_ms=0, responses=results)


def metadata_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``MetadataRequest.getErrorResponse``: every topic asked (a null name as "") with the error,
    not internal, no partitions; no brokers; all topics asked (null) gives no topics; the error also at
    the top level (v13+)."""
    return MetadataResponse(
        throttle_time_ms=0,
        error_code=code,
        brokers=[],
        topics=[
            MetadataResponseTopic(
                error_code=code,
                name=topic.name if topic.name is not None else "",
                topic_id=topic.topic_id,
                is_internal=False,
                partitions=[],
            )
            for topic in request.topics or []
        ],
    )


def delete_records_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DeleteRecordsRequest.getErrorResponse``: every partition with the error and low watermark -1
    (``DeleteRecordsResponse.INVALID_LOW_WATERMARK``)."""
    return DeleteRecordsResponse(
        throttle_time_ms=0,
        topics=[
            DeleteRecordsTopicResult(
                name=topic.name,
                partitions=[
                    DeleteRecordsPartitionResult(
                        partition_index=p.partition_index, low_watermark=-1, error_code=code
                    )
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ],
    )


def offset_for_leader_epoch_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``OffsetsForLeaderEpochRequest.getErrorResponse``: every partition with the error, leader epoch
    and end offset undefined (-1)."""
    return OffsetsForLeaderEpochResponse(
        throttle_time_ms=0,
        topics=[
            OffsetForLeaderTopicResult(
                name=topic.name,
                partitions=[
                    EpochEndOffset(error_code=code, partition=p.partition, leader_epoch=-1, end_offset=-1)
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ],
    )


def create_partitions_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``CreatePartitionsRequest.getErrorResponse``: every topic with the error and its message."""
    return CreatePartitionsResponse(
        throttle_time_ms=0,
        results=[
            CreatePartitionsTopicResult(name=topic.name, error_code=code, error_message=message)
            for topic in request.topics
        ],
    )


def elect_leaders_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``ElectLeadersRequest.getErrorResponse``: the error at the top level (v1+) and, with the
    message, for every partition of every topic named, a partition named twice twice (none when the
    request names every partition with a null list)."""
    return ElectLeadersResponse(
        throttle_time_ms=0,
        error_code=code,
        replica_election_results=[
            ElectLeadersReplicaElectionResult(
                topic=t.topic,
                partition_result=[
                    ElectLeadersPartitionResult(partition_id=p, error_code=code, error_message=message)
                    for p in t.partitions
                ],
            )
            for t in request.topic_partitions or []
        ],
    )


def create_topics_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``CreateTopicsRequest.getErrorResponse``: every topic named (a name listed twice twice) with the
    error and the message; topic id zero, partition count and replication factor -1, no configs."""
    return CreateTopicsResponse(
        throttle_time_ms=0,
        topics=[
            CreatableTopicResult(
                name=t.name,
                topic_id=ZERO_UUID,
                error_code=code,
                error_message=message,
                topic_config_error_code=0,
                num_partitions=-1,
                replication_factor=-1,
                configs=[],
            )
            for t in request.topics
        ],
    )


def describe_configs_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DescribeConfigsRequest.getErrorResponse``: every resource named (type and name echoed) with
    the error, no configs; the message is always the error's own (``Errors.message()``), whatever
    the failure said."""
    return DescribeConfigsResponse(
        throttle_time_ms=0,
        results=[
            DescribeConfigsResult(
                error_code=code,
                error_message=default_message(Errors(code)),
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=[],
            )
            for r in request.resources
        ],
    )


def _alter_configs_results(request: Any, code: int, message: str | None) -> list[Any]:
    """Every resource of an (Incremental)AlterConfigs request, type and name echoed, with the error."""
    return [
        AlterConfigsResourceResponse(
            error_code=code,
            error_message=message,
            resource_type=r.resource_type,
            resource_name=r.resource_name,
        )
        for r in request.resources
    ]


def alter_configs_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``AlterConfigsRequest.getErrorResponse``: every resource named with the error and the message."""
    return AlterConfigsResponse(throttle_time_ms=0, responses=_alter_configs_results(request, code, message))


def incremental_alter_configs_error_response(
    request: Any, version: int, code: int, message: str | None
) -> Any:
    """``IncrementalAlterConfigsRequest.getErrorResponse``: every resource named with the error and
    the message."""
    return IncrementalAlterConfigsResponse(
        throttle_time_ms=0, responses=_alter_configs_results(request, code, message)
    )


def describe_log_dirs_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DescribeLogDirsRequest.getErrorResponse``: the top-level error (v3+) and no log dirs, so
    before v3 an empty answer."""
    return DescribeLogDirsResponse(throttle_time_ms=0, error_code=code, results=[])


def describe_client_quotas_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DescribeClientQuotasRequest.getErrorResponse``: the error and the message, entries null."""
    return DescribeClientQuotasResponse(
        throttle_time_ms=0, error_code=code, error_message=message, entries=None
    )


def describe_user_scram_credentials_error_response(
    request: Any, version: int, code: int, message: str | None
) -> Any:
    """``DescribeUserScramCredentialsRequest.getErrorResponse``: the error and the message at the top
    level and once per user named (a result without the user's name; none when all were asked)."""
    return DescribeUserScramCredentialsResponse(
        throttle_time_ms=0,
        error_code=code,
        error_message=message,
        results=[
            DescribeUserScramCredentialsResult(
                user="", error_code=code, error_message=message, credential_infos=[]
            )
            for _ in request.users or []
        ],
    )


def alter_client_quotas_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``AlterClientQuotasRequest.getErrorResponse``: every entry with its entity, the error and the
    error's own message (``Errors.message()``, whatever the failure said)."""
    return AlterClientQuotasResponse(
        throttle_time_ms=0,
        entries=[
            AlterClientQuotasEntryResult(
                error_code=code,
                error_message=default_message(Errors(code)),
                entity=[
                    ClientQuotaEntityData(entity_type=e.entity_type, entity_name=e.entity_name)
                    for e in entry.entity
                ],
            )
            for entry in request.entries
        ],
    )


def alter_user_scram_credentials_error_response(
    request: Any, version: int, code: int, message: str | None
) -> Any:
    """``AlterUserScramCredentialsRequest.getErrorResponse``: each user a deletion or an upsertion
    names, once and sorted, with the error and the message."""
    users = sorted({d.name for d in request.deletions} | {u.name for u in request.upsertions})
    return AlterUserScramCredentialsResponse(
        throttle_time_ms=0,
        results=[
            AlterUserScramCredentialsResult(user=u, error_code=code, error_message=message) for u in users
        ],
    )


def describe_producers_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``DescribeProducersRequest.getErrorResponse``: every partition of every topic named (listed
    twice, answered twice) with the error, no message, no producers."""
    return DescribeProducersResponse(
        throttle_time_ms=0,
        topics=[
            DescribeProducersTopicResponse(
                name=t.name,
                partitions=[
                    DescribeProducersPartitionResponse(
                        partition_index=p, error_code=code, error_message=None, active_producers=[]
                    )
                    for p in t.partition_indexes
                ],
            )
            for t in request.topics
        ],
    )


def consumer_group_describe_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``ConsumerGroupDescribeRequest.getErrorResponse``: every group named with the error, no
    message, empty state and assignor, epochs 0, no members, authorized operations not asked."""
    return ConsumerGroupDescribeResponse(
        throttle_time_ms=0,
        groups=[
            ConsumerGroupDescribeGroup(
                error_code=code,
                error_message=None,
                group_id=g,
                group_state="",
                group_epoch=0,
                assignment_epoch=0,
                assignor_name="",
                members=[],
                authorized_operations=NO_AUTHORIZED_OPERATIONS,
            )
            for g in request.group_ids
        ],
    )


def describe_topic_partitions_error_response(
    request: Any, version: int, code: int, message: str | None
) -> Any:
    """``DescribeTopicPartitionsRequest.getErrorResponse``: every topic named with the error, topic
    id zero, not internal, no partitions, authorized operations not asked; no next cursor."""
    return DescribeTopicPartitionsResponse(
        throttle_time_ms=0,
        topics=[
            DescribeTopicPartitionsResponseTopic(
                error_code=code,
                name=t.name,
                topic_id=ZERO_UUID,
                is_internal=False,
                partitions=[],
                topic_authorized_operations=NO_AUTHORIZED_OPERATIONS,
            )
            for t in request.topics
        ],
        next_cursor=None,
    )


def write_txn_markers_error_response(request: Any, version: int, code: int, message: str | None) -> Any:
    """``WriteTxnMarkersRequest.getErrorResponse``: every partition of every marker with the error,
    by producer id (in the request's order, where Kafka's answer follows its ``HashMap``'s)."""
    errors: dict[int, dict[tuple[str, int], int]] = {}
    for marker in request.markers:
        answered = errors.setdefault(marker.producer_id, {})
        for topic in marker.topics:
            for partition in topic.partition_indexes:
                answered[(topic.name, partition)] = code
    return write_txn_markers_response(errors)


ERROR_RESPONSES: dict[int, ErrorResponse] = {
    ApiKey.PRODUCE: produce_error_response,
    ApiKey.FETCH: fetch_error_response,
    ApiKey.LIST_OFFSETS: list_offsets_error_response,
    ApiKey.OFFSET_COMMIT: offset_commit_error_response,
    ApiKey.TXN_OFFSET_COMMIT: txn_offset_commit_error_response,
    ApiKey.OFFSET_FETCH: offset_fetch_error_response,
    ApiKey.FIND_COORDINATOR: find_coordinator_error_response,
    ApiKey.DESCRIBE_GROUPS: describe_groups_error_response,
    ApiKey.DELETE_GROUPS: delete_groups_error_response,
    ApiKey.DELETE_TOPICS: delete_topics_error_response,
    ApiKey.METADATA: metadata_error_response,
    ApiKey.DELETE_RECORDS: delete_records_error_response,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: offset_for_leader_epoch_error_response,
    ApiKey.CREATE_PARTITIONS: create_partitions_error_response,
    ApiKey.ELECT_LEADERS: elect_leaders_error_response,
    ApiKey.CREATE_TOPICS: create_topics_error_response,
    ApiKey.DESCRIBE_CONFIGS: describe_configs_error_response,
    ApiKey.ALTER_CONFIGS: alter_configs_error_response,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: incremental_alter_configs_error_response,
    ApiKey.DESCRIBE_LOG_DIRS: describe_log_dirs_error_response,
    ApiKey.DESCRIBE_CLIENT_QUOTAS: describe_client_quotas_error_response,
    ApiKey.ALTER_CLIENT_QUOTAS: alter_client_quotas_error_response,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: alter_user_scram_credentials_error_response,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: describe_user_scram_credentials_error_response,
    ApiKey.DESCRIBE_PRODUCERS: describe_producers_error_response,
    ApiKey.CONSUMER_GROUP_DESCRIBE: consumer_group_describe_error_response,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: describe_topic_partitions_error_response,
    ApiKey.WRITE_TXN_MARKERS: write_txn_markers_error_response,
}
"""The Kafka listener's item-by-item error answers, by API key."""

EXCEPTION_MESSAGE_APIS: frozenset[int] = frozenset(
    {
        ApiKey.PRODUCE,
        ApiKey.CREATE_TOPICS,
        ApiKey.CREATE_PARTITIONS,
        ApiKey.ELECT_LEADERS,
        ApiKey.ALTER_CONFIGS,
        ApiKey.INCREMENTAL_ALTER_CONFIGS,
        ApiKey.DESCRIBE_CLUSTER,
        ApiKey.SASL_AUTHENTICATE,
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
    }
)
"""The APIs whose ``getErrorResponse`` writes the failure's message (``ApiError.fromThrowable(e).message()``:
null for UNKNOWN_SERVER_ERROR and for the error's default message); every other API's answer carries no
message of the failure (DeleteTopics', ConsumerGroupHeartbeat's: none; FindCoordinator's,
DescribeConfigs', DescribeQuorum's: the error's own)."""

DEFAULT_MESSAGE_TOP_LEVEL_APIS: frozenset[int] = frozenset({ApiKey.DESCRIBE_QUORUM})
"""The APIs answered at the top level only whose ``getErrorResponse`` writes the error's own message
(``DescribeQuorumRequest.getTopLevelErrorResponse``: ``Errors.message()``), where the version has the
field."""
