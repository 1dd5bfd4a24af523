"""GroupCoordinator's answers where Kafka's group coordinator words them in a particular way:
SyncGroup's protocol checks, a static member's return, DescribeGroups' instance ids and its
assignments during a rebalance, OffsetFetch
of a partition never committed, OffsetDelete (an unknown topic; the topics the current
generation's consumers subscribe to, until a member's session ends; a group of members that are
not consumers; a group of offsets alone, emptied by it), the empty group id, a pending member's LeaveGroup,
LeaveGroup by instance id, the offsets of a deleted topic, a rejoin before SyncGroup, the removal of a member
that never sends SyncGroup, member validation (an unknown instance id, OffsetCommit's order of checks) and a
static member that does not rejoin a rebalance.

The coordinator runs on a manual clock (``MockTime``) over an in-memory stand-in for its
``GroupMetadataManager`` (every write acknowledged at once) and a metadata cache with one topic.
"""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from kafkette.broker.group.coordinator_records import (
    GroupMetadataValue,
    MemberMetadataValue,
    OffsetCommitValue,
)
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.group_admin import (
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    JoinGroupRequest,
    JoinGroupRequestProtocol,
    LeaveGroupRequest,
    MemberIdentity,
    SyncGroupRequest,
    SyncGroupRequestAssignment,
)
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
)
from kafkette.protocol.consumer_protocol import Subscription, encode_subscription
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

TOPIC = "orders"
TOPIC_ID = bytes(range(1, 17))


class InMemoryGroupMetadataManager:
    """The part of ``GroupMetadataManager`` the coordinator uses, in memory: it coordinates every
    group, has loaded them all, and acknowledges every write at once."""

    def __init__(self) -> None:
        self.offsets: dict[str, dict[TopicPartition, OffsetCommitValue]] = {}
        self.records: list[tuple[bytes, bytes | None]] = []  # consumer group records written
        self.on_groups_loaded: Any = None
        self.on_consumer_group_records: Any = None

    def coordinator_error(self, group_id: str) -> Errors:
        return Errors.NONE

    def partition_for(self, group_id: str) -> int:
        return 0

    async def store_group(self, group_id: str, value: GroupMetadataValue) -> Errors:
        return Errors.NONE

    async def append_records(self, group_id: str, records: list[tuple[bytes, bytes | None]]) -> Errors:
        self.records.extend(records)
        return Errors.NONE

    async def store_offsets(
        self, group_id: str, offsets: dict[TopicPartition, OffsetCommitValue]
    ) -> dict[TopicPartition, Errors]:
        self.offsets.setdefault(group_id, {}).update(offsets)
        return dict.fromkeys(offsets, Errors.NONE)

    async def delete_offsets(self, group_id: str, partitions: Any) -> Errors:
        committed = self.offsets.get(group_id, {})
        for tp in list(committed) if partitions is None else partitions:
            committed.pop(tp, None)
        if not committed:
            self.offsets.pop(group_id, None)
        return Errors.NONE

    def fetch_offsets(self, group_id: str, partitions: Any) -> dict[TopicPartition, OffsetCommitValue | None]:
        committed = self.offsets.get(group_id, {})
        return dict(committed) if partitions is None else {tp: committed.get(tp) for tp in partitions}

    def has_offsets(self, group_id: str) -> bool:
        return bool(self.offsets.get(group_id))

    def has_pending_transactional_offsets(self, group_id: str, tp: TopicPartition | None = None) -> bool:
        return False  # no transactions here (tests/unit/broker/group/test_txn_offsets_on_files.py has them)

    def pending_partitions(self, group_id: str) -> list[TopicPartition]:
        return []

    def group_ids(self) -> list[str]:
        return sorted(g for g, o in self.offsets.items() if o)

    def loading(self) -> bool:
        return False

    async def stop(self) -> None:
        return None


class OneTopicMetadataCache:
    """A metadata cache that knows one topic, ``TOPIC``, with two partitions."""

    def partition_state(self, tp: TopicPartition) -> object | None:
        return SimpleNamespace(replicas=[]) if tp.topic == TOPIC and 0 <= tp.partition < 2 else None

    def topic_id(self, topic: str) -> bytes:
        return TOPIC_ID if topic == TOPIC else bytes(16)

    def topic_name(self, topic_id: bytes) -> str | None:
        return TOPIC if topic_id == TOPIC_ID else None

    def num_partitions(self, topic: str) -> int | None:
        return 2 if topic == TOPIC else None


@pytest.fixture
async def coordinator():
    time = MockTime()
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=time),
    )
    coordinator.time = time  # type: ignore[attr-defined]
    yield coordinator
    await coordinator.stop()


def _partitions(*indexes: int) -> list[OffsetDeleteRequestPartition]:
    return [OffsetDeleteRequestPartition(partition_index=i) for i in indexes]


