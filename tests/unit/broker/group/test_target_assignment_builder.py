"""TargetAssignmentBuilder: the assignor's inputs (members, subscriptions, current targets, static
replacement) and which members' targets changed, after Kafka's TargetAssignmentBuilderTest; and the
assignment-interval rule of KIP-1263."""

from __future__ import annotations

import pytest

from kafkette.broker.group.assignors.api import (
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    SubscribedTopicDescriber,
    SubscriptionType,
)
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember, MemberState
from kafkette.broker.group.current_assignment_builder import CurrentAssignmentBuilder
from kafkette.broker.group.target_assignment_builder import (
    TargetAssignmentBuilder,
    can_compute_next_target_assignment,
)

T1 = bytes(15) + b"\x01"
T2 = bytes(15) + b"\x02"
TOPICS = {"foo": T1, "bar": T2}
PARTITIONS = {T1: 6, T2: 6}


class Topics:
    def number_of_partitions(self, topic_id: bytes) -> int:
        return PARTITIONS.get(topic_id, -1)

    def racks_for_partition(self, topic_id: bytes, partition: int) -> frozenset[str]:
        return frozenset()


class RoundRobinAssignor:
    """Deterministic: per topic, partitions dealt in order to its subscribers sorted by member id."""

    name = "round-robin"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.spec: GroupSpec | None = None

    def assign(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> GroupAssignment:
        self.spec = group_spec
        if self.fail:
            raise PartitionAssignorError("no")
        result: dict[str, dict[bytes, set[int]]] = {member_id: {} for member_id in group_spec.members}
        all_topics = sorted({t for m in group_spec.members.values() for t in m.subscribed_topic_ids})
        for topic_id in all_topics:
            subscribers = sorted(
                m for m, s in group_spec.members.items() if topic_id in s.subscribed_topic_ids
            )
            for partition in range(topics.number_of_partitions(topic_id)):
                owner = subscribers[partition % len(subscribers)]
                result[owner].setdefault(topic_id, set()).add(partition)
        return GroupAssignment(
            {m: {t: frozenset(p) for t, p in parts.items()} for m, parts in result.items()}
        )


def member(member_id: str, *topics: str, **kw) -> ConsumerGroupMember:
    return ConsumerGroupMember(member_id, member_epoch=10, subscribed_topic_names=frozenset(topics), **kw)


def builder(group: ConsumerGroup, assignor: RoundRobinAssignor, epoch: int = 20) -> TargetAssignmentBuilder:
    return TargetAssignmentBuilder(
        epoch,
        assignor,
        members=group.members,
        static_members=group.static_members,
        subscription_type=group.subscription_type(),
        target_assignment=group.target_assignment,
        inverted_target_assignment=group.inverted_target_assignment,
        topics=Topics(),
        topic_id_of=TOPICS.get,
        resolved_regexes=group.resolved_regex_topics(),
    )


def two_member_group() -> ConsumerGroup:
    group = ConsumerGroup("g")
    group.update_member(member("m1", "foo", "bar"))
    group.update_member(member("m2", "foo", "bar"))
    group.set_target_assignment("m1", {T1: [0, 2, 4], T2: [0, 2, 4]})
    group.set_target_assignment("m2", {T1: [1, 3, 5], T2: [1, 3, 5]})
    return group


def test_empty_group() -> None:
    result = builder(ConsumerGroup("g"), RoundRobinAssignor()).build()
    assert (result.target_assignment, result.changed_members, result.assignment_epoch) == ({}, {}, 20)


def test_assignment_has_not_changed() -> None:
    assignor = RoundRobinAssignor()
    result = builder(two_member_group(), assignor).build()
    assert result.changed_members == {}
    assert result.target_assignment["m1"] == {T1: frozenset({0, 2, 4}), T2: frozenset({0, 2, 4})}
    spec = assignor.spec
    assert spec is not None and spec.subscription_type is SubscriptionType.HOMOGENEOUS
    assert spec.members["m1"].subscribed_topic_ids == {T1, T2}
    assert spec.members["m1"].assigned_partitions == {T1: frozenset({0, 2, 4}), T2: frozenset({0, 2, 4})}
    assert spec.inverted_assignment[(T1, 5)] == "m2"


def test_assignment_swapped() -> None:
    group = two_member_group()
    group.set_target_assignment("m1", {T1: [1, 3, 5], T2: [1, 3, 5]})
    group.set_target_assignment("m2", {T1: [0, 2, 4], T2: [0, 2, 4]})
    result = builder(group, RoundRobinAssignor()).build()
    assert list(result.changed_members) == ["m1", "m2"]


def test_new_member_gets_a_record_even_with_an_empty_target() -> None:
    group = two_member_group()
    new = member("m3", "baz")  # subscribes to a topic that does not exist
    assignor = RoundRobinAssignor()
    result = builder(group, assignor).add_or_update_member(new).build()
    assert list(assignor.spec.members) == ["m1", "m2", "m3"]  # type: ignore[union-attr]
    assert assignor.spec.members["m3"].subscribed_topic_ids == frozenset()  # type: ignore[union-attr]
    assert result.changed_members == {"m3": {}}


def test_new_member_rebalances_everyone() -> None:
    group = two_member_group()
    result = builder(group, RoundRobinAssignor()).add_or_update_member(member("m3", "foo", "bar")).build()
    assert result.changed_members == {
        "m1": {T1: frozenset({0, 3}), T2: frozenset({0, 3})},
        "m2": {T1: frozenset({1, 4}), T2: frozenset({1, 4})},
        "m3": {T1: frozenset({2, 5}), T2: frozenset({2, 5})},
    }


def test_updated_member_subscription_is_used() -> None:
    group = two_member_group()
    assignor = RoundRobinAssignor()
    result = builder(group, assignor).add_or_update_member(member("m2", "foo")).build()
    assert assignor.spec.members["m2"].subscribed_topic_ids == {T1}  # type: ignore[union-attr]
    assert result.target_assignment["m1"] == {T1: frozenset({0, 2, 4}), T2: frozenset(range(6))}
    assert result.target_assignment["m2"] == {T1: frozenset({1, 3, 5})}
    assert list(result.changed_members) == ["m1", "m2"]


def test_removed_member() -> None:
    group = two_member_group()
    assignor = RoundRobinAssignor()
    result = builder(group, assignor).remove_member("m2").build()
    assert list(assignor.spec.members) == ["m1"]  # type: ignore[union-attr]
    assert result.changed_members == {"m1": {T1: frozenset(range(6)), T2: frozenset(range(6))}}
    assert "m2" not in result.target_assignment


def test_static_member_replacement_inherits_the_previous_target() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", "foo", instance_id="i1"))
    group.update_member(member("m2", "foo"))
    group.set_target_assignment("m1", {T1: [0, 2, 4]})
    group.set_target_assignment("m2", {T1: [1, 3, 5]})
    assignor = RoundRobinAssignor()
    replacer = member("m0", "foo", instance_id="i1")
    result = builder(group, assignor).add_or_update_member(replacer).remove_member("m1").build()
    spec = assignor.spec
    assert list(spec.members) == ["m2", "m0"]  # type: ignore[union-attr]
    assert spec.members["m0"].assigned_partitions == {T1: frozenset({0, 2, 4})}  # type: ignore[union-attr]
    assert spec.members["m0"].instance_id == "i1"  # type: ignore[union-attr]
    # m0 is new, so it gets a record even though it keeps m1's partitions; m2 is unchanged.
    assert result.changed_members == {"m0": {T1: frozenset({0, 2, 4})}}


def test_regex_subscription_is_resolved() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", subscribed_topic_regex="b.*"))
    group.set_resolved_regex("b.*", ["bar", "baz"], 1, 1)
    assignor = RoundRobinAssignor()
    result = builder(group, assignor).build()
    assert assignor.spec.members["m1"].subscribed_topic_ids == {T2}  # type: ignore[union-attr]
    assert result.changed_members == {"m1": {T2: frozenset(range(6))}}


def test_assignor_failure_propagates() -> None:
    with pytest.raises(PartitionAssignorError):
        builder(two_member_group(), RoundRobinAssignor(fail=True)).build()


@pytest.mark.parametrize(
    ("timestamp", "interval", "now", "expected"),
    [
        (0, 1000, 5, True),  # no previous target, or its time is unknown
        (5000, 0, 5001, True),  # interval 0: always
        (5000, 0, 1, True),  # even if the clock went back
        (5000, 1000, 5999, False),
        (5000, 1000, 6000, True),
        (5000, 1000, 4000, False),
    ],
)
def test_can_compute_next_target_assignment(timestamp: int, interval: int, now: int, expected: bool) -> None:
    assert can_compute_next_target_assignment(timestamp, interval, now) is expected


def test_a_join_step_applied_through_the_mutators() -> None:
    """What the coordinator does for a second member joining: bump, new target, records applied, then
    each member reconciles with CurrentAssignmentBuilder; the old owner must revoke first."""
    group = ConsumerGroup("g")
    group.update_member(
        member("m1", "foo").replace(member_epoch=2, assigned_partitions={T1: dict.fromkeys(range(6), 2)})
    )
    group.set_target_assignment("m1", {T1: range(6)})
    group.set_group_epoch(2, 0)
    group.set_target_assignment_metadata(2, 1000)
    assert group.state().value == "Stable"

    joiner = member("m2", "foo").replace(member_epoch=0)
    group.update_member(joiner)
    group.set_group_epoch(3, 0)
    assert group.state().value == "Assigning"
    assert not can_compute_next_target_assignment(group.assignment_timestamp_ms, 1000, 1500)
    result = builder(group, RoundRobinAssignor(), epoch=3).add_or_update_member(joiner).build()
    for member_id, target in result.changed_members.items():
        group.set_target_assignment(member_id, target)
    group.set_target_assignment_metadata(result.assignment_epoch, 2000)
    assert group.state().value == "Reconciling"

    def reconcile(member_id: str, owned) -> ConsumerGroupMember:
        updated = CurrentAssignmentBuilder(
            group.members[member_id],
            target_assignment_epoch=group.assignment_epoch,
            target_assignment=group.target_assignment[member_id],
            current_partition_epoch=group.current_partition_epoch,
            topic_id_of=TOPICS.get,
            owned_topic_partitions=owned,
        ).build()
        group.update_member(updated)
        return updated

    m2 = reconcile("m2", [])
    assert (m2.state, m2.member_epoch, m2.assigned_partitions) == (MemberState.UNRELEASED_PARTITIONS, 3, {})
    m1 = reconcile("m1", [(T1, list(range(6)))])
    assert (m1.state, m1.member_epoch) == (MemberState.UNREVOKED_PARTITIONS, 2)
    m1 = reconcile("m1", [(T1, [0, 2, 4])])
    assert (m1.state, m1.member_epoch, m1.assigned_partitions) == (
        MemberState.STABLE,
        3,
        {T1: {0: 2, 2: 2, 4: 2}},
    )
    m2 = reconcile("m2", [])
    assert (m2.state, m2.assigned_partitions) == (MemberState.STABLE, {T1: {1: 3, 3: 3, 5: 3}})
    assert group.state().value == "Stable"
