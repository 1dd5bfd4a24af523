"""Group APIs with an authorizer, through ``KafkaApis.handle`` and the real handlers over a fake
group coordinator that records what it is asked: READ / DESCRIBE / DELETE on groups and the topic
checks of OffsetCommit, OffsetFetch and OffsetDelete, with Kafka's error placement."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from acl_fakes import acl, authorizer, header
from broker_fakes import with_quota_managers

from kafkette.broker.apis.auth_helper import CLUSTER_NAME
from kafkette.broker.apis.consumer_group_heartbeat import consumer_protocol_enabled
from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.common.security.acl import AclOperation, PatternType, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, KAFKA_APIS, ApiKey
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeAssignment,
    ConsumerGroupDescribeGroup,
    ConsumerGroupDescribeMember,
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupDescribeTopicPartitions,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.group_admin import (
    AUTHORIZED_OPERATIONS_NOT_ASKED,
    DeletableGroupResult,
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DescribedGroup,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    ListedGroup,
    ListGroupsRequest,
    ListGroupsResponse,
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
    OffsetDeleteResponse,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
)
from kafkette.protocol.apis.group_membership import HeartbeatRequest, JoinGroupRequest
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponseTopics,
)
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.kafka_codec import KafkaReply

GROUP_DENIED = Errors.GROUP_AUTHORIZATION_FAILED
TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED


class FakeCoordinator:
    """Answers every group asked, recording the requests."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def handle_describe_groups(self, request, version):
        self.asked.append(list(request.groups))
        return DescribeGroupsResponse(
            groups=[
                DescribedGroup(
                    error_code=0, group_id=g, group_state="Stable", protocol_type="consumer", members=[]
                )
                for g in request.groups
            ]
        )

    def handle_list_groups(self, request):
        return ListGroupsResponse(
            groups=[ListedGroup(group_id=g, protocol_type="consumer") for g in ("app-1", "app-2", "other")]
        )

    async def handle_delete_groups(self, request):
        self.asked.append(list(request.groups_names))
        return DeleteGroupsResponse(results=[DeletableGroupResult(group_id=g) for g in request.groups_names])

    def handle_fetch_offsets(self, group, require_stable=False):
        self.asked.append(group.group_id)
        topics = (
            group.topics
            if group.topics is not None
            else [SimpleNamespace(name=t, partition_indexes=[0]) for t in ("orders", "secret")]
        )
        return OffsetFetchResponseGroup(
            group_id=group.group_id,
            topics=[
                OffsetFetchResponseTopics(
                    name=t.name,
                    partitions=[
                        OffsetFetchResponsePartition(partition_index=p, committed_offset=42)
                        for p in t.partition_indexes
                    ],
                )
                for t in topics
            ],
        )


def _ctx(data: Any, coordinator: Any = None) -> Any:
    cache = SimpleNamespace(
        topic_id=lambda name: b"\1" * 16,
        partition_state=lambda tp: object(),
        num_partitions=lambda topic: None,  # no __consumer_offsets yet: COORDINATOR_NOT_AVAILABLE
    )
    return SimpleNamespace(
        authorizer=data, group_coordinator=coordinator, metadata_cache=cache, auto_topic_creation_manager=None
    )


async def _call(ctx: Any, key: ApiKey, version: int, request: Any) -> Any:
    return await KafkaApis(with_quota_managers(ctx)).handle(header(key, version), API_REGISTRY[key], request)


READ_APP = acl(AclOperation.READ, ResourceType.GROUP, "app", pattern=PatternType.PREFIXED)