def join_request(
    group_id: str,
    member_id: str = "",
    instance_id: str | None = None,
    protocols: tuple[str, ...] = ("range",),
    topics: tuple[str, ...] = (TOPIC,),
    protocol_type: str = "consumer",
    metadata: bytes | None = None,
) -> JoinGroupRequest:
    """A JoinGroup subscribing to ``topics`` (or with the raw ``metadata`` given)."""
    if metadata is None:
        metadata = encode_subscription(Subscription(topics=topics))
    return JoinGroupRequest(
        group_id=group_id,
        session_timeout_ms=10_000,
        rebalance_timeout_ms=5_000,
        member_id=member_id,
        group_instance_id=instance_id,
        protocol_type=protocol_type,
        protocols=[JoinGroupRequestProtocol(name=p, metadata=metadata) for p in protocols],
    )


async def join(
    coordinator: GroupCoordinator,
    request: JoinGroupRequest,
    client_id: str = "client",
    supports_skip_assignment: bool = True,
) -> Any:
    """One JoinGroup, letting the manual clock fire the (zero) initial rebalance delay."""
    task = asyncio.ensure_future(
        coordinator.handle_join_group(request, client_id, "/127.0.0.1", supports_skip_assignment)
    )
    for _ in range(5):
        await asyncio.sleep(0)
        coordinator.time.advance(0)  # type: ignore[attr-defined]
    return await asyncio.wait_for(task, 1)


async def stable_member(
    coordinator: GroupCoordinator, group_id: str, instance_id: str | None = None, **request: Any
) -> Any:
    """Join a new group as its only member (answering MEMBER_ID_REQUIRED) and sync as its leader;
    the JoinGroup answer.  ``request`` goes to ``join_request`` (topics, protocol type, metadata)."""
    answer = await join(coordinator, join_request(group_id, instance_id=instance_id, **request))
    if answer.error_code == Errors.MEMBER_ID_REQUIRED:
        answer = await join(coordinator, join_request(group_id, answer.member_id, instance_id, **request))
    assert answer.error_code == Errors.NONE
    synced = await coordinator.handle_sync_group(
        SyncGroupRequest(
            group_id=group_id,
            generation_id=answer.generation_id,
            member_id=answer.member_id,
            group_instance_id=instance_id,
            assignments=[SyncGroupRequestAssignment(member_id=answer.member_id, assignment=b"")],
        )
    )
    assert synced.error_code == Errors.NONE
    return answer


async def test_sync_group_naming_another_protocol_gets_inconsistent_group_protocol(coordinator):
    answer = await stable_member(coordinator, "g")

    def sync(protocol_type: str | None, protocol_name: str | None) -> Any:
        return coordinator.handle_sync_group(
            SyncGroupRequest(
                group_id="g",
                generation_id=answer.generation_id,
                member_id=answer.member_id,
                protocol_type=protocol_type,
                protocol_name=protocol_name,
                assignments=[],
            )
        )

    assert (await sync("consumer", "roundrobin")).error_code == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert (await sync("connect", "range")).error_code == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert (await sync("consumer", "range")).error_code == Errors.NONE
    assert (await sync(None, None)).error_code == Errors.NONE  # before SyncGroup v5: nothing to check


async def test_a_static_member_back_in_a_stable_group_is_not_told_to_lead_before_join_group_v9(coordinator):
    first = await stable_member(coordinator, "g", instance_id="instance-1")
    assert first.member_id.startswith("instance-1-")
    again = await join(
        coordinator,
        join_request("g", instance_id="instance-1"),
        client_id="other-client",
        supports_skip_assignment=False,
    )
    assert again.error_code == Errors.NONE
    assert again.member_id.startswith("instance-1-") and again.member_id != first.member_id
    assert (again.generation_id, again.members, again.leader, again.skip_assignment) == (
        first.generation_id,
        [],
        first.member_id,
        False,
    )
    heartbeat = coordinator.handle_heartbeat(
        HeartbeatRequest(
            group_id="g",
            generation_id=first.generation_id,
            member_id=first.member_id,
            group_instance_id="instance-1",
        )
    )
    assert heartbeat.error_code == Errors.FENCED_INSTANCE_ID


async def test_a_static_leader_back_in_a_stable_group_leads_and_skips_the_assignment_from_v9(coordinator):
    # KIP-814: the members, its new id as leader, and skip_assignment so that it does not assign
    first = await stable_member(coordinator, "g", instance_id="instance-1")
    again = await join(coordinator, join_request("g", instance_id="instance-1"), client_id="other-client")
    assert again.error_code == Errors.NONE and again.member_id != first.member_id
    assert (again.generation_id, again.leader, again.skip_assignment) == (
        first.generation_id,
        again.member_id,
        True,
    )
    assert [(m.member_id, m.group_instance_id) for m in again.members] == [(again.member_id, "instance-1")]
    assert coordinator.group("g").state.value == "Stable"


