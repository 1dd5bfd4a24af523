"""The ``uniform`` assignor for a group whose members subscribe to different topics.

Owns: the sticky, balancing assignment of a HETEROGENEOUS group (keep what each member still
subscribes to, give the unowned partitions to the least-loaded subscribers, then move partitions from
the most- to the least-loaded subscribers of each topic), and the topic id order every uniform builder
sorts by (Kafka's ``Uuid.compareTo``).  Does not own the choice of builder (``uniform.py``) nor the
homogeneous case (``uniform_homogeneous.py``).

Placement is fully determined by the order of ``GroupSpec.members`` (a member's index breaks ties)
and by the topic ids, exactly as Kafka's builder is by ``GroupSpec.memberIds()``; it reads no rack.

Kafka concept: ``org.apache.kafka.coordinator.group.assignor.UniformHeterogeneousAssignmentBuilder``
(with its inner ``MemberAssignmentBalancer``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from kafkette.broker.group.assignors.api import (
    Assignment,
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    SubscribedTopicDescriber,
    TopicId,
)

MAX_ITERATION_COUNT = 16
"""Passes over the topics the final balancing phase makes at most (Kafka's ``MAX_ITERATION_COUNT``):
overlapping, non-identical subscriptions converge slowly, each pass roughly halving the imbalance."""


def topic_id_sort_key(topic_id: TopicId) -> tuple[int, int]:
    """The key that sorts topic ids as Kafka's ``Uuid.compareTo`` does: the most significant 8 bytes,
    then the least significant 8, each a signed big-endian 64-bit integer."""
    return int.from_bytes(topic_id[:8], "big", signed=True), int.from_bytes(topic_id[8:], "big", signed=True)


def existing_partition_count(topics: SubscribedTopicDescriber, topic_id: TopicId) -> int:
    """``topic_id``'s partition count.

    Raises:
        PartitionAssignorError: the topic does not exist (the describer answers -1), Kafka's
            "Members are subscribed to topic ... which doesn't exist in the topic metadata."
    """
    count = topics.number_of_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorError(
            f"Members are subscribed to topic {topic_id.hex()} which doesn't exist in the topic metadata."
        )
    return count


class _MemberAssignmentBalancer:
    """Picks the least- and most-loaded members of one topic's subscribers (Kafka's
    ``MemberAssignmentBalancer``).

    ``sorted_members`` holds member indexes by (assigned partition count, index).  The least-loaded
    range ``[0, least_end)`` grows rightwards and the most-loaded range ``[most_start, most_end)``
    leftwards, each handing out its members round-robin before its level moves by one; the members
    are balanced once the two levels differ by at most one.  ``sizes`` is the builder's live count
    array, which the caller updates as partitions move.
    """

    def __init__(self, sizes: list[int]) -> None:
        self._sizes = sizes
        self._sorted_members: list[int] = []
        self._least_end = 0
        self._least_level = -1
        self._next_least = 0
        self._most_start = 0
        self._most_end = 0
        self._most_level = 1
        self._next_most = -1

    def initialize(self, members: list[int]) -> int:
        """Reset for ``members`` (non-empty) and return the spread between the most- and least-loaded."""
        if not members:
            raise ValueError("Cannot balance an empty subscriber list.")
        sizes = self._sizes
        self._sorted_members = sorted(members, key=lambda index: (sizes[index], index))
        first, last = self._sorted_members[0], self._sorted_members[-1]
        self._least_end = 0
        self._least_level = sizes[first] - 1
        self._next_least = 0
        self._most_start = len(self._sorted_members)
        self._most_end = len(self._sorted_members)
        self._most_level = sizes[last] + 1
        self._next_most = len(self._sorted_members) - 1
        return sizes[last] - sizes[first]

    def next_least_loaded_member(self) -> int:
        """The member to give the next partition to, assuming it is given one."""
        members, sizes = self._sorted_members, self._sizes
        if self._next_least >= self._least_end:
            # every member of the range got one: raise its level and take in the members now level with it
            self._least_level += 1
            while self._least_end < len(members) and sizes[members[self._least_end]] == self._least_level:
                self._least_end += 1
            self._next_least = 0
        member = members[self._next_least]
        self._next_least += 1
        return member

    def next_most_loaded_member(self) -> int:
        """The member to take the next partition from, assuming one is taken; -1 when none is left."""
        members, sizes = self._sorted_members, self._sizes
        if self._next_most < self._most_start:
            if self._most_end <= self._most_start and self._most_start > 0:
                # the range was emptied by exclusions: restart from the next member down so it grows
                self._most_level = sizes[members[self._most_start - 1]]
            else:
                self._most_level -= 1
            while self._most_start > 0 and sizes[members[self._most_start - 1]] == self._most_level:
                self._most_start -= 1
            self._next_most = self._most_end - 1
        if self._next_most < 0:
            return -1
        member = members[self._next_most]
        self._next_most -= 1
        return member

    def exclude_most_loaded_member(self) -> None:
        """Drop the member ``next_most_loaded_member`` last returned from the most-loaded range (it has
        no partition of the topic to give up)."""
        members = self._sorted_members
        position = self._next_most + 1
        members[position], members[self._most_end - 1] = members[self._most_end - 1], members[position]
        self._most_end -= 1

    def is_balanced(self) -> bool:
        """Whether the most- and least-loaded levels differ by at most one."""
        return self._most_level - self._least_level <= 1


class UniformHeterogeneousAssignmentBuilder:
    """Computes one HETEROGENEOUS target (Kafka's ``UniformHeterogeneousAssignmentBuilder``).

    Priorities: balance, then stickiness.  Steps: (1) each member keeps its current target's
    partitions of topics it still subscribes to; (2) the unowned partitions go, topic by topic in
    ``_sorted_topics`` order, to the topic's least-loaded subscribers; (3) up to
    ``MAX_ITERATION_COUNT`` passes over the topics with two or more subscribers move partitions from
    their most- to their least-loaded subscribers until the counts differ by at most one (a giver
    loses the highest partition of its run in the topic's owner-sorted partition list).  A member
    whose assignment does not change gets its current target mapping back, the same object.
    """

    def __init__(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> None:
        """Number the members and collect each subscribed topic's subscribers.

        Raises:
            PartitionAssignorError: a member subscribes to a topic that does not exist.
        """
        self._group_spec = group_spec
        self._topics = topics
        self._member_ids = list(group_spec.members)
        self._partition_counts: dict[TopicId, int] = {}
        self._topic_subscribers: dict[TopicId, list[int]] = {}
        for index, member_id in enumerate(self._member_ids):
            for topic_id in group_spec.members[member_id].subscribed_topic_ids:
                if topic_id not in self._partition_counts:
                    self._partition_counts[topic_id] = existing_partition_count(topics, topic_id)
                self._topic_subscribers.setdefault(topic_id, []).append(index)
        self._sizes = [0] * len(self._member_ids)
        self._owners = {topic_id: [-1] * count for topic_id, count in self._partition_counts.items()}
        # member index -> its current target, until the member's assignment changes and is copied
        self._unchanged: list[Assignment] = []
        self._copies: dict[int, dict[TopicId, set[int]]] = {}

    def build(self) -> GroupAssignment:
        """The new target: member id -> ``{topic_id: frozenset(partitions)}``, every member present."""
        if not self._partition_counts:
            return GroupAssignment({member_id: {} for member_id in self._member_ids})
        self._keep_subscribed_partitions()
        self._assign_unowned_partitions()
        self._balance()
        members: dict[str, Assignment] = {}
        for index, member_id in enumerate(self._member_ids):
            copy = self._copies.get(index)
            if copy is None:
                members[member_id] = self._unchanged[index]
            else:
                members[member_id] = {topic_id: frozenset(parts) for topic_id, parts in copy.items() if parts}
        return GroupAssignment(members)

    def _sorted_topics(self, topic_ids: Iterable[TopicId]) -> list[TopicId]:
        """Topics by partitions per subscriber descending, then subscriber count ascending, then topic
        id (``Uuid.compareTo``)."""

        def key(topic_id: TopicId) -> tuple[Fraction, int, tuple[int, int]]:
            subscribers = len(self._topic_subscribers[topic_id])
            return (
                -Fraction(self._partition_counts[topic_id], subscribers),
                subscribers,
                topic_id_sort_key(topic_id),
            )

        return sorted(topic_ids, key=key)

    def _keep_subscribed_partitions(self) -> None:
        """Step 1: drop from each member's current target the topics it no longer subscribes to."""
        for index, member_id in enumerate(self._member_ids):
            member = self._group_spec.members[member_id]
            current = member.assigned_partitions
            kept: dict[TopicId, set[int]] | None = None
            for topic_id, partitions in current.items():
                owners = self._owners.get(topic_id) if topic_id in member.subscribed_topic_ids else None
                existing = [p for p in partitions if owners is not None and 0 <= p < len(owners)]
                if owners is not None and len(existing) == len(partitions):
                    for partition in partitions:
                        owners[partition] = index
                    self._sizes[index] += len(partitions)
                    continue
                if kept is None:
                    kept = {topic: set(parts) for topic, parts in current.items()}
                if owners is None:
                    del kept[topic_id]
                else:  # a partition the topic no longer has cannot be kept
                    kept[topic_id] = set(existing)
                    for partition in existing:
                        owners[partition] = index
                    self._sizes[index] += len(existing)
            self._unchanged.append(current)
            if kept is not None:
                self._copies[index] = kept

    def _assign_unowned_partitions(self) -> None:
        """Step 2: each unowned partition, topic by topic, to the topic's least-loaded subscriber."""
        unowned = {
            topic_id: [partition for partition, owner in enumerate(owners) if owner == -1]
            for topic_id, owners in self._owners.items()
        }
        balancer = _MemberAssignmentBalancer(self._sizes)
        for topic_id in self._sorted_topics(topic for topic, partitions in unowned.items() if partitions):
            balancer.initialize(self._topic_subscribers[topic_id])
            for partition in unowned[topic_id]:
                self._assign_partition(topic_id, partition, balancer.next_least_loaded_member())

    def _balance(self) -> None:
        """Step 3: rebalance the topics that two or more members subscribe to."""
        sorted_topics = self._sorted_topics(
            topic_id for topic_id, subscribers in self._topic_subscribers.items() if len(subscribers) >= 2
        )
        if not sorted_topics:
            return
        balancer = _MemberAssignmentBalancer(self._sizes)
        last_rebalanced_topic = -1
        for _ in range(MAX_ITERATION_COUNT):
            for topic_index, topic_id in enumerate(sorted_topics):
                if topic_index == last_rebalanced_topic:
                    # a whole pass since the last move: nothing more to improve
                    return
                moved = self._balance_topic(topic_id, balancer)
                if moved > 0 or last_rebalanced_topic == -1:
                    last_rebalanced_topic = topic_index

    def _balance_topic(self, topic_id: TopicId, balancer: _MemberAssignmentBalancer) -> int:
        """Move ``topic_id``'s partitions from its most- to its least-loaded subscribers until they
        differ by at most one or no giver is left; return how many partitions moved."""
        if balancer.initialize(self._topic_subscribers[topic_id]) <= 1:
            return 0
        owners = self._owners[topic_id]
        partitions = sorted(range(len(owners)), key=lambda partition: (owners[partition], partition))
        start: dict[int, int] = {}
        end: dict[int, int] = {}  # exclusive
        for position, partition in enumerate(partitions):
            start.setdefault(owners[partition], position)
            end[owners[partition]] = position + 1
        moved = 0
        while not balancer.is_balanced():
            giver = balancer.next_most_loaded_member()
            while giver != -1 and end.get(giver, 0) - start.get(giver, 0) <= 0:
                balancer.exclude_most_loaded_member()
                giver = balancer.next_most_loaded_member()
            if giver == -1:
                break
            end[giver] -= 1
            partition = partitions[end[giver]]
            taker = balancer.next_least_loaded_member()
            if balancer.is_balanced():
                break
            self._assign_partition(topic_id, partition, taker)
            moved += 1
        return moved

    def _assign_partition(self, topic_id: TopicId, partition: int, index: int) -> None:
        """Give ``partition`` of ``topic_id`` to member ``index``, taking it from its owner if any."""
        previous = self._owners[topic_id][partition]
        if previous != -1:
            assignment = self._mutable(previous)
            parts = assignment.get(topic_id)
            if parts is not None:
                parts.discard(partition)
                if not parts:
                    del assignment[topic_id]
            self._sizes[previous] -= 1
        self._mutable(index).setdefault(topic_id, set()).add(partition)
        self._owners[topic_id][partition] = index
        self._sizes[index] += 1

    def _mutable(self, index: int) -> dict[TopicId, set[int]]:
        """Member ``index``'s assignment as a dict of sets, copied from its current target on first use."""
        copy = self._copies.get(index)
        if copy is None:
            copy = {topic: set(parts) for topic, parts in self._unchanged[index].items()}
            self._copies[index] = copy
        return copy
