"""Builders for the server-side assignor tests: a topic describer, group specs, Kafka's test topic ids,
and the validity checks every assignment must pass."""

from __future__ import annotations

import base64
from collections.abc import Mapping

from kafkette.broker.group.assignors.api import (
    Assignment,
    GroupAssignment,
    GroupSpec,
    MemberSubscription,
    SubscriptionType,
    TopicId,
)

HOMOGENEOUS = SubscriptionType.HOMOGENEOUS
HETEROGENEOUS = SubscriptionType.HETEROGENEOUS


def kafka_uuid(text: str) -> TopicId:
    """The 16 bytes of Kafka's ``Uuid.fromString`` (URL-safe base64, no padding)."""
    return base64.urlsafe_b64decode(text + "==")


# the topic ids of Kafka's uniform assignor tests (their order matters to the heterogeneous builder)
T1 = kafka_uuid("T1-A4s3VTwiI5CTbEp6POw")
T2 = kafka_uuid("T2-B4s3VTwiI5YHbPp6YUe")
T3 = kafka_uuid("T3-CU8fVTLCz5YMkLoDQsa")
T4 = kafka_uuid("T4-Tw9fVTLCz5HbPp6YQsa")


class FakeTopicDescriber:
    """A ``SubscribedTopicDescriber`` over ``{topic_id: partition count}``; every partition on rack
    ``rack-<partition % 3>`` when ``racks`` is set (the assignors must not care)."""

    def __init__(self, partition_counts: Mapping[TopicId, int], racks: bool = False) -> None:
        self.partition_counts = dict(partition_counts)
        self.racks = racks

    def number_of_partitions(self, topic_id: TopicId) -> int:
        return self.partition_counts.get(topic_id, -1)

    def racks_for_partition(self, topic_id: TopicId, partition: int) -> frozenset[str]:
        return frozenset({f"rack-{partition % 3}"}) if self.racks else frozenset()


def member(
    *topics: TopicId,
    assigned: Mapping[TopicId, set[int] | frozenset[int] | range] | None = None,
    instance_id: str | None = None,
    rack_id: str | None = None,
) -> MemberSubscription:
    """A member subscribed to ``topics`` whose current target is ``assigned``."""
    return MemberSubscription(
        rack_id=rack_id,
        instance_id=instance_id,
        subscribed_topic_ids=frozenset(topics),
        assigned_partitions={topic: frozenset(parts) for topic, parts in (assigned or {}).items()},
    )


def group_spec(members: Mapping[str, MemberSubscription], subscription_type: SubscriptionType) -> GroupSpec:
    """A ``GroupSpec`` whose inverted assignment is computed from the members' current targets."""
    inverted = {
        (topic, partition): member_id
        for member_id, subscription in members.items()
        for topic, partitions in subscription.assigned_partitions.items()
        for partition in partitions
    }
    return GroupSpec(members=dict(members), subscription_type=subscription_type, inverted_assignment=inverted)


def with_targets(spec: GroupSpec, result: GroupAssignment, order: list[str] | None = None) -> GroupSpec:
    """``spec`` with ``result`` as every member's current target, members in ``order`` if given."""
    members = {
        member_id: MemberSubscription(
            rack_id=spec.members[member_id].rack_id,
            instance_id=spec.members[member_id].instance_id,
            subscribed_topic_ids=spec.members[member_id].subscribed_topic_ids,
            assigned_partitions=result.members[member_id],
        )
        for member_id in (order or list(spec.members))
    }
    return group_spec(members, spec.subscription_type)


def plain(result: GroupAssignment) -> dict[str, dict[TopicId, set[int]]]:
    """The assignment as plain sets, empty topics dropped, for equality checks."""
    return {
        member_id: {topic: set(parts) for topic, parts in assignment.items() if parts}
        for member_id, assignment in result.members.items()
    }


def size(assignment: Assignment) -> int:
    return sum(len(parts) for parts in assignment.values())


def check_valid(spec: GroupSpec, topics: FakeTopicDescriber, result: GroupAssignment) -> None:
    """Every partition of every subscribed topic is assigned exactly once, only to a subscriber, and
    nothing of a topic no member subscribes to (or that does not exist) is assigned."""
    assert set(result.members) == set(spec.members)
    owners: dict[tuple[TopicId, int], str] = {}
    for member_id, assignment in result.members.items():
        for topic, partitions in assignment.items():
            assert topic in spec.members[member_id].subscribed_topic_ids, (member_id, topic)
            for partition in partitions:
                assert 0 <= partition < topics.number_of_partitions(topic), (topic, partition)
                assert (topic, partition) not in owners, (topic, partition, owners.get((topic, partition)))
                owners[(topic, partition)] = member_id
    subscribed = {
        topic for subscription in spec.members.values() for topic in subscription.subscribed_topic_ids
    }
    expected = {(topic, p) for topic in subscribed for p in range(topics.number_of_partitions(topic))}
    assert set(owners) == expected


def check_balanced(result: GroupAssignment) -> None:
    """Member sizes differ by at most one."""
    sizes = [size(assignment) for assignment in result.members.values()]
    assert max(sizes) - min(sizes) <= 1, sizes