@pytest.mark.parametrize("version", [0, 5, 6])
async def test_describe_groups_of_an_unknown_group_is_dead_before_v6_and_group_id_not_found_from_v6(
    coordinator, version
):
    # KIP-1043; a group with committed offsets only is Empty at every version
    assert await commit(coordinator, "offsets-only", {0: 4}) == [Errors.NONE]
    await stable_member(coordinator, "g")
    described = coordinator.handle_describe_groups(
        DescribeGroupsRequest(groups=["g", "nobody", "offsets-only"]), version
    ).groups
    rows = [(g.group_id, g.error_code, g.error_message, g.group_state) for g in described]
    nobody = (
        ("nobody", Errors.GROUP_ID_NOT_FOUND, "Group nobody not found.", "Dead")
        if version >= 6
        else ("nobody", Errors.NONE, None, "Dead")
    )
    assert rows == [("g", Errors.NONE, None, "Stable"), nobody, ("offsets-only", Errors.NONE, None, "Empty")]


async def test_describe_groups_names_a_static_members_instance_id(coordinator):
    await stable_member(coordinator, "g", instance_id="instance-7")
    described = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["g"])).groups[0]
    assert [m.group_instance_id for m in described.members] == ["instance-7"]


async def test_describe_groups_during_a_rebalance_lists_each_members_last_assignment_without_metadata(
    coordinator,
):
    """Kafka's ``ClassicGroupMember.describeNoMetadata``: outside Stable a member's assignment of
    the last generation is listed (empty for one that joined since), its metadata is not."""
    first = await join(coordinator, join_request("g"))
    first = await join(coordinator, join_request("g", first.member_id))
    synced = await coordinator.handle_sync_group(
        SyncGroupRequest(
            group_id="g",
            generation_id=first.generation_id,
            member_id=first.member_id,
            assignments=[
                SyncGroupRequestAssignment(member_id=first.member_id, assignment=b"partition-0-and-1")
            ],
        )
    )
    assert synced.error_code == Errors.NONE
    pending = await join(coordinator, join_request("g"))
    second = asyncio.ensure_future(join(coordinator, join_request("g", pending.member_id)))
    for _ in range(3):
        await asyncio.sleep(0)
    described = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["g"])).groups[0]
    assert described.group_state == "PreparingRebalance"
    assert {m.member_id: (m.member_metadata, m.member_assignment) for m in described.members} == {
        first.member_id: (b"", b"partition-0-and-1"),
        pending.member_id: (b"", b""),
    }
    second.cancel()


async def test_offset_fetch_of_a_partition_never_committed_answers_no_offset_and_empty_metadata(coordinator):
    answer = coordinator.handle_fetch_offsets(
        OffsetFetchRequestGroup(
            group_id="g", topics=[OffsetFetchRequestTopics(name=TOPIC, partition_indexes=[0])]
        )
    )
    (partition,) = answer.topics[0].partitions
    assert (partition.committed_offset, partition.metadata, partition.error_code) == (-1, "", Errors.NONE)


async def test_offset_delete_of_an_unknown_topic_or_partition_answers_unknown_topic_or_partition(coordinator):
    await commit(coordinator, "g", {0: 5})
    answer = await coordinator.handle_offset_delete(
        OffsetDeleteRequest(
            group_id="g",
            topics=[
                OffsetDeleteRequestTopic(name="no-such-topic", partitions=_partitions(0)),
                OffsetDeleteRequestTopic(name=TOPIC, partitions=_partitions(0, 7)),
            ],
        )
    )
    assert answer.error_code == Errors.NONE
    assert sorted((t.name, p.partition_index, p.error_code) for t in answer.topics for p in t.partitions) == [
        ("no-such-topic", 0, Errors.UNKNOWN_TOPIC_OR_PARTITION),
        (TOPIC, 0, Errors.NONE),
        (TOPIC, 7, Errors.UNKNOWN_TOPIC_OR_PARTITION),
    ]


def offset_delete(coordinator: GroupCoordinator, group_id: str = "g") -> Any:
    """OffsetDelete of both partitions of ``TOPIC``."""
    return coordinator.handle_offset_delete(
        OffsetDeleteRequest(
            group_id=group_id, topics=[OffsetDeleteRequestTopic(name=TOPIC, partitions=_partitions(0, 1))]
        )
    )


def partition_errors(answer: Any) -> list[int]:
    return [p.error_code for t in answer.topics for p in t.partitions]


async def settle(coordinator: GroupCoordinator) -> None:
    """Let the purgatories' expirations that are due run."""
    for _ in range(5):
        await asyncio.sleep(0)
        coordinator.time.advance(0)  # type: ignore[attr-defined]


