"""Per-topic authorization of the data-plane APIs through ``KafkaApis.handle`` and their real
handlers: Produce (WRITE, transactional ids), Fetch (READ; CLUSTER_ACTION for followers),
ListOffsets and OffsetsForLeaderEpoch (DESCRIBE), DeleteRecords (DELETE) answer a refused topic's
partitions TOPIC_AUTHORIZATION_FAILED without touching them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from acl_fakes import ALICE, acl, authorizer, header
from broker_fakes import make_batch, with_quota_managers

from kafkette.broker.apis.auth_helper import CLUSTER_NAME
from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.delayed_produce import ProducePartitionStatus
from kafkette.broker.fetch_session import FetchManager, FetchSessionCache
from kafkette.broker.replica_manager import FetchPartitionResult
from kafkette.common.clock import MockTime
from kafkette.common.network.socket_server import CLOSE_CONNECTION
from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersRequestTopic
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
    OffsetsForLeaderEpochRequest,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.update_metadata import UpdateMetadataPartitionState
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.record_batch import build_kafka_batch
from kafkette.protocol.topic_partition import TopicPartition

DENIED = Errors.TOPIC_AUTHORIZATION_FAILED
WRITE_ORDERS = acl(AclOperation.WRITE, ResourceType.TOPIC, "orders")


async def _call(ctx: Any, key: ApiKey, version: int, request: Any, principal: str = ALICE) -> Any:
    return await KafkaApis(with_quota_managers(ctx)).handle(
        header(key, version, principal), API_REGISTRY[key], request
    )


def _produce_ctx(data: Any, appended: dict) -> Any:
    async def handle_produce_append(
        timeout_ms, required_acks, entries, transactional_id, operation, *, internal_topics_allowed
    ):
        appended.update(entries)
        return {
            tp: ProducePartitionStatus(required_offset=1, base_offset=0, pending=False, error=Errors.NONE)
            for tp in entries
        }

    return SimpleNamespace(
        authorizer=data,
        replica_manager=SimpleNamespace(handle_produce_append=handle_produce_append),
        metadata_cache=SimpleNamespace(partition_state=lambda tp: object()),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
    )


def _produce_request(topics: list[str], records: bytes, acks: int = 1, transactional_id: str | None = None):
    return ProduceRequest(
        transactional_id=transactional_id,
        acks=acks,
        timeout_ms=1000,
        topic_data=[
            ProduceTopicData(name=t, partition_data=[ProducePartitionData(index=0, records=records)])
            for t in topics
        ],
    )


def _partition_errors(response: Any) -> dict[str, list[int]]:
    return {t.name: [p.error_code for p in t.partition_responses] for t in response.responses}


async def test_produce_needs_write_on_each_topic():
    appended: dict = {}
    response = await _call(
        _produce_ctx(authorizer(WRITE_ORDERS), appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders", "payments"], make_batch(1)),
    )
    assert _partition_errors(response) == {"orders": [Errors.NONE], "payments": [DENIED]}
    assert list(appended) == [TopicPartition("orders", 0)]  # nothing of the refused topic was appended
    (refused,) = [t for t in response.responses if t.name == "payments"]
    assert refused.partition_responses[0].base_offset == -1


async def test_produce_deny_beats_allow_and_super_users_write_anywhere():
    appended: dict = {}
    deny = acl(
        AclOperation.WRITE,
        ResourceType.TOPIC,
        "ord",
        pattern=PatternType.PREFIXED,
        permission=AclPermissionType.DENY,
    )
    response = await _call(
        _produce_ctx(authorizer(WRITE_ORDERS, deny), appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders"], make_batch(1)),
    )
    assert _partition_errors(response) == {"orders": [DENIED]}
    response = await _call(
        _produce_ctx(authorizer(deny, super_users=(ALICE,)), appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders"], make_batch(1)),
    )
    assert _partition_errors(response) == {"orders": [Errors.NONE]}


async def test_produce_with_acks_0_closes_the_connection_when_a_topic_is_refused():
    appended: dict = {}
    response = await _call(
        _produce_ctx(authorizer(WRITE_ORDERS), appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders", "payments"], make_batch(1), acks=0),
    )
    assert response is CLOSE_CONNECTION
    assert list(appended) == [TopicPartition("orders", 0)]


async def test_produce_of_transactional_batches_needs_write_on_the_transactional_id():
    batch = build_kafka_batch(
        [(None, b"v", None, 1_000)], producer_id=7, producer_epoch=0, base_sequence=0, transactional=True
    )
    appended: dict = {}
    response = await _call(
        _produce_ctx(authorizer(WRITE_ORDERS), appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders"], batch, transactional_id="tx-1"),
    )
    assert _partition_errors(response) == {"orders": [Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]}
    assert appended == {}
    allowed = authorizer(WRITE_ORDERS, acl(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, "tx-1"))
    response = await _call(
        _produce_ctx(allowed, appended),
        ApiKey.PRODUCE,
        9,
        _produce_request(["orders"], batch, transactional_id="tx-1"),
    )
    assert _partition_errors(response) == {"orders": [Errors.NONE]}


class _FetchReplicaManager:
    def __init__(self) -> None:
        self.time = MockTime()
        self.reads: list[list[TopicPartition]] = []

    def get_partition(self, tp: TopicPartition) -> Any:
        return None

    async def fetch_messages(self, fetch_infos: dict[TopicPartition, Any], **kwargs: Any) -> dict:
        self.reads.append(list(fetch_infos))
        return {tp: FetchPartitionResult(Errors.NONE, 3, 0, b"x") for tp in fetch_infos}


def _fetch_ctx(data: Any) -> Any:
    return SimpleNamespace(
        authorizer=data,
        replica_manager=_FetchReplicaManager(),
        metadata_cache=SimpleNamespace(
            topic_ids_to_names=lambda: {},
            partition_state=lambda tp: UpdateMetadataPartitionState(
                topic_name=tp.topic, partition_index=tp.partition, leader=1, leader_epoch=1
            ),
        ),
        fetch_manager=FetchManager(FetchSessionCache(10)),
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
    )


def _fetch_request(topics: list[str], replica_id: int = -1) -> FetchRequest:
    return FetchRequest(
        replica_id=replica_id,
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchTopic(
                topic=t, partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=100)]
            )
            for t in topics
        ],
        forgotten_topics_data=[],
        rack_id="",
    )


def _fetch_errors(response: Any) -> dict[str, list[int]]:
    return {t.topic: [p.error_code for p in t.partitions] for t in response.responses}


async def test_a_consumer_fetch_needs_read_on_each_topic_and_reads_nothing_else():
    ctx = _fetch_ctx(authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "orders")))
    response = await _call(ctx, ApiKey.FETCH, 11, _fetch_request(["orders", "payments"]))
    assert _fetch_errors(response) == {"orders": [Errors.NONE], "payments": [DENIED]}
    assert ctx.replica_manager.reads == [[TopicPartition("orders", 0)]]
    (refused,) = [t for t in response.responses if t.topic == "payments"]
    assert not refused.partitions[0].records  # no data of a topic it may not read


async def test_a_follower_fetch_needs_cluster_action_else_every_partition_is_refused():
    read_all = acl(AclOperation.READ, ResourceType.TOPIC, "*", principal="User:broker")
    ctx = _fetch_ctx(authorizer(read_all))
    response = await _call(
        ctx, ApiKey.FETCH, 11, _fetch_request(["orders", "payments"], replica_id=2), "User:broker"
    )
    assert _fetch_errors(response) == {"orders": [DENIED], "payments": [DENIED]}
    assert ctx.replica_manager.reads == []
    ctx = _fetch_ctx(
        authorizer(
            acl(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, principal="User:broker")
        )
    )
    response = await _call(
        ctx, ApiKey.FETCH, 11, _fetch_request(["orders", "payments"], replica_id=2), "User:broker"
    )
    assert _fetch_errors(response) == {"orders": [Errors.NONE], "payments": [Errors.NONE]}


async def test_a_voter_fetch_of_the_metadata_log_needs_cluster_action():
    with pytest.raises(error_class(Errors.CLUSTER_AUTHORIZATION_FAILED)):
        await _call(
            _fetch_ctx(authorizer()), ApiKey.FETCH, 11, _fetch_request(["__cluster_metadata"], replica_id=2)
        )


async def test_list_offsets_needs_describe_on_each_topic():
    looked_up: list[TopicPartition] = []

    def get_partition_or_error(tp):
        looked_up.append(tp)
        raise error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION)()

    ctx = SimpleNamespace(
        authorizer=authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "orders")),  # READ implies DESCRIBE
        replica_manager=SimpleNamespace(get_partition_or_error=get_partition_or_error),
    )
    request = ListOffsetsRequest(
        replica_id=-1,
        topics=[
            ListOffsetsTopic(name=t, partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)])
            for t in ("orders", "payments")
        ],
    )
    response = await _call(ctx, ApiKey.LIST_OFFSETS, 7, request)
    answers = {t.name: [(p.error_code, p.offset) for p in t.partitions] for t in response.topics}
    assert answers == {"orders": [(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)], "payments": [(DENIED, -1)]}
    assert looked_up == [TopicPartition("orders", 0)]


async def test_offsets_for_leader_epoch_with_cluster_action_skips_the_topic_checks():
    seen: list[str] = []

    def get_partition_or_error(tp):
        seen.append(tp.topic)
        raise error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION)()

    request = OffsetsForLeaderEpochRequest(
        replica_id=-1,
        topics=[
            OffsetForLeaderTopic(name=t, partitions=[OffsetForLeaderPartition(partition=0, leader_epoch=1)])
            for t in ("orders", "payments")
        ],
    )
    rm = SimpleNamespace(get_partition_or_error=get_partition_or_error, get_partition=lambda tp: None)
    consumer = SimpleNamespace(
        authorizer=authorizer(acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders")), replica_manager=rm
    )
    response = await _call(consumer, ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, request)
    errors = {t.name: [p.error_code for p in t.partitions] for t in response.topics}
    assert errors["payments"] == [DENIED] and errors["orders"] != [DENIED]
    follower = SimpleNamespace(
        authorizer=authorizer(acl(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME)),
        replica_manager=rm,
    )
    response = await _call(follower, ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, request)
    assert DENIED not in [p.error_code for t in response.topics for p in t.partitions]


async def test_delete_records_needs_delete_on_each_topic():
    deleted: dict = {}

    async def delete_records(timeout_ms, offsets):
        deleted.update(offsets)
        return {tp: SimpleNamespace(error=Errors.NONE, low_watermark=5, pending=False) for tp in offsets}

    ctx = SimpleNamespace(
        authorizer=authorizer(acl(AclOperation.DELETE, ResourceType.TOPIC, "orders")),
        metadata_cache=SimpleNamespace(partition_state=lambda tp: object()),
        replica_manager=SimpleNamespace(delete_records=delete_records),
    )
    request = DeleteRecordsRequest(
        timeout_ms=1000,
        topics=[
            DeleteRecordsTopic(name=t, partitions=[DeleteRecordsPartition(partition_index=0, offset=5)])
            for t in ("orders", "payments")
        ],
    )
    response = await _call(ctx, ApiKey.DELETE_RECORDS, 2, request)
    answers = {t.name: [(p.error_code, p.low_watermark) for p in t.partitions] for t in response.topics}
    assert answers["payments"] == [(DENIED, -1)]
    assert list(deleted) == [TopicPartition("orders", 0)]


async def test_describe_producers_needs_read_on_each_topic():
    ctx = SimpleNamespace(
        authorizer=authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "orders")),
        metadata_cache=SimpleNamespace(contains_topic=lambda name: False),
        replica_manager=SimpleNamespace(get_partition=lambda tp: None),
    )
    request = DescribeProducersRequest(
        topics=[DescribeProducersRequestTopic(name=t, partition_indexes=[0]) for t in ("orders", "secret")]
    )
    response = await _call(ctx, ApiKey.DESCRIBE_PRODUCERS, 0, request)
    errors = {t.name: [p.error_code for p in t.partitions] for t in response.topics}
    assert errors == {"orders": [Errors.UNKNOWN_TOPIC_OR_PARTITION], "secret": [DENIED]}
    (secret,) = [t for t in response.topics if t.name == "secret"]
    assert secret.partitions[0].error_message == "Topic authorization failed.", "new ApiError(error)"