async def test_join_and_heartbeat_need_read_on_the_group_the_whole_request_refused():
    join = JoinGroupRequest(
        group_id="other", session_timeout_ms=10000, member_id="", protocol_type="consumer", protocols=[]
    )
    with pytest.raises(error_class(GROUP_DENIED)):
        await _call(_ctx(authorizer(READ_APP)), ApiKey.JOIN_GROUP, 9, join)
    join.group_id = "app-1"
    response = await _call(_ctx(authorizer(READ_APP)), ApiKey.JOIN_GROUP, 9, join)
    assert response.error_code == Errors.NOT_COORDINATOR  # let through: no coordinator here
    describe_only = authorizer(acl(AclOperation.DESCRIBE, ResourceType.GROUP, "app-1"))
    with pytest.raises(error_class(GROUP_DENIED)):  # DESCRIBE does not give READ
        await _call(
            _ctx(describe_only), ApiKey.HEARTBEAT, 4, HeartbeatRequest(group_id="app-1", member_id="m")
        )
    # the Kafka listener answers the raised error as Kafka's getErrorResponse
    reply = KafkaReply(1, KAFKA_APIS[ApiKey.JOIN_GROUP], 9, join)
    assert reply.error_response(GROUP_DENIED).error_code == GROUP_DENIED


async def test_find_coordinator_refuses_each_key_the_principal_may_not_describe_in_order():
    request = FindCoordinatorRequest(key_type=0, coordinator_keys=["other", "app-1"])
    response = await _call(_ctx(authorizer(READ_APP)), ApiKey.FIND_COORDINATOR, 4, request)
    assert [(c.key, c.error_code, c.node_id) for c in response.coordinators][0] == ("other", GROUP_DENIED, -1)
    assert (response.coordinators[1].key, response.coordinators[1].error_code) == (
        "app-1",
        Errors.COORDINATOR_NOT_AVAILABLE,
    )
    txn = FindCoordinatorRequest(key_type=1, coordinator_keys=["tx"])
    response = await _call(_ctx(authorizer(READ_APP)), ApiKey.FIND_COORDINATOR, 4, txn)
    assert response.coordinators[0].error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


async def test_describe_groups_refuses_each_group_and_answers_its_authorized_operations():
    coordinator = FakeCoordinator()
    request = DescribeGroupsRequest(groups=["app-1", "other"], include_authorized_operations=True)
    response = await _call(_ctx(authorizer(READ_APP), coordinator), ApiKey.DESCRIBE_GROUPS, 5, request)
    assert coordinator.asked == [["app-1"]]
    assert [(g.group_id, g.error_code) for g in response.groups] == [("other", GROUP_DENIED), ("app-1", 0)]
    assert response.groups[1].authorized_operations == (1 << AclOperation.READ) | (1 << AclOperation.DESCRIBE)
    assert response.groups[0].authorized_operations == AUTHORIZED_OPERATIONS_NOT_ASKED
    assert (response.groups[0].group_state, response.groups[0].members) == ("", [])


async def test_list_groups_lists_every_group_with_describe_on_the_cluster_else_the_describable_ones():
    response = await _call(
        _ctx(authorizer(READ_APP), FakeCoordinator()), ApiKey.LIST_GROUPS, 4, ListGroupsRequest()
    )
    assert [g.group_id for g in response.groups] == ["app-1", "app-2"]
    cluster = authorizer(acl(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME))
    response = await _call(_ctx(cluster, FakeCoordinator()), ApiKey.LIST_GROUPS, 4, ListGroupsRequest())
    assert [g.group_id for g in response.groups] == ["app-1", "app-2", "other"]


async def test_delete_groups_needs_delete_on_each_group():
    coordinator = FakeCoordinator()
    data = authorizer(acl(AclOperation.DELETE, ResourceType.GROUP, "app-1"))
    response = await _call(
        _ctx(data, coordinator), ApiKey.DELETE_GROUPS, 2, DeleteGroupsRequest(groups_names=["app-1", "app-2"])
    )
    assert coordinator.asked == [["app-1"]]
    assert sorted((r.group_id, r.error_code) for r in response.results) == [
        ("app-1", 0),
        ("app-2", GROUP_DENIED),
    ]


