"""Computes a consumer group's next target assignment with a server-side assignor (KIP-848).

Owns: building the assignor's ``GroupSpec`` from the group's members (with the member this heartbeat adds,
updates or replaces), their subscribed topic ids and current targets; running the assignor; and telling
which members' targets changed, so the coordinator writes one TargetAssignmentMember record per changed
member then one TargetAssignmentMetadata record (epoch, now).  Also the assignment-interval rule (KIP-1263).
Does not own any assignment strategy (``assignors``), records, nor when a new target is due (the
coordinator: assignment epoch < group epoch).

A static member replacing another under a new member id starts from the previous member's target; the
previous member is removed with ``remove_member``.  A member's subscription is its names plus its regex's
resolved topics, reduced to the topics that exist.

Kafka concept: ``modern/TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder`` and
``GroupMetadataManager.canComputeNextTargetAssignment``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kafkette.broker.group.assignors.api import (
    Assignment,
    ConsumerGroupPartitionAssignor,
    GroupSpec,
    MemberSubscription,
    SubscribedTopicDescriber,
    SubscriptionType,
    TopicId,
)
from kafkette.broker.group.consumer_group_member import (
    EMPTY_ASSIGNMENT,
    ConsumerGroupMember,
    plain_assignment,
    subscribed_topic_names,
    topic_ids,
)


def can_compute_next_target_assignment(
    assignment_timestamp_ms: int, assignment_interval_ms: int, now_ms: int
) -> bool:
    """Whether a new target may be computed now (``group.consumer.assignment.interval.ms``, KIP-1263).

    True when there is no previous target or its time is unknown (timestamp 0), when the interval is 0
    (an escape hatch for a clock stepping back), or once ``now_ms >= timestamp + interval``.
    """
    if assignment_timestamp_ms == 0 or assignment_interval_ms == 0:
        return True
    return now_ms >= assignment_timestamp_ms + assignment_interval_ms


@dataclass(frozen=True)
class TargetAssignmentResult:
    """The new target.

    Attributes:
        target_assignment: member id -> its new target, for every member given to the assignor.
        changed_members: member id -> new target for each member whose target differs from (or was absent
            in) the current targets, in member order: one TargetAssignmentMember record each.
        assignment_epoch: the group epoch the target is for (the TargetAssignmentMetadata record's epoch).
    """

    target_assignment: dict[str, dict[TopicId, frozenset[int]]]
    changed_members: dict[str, dict[TopicId, frozenset[int]]]
    assignment_epoch: int


class TargetAssignmentBuilder:
    """Builds a consumer group's next target (Kafka's ``ConsumerTargetAssignmentBuilder``).

    Args:
        group_epoch: the epoch the new target is for.
        assignor: the group's preferred server-side assignor.
        members: the group's members, in group order.
        static_members: instance id -> member id.
        subscription_type: the group's subscription type after this step.
        target_assignment: member id -> current target.
        inverted_target_assignment: ``(topic_id, partition)`` -> member id in the current target.
        topics: describes the subscribed topics to the assignor.
        topic_id_of: topic name -> id, None when the topic does not exist.
        resolved_regexes: regex -> the topic names it resolved to.
    """

    def __init__(
        self,
        group_epoch: int,
        assignor: ConsumerGroupPartitionAssignor,
        *,
        members: Mapping[str, ConsumerGroupMember],
        static_members: Mapping[str, str],
        subscription_type: SubscriptionType,
        target_assignment: Mapping[str, Assignment],
        inverted_target_assignment: Mapping[tuple[TopicId, int], str],
        topics: SubscribedTopicDescriber,
        topic_id_of: Callable[[str], TopicId | None],
        resolved_regexes: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._group_epoch = group_epoch
        self._assignor = assignor
        self._members = members
        self._static_members = static_members
        self._subscription_type = subscription_type
        self._target_assignment = target_assignment
        self._inverted = inverted_target_assignment
        self._topics = topics
        self._topic_id_of = topic_id_of
        self._resolved_regexes = resolved_regexes or {}
        self._updated: dict[str, ConsumerGroupMember | None] = {}

    def add_or_update_member(self, member: ConsumerGroupMember) -> TargetAssignmentBuilder:
        """Assign for ``member`` as given here rather than as the group holds it (or add it)."""
        self._updated[member.member_id] = member
        return self

    def remove_member(self, member_id: str) -> TargetAssignmentBuilder:
        """Leave ``member_id`` out of the assignment (a fenced member, or a replaced static member)."""
        self._updated[member_id] = None
        return self

    def _subscription(self, member: ConsumerGroupMember, current: Assignment) -> MemberSubscription:
        names = subscribed_topic_names(member, self._resolved_regexes)
        return MemberSubscription(
            rack_id=member.rack_id,
            instance_id=member.instance_id,
            subscribed_topic_ids=topic_ids(names, self._topic_id_of),
            assigned_partitions=current,
        )

    def build(self) -> TargetAssignmentResult:
        """Run the assignor over the members and compare with the current targets.

        Raises:
            PartitionAssignorError: the assignor failed (Kafka answers UNKNOWN_SERVER_ERROR
                "Failed to compute a new target assignment for epoch N: ..." and keeps the old target).
        """
        specs: dict[str, MemberSubscription] = {
            member_id: self._subscription(member, self._target_assignment.get(member_id, EMPTY_ASSIGNMENT))
            for member_id, member in self._members.items()
        }
        for member_id, member in self._updated.items():
            if member is None:
                specs.pop(member_id, None)
                continue
            current = self._target_assignment.get(member_id, EMPTY_ASSIGNMENT)
            if member.instance_id is not None:
                previous = self._static_members.get(member.instance_id)
                if previous is not None and previous != member_id:
                    current = self._target_assignment.get(previous, EMPTY_ASSIGNMENT)
            specs[member_id] = self._subscription(member, current)

        group_spec = GroupSpec(
            members=specs, subscription_type=self._subscription_type, inverted_assignment=self._inverted
        )
        assignment = self._assignor.assign(group_spec, self._topics)

        targets: dict[str, dict[TopicId, frozenset[int]]] = {}
        changed: dict[str, dict[TopicId, frozenset[int]]] = {}
        for member_id in specs:
            new = plain_assignment(assignment.members.get(member_id, EMPTY_ASSIGNMENT))
            targets[member_id] = new
            old = self._target_assignment.get(member_id)
            if old is None or plain_assignment(old) != new:
                changed[member_id] = new
        return TargetAssignmentResult(targets, changed, self._group_epoch)
