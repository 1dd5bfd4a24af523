"""KIP-848's online upgrade (Kafka's ``convertToConsumerGroup`` and ``ConsumerGroup.fromClassicGroup``): a
member of the consumer protocol joining a non-empty classic group of the "consumer" protocol type turns it
into a consumer group: the classic group's tombstone, then every classic member as a consumer group member
at the generation (STABLE, its classic session timeout and protocols, its last SyncGroup assignment as its
assignment and target), in Kafka's record order; then the joiner's own records.  A classic member still
waiting in JoinGroup is told REBALANCE_IN_PROGRESS; an assignment with a custom assignor's user data is
refused with Kafka's message and leaves the classic group as it was.

The coordinator runs on a manual clock over the in-memory ``GroupMetadataManager`` of
``test_group_coordinator`` (every write acknowledged) and its one topic ``orders`` of two partitions.
"""

from __future__ import annotations

import asyncio

from test_group_coordinator import (
    TOPIC,
    TOPIC_ID,
    InMemoryGroupMetadataManager,
    OneTopicMetadataCache,
    join,
    join_request,
)

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_member import MemberState
from kafkette.broker.group.consumer_group_records import ClassicMemberMetadata, ClassicProtocol
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.coordinator_records import GroupMetadataKey, decode_key
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatRequest
from kafkette.protocol.apis.group_membership import SyncGroupRequest, SyncGroupRequestAssignment
from kafkette.protocol.consumer_protocol import (
    Assignment,
    Subscription,
    encode_assignment,
    encode_subscription,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

SUBSCRIPTION = encode_subscription(Subscription(topics=(TOPIC,)))


def _coordinator() -> GroupCoordinator:
    time = MockTime()
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=time),
        consumer_group_settings=ConsumerGroupSettings(new_assignors(["uniform", "range"])),
    )
    coordinator.time = time  # type: ignore[attr-defined]
    return coordinator


async def _stable_classic_group(coordinator: GroupCoordinator, user_data: bytes | None = None) -> list[str]:
    """Two classic members in a Stable group at generation 2, the leader given partition 0, the other 1.
    Their member ids."""
    first = await join(coordinator, join_request("g"))
    leader = await join(coordinator, join_request("g", first.member_id))
    assert (leader.error_code, leader.generation_id) == (Errors.NONE, 1)
    second = await join(coordinator, join_request("g"))
    # the second member joins: generation 2 once the leader rejoins too
    follower_join = asyncio.ensure_future(
        coordinator.handle_join_group(join_request("g", second.member_id), "client", "/127.0.0.1")
    )
    await asyncio.sleep(0)
    leader = await join(coordinator, join_request("g", leader.member_id))
    follower = await asyncio.wait_for(follower_join, 1)
    assert (leader.generation_id, follower.generation_id) == (2, 2)
    assignments = {
        leader.member_id: encode_assignment(Assignment((TopicPartition(TOPIC, 0),), user_data)),
        follower.member_id: encode_assignment(Assignment((TopicPartition(TOPIC, 1),), user_data)),
    }
    follower_sync = asyncio.ensure_future(coordinator.handle_sync_group(_sync(follower.member_id, {})))
    await asyncio.sleep(0)
    synced = await coordinator.handle_sync_group(_sync(leader.member_id, assignments))
    assert synced.error_code == Errors.NONE
    assert (await asyncio.wait_for(follower_sync, 1)).error_code == Errors.NONE
    assert coordinator._classic_group_state("g") == "Stable"
    return [leader.member_id, follower.member_id]


def _sync(member_id: str, assignments: dict[str, bytes]) -> SyncGroupRequest:
    return SyncGroupRequest(
        group_id="g",
        generation_id=2,
        member_id=member_id,
        assignments=[SyncGroupRequestAssignment(member_id=m, assignment=a) for m, a in assignments.items()],
    )


async def _consumer_join(coordinator: GroupCoordinator):
    request = ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="new-member",
        member_epoch=0,
        rebalance_timeout_ms=30000,
        subscribed_topic_names=[TOPIC],
        topic_partitions=[],
    )
    return await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")


async def test_a_consumer_member_joining_a_stable_classic_group_converts_it():
    coordinator = _coordinator()
    try:
        leader, follower = await _stable_classic_group(coordinator)
        written = coordinator.manager.records  # type: ignore[attr-defined]
        before = len(written)
        answer = await _consumer_join(coordinator)
        assert answer.error_code == Errors.NONE
        assert coordinator._classic_group_state("g") is None and coordinator.group("g") is None
        group = coordinator.consumer_groups.group("g")
        assert group is not None
        assert group.group_epoch == 3  # the generation, then the joiner's bump
        assert (answer.member_epoch, group.assignment_epoch) == (3, 3)  # a new target for the joiner
        for member_id, partition in ((leader, 0), (follower, 1)):
            member = group.members[member_id]
            assert (member.member_epoch, member.previous_member_epoch, member.state) == (
                2,
                2,
                MemberState.STABLE,
            )
            assert member.assigned_partitions == {TOPIC_ID: {partition: 2}}
            assert member.classic_member_metadata == ClassicMemberMetadata(
                10_000, (ClassicProtocol("range", SUBSCRIPTION),)
            )
            assert member.subscribed_topic_names == frozenset({TOPIC})
        # the classic group's tombstone first, then Kafka's createConsumerGroupRecords order
        keys = [type(decode_key(key)).__name__ for key, _ in written[before:]]
        assert written[before][1] is None and isinstance(decode_key(written[before][0]), GroupMetadataKey)
        assert keys[1:9] == [
            "ConsumerGroupMemberMetadataKey",
            "ConsumerGroupMemberMetadataKey",
            "ConsumerGroupMetadataKey",
            "ConsumerGroupTargetAssignmentMemberKey",
            "ConsumerGroupTargetAssignmentMemberKey",
            "ConsumerGroupTargetAssignmentMetadataKey",
            "ConsumerGroupCurrentMemberAssignmentKey",
            "ConsumerGroupCurrentMemberAssignmentKey",
        ]
        assert keys[9] == "ConsumerGroupMemberMetadataKey"  # the joiner's own records follow
        assert "new-member" in group.members
    finally:
        await coordinator.stop()


async def test_a_classic_member_waiting_to_join_is_told_to_rebalance_by_the_conversion():
    coordinator = _coordinator()
    try:
        leader, _ = await _stable_classic_group(coordinator)
        waiting = asyncio.ensure_future(
            coordinator.handle_join_group(join_request("g", leader), "client", "/127.0.0.1")
        )
        await asyncio.sleep(0)
        assert coordinator._classic_group_state("g") == "PreparingRebalance"
        assert (await _consumer_join(coordinator)).error_code == Errors.NONE
        assert (await asyncio.wait_for(waiting, 1)).error_code == Errors.REBALANCE_IN_PROGRESS
    finally:
        await coordinator.stop()


async def test_a_custom_assignors_user_data_refuses_the_upgrade_and_keeps_the_classic_group():
    coordinator = _coordinator()
    try:
        await _stable_classic_group(coordinator, user_data=b"sticky")
        answer = await _consumer_join(coordinator)
        assert (answer.error_code, answer.error_message) == (
            Errors.GROUP_ID_NOT_FOUND,
            "Cannot upgrade classic group g to consumer group because an unsupported custom assignor is in "
            "use. Please refer to the documentation or switch to a default assignor before re-attempting "
            "the upgrade.",
        )
        assert coordinator._classic_group_state("g") == "Stable"
        assert coordinator.consumer_groups.group("g") is None
    finally:
        await coordinator.stop()
