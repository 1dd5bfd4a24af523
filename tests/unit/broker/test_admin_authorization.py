"""Topic and config administration with an authorizer, through ``KafkaApis.handle`` and the real
handlers over a fake active controller recording what it is asked: CreateTopics (CREATE,
DESCRIBE_CONFIGS), DeleteTopics (DELETE, DESCRIBE to reveal a name), CreatePartitions (ALTER),
DescribeConfigs / IncrementalAlterConfigs (per resource, cluster for BROKER resources)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from acl_fakes import acl, authorizer, header
from broker_fakes import with_quota_managers

from kafkette.broker.apis.auth_helper import CLUSTER_NAME
from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    AlterableConfig,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopic,
    CreatePartitionsTopicResult,
)
from kafkette.protocol.apis.create_topics import (
    CreatableTopic,
    CreatableTopicConfigs,
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DeleteTopicState,
)
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.kafka_schema import ZERO_UUID

DENIED = Errors.TOPIC_AUTHORIZATION_FAILED
IDS = {"orders": b"\1" * 16, "payments": b"\2" * 16, "secret": b"\3" * 16}


class FakeController:
    """The active controller: answers every item asked, recording the names."""

    is_active = True

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def create_topics(self, request):
        self.asked.append([t.name for t in request.topics])
        return CreateTopicsResponse(
            topics=[
                CreatableTopicResult(
                    name=t.name,
                    topic_id=IDS.get(t.name, ZERO_UUID),
                    num_partitions=1,
                    replication_factor=1,
                    configs=[CreatableTopicConfigs(name="cleanup.policy", value="delete")],
                )
                for t in request.topics
            ]
        )

    async def delete_topics(self, request):
        self.asked.append([t.name or t.topic_id for t in request.topics])
        return DeleteTopicsResponse(
            responses=[DeletableTopicResult(name=t.name, topic_id=t.topic_id) for t in request.topics]
        )

    async def create_partitions(self, request):
        self.asked.append([t.name for t in request.topics])
        return CreatePartitionsResponse(
            results=[CreatePartitionsTopicResult(name=t.name) for t in request.topics]
        )

    async def describe_configs(self, request):
        self.asked.append([r.resource_name for r in request.resources])
        return DescribeConfigsResponse(
            results=[
                DescribeConfigsResult(
                    resource_type=r.resource_type, resource_name=r.resource_name, configs=[]
                )
                for r in request.resources
            ]
        )

    async def incremental_alter_configs(self, request):
        self.asked.append([r.resource_name for r in request.resources])
        return IncrementalAlterConfigsResponse(
            responses=[
                AlterConfigsResourceResponse(resource_type=r.resource_type, resource_name=r.resource_name)
                for r in request.resources
            ]
        )


def _ctx(data: Any) -> Any:
    controller = FakeController()
    return SimpleNamespace(
        authorizer=data,
        controller=SimpleNamespace(is_active=True, controller=controller),
        fake=controller,
        controller_channel=None,
        config=SimpleNamespace(request_timeout_ms=30000, node_id=1),
        metadata_cache=SimpleNamespace(
            topic_name=lambda topic_id: {v: k for k, v in IDS.items()}.get(topic_id)
        ),
    )


async def _call(ctx: Any, key: ApiKey, version: int, request: Any) -> Any:
    return await KafkaApis(with_quota_managers(ctx)).handle(header(key, version), API_REGISTRY[key], request)


def _create(names: list[str]) -> CreateTopicsRequest:
    return CreateTopicsRequest(
        topics=[CreatableTopic(name=n, num_partitions=1, replication_factor=1) for n in names],
        timeout_ms=30000,
    )


async def test_create_topics_needs_create_on_the_topic_or_the_cluster():
    ctx = _ctx(authorizer(acl(AclOperation.CREATE, ResourceType.TOPIC, "orders")))
    response = await _call(ctx, ApiKey.CREATE_TOPICS, 7, _create(["orders", "secret"]))
    assert ctx.fake.asked == [["orders"]]
    answers = {t.name: (t.error_code, t.error_message) for t in response.topics}
    assert answers == {"orders": (0, ""), "secret": (DENIED, "Authorization failed.")}
    ctx = _ctx(authorizer(acl(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME)))
    await _call(ctx, ApiKey.CREATE_TOPICS, 7, _create(["orders", "secret"]))
    assert ctx.fake.asked == [["orders", "secret"]]


async def test_create_topics_answers_configs_only_with_describe_configs():
    ctx = _ctx(authorizer(acl(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME)))
    (created,) = (await _call(ctx, ApiKey.CREATE_TOPICS, 7, _create(["orders"]))).topics
    assert (created.configs, created.topic_config_error_code) == ([], DENIED)
    assert (created.num_partitions, created.replication_factor) == (-1, -1), (
        "ReplicationControlManager sets them with the configs only"
    )
    ctx = _ctx(
        authorizer(
            acl(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME),
            acl(AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, "orders"),  # implies DESCRIBE_CONFIGS
        )
    )
    (created,) = (await _call(ctx, ApiKey.CREATE_TOPICS, 7, _create(["orders"]))).topics
    assert ([c.name for c in created.configs], created.topic_config_error_code) == (["cleanup.policy"], 0)


async def test_delete_topics_needs_delete_and_reveals_a_name_only_to_describe():
    ctx = _ctx(
        authorizer(
            acl(AclOperation.DELETE, ResourceType.TOPIC, "orders"),
            acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "payments"),
        )
    )
    request = DeleteTopicsRequest(
        topics=[
            DeleteTopicState(name="orders", topic_id=ZERO_UUID),
            DeleteTopicState(name=None, topic_id=IDS["payments"]),
            DeleteTopicState(name=None, topic_id=IDS["secret"]),
            DeleteTopicState(name="secret", topic_id=ZERO_UUID),
        ],
        timeout_ms=30000,
    )
    response = await _call(ctx, ApiKey.DELETE_TOPICS, 6, request)
    assert ctx.fake.asked == [["orders"]]
    assert [(r.name, r.topic_id, r.error_code) for r in response.responses] == [
        ("payments", IDS["payments"], DENIED),
        (None, IDS["secret"], DENIED),  # may not describe it: its name is not revealed
        ("secret", ZERO_UUID, DENIED),
        ("orders", ZERO_UUID, 0),
    ]
    refused = default_message(Errors.TOPIC_AUTHORIZATION_FAILED)
    assert [r.error_message for r in response.responses[:3]] == [refused] * 3, "new ApiError(error)"


async def test_create_partitions_needs_alter_on_each_topic():
    ctx = _ctx(authorizer(acl(AclOperation.ALTER, ResourceType.TOPIC, "orders")))
    request = CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name=n, count=3) for n in ("orders", "secret")], timeout_ms=30000
    )
    response = await _call(ctx, ApiKey.CREATE_PARTITIONS, 3, request)
    assert ctx.fake.asked == [["orders"]]
    assert [(r.name, r.error_code) for r in response.results] == [("secret", DENIED), ("orders", 0)]


async def test_describe_configs_per_resource_broker_resources_on_the_cluster():
    ctx = _ctx(authorizer(acl(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "orders")))
    request = DescribeConfigsRequest(
        resources=[
            DescribeConfigsResource(resource_type=RESOURCE_TOPIC, resource_name="orders"),
            DescribeConfigsResource(resource_type=RESOURCE_TOPIC, resource_name="secret"),
            DescribeConfigsResource(resource_type=RESOURCE_BROKER, resource_name="1"),
        ]
    )
    response = await _call(ctx, ApiKey.DESCRIBE_CONFIGS, 4, request)
    assert ctx.fake.asked == [["orders"]]
    assert [(r.resource_name, r.error_code, r.error_message) for r in response.results] == [
        ("orders", 0, ""),
        ("secret", DENIED, default_message(DENIED)),
        ("1", Errors.CLUSTER_AUTHORIZATION_FAILED, default_message(Errors.CLUSTER_AUTHORIZATION_FAILED)),
    ]


async def test_incremental_alter_configs_needs_alter_configs():
    ctx = _ctx(
        authorizer(
            acl(AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, "orders"),
            acl(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "secret"),  # does not give ALTER_CONFIGS
        )
    )
    request = IncrementalAlterConfigsRequest(
        resources=[
            AlterConfigsResource(
                resource_type=RESOURCE_TOPIC,
                resource_name=n,
                configs=[AlterableConfig(name="retention.ms", config_operation=0, value="1000")],
            )
            for n in ("secret", "orders")
        ]
    )
    response = await _call(ctx, ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, request)
    assert ctx.fake.asked == [["orders"]]
    # in the request's order, as Kafka reassembles the answer
    assert [(r.resource_name, r.error_code) for r in response.responses] == [
        ("secret", DENIED),
        ("orders", 0),
    ]