async def test_offset_delete_refuses_a_subscribed_topic_until_the_members_session_ends(coordinator):
    # the interleaving of a CLI test on a busy machine: the member (subscribed to TOPIC) of a
    # Stable group sent no heartbeat for session.timeout.ms, so it was removed and its group
    # emptied; from then on its offsets may go, as Kafka's coordinator deletes them too
    assert await commit(coordinator, "g", {0: 4, 1: 10}) == [Errors.NONE, Errors.NONE]
    answer = await stable_member(coordinator, "g")
    assert partition_errors(await offset_delete(coordinator)) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC] * 2
    coordinator.time.advance(9_999)  # the session is 10000 ms
    await settle(coordinator)
    assert coordinator.group("g").state.value == "Stable"
    assert partition_errors(await offset_delete(coordinator)) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC] * 2
    coordinator.time.advance(1)
    await settle(coordinator)
    group = coordinator.group("g")
    assert (group.state.value, group.members) == ("Empty", {})
    beat = HeartbeatRequest(group_id="g", generation_id=answer.generation_id, member_id=answer.member_id)
    assert coordinator.handle_heartbeat(beat).error_code == Errors.UNKNOWN_MEMBER_ID
    assert partition_errors(await offset_delete(coordinator)) == [Errors.NONE, Errors.NONE]
    assert coordinator.handle_fetch_offsets(OffsetFetchRequestGroup(group_id="g", topics=None)).topics == []


async def test_offset_delete_during_a_rebalance_sees_the_topics_of_the_current_generation(coordinator):
    # Kafka's subscribedTopics change when a generation starts, not when a member joins or leaves
    assert await commit(coordinator, "g", {0: 4, 1: 10}) == [Errors.NONE, Errors.NONE]
    first = await stable_member(coordinator, "g")
    pending = await join(coordinator, join_request("g", topics=("payments",)))
    second_join = asyncio.ensure_future(
        join(coordinator, join_request("g", pending.member_id, topics=("payments",)))
    )
    await settle(coordinator)
    assert coordinator.group("g").state.value == "PreparingRebalance"
    rejoined = await join(coordinator, join_request("g", first.member_id))
    second = await asyncio.wait_for(second_join, 1)
    assert (rejoined.generation_id, second.generation_id) == (2, 2)
    left = coordinator.handle_leave_group(
        LeaveGroupRequest(group_id="g", members=[MemberIdentity(member_id=first.member_id)])
    )
    assert [m.error_code for m in left.members] == [Errors.NONE]
    assert coordinator.group("g").state.value == "PreparingRebalance"  # waiting for the second member
    # the member that left subscribed to TOPIC in generation 2, which is still the current one
    assert partition_errors(await offset_delete(coordinator)) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC] * 2
    third = await join(coordinator, join_request("g", second.member_id, topics=("payments",)))
    assert (third.error_code, third.generation_id, coordinator.group("g").state.value) == (
        Errors.NONE,
        3,
        "CompletingRebalance",
    )
    assert partition_errors(await offset_delete(coordinator)) == [Errors.NONE, Errors.NONE]


async def test_offset_delete_of_a_group_whose_members_are_not_consumers_is_non_empty_group(coordinator):
    assert await commit(coordinator, "connect-g", {0: 4}) == [Errors.NONE]
    await stable_member(coordinator, "connect-g", protocol_type="connect", metadata=b"worker state")
    answer = await offset_delete(coordinator, "connect-g")
    assert (answer.error_code, answer.topics) == (Errors.NON_EMPTY_GROUP, [])
    assert [
        p.committed_offset
        for t in coordinator.handle_fetch_offsets(
            OffsetFetchRequestGroup(group_id="connect-g", topics=None)
        ).topics
        for p in t.partitions
    ] == [4]


async def test_a_consumer_whose_subscription_does_not_decode_keeps_every_topic_subscribed(coordinator):
    assert await commit(coordinator, "g", {0: 4}) == [Errors.NONE]
    await stable_member(coordinator, "g", metadata=b"\x00")  # not a ConsumerProtocolSubscription
    answer = await offset_delete(coordinator)
    assert (answer.error_code, partition_errors(answer)) == (
        Errors.NONE,
        [Errors.GROUP_SUBSCRIBED_TO_TOPIC] * 2,
    )


async def test_a_group_loaded_from_its_records_knows_its_members_subscriptions(coordinator):
    # the new coordinator of a group reads its members' subscriptions from the stored metadata
    assert await commit(coordinator, "g", {0: 4, 1: 10}) == [Errors.NONE, Errors.NONE]
    coordinator.manager.on_groups_loaded(
        {
            "g": GroupMetadataValue(
                "consumer",
                3,
                "range",
                "member-1",
                members=(
                    MemberMetadataValue(
                        "member-1",
                        None,
                        "client",
                        "/127.0.0.1",
                        5_000,
                        10_000,
                        encode_subscription(Subscription(topics=("payments",))),
                        b"",
                    ),
                ),
            )
        }
    )
    assert coordinator.group("g").state.value == "Stable"
    assert partition_errors(await offset_delete(coordinator)) == [
        Errors.NONE,
        Errors.NONE,
    ]  # TOPIC is nobody's


async def commit(coordinator: GroupCoordinator, group_id: str, offsets: dict[int, int]) -> list[int]:
    answer = await coordinator.handle_commit_offsets(
        OffsetCommitRequest(
            group_id=group_id,
            topics=[
                OffsetCommitRequestTopic(
                    name=TOPIC,
                    partitions=[
                        OffsetCommitRequestPartition(partition_index=p, committed_offset=o)
                        for p, o in offsets.items()
                    ],
                )
            ],
        ),
        8,
    )
    return [p.error_code for t in answer.topics for p in t.partitions]


