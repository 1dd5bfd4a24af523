"""The group APIs classic and KIP-848 consumer groups share, on one coordinator: ListGroups v5's types,
DescribeGroups of a consumer group, ConsumerGroupDescribe of a classic one, OffsetCommit's member epoch
checks, DeleteGroups of a group with members, and a group id changing kind once its group is empty
(JoinGroup to an empty consumer group, a consumer join to an empty classic group)."""

from __future__ import annotations

import pytest
from test_group_coordinator import (
    TOPIC,
    InMemoryGroupMetadataManager,
    OneTopicMetadataCache,
    commit,
    join_request,
)

from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupHeartbeatRequest,
)
from kafkette.protocol.apis.group_admin import DeleteGroupsRequest, DescribeGroupsRequest, ListGroupsRequest
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from kafkette.protocol.errors import Errors


@pytest.fixture
async def coordinator():
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=MockTime()),
    )
    yield coordinator
    await coordinator.stop()


async def _join(coordinator, group_id: str, member_id: str = "m1"):
    request = ConsumerGroupHeartbeatRequest(
        group_id=group_id,
        member_id=member_id,
        member_epoch=0,
        rebalance_timeout_ms=30000,
        subscribed_topic_names=[TOPIC],
        topic_partitions=[],
    )
    return await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")


async def _leave(coordinator, group_id: str, member_id: str = "m1"):
    request = ConsumerGroupHeartbeatRequest(group_id=group_id, member_id=member_id, member_epoch=-1)
    return await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")


def _listed(coordinator, types: list[str]) -> list[tuple[str, str, str, str]]:
    answer = coordinator.handle_list_groups(ListGroupsRequest(states_filter=[], types_filter=types))
    return sorted((g.group_id, g.group_type, g.protocol_type, g.group_state) for g in answer.groups)


async def test_list_groups_v5_names_each_groups_type_and_filters_by_type_as_kafka(coordinator):
    assert await commit(coordinator, "simple", {0: 5}) == [Errors.NONE]
    assert (await _join(coordinator, "modern")).error_code == Errors.NONE
    both = [("modern", "consumer", "consumer", "Stable"), ("simple", "classic", "", "Empty")]
    assert _listed(coordinator, []) == both
    assert _listed(coordinator, ["Consumer"]) == both[:1]
    assert _list_types(coordinator, ["classic"]) == ["simple"]
    assert _listed(coordinator, ["share", "no-such-type"]) == []


def _list_types(coordinator, types: list[str]) -> list[str]:
    return [group_id for group_id, *_ in _listed(coordinator, types)]


async def test_each_describe_api_refuses_the_other_kind_of_group(coordinator):
    await commit(coordinator, "simple", {0: 5})
    await _join(coordinator, "modern")
    (v6,) = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["modern"]), 6).groups
    assert (v6.error_code, v6.error_message, v6.group_state) == (
        Errors.GROUP_ID_NOT_FOUND,
        "Group modern is not a classic group.",
        "Dead",
    )
    (v5,) = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["modern"]), 5).groups
    assert (v5.error_code, v5.group_state) == (Errors.NONE, "Dead")
    (simple,) = coordinator.consumer_groups.describe(
        ConsumerGroupDescribeRequest(group_ids=["simple"]), 1
    ).groups
    assert (simple.error_code, simple.error_message) == (
        Errors.GROUP_ID_NOT_FOUND,
        "Group simple is not a consumer group.",
    )


def _member_commit(member_id: str, epoch: int, partition: int) -> OffsetCommitRequest:
    return OffsetCommitRequest(
        group_id="modern",
        generation_id=epoch,
        member_id=member_id,
        topics=[
            OffsetCommitRequestTopic(
                name=TOPIC,
                partitions=[OffsetCommitRequestPartition(partition_index=partition, committed_offset=3)],
            )
        ],
    )


async def _commit_errors(coordinator, request: OffsetCommitRequest, version: int) -> list[int]:
    answer = await coordinator.handle_commit_offsets(request, version)
    return [p.error_code for t in answer.topics for p in t.partitions]


async def test_offset_commit_checks_a_consumer_group_members_epoch(coordinator):
    joined = await _join(coordinator, "modern")
    epoch = joined.member_epoch
    assert await _commit_errors(coordinator, _member_commit("m1", epoch, 0), 9) == [Errors.NONE]
    assert await _commit_errors(coordinator, _member_commit("m1", epoch + 1, 0), 9) == [
        Errors.STALE_MEMBER_EPOCH
    ]
    assert await _commit_errors(coordinator, _member_commit("m1", epoch, 0), 8) == [
        Errors.UNSUPPORTED_VERSION
    ]
    assert await _commit_errors(coordinator, _member_commit("nobody", epoch, 0), 9) == [
        Errors.UNKNOWN_MEMBER_ID
    ]


async def test_a_group_with_members_is_not_deleted_and_an_empty_one_changes_kind(coordinator):
    await _join(coordinator, "modern")
    (result,) = (await coordinator.handle_delete_groups(DeleteGroupsRequest(groups_names=["modern"]))).results
    assert result.error_code == Errors.NON_EMPTY_GROUP
    mixed = await coordinator.handle_join_group(join_request("modern"), "c", "/127.0.0.1")
    assert mixed.error_code == Errors.MEMBER_ID_REQUIRED  # a classic member of the consumer group
    assert coordinator.consumer_groups.group("modern") is not None
    assert (await _leave(coordinator, "modern")).error_code == Errors.NONE
    accepted = await coordinator.handle_join_group(join_request("modern"), "c", "/127.0.0.1")
    assert accepted.error_code == Errors.MEMBER_ID_REQUIRED  # a classic group now: a new member gets its id
    assert coordinator.consumer_groups.group("modern") is None


async def test_a_consumer_member_replaces_an_empty_classic_group_and_converts_one_with_members(coordinator):
    await commit(coordinator, "simple", {0: 5})
    joined = await _join(coordinator, "simple")
    assert joined.error_code == Errors.NONE
    assert coordinator.consumer_groups.group("simple") is not None
    first = await coordinator.handle_join_group(join_request("busy"), "c", "/127.0.0.1")
    await coordinator.handle_join_group(join_request("busy", first.member_id), "c", "/127.0.0.1")
    converted = await _join(coordinator, "busy")  # KIP-848's online upgrade: the classic group converts
    assert converted.error_code == Errors.NONE
    assert coordinator.group("busy") is None
    assert set(coordinator.consumer_groups.group("busy").members) == {converted.member_id, first.member_id}
