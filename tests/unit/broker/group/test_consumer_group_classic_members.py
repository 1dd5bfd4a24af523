"""Classic members inside a KIP-848 consumer group (Kafka's ``classicGroupJoinToConsumerGroup``,
``classicGroupSyncToConsumerGroup``, ``classicGroupHeartbeatToConsumerGroup``,
``classicGroupLeaveToConsumerGroup``): a JoinGroup to a consumer group with members first gets
MEMBER_ID_REQUIRED, then joins as a member reconciled like a heartbeat (its generation is its member epoch);
SyncGroup returns its assigned partitions as a ``ConsumerProtocolAssignment``; Heartbeat answers
REBALANCE_IN_PROGRESS when it must rejoin (here: the partition it waits for was released); LeaveGroup fences
it; the checks answer Kafka's errors.  When the last consumer-protocol member leaves, the group becomes a
classic group again (Kafka's ``convertToClassicGroup``) unless the migration policy forbids downgrades.

The coordinator runs on a manual clock over the in-memory ``GroupMetadataManager`` of
``test_group_coordinator`` (every write acknowledged) and its one topic ``orders`` of two partitions, with
no assignment interval so that every epoch bump computes a new target at once.
"""

from __future__ import annotations

import pytest
from test_group_coordinator import TOPIC, TOPIC_ID, InMemoryGroupMetadataManager, OneTopicMetadataCache

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.broker.group.group_coordinator_config import ConsumerGroupMigrationPolicy
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    JoinGroupRequest,
    JoinGroupRequestProtocol,
    LeaveGroupRequest,
    MemberIdentity,
    SyncGroupRequest,
)
from kafkette.protocol.consumer_protocol import Subscription, decode_assignment, encode_subscription
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition
from tests.clock_helpers import advance


def _coordinator(policy=ConsumerGroupMigrationPolicy.BIDIRECTIONAL) -> GroupCoordinator:
    settings = ConsumerGroupSettings(
        new_assignors(["range", "uniform"]), assignment_interval_ms=0, migration_policy=policy
    )
    time = MockTime()
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=time),
        consumer_group_settings=settings,
    )
    coordinator.time = time  # type: ignore[attr-defined]
    return coordinator


@pytest.fixture
async def coordinator():
    coordinator = _coordinator()
    yield coordinator
    await coordinator.stop()


async def _consumer(coordinator: GroupCoordinator, epoch: int, owned: list[int] | None = None):
    request = ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="~consumer-member",
        member_epoch=epoch,
        rebalance_timeout_ms=30000 if epoch == 0 else -1,
        subscribed_topic_names=[TOPIC] if epoch == 0 else None,
        topic_partitions=(
            [] if epoch == 0 else [ConsumerGroupHeartbeatTopicPartitions(topic_id=TOPIC_ID, partitions=owned)]
        ),
    )
    answer = await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")
    assert answer.error_code == Errors.NONE, answer.error_message
    return answer


def _join_request(member_id: str = "", owned: tuple[int, ...] = ()) -> JoinGroupRequest:
    owned_partitions = tuple(TopicPartition(TOPIC, p) for p in owned)
    subscription = Subscription(topics=(TOPIC,), owned_partitions=owned_partitions)
    return JoinGroupRequest(
        group_id="g",
        session_timeout_ms=10_000,
        rebalance_timeout_ms=5_000,
        member_id=member_id,
        protocol_type="consumer",
        protocols=[
            JoinGroupRequestProtocol(name="cooperative-sticky", metadata=encode_subscription(subscription, 1))
        ],
    )


async def _classic_join(coordinator: GroupCoordinator, member_id: str = "", owned: tuple[int, ...] = ()):
    return await coordinator.handle_join_group(_join_request(member_id, owned), "classic", "/127.0.0.2")


def _heartbeat(coordinator: GroupCoordinator, member_id: str, generation: int) -> int:
    request = HeartbeatRequest(group_id="g", generation_id=generation, member_id=member_id)
    return coordinator.handle_heartbeat(request).error_code