async def test_a_group_of_offsets_alone_still_exists_for_delete_groups_once_offset_delete_took_them_all(
    coordinator,
):
    # Kafka's group (Empty, no offsets left) lives until the periodic cleanup: DeleteGroups is NONE
    assert await commit(coordinator, "g", {0: 4, 1: 10}) == [Errors.NONE, Errors.NONE]
    assert partition_errors(await offset_delete(coordinator)) == [Errors.NONE, Errors.NONE]
    described = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["g"])).groups[0]
    assert (described.error_code, described.group_state) == (Errors.NONE, "Empty")
    deleted = await coordinator.handle_delete_groups(DeleteGroupsRequest(groups_names=["g", "g"]))
    assert [r.error_code for r in deleted.results] == [Errors.NONE, Errors.GROUP_ID_NOT_FOUND]


async def test_a_group_emptied_of_offsets_goes_at_the_periodic_cleanup(coordinator):
    assert await commit(coordinator, "g", {0: 4, 1: 10}) == [Errors.NONE, Errors.NONE]
    assert partition_errors(await offset_delete(coordinator)) == [Errors.NONE, Errors.NONE]
    await coordinator.expire_offsets(coordinator.time.milliseconds())  # type: ignore[attr-defined]
    deleted = await coordinator.handle_delete_groups(DeleteGroupsRequest(groups_names=["g"]))
    assert [r.error_code for r in deleted.results] == [Errors.GROUP_ID_NOT_FOUND]


async def test_the_empty_group_id_keeps_its_offsets_but_cannot_have_members(coordinator):
    assert await commit(coordinator, "", {0: 3}) == [Errors.NONE]
    fetched = coordinator.handle_fetch_offsets(OffsetFetchRequestGroup(group_id="", topics=None))
    assert [(p.partition_index, p.committed_offset) for t in fetched.topics for p in t.partitions] == [(0, 3)]
    described = coordinator.handle_describe_groups(DescribeGroupsRequest(groups=[""])).groups[0]
    assert (described.error_code, described.group_state) == (Errors.NONE, "Empty")
    offset_delete = await coordinator.handle_offset_delete(OffsetDeleteRequest(group_id="", topics=[]))
    assert offset_delete.error_code == Errors.INVALID_GROUP_ID
    joined = await join(coordinator, join_request(""))
    assert joined.error_code == Errors.INVALID_GROUP_ID
    deleted = await coordinator.handle_delete_groups(DeleteGroupsRequest(groups_names=["", ""]))
    assert [r.error_code for r in deleted.results] == [Errors.NONE, Errors.GROUP_ID_NOT_FOUND]


async def test_a_joining_members_reason_is_in_the_rebalance_reason_kafka_logs(coordinator, caplog):
    # KIP-800 (JoinGroup v8): the client's reason, "not provided" when it gives none
    with caplog.at_level(logging.INFO, logger="kafkette.broker.group.group_coordinator"):
        leader = await stable_member(coordinator, "g")
        request = join_request("g", leader.member_id)
        request.reason = "rebalance requested by the application"
        task = asyncio.ensure_future(join(coordinator, request))
        await settle(coordinator)
        task.cancel()
    assert (
        f"Adding new member {leader.member_id} with group instance id null; client reason: not provided"
        in caplog.text
    )
    assert (
        f"Leader {leader.member_id} re-joining group during Stable; "
        "client reason: rebalance requested by the application" in caplog.text
    )


async def test_a_leaving_members_reason_is_logged_as_kafka_logs_it(coordinator, caplog):
    # KIP-800 (LeaveGroup v5): the client's reason, "not provided" when it gives none
    first = await stable_member(coordinator, "g")
    pending = await join(coordinator, join_request("g"))
    with caplog.at_level(logging.INFO, logger="kafkette.broker.group.group_coordinator"):
        coordinator.handle_leave_group(
            LeaveGroupRequest(
                group_id="g",
                members=[
                    MemberIdentity(member_id=first.member_id, reason="the consumer is closing"),
                    MemberIdentity(member_id=pending.member_id),
                ],
            )
        )
    assert (
        f"Member {first.member_id} has left group through explicit `LeaveGroup` request; "
        "client reason: the consumer is closing" in caplog.text
    )
    assert (
        f"Pending member {pending.member_id} has left group through explicit `LeaveGroup` request; "
        "client reason: not provided" in caplog.text
    )