async def test_offset_commit_needs_read_on_the_group_and_on_each_topic():
    request = OffsetCommitRequest(
        group_id="app-1",
        generation_id=1,
        member_id="m",
        topics=[
            OffsetCommitRequestTopic(
                name=t, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=5)]
            )
            for t in ("orders", "secret")
        ],
    )
    with pytest.raises(error_class(GROUP_DENIED)):
        await _call(
            _ctx(authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "orders"))),
            ApiKey.OFFSET_COMMIT,
            8,
            request,
        )
    data = authorizer(READ_APP, acl(AclOperation.READ, ResourceType.TOPIC, "orders"))
    response = await _call(_ctx(data), ApiKey.OFFSET_COMMIT, 8, request)  # no coordinator: NOT_COORDINATOR
    errors = {t.name: [p.error_code for p in t.partitions] for t in response.topics}
    assert errors == {"orders": [Errors.NOT_COORDINATOR], "secret": [TOPIC_DENIED]}


async def test_offset_fetch_refuses_a_group_and_hides_or_refuses_topics():
    coordinator = FakeCoordinator()
    data = authorizer(
        acl(AclOperation.DESCRIBE, ResourceType.GROUP, "app-1"),
        acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"),
    )
    request = OffsetFetchRequest(
        groups=[
            OffsetFetchRequestGroup(group_id="app-1", topics=None),
            OffsetFetchRequestGroup(
                group_id="app-1",
                topics=[
                    OffsetFetchRequestTopics(name=t, partition_indexes=[0]) for t in ("orders", "secret")
                ],
            ),
            OffsetFetchRequestGroup(group_id="other", topics=None),
        ]
    )
    response = await _call(_ctx(data, coordinator), ApiKey.OFFSET_FETCH, 9, request)
    all_topics, named, other = response.groups
    assert [(t.name, [p.committed_offset for p in t.partitions]) for t in all_topics.topics] == [
        ("orders", [42])
    ]
    assert [(t.name, [(p.error_code, p.committed_offset) for p in t.partitions]) for t in named.topics] == [
        ("orders", [(0, 42)]),
        ("secret", [(TOPIC_DENIED, -1)]),
    ]
    assert (other.group_id, other.error_code) == ("other", GROUP_DENIED)
    assert coordinator.asked == ["app-1", "app-1"]  # the refused group was not asked


async def test_offset_delete_needs_delete_on_the_group_and_read_on_each_topic():
    request = OffsetDeleteRequest(
        group_id="app-1",
        topics=[
            OffsetDeleteRequestTopic(name=t, partitions=[OffsetDeleteRequestPartition(partition_index=0)])
            for t in ("orders", "secret")
        ],
    )
    with pytest.raises(error_class(GROUP_DENIED)):  # READ on the group does not give DELETE
        await _call(_ctx(authorizer(READ_APP)), ApiKey.OFFSET_DELETE, 0, request)
    coordinator = SimpleNamespace(handle_offset_delete=_offset_delete)
    data = authorizer(
        acl(AclOperation.DELETE, ResourceType.GROUP, "app-1"),
        acl(AclOperation.READ, ResourceType.TOPIC, "orders"),
    )
    response = await _call(_ctx(data, coordinator), ApiKey.OFFSET_DELETE, 0, request)
    assert {t.name: [p.error_code for p in t.partitions] for t in response.topics} == {
        "orders": [0],
        "secret": [TOPIC_DENIED],
    }


async def _offset_delete(request):
    assert [t.name for t in request.topics] == ["orders"]  # the refused topic is not handed on
    return OffsetDeleteResponse(
        topics=[
            OffsetDeleteResponseTopic(
                name=t.name, partitions=[OffsetDeleteResponsePartition(partition_index=0, error_code=0)]
            )
            for t in request.topics
        ]
    )