async def _sync(coordinator: GroupCoordinator, member_id: str, generation: int):
    return await coordinator.handle_sync_group(
        SyncGroupRequest(
            group_id="g",
            generation_id=generation,
            member_id=member_id,
            protocol_type="consumer",
            protocol_name="cooperative-sticky",
            assignments=[],
        )
    )


async def test_a_classic_member_joins_syncs_and_rejoins_a_consumer_group(coordinator):
    first = await _consumer(coordinator, 0)
    assert [tp.partitions for tp in first.assignment.topic_partitions] == [[0, 1]]

    required = await _classic_join(coordinator)
    assert required.error_code == Errors.MEMBER_ID_REQUIRED
    assert len(required.member_id) == 22  # Kafka's Uuid.randomUuid().toString(): base64, 22 characters
    member_id = required.member_id
    joined = await _classic_join(coordinator, member_id)
    group = coordinator.consumer_groups.group("g")
    generation = group.group_epoch  # the member epoch: the epoch its join bumped the group to
    assert (joined.error_code, joined.member_id, joined.generation_id) == (Errors.NONE, member_id, generation)
    assert (joined.protocol_type, joined.protocol_name, joined.leader, joined.members) == (
        "consumer",
        "cooperative-sticky",
        "",
        [],
    )
    member = group.members[member_id]
    assert member.use_classic_protocol() and member.classic_member_metadata.session_timeout_ms == 10_000
    assert (member.client_id, member.client_host) == ("classic", "/127.0.0.2")
    # range, members by id: the classic member (base64) gets 0, "~consumer-member" 1
    assert group.target_assignment_of(member_id) == {TOPIC_ID: frozenset({0})}
    # partition 0 is still the consumer member's: nothing assigned yet
    synced = await _sync(coordinator, member_id, generation)
    assert synced.error_code == Errors.NONE
    assert (synced.protocol_type, synced.protocol_name) == ("consumer", "cooperative-sticky")
    assert decode_assignment(synced.assignment).partitions == ()
    assert _heartbeat(coordinator, member_id, generation) == Errors.NONE  # waits on partition 0

    consumer_epoch = first.member_epoch
    revoking = await _consumer(coordinator, consumer_epoch, [0, 1])
    assert [tp.partitions for tp in revoking.assignment.topic_partitions] == [[1]]
    await _consumer(coordinator, revoking.member_epoch, [1])  # partition 0 released
    assert _heartbeat(coordinator, member_id, generation) == Errors.REBALANCE_IN_PROGRESS  # it may take it
    rejoined = await _classic_join(coordinator, member_id, owned=())
    assert (rejoined.error_code, rejoined.generation_id) == (Errors.NONE, generation)
    synced = await _sync(coordinator, member_id, generation)
    assert decode_assignment(synced.assignment).partitions == (TopicPartition(TOPIC, 0),)
    assert _heartbeat(coordinator, member_id, generation) == Errors.NONE


async def test_the_checks_of_sync_group_and_heartbeat_answer_kafkas_errors(coordinator):
    await _consumer(coordinator, 0)
    member_id = (await _classic_join(coordinator)).member_id
    generation = (await _classic_join(coordinator, member_id)).generation_id
    assert _heartbeat(coordinator, member_id, generation + 4) == Errors.ILLEGAL_GENERATION
    assert _heartbeat(coordinator, "~consumer-member", 2) == Errors.UNKNOWN_MEMBER_ID  # not a classic member
    assert _heartbeat(coordinator, "nobody", generation) == Errors.UNKNOWN_MEMBER_ID
    assert (await _sync(coordinator, member_id, generation + 1)).error_code == Errors.ILLEGAL_GENERATION
    wrong_protocol = await coordinator.handle_sync_group(
        SyncGroupRequest(
            group_id="g", generation_id=generation, member_id=member_id, protocol_name="range", assignments=[]
        )
    )
    assert wrong_protocol.error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