async def test_a_pending_member_leaving_a_stable_group_starts_a_rebalance(coordinator):
    leader = await stable_member(coordinator, "g")
    pending = await join(coordinator, join_request("g"))
    assert pending.error_code == Errors.MEMBER_ID_REQUIRED
    left = coordinator.handle_leave_group(
        LeaveGroupRequest(group_id="g", members=[MemberIdentity(member_id=pending.member_id)])
    )
    assert [m.error_code for m in left.members] == [Errors.NONE]
    assert coordinator.group("g").state.value == "PreparingRebalance"
    heartbeat = coordinator.handle_heartbeat(
        HeartbeatRequest(group_id="g", generation_id=leader.generation_id, member_id=leader.member_id)
    )
    assert heartbeat.error_code == Errors.REBALANCE_IN_PROGRESS


async def test_a_static_member_removed_by_its_instance_id_is_answered_with_the_requests_empty_member_id(
    coordinator,
):
    """Kafka's ``classicGroupLeaveToClassicGroup`` echoes the request's member id, empty for an
    administrative removal by ``group.instance.id`` alone, not the member id it removed."""
    static = await stable_member(coordinator, "g", instance_id="instance-1")
    left = coordinator.handle_leave_group(
        LeaveGroupRequest(
            group_id="g",
            members=[
                MemberIdentity(member_id="", group_instance_id="instance-1"),
                MemberIdentity(member_id="", group_instance_id="instance-unknown"),
            ],
        )
    )
    assert [(m.member_id, m.group_instance_id, m.error_code) for m in left.members] == [
        ("", "instance-1", Errors.NONE),
        ("", "instance-unknown", Errors.UNKNOWN_MEMBER_ID),
    ]
    assert static.member_id not in coordinator.group("g").members


async def test_the_offsets_of_a_deleted_topic_go_with_it(coordinator):
    assert await commit(coordinator, "g", {0: 5, 1: 6}) == [Errors.NONE, Errors.NONE]
    coordinator.on_partitions_deleted([TopicPartition(TOPIC, 0), TopicPartition("another-topic", 0)])
    for _ in range(5):
        await asyncio.sleep(0)
    fetched = coordinator.handle_fetch_offsets(OffsetFetchRequestGroup(group_id="g", topics=None))
    assert [(p.partition_index, p.committed_offset) for t in fetched.topics for p in t.partitions] == [(1, 6)]
    coordinator.on_partitions_deleted([TopicPartition(TOPIC, 1)])
    for _ in range(5):
        await asyncio.sleep(0)
    assert coordinator.handle_fetch_offsets(OffsetFetchRequestGroup(group_id="g", topics=None)).topics == []
    assert (
        coordinator.handle_describe_groups(DescribeGroupsRequest(groups=["g"]), 5).groups[0].group_state
        == "Dead"
    )


async def test_rejoining_with_the_same_metadata_before_syncing_answers_the_current_generation(coordinator):
    first = await join(coordinator, join_request("g"))
    first = await join(coordinator, join_request("g", first.member_id))
    assert (first.error_code, first.generation_id, coordinator.group("g").state.value) == (
        Errors.NONE,
        1,
        "CompletingRebalance",
    )
    again = await join(coordinator, join_request("g", first.member_id))
    assert (again.error_code, again.generation_id, again.leader) == (Errors.NONE, 1, first.member_id)
    assert [m.member_id for m in again.members] == [first.member_id]  # the leader sees the members again
    changed = await join(coordinator, join_request("g", first.member_id, protocols=("range", "roundrobin")))
    assert (changed.error_code, changed.generation_id) == (Errors.NONE, 2)  # new metadata: a rebalance


async def test_a_member_that_never_syncs_is_removed_after_the_rebalance_timeout(coordinator):
    first = await join(coordinator, join_request("g"))
    joined = await join(coordinator, join_request("g", first.member_id))
    assert coordinator.group("g").state.value == "CompletingRebalance"
    beat = HeartbeatRequest(group_id="g", generation_id=joined.generation_id, member_id=joined.member_id)
    coordinator.time.advance(4_999)  # the rebalance timeout is 5000 ms; its heartbeats keep the session
    assert coordinator.handle_heartbeat(beat).error_code == Errors.NONE
    coordinator.time.advance(1)
    for _ in range(5):
        await asyncio.sleep(0)
        coordinator.time.advance(0)
    assert coordinator.handle_heartbeat(beat).error_code == Errors.UNKNOWN_MEMBER_ID
    group = coordinator.group("g")
    assert (group.state.value, group.members) == ("Empty", {})


@pytest.mark.parametrize("rebalance_timeout_ms", [0, -1])
async def test_a_v1_plus_rebalance_timeout_of_0_or_minus_1_is_kept_and_an_unsynced_member_goes_at_once(
    coordinator, rebalance_timeout_ms
):
    """Kafka keeps a v1+ JoinGroup's rebalance timeout as given, 0 and -1 too (only v0, which has no such
    field, takes the session timeout); the group's rebalance timeout is then 0
    (``ClassicGroup.rebalanceTimeoutMs`` starts from 0), so its pending-sync timer fires at once and the
    member, static or not, that did not sync is removed (a LeaveGroup by its instance id then finds none)."""
    request = join_request("g", instance_id="i")
    request.rebalance_timeout_ms = rebalance_timeout_ms
    joined = await join(coordinator, request)
    assert joined.error_code == Errors.NONE
    for _ in range(5):
        await asyncio.sleep(0)
        coordinator.time.advance(0)
    group = coordinator.group("g")
    assert (group.state.value, group.members, group.static_members) == ("Empty", {}, {})


