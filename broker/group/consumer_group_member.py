"""One member of a consumer group of the new protocol (KIP-848), as an immutable value.

Owns: ``MemberState`` (the reconciliation states and their record bytes), ``ConsumerGroupMember`` (the
member's identity, subscription, epochs and current assignment, changed only by building a new value), the
stamped-assignment helpers (KIP-1251: each assigned partition carries the epoch at which it was assigned),
and how a member's subscription resolves to topic names and ids.  Does not own the group's indexes
(``consumer_group.ConsumerGroup``) nor the reconciliation rules (``current_assignment_builder``).

A stamped assignment is ``{topic_id: {partition: assignment_epoch}}``; a plain assignment (the target) is
``{topic_id: frozenset(partitions)}`` (``assignors.api.Assignment``).

Kafka concept: ``modern/MemberState``, ``modern/ModernGroupMember``, ``modern/consumer/ConsumerGroupMember``
(its ``Builder``: ``updateMemberEpoch``, ``updateWith``, ``resetAssignedPartitionsEpochsToZero``) and
``Utils.assignmentFromTopicPartitions`` / ``toAssignmentWithEpochs``.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafkette.broker.group.assignors.api import Assignment, TopicId

StampedAssignment = Mapping[TopicId, Mapping[int, int]]
"""``{topic_id: {partition: assignment_epoch}}`` (KIP-1251)."""

LEAVE_GROUP_MEMBER_EPOCH = -1
"""The epoch of a member leaving (Kafka's ``LEAVE_GROUP_MEMBER_EPOCH``); a CurrentAssignment tombstone sets
it."""

LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
"""The epoch of a static member that left temporarily (``LEAVE_GROUP_STATIC_MEMBER_EPOCH``)."""


class MemberState(enum.IntEnum):
    """A member's reconciliation state; the value is the ``State`` byte of the CurrentAssignment record."""

    STABLE = 0
    UNREVOKED_PARTITIONS = 1
    UNRELEASED_PARTITIONS = 2
    UNKNOWN = 127

    @classmethod
    def from_value(cls, value: int) -> MemberState:
        """The state of a record's byte; an unknown byte is ``UNKNOWN`` (``MemberState.fromValue``)."""
        try:
            return cls(value)
        except ValueError:
            return cls.UNKNOWN


def _copy_stamped(assignment: StampedAssignment) -> dict[TopicId, dict[int, int]]:
    return {topic_id: dict(partitions) for topic_id, partitions in assignment.items() if partitions}


def with_epochs(assignment: Mapping[TopicId, Iterable[int]], epoch: int) -> dict[TopicId, dict[int, int]]:
    """Stamp every partition of a plain assignment with ``epoch`` (Kafka's ``Utils.toAssignmentWithEpochs``).

    Returns ``{topic_id: {partition: epoch}}``, topics with no partition left out.
    """
    return {topic_id: dict.fromkeys(parts, epoch) for topic_id, parts in assignment.items() if parts}


def assignment_from_topic_partitions(
    topic_partitions: Iterable[tuple[TopicId, list[int], list[int] | None]], default_epoch: int
) -> dict[TopicId, dict[int, int]]:
    """A CurrentAssignment record's partitions as a stamped assignment (Kafka's
    ``Utils.assignmentFromTopicPartitions``).

    Args:
        topic_partitions: ``(topic_id, partitions, assignment_epochs or None)`` per record entry.
        default_epoch: the record's member epoch; partitions without (or with a mismatched list of) epochs
            are stamped ``max(default_epoch, 0)`` (a -2 static member's partitions get 0).
    """
    fallback = max(default_epoch, 0)
    result: dict[TopicId, dict[int, int]] = {}
    for topic_id, partitions, epochs in topic_partitions:
        stamps = result.setdefault(topic_id, {})
        if epochs is not None and len(epochs) == len(partitions):
            stamps.update(zip(partitions, epochs, strict=True))
        else:
            stamps.update(dict.fromkeys(partitions, fallback))
    return {topic_id: stamps for topic_id, stamps in result.items() if stamps}


@dataclass(frozen=True, eq=True)
class ConsumerGroupMember:
    """A consumer group member (Kafka's ``ConsumerGroupMember``); never mutated, see ``replace``.

    Attributes:
        member_id: the member id (client-generated from heartbeat v1, KIP-1082).
        member_epoch: the epoch the member is at; -1 once its assignment record is tombstoned, -2 for a
            static member that left temporarily.
        previous_member_epoch: the epoch before the last ``update_member_epoch`` (-1 for a new member).
        state: the reconciliation state.
        instance_id: ``group.instance.id`` (static membership), None when dynamic.
        rack_id: ``client.rack``, None when unset.
        rebalance_timeout_ms: the time given to revoke partitions (ms); -1 until first set.
        client_id, client_host: from the request (the host as ``"/ip"``).
        subscribed_topic_names: the topics subscribed by name.
        subscribed_topic_regex: the subscribed regex, ``""`` for none (Kafka's default).
        server_assignor_name: the requested ``ServerAssignor``, None for the group's default.
        assigned_partitions: owned partitions, stamped with the epoch they were assigned at (KIP-1251).
        partitions_pending_revocation: partitions the member must still give up, stamped likewise.
        classic_member_metadata: the classic protocol's member data (session timeout, protocols) of a member
            using JoinGroup/SyncGroup inside a consumer group; opaque here, None for a consumer-protocol
            member.
    """

    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: frozenset[str] = frozenset()
    subscribed_topic_regex: str | None = ""
    server_assignor_name: str | None = None
    assigned_partitions: StampedAssignment = field(default_factory=dict)
    partitions_pending_revocation: StampedAssignment = field(default_factory=dict)
    classic_member_metadata: Any = None

    __hash__ = None  # type: ignore[assignment]  # holds dicts: a value compared by equality only

    def __post_init__(self) -> None:
        object.__setattr__(self, "subscribed_topic_names", frozenset(self.subscribed_topic_names))
        object.__setattr__(self, "assigned_partitions", _copy_stamped(self.assigned_partitions))
        object.__setattr__(
            self, "partitions_pending_revocation", _copy_stamped(self.partitions_pending_revocation)
        )

    def replace(self, **changes: Any) -> ConsumerGroupMember:
        """A copy with the given fields changed (Kafka's ``new ConsumerGroupMember.Builder(member)``)."""
        return dataclasses.replace(self, **changes)

    def with_member_id(self, member_id: str) -> ConsumerGroupMember:
        """A copy under another id (``Builder(member, newMemberId)``: a static replacement)."""
        return dataclasses.replace(self, member_id=member_id)

    def update_member_epoch(self, member_epoch: int, **changes: Any) -> ConsumerGroupMember:
        """A copy at ``member_epoch`` whose previous epoch is this member's epoch (``updateMemberEpoch``)."""
        return dataclasses.replace(
            self, member_epoch=member_epoch, previous_member_epoch=self.member_epoch, **changes
        )

    def reset_assigned_partitions_epochs_to_zero(self) -> ConsumerGroupMember:
        """A copy whose assigned partitions are stamped 0 (a static member's -2 leave, KIP-1251)."""
        return dataclasses.replace(
            self,
            assigned_partitions={t: dict.fromkeys(parts, 0) for t, parts in self.assigned_partitions.items()},
        )

    def update_with_metadata(
        self,
        *,
        instance_id: str | None,
        rack_id: str | None,
        client_id: str,
        client_host: str,
        subscribed_topic_names: Iterable[str],
        subscribed_topic_regex: str | None,
        rebalance_timeout_ms: int,
        server_assignor_name: str | None,
        classic_member_metadata: Any = None,
    ) -> ConsumerGroupMember:
        """A copy with a MemberMetadata record's fields (``Builder.updateWith``)."""
        return dataclasses.replace(
            self,
            instance_id=instance_id,
            rack_id=rack_id,
            client_id=client_id,
            client_host=client_host,
            subscribed_topic_names=frozenset(subscribed_topic_names),
            subscribed_topic_regex=subscribed_topic_regex,
            rebalance_timeout_ms=rebalance_timeout_ms,
            server_assignor_name=server_assignor_name,
            classic_member_metadata=classic_member_metadata,
        )

    def update_with_current_assignment(
        self,
        *,
        member_epoch: int,
        previous_member_epoch: int,
        state: int,
        assigned_partitions: StampedAssignment,
        partitions_pending_revocation: StampedAssignment,
    ) -> ConsumerGroupMember:
        """A copy with a CurrentAssignment record's fields (Kafka's
        ``Builder.updateWith(ConsumerGroupCurrentMemberAssignmentValue)``).

        ``state`` is the record's byte (an unknown one becomes ``UNKNOWN``); the partitions are already
        stamped (see ``assignment_from_topic_partitions`` for records without stamps).
        """
        return dataclasses.replace(
            self,
            member_epoch=member_epoch,
            previous_member_epoch=previous_member_epoch,
            state=MemberState.from_value(state),
            assigned_partitions=assigned_partitions,
            partitions_pending_revocation=partitions_pending_revocation,
        )

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        """Whether the member is STABLE at ``target_assignment_epoch`` (``isReconciledTo``)."""
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    def use_classic_protocol(self) -> bool:
        """Whether the member joined with the classic protocol (JoinGroup) into this consumer group."""
        return self.classic_member_metadata is not None

    def assignment_epoch(self, topic_id: TopicId, partition: int) -> int | None:
        """The epoch an assigned partition was given at, None if not assigned (KIP-1251)."""
        return self.assigned_partitions.get(topic_id, {}).get(partition)

    def pending_revocation_epoch(self, topic_id: TopicId, partition: int) -> int | None:
        """The epoch a partition pending revocation was given at, None if not pending (KIP-1251)."""
        return self.partitions_pending_revocation.get(topic_id, {}).get(partition)

    def assigned_partition_set(self) -> dict[TopicId, frozenset[int]]:
        """The assigned partitions without their stamps: ``{topic_id: frozenset(partitions)}``."""
        return {topic_id: frozenset(parts) for topic_id, parts in self.assigned_partitions.items()}

    def pending_revocation_partition_set(self) -> dict[TopicId, frozenset[int]]:
        """The partitions pending revocation without their stamps."""
        return {topic_id: frozenset(parts) for topic_id, parts in self.partitions_pending_revocation.items()}

    def owned_partition_set(self) -> dict[TopicId, frozenset[int]]:
        """Assigned and pending revocation together: what ConsumerGroupDescribe reports as the assignment."""
        owned = {t: set(parts) for t, parts in self.assigned_partitions.items()}
        for topic_id, parts in self.partitions_pending_revocation.items():
            owned.setdefault(topic_id, set()).update(parts)
        return {topic_id: frozenset(parts) for topic_id, parts in owned.items()}

    def subscribed_topic_regex_or_none(self) -> str | None:
        """The regex, None when unset or empty (Kafka's ``subscribedTopicRegexOrNull``)."""
        return self.subscribed_topic_regex or None


def has_assigned_partitions_changed(member1: ConsumerGroupMember, member2: ConsumerGroupMember) -> bool:
    """Whether two members' stamped assigned partitions differ (``hasAssignedPartitionsChanged``)."""
    return member1.assigned_partitions != member2.assigned_partitions


def subscribed_topic_names(
    member: ConsumerGroupMember, resolved_regexes: Mapping[str, Iterable[str]] | None = None
) -> frozenset[str]:
    """The topic names a member subscribes to: its names, plus its regex's resolved topics.

    Args:
        resolved_regexes: regex -> the topic names it resolved to; an unresolved regex matches nothing.
    """
    names = member.subscribed_topic_names
    regex = member.subscribed_topic_regex_or_none()
    if regex is not None and resolved_regexes:
        resolved = resolved_regexes.get(regex)
        if resolved:
            names = names | frozenset(resolved)
    return names


def topic_ids(names: Iterable[str], topic_id_of: Callable[[str], TopicId | None]) -> frozenset[TopicId]:
    """The ids of the topics that exist among ``names`` (Kafka's ``TopicIds`` over the metadata image).

    Args:
        topic_id_of: topic name -> its id, None when the topic does not exist.
    """
    ids = (topic_id_of(name) for name in names)
    return frozenset(topic_id for topic_id in ids if topic_id is not None)


def plain_assignment(assignment: Mapping[TopicId, Iterable[int]]) -> dict[TopicId, frozenset[int]]:
    """``{topic_id: frozenset(partitions)}`` without empty topics: the normal form targets compare in."""
    return {topic_id: frozenset(parts) for topic_id, parts in assignment.items() if parts}


EMPTY_ASSIGNMENT: Assignment = {}
"""The empty target (Kafka's ``Assignment.EMPTY``)."""