async def test_a_classic_member_leaving_is_fenced_and_bumps_the_group_epoch(coordinator):
    await _consumer(coordinator, 0)
    member_id = (await _classic_join(coordinator)).member_id
    await _classic_join(coordinator, member_id)
    group = coordinator.consumer_groups.group("g")
    epoch = group.group_epoch
    left = await coordinator.leave_group(
        LeaveGroupRequest(
            group_id="g", members=[MemberIdentity(member_id=member_id), MemberIdentity(member_id="nobody")]
        )
    )
    assert left.error_code == Errors.NONE
    assert [(m.member_id, m.error_code) for m in left.members] == [
        (member_id, Errors.NONE),
        ("nobody", Errors.UNKNOWN_MEMBER_ID),
    ]
    assert member_id not in group.members and group.group_epoch == epoch + 1


async def test_classic_members_may_not_join_when_the_migration_policy_is_disabled():
    coordinator = _coordinator(ConsumerGroupMigrationPolicy.DISABLED)
    try:
        await _consumer(coordinator, 0)
        refused = await _classic_join(coordinator)
        assert refused.error_code == Errors.INCONSISTENT_GROUP_PROTOCOL
    finally:
        await coordinator.stop()


async def test_a_classic_member_of_another_protocol_type_is_refused(coordinator):
    await _consumer(coordinator, 0)
    request = _join_request()
    request.protocol_type = "connect"
    refused = await coordinator.handle_join_group(request, "classic", "/127.0.0.2")
    assert refused.error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


async def _mixed_group(coordinator: GroupCoordinator) -> tuple[str, int]:
    """A consumer member and a classic member that joined and synced; the classic member's id and
    generation."""
    await _consumer(coordinator, 0)
    member_id = (await _classic_join(coordinator)).member_id
    generation = (await _classic_join(coordinator, member_id)).generation_id
    assert (await _sync(coordinator, member_id, generation)).error_code == Errors.NONE
    return member_id, generation


async def _consumer_leaves(coordinator: GroupCoordinator) -> None:
    request = ConsumerGroupHeartbeatRequest(
        group_id="g", member_id="~consumer-member", member_epoch=-1, topic_partitions=None
    )
    answer = await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")
    assert (answer.error_code, answer.member_epoch) == (Errors.NONE, -1)


async def test_the_last_consumer_member_leaving_downgrades_the_group_to_a_classic_group(coordinator):
    member_id, _ = await _mixed_group(coordinator)
    group_epoch = coordinator.consumer_groups.group("g").group_epoch
    target = coordinator.consumer_groups.group("g").target_assignment_of(member_id)
    written = coordinator.manager.records  # type: ignore[attr-defined]
    before = len(written)
    await _consumer_leaves(coordinator)
    assert coordinator.consumer_groups.group("g") is None
    classic = coordinator.group("g")
    assert classic is not None and list(classic.members) == [member_id]
    assert (classic.generation_id, classic.protocol_type, classic.protocol_name) == (
        group_epoch,
        "consumer",
        "cooperative-sticky",
    )
    assert classic.state.value == "PreparingRebalance"  # Kafka prepares a rebalance for the leave
    assert decode_assignment(classic.members[member_id].assignment).partitions == tuple(
        TopicPartition(TOPIC, p) for p in sorted(target[TOPIC_ID])
    )
    assert written[-1][1] is not None  # the GroupMetadata record, after the consumer group's tombstones
    assert all(value is None for _, value in written[before:-1])
    # the classic member is told to rejoin, and does, as a member of the classic group
    heartbeat = coordinator.handle_heartbeat(
        HeartbeatRequest(group_id="g", generation_id=group_epoch, member_id=member_id)
    )
    assert heartbeat.error_code == Errors.REBALANCE_IN_PROGRESS
    rejoined = await coordinator.handle_join_group(_join_request(member_id), "classic", "/127.0.0.2")
    assert (rejoined.error_code, rejoined.generation_id, rejoined.leader) == (
        Errors.NONE,
        group_epoch + 1,
        member_id,
    )