async def test_consumer_group_heartbeat_needs_read_on_the_group_and_describe_on_every_subscribed_topic():
    heartbeats: list = []

    checks: list = []

    async def heartbeat(request, version, client_id, client_host, may_describe=None):
        heartbeats.append(request.group_id)
        checks.append(may_describe)
        return ConsumerGroupHeartbeatResponse(error_code=0, member_id="m", member_epoch=1)

    def ctx(data):
        out = _ctx(data, SimpleNamespace(consumer_groups=SimpleNamespace(heartbeat=heartbeat)))
        out.config = SimpleNamespace(group_coordinator_rebalance_protocols=["classic", "consumer"])
        return out

    request = ConsumerGroupHeartbeatRequest(
        group_id="app-1", member_id="m", member_epoch=0, subscribed_topic_names=["orders", "secret"]
    )
    version = API_REGISTRY[ApiKey.CONSUMER_GROUP_HEARTBEAT].max_version
    if not consumer_protocol_enabled(ctx(None).config):
        pytest.fail("the consumer group protocol must be on for this test")
    with pytest.raises(error_class(GROUP_DENIED)):
        await _call(
            ctx(authorizer(acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "*"))),
            ApiKey.CONSUMER_GROUP_HEARTBEAT,
            version,
            request,
        )
    response = await _call(
        ctx(authorizer(READ_APP, acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"))),
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        version,
        request,
    )
    assert response.error_code == TOPIC_DENIED and heartbeats == []
    response = await _call(
        ctx(authorizer(READ_APP, acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "*"))),
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        version,
        request,
    )
    assert (response.error_code, heartbeats) == (0, ["app-1"])
    regex = ConsumerGroupHeartbeatRequest(
        group_id="app-1", member_id="m", member_epoch=0, subscribed_topic_regex="o.*"
    )
    await _call(
        ctx(authorizer(READ_APP, acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"))),
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        version,
        regex,
    )
    may_describe = checks[-1]  # the regex resolves to the topics this member may describe
    assert may_describe("orders", 1) and not may_describe("others", 1)


async def test_consumer_group_describe_refuses_groups_and_groups_assigned_topics_it_may_not_describe():
    def describe(request, version):
        return ConsumerGroupDescribeResponse(
            groups=[
                ConsumerGroupDescribeGroup(
                    group_id=g,
                    group_state="Stable",
                    members=[
                        ConsumerGroupDescribeMember(
                            member_id="m",
                            assignment=ConsumerGroupDescribeAssignment(
                                topic_partitions=[
                                    ConsumerGroupDescribeTopicPartitions(
                                        topic_name="orders" if g == "app-1" else "secret", partitions=[0]
                                    )
                                ]
                            ),
                            target_assignment=ConsumerGroupDescribeAssignment(topic_partitions=[]),
                        )
                    ],
                )
                for g in request.group_ids
            ]
        )

    ctx = _ctx(
        authorizer(READ_APP, acl(AclOperation.DESCRIBE, ResourceType.TOPIC, "orders")),
        SimpleNamespace(consumer_groups=SimpleNamespace(describe=describe)),
    )
    ctx.config = SimpleNamespace(group_coordinator_rebalance_protocols=["classic", "consumer"])
    request = ConsumerGroupDescribeRequest(
        group_ids=["app-1", "app-2", "other"], include_authorized_operations=True
    )
    response = await _call(ctx, ApiKey.CONSUMER_GROUP_DESCRIBE, 0, request)
    assert [(g.group_id, g.error_code, len(g.members)) for g in response.groups] == [
        ("other", GROUP_DENIED, 0),
        ("app-1", 0, 1),
        ("app-2", TOPIC_DENIED, 0),  # its member is assigned "secret"
    ]
    assert response.groups[1].authorized_operations == (1 << AclOperation.READ) | (1 << AclOperation.DESCRIBE)
    assert response.groups[2].error_message == (
        "The group has described topic(s) that the client is not authorized to describe."
    )
