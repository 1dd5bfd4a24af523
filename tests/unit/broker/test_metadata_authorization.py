"""Metadata (and DescribeCluster) with an authorizer, through ``KafkaApis.handle``, the real
handler and a real MetadataCache: DESCRIBE per topic, CREATE for auto-creation, the KIP-430
authorized operations, and the Kafka listener's translation keeping what the broker computed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from acl_fakes import ALICE, acl, authorizer, header
from broker_fakes import with_quota_managers

from kafkette.broker.apis.auth_helper import CLUSTER_NAME
from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestTopic,
)
from kafkette.protocol.apis.metadata import (
    NO_AUTHORIZED_OPERATIONS,
    MetadataRequest,
    MetadataRequestTopic,
    MetadataResponseTopic,
)
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataEndpoint,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataTopicConfigs,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_messages import cluster
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_translation import TRANSLATIONS
from kafkette.protocol.kafka_uuid import uuid_to_string

TOPICS = {"orders": bytes(range(1, 17)), "payments": bytes(range(2, 18)), "secret": bytes(range(3, 19))}
DENIED = Errors.TOPIC_AUTHORIZATION_FAILED


def _cache() -> MetadataCache:
    cache = MetadataCache(1, "cluster-1")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[
                UpdateMetadataPartitionState(
                    topic_name=name,
                    partition_index=0,
                    controller_epoch=1,
                    leader=1,
                    leader_epoch=1,
                    isr=[1],
                    replicas=[1],
                )
                for name in TOPICS
            ],
            live_brokers=[
                UpdateMetadataBroker(
                    id=1,
                    host="h",
                    port=9000,
                    endpoints=[UpdateMetadataEndpoint(listener="KAFKA", host="h", port=9092)],
                )
            ],
            topic_configs=[
                UpdateMetadataTopicConfigs(topic_name=name, topic_id=uuid_to_string(topic_id))
                for name, topic_id in TOPICS.items()
            ],
        )
    )
    return cache


class _AutoCreation:
    def __init__(self) -> None:
        self.created: list[str] = []

    def create_topics(self, names):
        self.created += names
        return [MetadataResponseTopic(error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION, name=n) for n in names]


def _ctx(data: Any) -> Any:
    return SimpleNamespace(
        authorizer=data,
        metadata_cache=_cache(),
        config=SimpleNamespace(auto_create_topics_enable=True),
        auto_topic_creation_manager=_AutoCreation(),
    )


async def _metadata(ctx: Any, topics: list[str] | None, version: int = 12, **fields: Any) -> Any:
    request = MetadataRequest(
        topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
        allow_auto_topic_creation=True,
        **fields,
    )
    return await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.METADATA, version), API_REGISTRY[ApiKey.METADATA], request
    )


def _topics(response: Any) -> list[tuple[str | None, int, int]]:
    return [(t.name, t.error_code, len(t.partitions)) for t in response.topics]


DESCRIBE_ORDERS = acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders")


async def test_a_named_topic_the_principal_may_not_describe_is_topic_authorization_failed():
    response = await _metadata(_ctx(authorizer(DESCRIBE_ORDERS)), ["orders", "secret"])
    assert _topics(response) == [("orders", Errors.NONE, 1), ("secret", DENIED, 0)]
    (secret,) = [t for t in response.topics if t.name == "secret"]
    assert secret.topic_id == ZERO_UUID  # the id of a topic it may not describe is not revealed


async def test_an_all_topics_request_hides_the_topics_the_principal_may_not_describe():
    prefixed = acl(AclOperation.READ, ResourceType.TOPIC, "pay", pattern=PatternType.PREFIXED)
    response = await _metadata(_ctx(authorizer(DESCRIBE_ORDERS, prefixed)), None)
    assert sorted(_topics(response)) == [("orders", Errors.NONE, 1), ("payments", Errors.NONE, 1)]


async def test_super_users_and_allow_everyone_if_no_acl_found_see_topics():
    response = await _metadata(_ctx(authorizer(super_users=(ALICE,))), None)
    assert sorted(t.name for t in response.topics) == ["orders", "payments", "secret"]
    deny_secret = acl(
        AclOperation.DESCRIBE,
        ResourceType.TOPIC,
        "secret",
        principal="User:*",
        permission=AclPermissionType.DENY,
    )
    response = await _metadata(_ctx(authorizer(deny_secret, allow_everyone_if_no_acl_found=True)), None)
    assert sorted(t.name for t in response.topics) == ["orders", "payments"]  # secret has an ACL: denied
    response = await _metadata(_ctx(authorizer(deny_secret)), None)
    assert response.topics == []  # without allow.everyone.if.no.acl.found no ACL means no access


async def test_auto_creation_needs_create_on_the_cluster_or_the_topic():
    describe_all = acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "*")
    ctx = _ctx(authorizer(describe_all))
    response = await _metadata(ctx, ["new-topic"])
    assert _topics(response) == [("new-topic", DENIED, 0)]
    assert ctx.auto_topic_creation_manager.created == []
    ctx = _ctx(authorizer(describe_all, acl(AclOperation.CREATE, ResourceType.TOPIC, "new-topic")))
    response = await _metadata(ctx, ["new-topic"])
    assert _topics(response) == [("new-topic", Errors.UNKNOWN_TOPIC_OR_PARTITION, 0)]
    assert ctx.auto_topic_creation_manager.created == ["new-topic"]
    ctx = _ctx(authorizer(describe_all, acl(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME)))
    await _metadata(ctx, ["new-topic"])
    assert ctx.auto_topic_creation_manager.created == ["new-topic"]


async def test_a_topic_asked_by_id_and_not_describable_is_refused_under_its_id():
    request = MetadataRequest(topics=[MetadataRequestTopic(topic_id=TOPICS["secret"], name=None)])
    response = await KafkaApis(with_quota_managers(_ctx(authorizer(DESCRIBE_ORDERS)))).handle(
        header(ApiKey.METADATA, 12), API_REGISTRY[ApiKey.METADATA], request
    )
    assert [(t.name, t.topic_id, t.error_code) for t in response.topics] == [(None, TOPICS["secret"], DENIED)]


async def test_topic_and_cluster_authorized_operations_are_the_principals():
    data = authorizer(
        acl(AclOperation.READ, ResourceType.TOPIC, "orders"),
        acl(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME),
    )
    response = await _metadata(
        _ctx(data),
        ["orders"],
        version=10,
        include_topic_authorized_operations=True,
        include_cluster_authorized_operations=True,
    )
    assert response.topics[0].topic_authorized_operations == (1 << AclOperation.READ) | (
        1 << AclOperation.DESCRIBE
    )
    assert response.cluster_authorized_operations == 1 << AclOperation.DESCRIBE
    kafka = TRANSLATIONS[ApiKey.METADATA].to_kafka(response, 10, SimpleNamespace(**_asked(True)))
    assert kafka.topics[0].topic_authorized_operations == 264  # kept, not every operation (3576)
    assert kafka.cluster_authorized_operations == 256
    no_cluster = await _metadata(
        _ctx(authorizer(DESCRIBE_ORDERS)), ["orders"], version=10, include_cluster_authorized_operations=True
    )
    assert no_cluster.cluster_authorized_operations == 0  # without DESCRIBE on the cluster, as Kafka
    not_asked = await _metadata(_ctx(data), ["orders"], version=10)
    assert not_asked.topics[0].topic_authorized_operations == NO_AUTHORIZED_OPERATIONS


def _asked(flag: bool) -> dict:
    return {"include_topic_authorized_operations": flag, "include_cluster_authorized_operations": flag}


async def test_describe_cluster_answers_the_cluster_operations_the_broker_computed():
    translation = TRANSLATIONS[ApiKey.DESCRIBE_CLUSTER]
    kafka_request = cluster.DescribeClusterRequest(include_cluster_authorized_operations=True)
    internal = translation.to_internal(kafka_request, 1)
    assert internal.include_cluster_authorized_operations is True
    ctx = _ctx(
        authorizer(acl(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME))
    )  # ALTER implies DESCRIBE
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.METADATA, 13), API_REGISTRY[ApiKey.METADATA], internal
    )
    answer = translation.to_kafka(response, 1, kafka_request)
    assert answer.cluster_authorized_operations == (1 << AclOperation.ALTER) | (1 << AclOperation.DESCRIBE)
    ctx = _ctx(authorizer())
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.METADATA, 13), API_REGISTRY[ApiKey.METADATA], internal
    )
    assert translation.to_kafka(response, 1, kafka_request).cluster_authorized_operations == 0
    ctx = _ctx(None)  # no authorizer: every cluster operation, as before
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.METADATA, 13), API_REGISTRY[ApiKey.METADATA], internal
    )
    assert translation.to_kafka(response, 1, kafka_request).cluster_authorized_operations == 8096


async def test_describe_topic_partitions_refuses_named_topics_and_hides_others_with_their_operations():
    ctx = _ctx(authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "payments")))
    spec = API_REGISTRY[ApiKey.DESCRIBE_TOPIC_PARTITIONS]
    named = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in ("orders", "payments")],
        response_partition_limit=100,
    )
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0), spec, named
    )
    assert [(t.name, t.error_code, len(t.partitions)) for t in response.topics] == [
        ("payments", Errors.NONE, 1),
        ("orders", DENIED, 0),  # after the described ones, as Kafka's handler adds them
    ]
    assert response.topics[0].topic_authorized_operations == (1 << AclOperation.READ) | (
        1 << AclOperation.DESCRIBE
    )
    every = DescribeTopicPartitionsRequest(topics=[], response_partition_limit=100)
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0), spec, every
    )
    assert [t.name for t in response.topics] == ["payments"]


async def test_describe_topic_partitions_pages_only_the_topics_the_principal_may_describe():
    """A page of one partition: a hidden topic neither takes the page's room nor is named by its
    ``next_cursor``; a named denied topic comes after the page (Kafka's handler)."""
    ctx = _ctx(authorizer(acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders")))
    ctx = with_quota_managers(ctx)
    spec = API_REGISTRY[ApiKey.DESCRIBE_TOPIC_PARTITIONS]
    every = DescribeTopicPartitionsRequest(topics=[], response_partition_limit=1)
    response = await KafkaApis(ctx).handle(header(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0), spec, every)
    assert [t.name for t in response.topics] == ["orders"]
    assert response.next_cursor is None  # "payments" and "secret" are not disclosed
    named = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in ("secret", "orders", "payments")],
        response_partition_limit=1,
    )
    response = await KafkaApis(ctx).handle(header(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0), spec, named)
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("orders", Errors.NONE),
        ("payments", DENIED),
        ("secret", DENIED),
    ]
    assert response.next_cursor is None