async def test_no_downgrade_when_the_policy_allows_only_upgrades():
    coordinator = _coordinator(ConsumerGroupMigrationPolicy.UPGRADE)
    try:
        member_id, _ = await _mixed_group(coordinator)
        await _consumer_leaves(coordinator)
        group = coordinator.consumer_groups.group("g")
        assert group is not None and list(group.members) == [member_id]
        assert coordinator.group("g") is None
    finally:
        await coordinator.stop()


async def test_a_classic_member_that_does_not_sync_within_its_rebalance_timeout_is_fenced(coordinator):
    await _consumer(coordinator, 0)
    member_id = (await _classic_join(coordinator)).member_id
    await _classic_join(coordinator, member_id)  # a 5 s rebalance timeout: it must SyncGroup by then
    group = coordinator.consumer_groups.group("g")
    await advance(coordinator.time, 4_999)
    assert member_id in group.members
    await advance(coordinator.time, 2)
    assert member_id not in group.members  # "the member failed to sync within timeout"


async def test_a_synced_classic_member_is_kept_by_its_heartbeats_and_fenced_when_they_stop(coordinator):
    await _consumer(coordinator, 0)
    member_id = (await _classic_join(coordinator)).member_id
    generation = (await _classic_join(coordinator, member_id)).generation_id
    await _sync(coordinator, member_id, generation)
    group = coordinator.consumer_groups.group("g")
    for _ in range(3):  # its 10 s session renewed by each Heartbeat, past the sync timeout too
        await advance(coordinator.time, 8_000)
        assert _heartbeat(coordinator, member_id, generation) == Errors.NONE
    await advance(coordinator.time, 10_001)
    assert member_id not in group.members  # its session expired


async def test_a_classic_members_rack_comes_from_its_subscription_version_3(coordinator):
    await _consumer(coordinator, 0)
    request = _join_request()
    body = encode_subscription(Subscription(topics=(TOPIC,)), 1)[2:]
    v3 = b"\x00\x03" + body + b"\x00\x00\x00\x00" + b"\x00\x02r1"  # generation 0, rack "r1"
    request.protocols = [JoinGroupRequestProtocol(name="cooperative-sticky", metadata=v3)]
    member_id = (await coordinator.handle_join_group(request, "classic", "/127.0.0.2")).member_id
    request.member_id = member_id
    assert (await coordinator.handle_join_group(request, "classic", "/127.0.0.2")).error_code == Errors.NONE
    assert coordinator.consumer_groups.group("g").members[member_id].rack_id == "r1"


async def test_a_classic_static_member_replacing_the_last_consumer_member_downgrades_the_group(coordinator):
    static = ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="~consumer-member",
        instance_id="instance-1",
        member_epoch=0,
        rebalance_timeout_ms=30000,
        subscribed_topic_names=[TOPIC],
        topic_partitions=[],
    )
    assert (
        await coordinator.consumer_groups.heartbeat(static, 1, "c", "/127.0.0.1")
    ).error_code == Errors.NONE
    member_id = (await _classic_join(coordinator)).member_id
    await _classic_join(coordinator, member_id)
    group = coordinator.consumer_groups.group("g")
    group_epoch = group.group_epoch
    consumer_target = group.target_assignment_of("~consumer-member")
    request = _join_request()
    request.group_instance_id = "instance-1"  # the consumer member's instance, now with the classic protocol
    joined = await coordinator.handle_join_group(request, "classic-static", "/127.0.0.3")
    assert joined.error_code == Errors.NONE and joined.member_id not in ("", "~consumer-member")
    assert coordinator.consumer_groups.group("g") is None  # Kafka's validateOnlineDowngradeWithReplacedMember
    classic = coordinator.group("g")
    assert sorted(classic.members) == sorted([member_id, joined.member_id])
    assert classic.static_members == {"instance-1": joined.member_id}
    assert (classic.generation_id, classic.state.value) == (
        group_epoch,
        "Stable",
    )  # nothing stale: no rebalance
    taken = decode_assignment(classic.members[joined.member_id].assignment).partitions
    assert taken == tuple(TopicPartition(TOPIC, p) for p in sorted(consumer_target[TOPIC_ID]))
