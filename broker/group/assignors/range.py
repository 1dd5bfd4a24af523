"""The ``range`` server-side assignor of consumer groups (KIP-848).

Owns: contiguous per-topic ranges over the members in a fixed order (static members first by
``group.instance.id``, then the others by member id), so that members subscribed to topics of equal
partition counts get the same partition numbers of each (co-partitioning, for joins).  Does not own
which assignor a group uses.  It is deterministic and not sticky beyond that order: the current
target is not read.

Kafka concept: ``org.apache.kafka.coordinator.group.assignor.RangeAssignor``.
"""

from __future__ import annotations

from kafkette.broker.group.assignors.api import (
    Assignment,
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    SubscribedTopicDescriber,
    SubscriptionType,
    TopicId,
)


def _java_string_key(text: str) -> bytes:
    """Sorts as Java's ``String.compareTo`` (UTF-16 code units, unsigned): the UTF-16BE bytes."""
    return text.encode("utf-16-be", "surrogatepass")


def sorted_member_ids(group_spec: GroupSpec) -> list[str]:
    """The members in the range assignor's order (Kafka's ``RangeAssignor.sortMemberIds``): static
    members first, by instance id, then dynamic members by member id (Java string order)."""

    def key(member_id: str) -> tuple[int, bytes]:
        instance_id = group_spec.members[member_id].instance_id
        if instance_id is not None:
            return 0, _java_string_key(instance_id)
        return 1, _java_string_key(member_id)

    return sorted(group_spec.members, key=key)


class _TopicRanges:
    """One topic's partitions handed out as consecutive ranges (Kafka's ``RangeAssignor.TopicMetadata``):
    each subscriber takes ``partitions // subscribers``, the first ``partitions % subscribers`` one more."""

    def __init__(self, partition_count: int) -> None:
        self.partition_count = partition_count
        self.subscriber_count = 0
        self._min_quota = -1
        self._extra_partitions = -1
        self._next_start = 0

    def next_range(self) -> range:
        """The next subscriber's range (possibly empty)."""
        if self._min_quota == -1:
            self._min_quota, self._extra_partitions = divmod(self.partition_count, self.subscriber_count)
        quota = self._min_quota
        if self._extra_partitions > 0:
            quota += 1
            self._extra_partitions -= 1
        start = self._next_start
        end = min(start + quota, self.partition_count)
        self._next_start = end
        return range(start, end)


def _existing(topics: SubscribedTopicDescriber, topic_id: TopicId) -> _TopicRanges:
    count = topics.number_of_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorError("Member is subscribed to a non-existent topic")
    return _TopicRanges(count)


class RangeAssignor:
    """Contiguous ranges per topic (Kafka's ``RangeAssignor``, name ``range``).

    HOMOGENEOUS: every member, in ``sorted_member_ids`` order, takes the next range of every
    subscribed topic, the topics counting all members.  HETEROGENEOUS: the same per topic over the
    topic's subscribers only.  Example: members M0, M1 and topics T1, T2 of 3 partitions each give
    M0 = {T1: 0-1, T2: 0-1}, M1 = {T1: 2, T2: 2}.
    """

    name = "range"

    def assign(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> GroupAssignment:
        """Compute the next target assignment.

        Returns:
            Member id -> ``{topic_id: frozenset(partitions)}`` for every member; a topic of which a
            member gets nothing is left out.

        Raises:
            PartitionAssignorError: a member subscribes to a topic that does not exist.
        """
        if not group_spec.members:
            return GroupAssignment({})
        member_ids = sorted_member_ids(group_spec)
        ranges: dict[TopicId, _TopicRanges] = {}
        if group_spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            # every member subscribes to the first member's topics
            for topic_id in group_spec.members[member_ids[0]].subscribed_topic_ids:
                ranges[topic_id] = _existing(topics, topic_id)
                ranges[topic_id].subscriber_count = len(member_ids)
            subscriptions = {member_id: list(ranges) for member_id in member_ids}
        else:
            subscriptions = {}
            for member_id in member_ids:
                subscribed = list(group_spec.members[member_id].subscribed_topic_ids)
                for topic_id in subscribed:
                    if topic_id not in ranges:
                        ranges[topic_id] = _existing(topics, topic_id)
                    ranges[topic_id].subscriber_count += 1
                subscriptions[member_id] = subscribed
        members: dict[str, Assignment] = {}
        for member_id in member_ids:
            assignment: dict[TopicId, frozenset[int]] = {}
            for topic_id in subscriptions[member_id]:
                partitions = ranges[topic_id].next_range()
                if partitions:
                    assignment[topic_id] = frozenset(partitions)
            members[member_id] = assignment
        return GroupAssignment(members)