async def test_a_member_that_gave_minus_one_keeps_it_as_its_rebalance_timeout(coordinator):
    request = join_request("g", instance_id="i")
    request.rebalance_timeout_ms = -1
    task = asyncio.ensure_future(coordinator.handle_join_group(request, "client", "/127.0.0.1"))
    await asyncio.sleep(0)
    assert [m.rebalance_timeout_ms for m in coordinator.group("g").members.values()] == [-1]
    coordinator.time.advance(0)
    await asyncio.wait_for(task, 1)


async def test_a_v0_join_group_takes_the_session_timeout_as_its_rebalance_timeout():
    """JoinGroup v0 has no rebalance timeout: the handler gives the coordinator the session timeout
    (Kafka's ``JoinGroupRequest`` constructor); v1+ passes the one given, -1 too."""
    from kafkette.broker.apis import join_group
    from kafkette.protocol.framing import RequestHeader

    seen: list[int] = []

    async def handle_join_group(request, client_id, client_host, supports_skip_assignment=True):
        seen.append(request.rebalance_timeout_ms)
        return None

    ctx = SimpleNamespace(group_coordinator=SimpleNamespace(handle_join_group=handle_join_group))
    for version in (0, 1, 5):
        request = join_request("g")
        request.rebalance_timeout_ms = -1
        header = RequestHeader(api_key=11, api_version=version, correlation_id=1, client_id="c")
        await join_group.handle(ctx, header, request)  # type: ignore[arg-type]
    assert seen == [10_000, -1, -1]


async def test_a_member_that_synced_in_time_stays(coordinator):
    answer = await stable_member(coordinator, "g")
    coordinator.time.advance(6_000)
    beat = HeartbeatRequest(group_id="g", generation_id=answer.generation_id, member_id=answer.member_id)
    assert coordinator.handle_heartbeat(beat).error_code == Errors.NONE
    assert coordinator.group("g").state.value == "Stable"


async def test_a_group_instance_id_the_group_does_not_know_is_an_unknown_member(coordinator):
    answer = await stable_member(coordinator, "g")
    beat = coordinator.handle_heartbeat(
        HeartbeatRequest(
            group_id="g",
            generation_id=answer.generation_id,
            member_id=answer.member_id,
            group_instance_id="nobody",
        )
    )
    assert beat.error_code == Errors.UNKNOWN_MEMBER_ID
    synced = await coordinator.handle_sync_group(
        SyncGroupRequest(
            group_id="g",
            generation_id=answer.generation_id,
            member_id=answer.member_id,
            group_instance_id="nobody",
            assignments=[],
        )
    )
    assert synced.error_code == Errors.UNKNOWN_MEMBER_ID
    left = coordinator.handle_leave_group(
        LeaveGroupRequest(
            group_id="g", members=[MemberIdentity(member_id=answer.member_id, group_instance_id="nobody")]
        )
    )
    assert [m.error_code for m in left.members] == [Errors.UNKNOWN_MEMBER_ID]
    assert answer.member_id in coordinator.group("g").members


async def test_offset_commit_checks_member_and_generation_before_completing_rebalance(coordinator):
    first = await join(coordinator, join_request("g"))
    joined = await join(coordinator, join_request("g", first.member_id))
    request = OffsetCommitRequest(
        group_id="g",
        generation_id=joined.generation_id + 5,
        member_id=joined.member_id,
        topics=[
            OffsetCommitRequestTopic(
                name=TOPIC, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=1)]
            )
        ],
    )
    wrong = await coordinator.handle_commit_offsets(request, 8)
    request.generation_id = joined.generation_id
    right = await coordinator.handle_commit_offsets(request, 8)
    assert [wrong.topics[0].partitions[0].error_code, right.topics[0].partitions[0].error_code] == [
        Errors.ILLEGAL_GENERATION,
        Errors.REBALANCE_IN_PROGRESS,
    ]


async def test_a_generation_committed_to_a_group_with_only_offsets_names_an_unknown_member(coordinator):
    await commit(coordinator, "simple", {0: 1})
    request = OffsetCommitRequest(
        group_id="simple",
        generation_id=3,
        member_id="consumer-1-abc",
        topics=[
            OffsetCommitRequestTopic(
                name=TOPIC, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=2)]
            )
        ],
    )
    assert (await coordinator.handle_commit_offsets(request, 8)).topics[0].partitions[
        0
    ].error_code == Errors.UNKNOWN_MEMBER_ID
    request.group_id = "unknown"
    assert (await coordinator.handle_commit_offsets(request, 8)).topics[0].partitions[
        0
    ].error_code == Errors.ILLEGAL_GENERATION


async def test_a_static_member_that_does_not_rejoin_stays_and_a_joined_member_leads(coordinator):
    static = await stable_member(coordinator, "g", instance_id="instance-1")
    newcomer = asyncio.ensure_future(join(coordinator, join_request("g", instance_id="instance-2")))
    for _ in range(5):
        await asyncio.sleep(0)
    coordinator.time.advance(5_000)  # the rebalance timeout: instance-1 never rejoined
    answer = await asyncio.wait_for(newcomer, 1)
    assert (answer.error_code, answer.generation_id, answer.leader) == (Errors.NONE, 2, answer.member_id)
    assert sorted(m.member_id for m in answer.members) == sorted([static.member_id, answer.member_id])


def _commit_request(group_id: str, generation_id: int, member_id: str) -> OffsetCommitRequest:
    return OffsetCommitRequest(
        group_id=group_id,
        generation_id=generation_id,
        member_id=member_id,
        topics=[
            OffsetCommitRequestTopic(
                name=TOPIC, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=1)]
            )
        ],
    )


async def test_a_commit_with_a_generation_to_a_group_that_does_not_exist_is_group_id_not_found_from_v9(
    coordinator,
):
    # Kafka's OffsetMetadataManager.validateOffsetCommit keeps ILLEGAL_GENERATION for the older versions
    request = _commit_request("no-such-group", 3, "client-x")
    assert partition_errors(await coordinator.handle_commit_offsets(request, 8)) == [
        Errors.ILLEGAL_GENERATION
    ]
    assert partition_errors(await coordinator.handle_commit_offsets(request, 9)) == [
        Errors.GROUP_ID_NOT_FOUND
    ]
    assert partition_errors(await coordinator.handle_commit_offsets(request, 10)) == [
        Errors.GROUP_ID_NOT_FOUND
    ]
    # a group of offsets alone exists (Kafka's simple classic group) and has no such member
    assert await commit(coordinator, "offsets-only", {0: 5}) == [Errors.NONE]
    request = _commit_request("offsets-only", 3, "client-x")
    assert partition_errors(await coordinator.handle_commit_offsets(request, 9)) == [Errors.UNKNOWN_MEMBER_ID]


async def test_a_classic_groups_commit_at_v9_takes_the_generation_as_generation_id_or_member_epoch(
    coordinator,
):
    member = await stable_member(coordinator, "g")
    wrong = _commit_request("g", member.generation_id + 1, member.member_id)
    assert partition_errors(await coordinator.handle_commit_offsets(wrong, 9)) == [Errors.ILLEGAL_GENERATION]
    right = _commit_request("g", member.generation_id, member.member_id)
    assert partition_errors(await coordinator.handle_commit_offsets(right, 9)) == [Errors.NONE]


async def test_offset_fetch_of_a_classic_group_checks_no_member_id_nor_member_epoch(coordinator):
    # Kafka's ClassicGroup.validateOffsetFetch ignores the KIP-848 fields (OffsetFetch v9+)
    await stable_member(coordinator, "g")
    assert await commit(coordinator, "g", {0: 7}) == [Errors.UNKNOWN_MEMBER_ID]  # a member is in the group
    member_commit = await coordinator.handle_commit_offsets(
        _commit_request("g", 1, coordinator.group("g").leader_id), 9
    )
    assert partition_errors(member_commit) == [Errors.NONE]
    for member_id, member_epoch in ((None, -1), ("nobody", 42), ("", 0)):
        answer = coordinator.handle_fetch_offsets(
            OffsetFetchRequestGroup(
                group_id="g",
                member_id=member_id,
                member_epoch=member_epoch,
                topics=[OffsetFetchRequestTopics(name=TOPIC, partition_indexes=[0])],
            )
        )
        assert answer.error_code == Errors.NONE
        assert [(p.committed_offset, p.error_code) for t in answer.topics for p in t.partitions] == [
            (1, Errors.NONE)
        ]


async def test_a_new_group_waits_the_whole_initial_rebalance_delay_even_past_its_rebalance_timeout():
    """Kafka's ``prepareRebalance`` waits ``group.initial.rebalance.delay.ms`` in full for a new group's
    first join, whatever the members' rebalance timeout (here 1000 ms under a 3000 ms delay)."""
    time = MockTime()
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=3_000,
        scheduler=KafkaScheduler(time=time),
    )
    try:
        request = join_request("g", instance_id="i")
        request.rebalance_timeout_ms = 1_000
        task = asyncio.ensure_future(coordinator.handle_join_group(request, "client", "/127.0.0.1"))
        for step in (1_000, 1_000):
            for _ in range(5):
                await asyncio.sleep(0)
                time.advance(step if _ == 0 else 0)
        assert not task.done()  # 2000 ms: past the rebalance timeout, inside the delay
        for _ in range(5):
            await asyncio.sleep(0)
            time.advance(1_000 if _ == 0 else 0)
        answer = await asyncio.wait_for(task, 1)
        assert (answer.error_code, answer.generation_id) == (Errors.NONE, 1)
    finally:
        await coordinator.stop()
