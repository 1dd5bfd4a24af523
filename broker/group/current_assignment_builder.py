"""Reconciles one consumer group member towards the group's target assignment (KIP-848).

Owns: the member's state machine, from its current assignment, the target (epoch and partitions), the
partitions it reports owning and which partitions other members still hold, to its next state, epoch and
stamped assignment.  Does not own the target (``target_assignment_builder``), the member-epoch checks of a
heartbeat, nor writing the CurrentAssignment record (the coordinator writes one when the member changed).

Transitions (``build``):

=====================  ===========================================================================
STABLE                 epoch != target epoch: compute the next assignment; else a changed
                       subscription: drop the unsubscribed topics; else unchanged.
UNREVOKED_PARTITIONS   still owns a partition pending revocation (an absent owned list counts as
                       owning): unchanged, or drop unsubscribed topics if the subscription changed;
                       else compute the next assignment.
UNRELEASED_PARTITIONS  compute the next assignment.
UNKNOWN                FENCED_MEMBER_EPOCH unless the member reports owning nothing (``[]``); then
                       compute the next assignment at the target epoch.
=====================  ===========================================================================

Computing the next assignment, per topic (the target counts as empty for a topic no longer subscribed):
kept = current ∩ target, revoke = current - kept, pending assignment = target - kept - unreleased, where
a partition is unreleased when another member still holds it (``current_partition_epoch != -1`` and it is
not this member's own partition pending revocation).  Then: anything to revoke and still owned ->
UNREVOKED_PARTITIONS at the same epoch; else new partitions -> assign them stamped with the target epoch
(KIP-1251), STABLE (UNRELEASED_PARTITIONS if some were withheld) at the target epoch; else withheld
partitions -> UNRELEASED_PARTITIONS at the target epoch; else STABLE at the target epoch.

Kafka concept: ``modern/consumer/CurrentAssignmentBuilder``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kafkette.broker.group.assignors.api import Assignment, TopicId
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import (
    ConsumerGroupMember,
    MemberState,
    StampedAssignment,
    subscribed_topic_names,
    topic_ids,
)

OwnedTopicPartitions = Iterable[tuple[TopicId, Iterable[int]]] | Mapping[TopicId, Iterable[int]]
"""The heartbeat's ``TopicPartitions``: ``(topic_id, partitions)`` pairs or ``{topic_id: partitions}``."""


class CurrentAssignmentBuilder:
    """Builds a member's next current assignment (Kafka's ``CurrentAssignmentBuilder``).

    Args:
        member: the member as the group knows it.
        target_assignment_epoch: the epoch of the target being reconciled to.
        target_assignment: the member's target ``{topic_id: frozenset(partitions)}``.
        current_partition_epoch: ``(topic_id, partition) -> epoch`` of the member holding the partition
            (assigned or pending revocation), -1 when free (``ConsumerGroup.current_partition_epoch``).
        topic_id_of: topic name -> id, None when the topic does not exist (resolves the subscription).
        owned_topic_partitions: the partitions the heartbeat reports owning; None when the request left
            them out (counts as still owning everything pending revocation).
        has_subscription_changed: whether the heartbeat changed the member's subscription.
        resolved_regexes: the group's resolved regexes (regex -> topic names); an unresolved regex matches
            no topic.
    """

    def __init__(
        self,
        member: ConsumerGroupMember,
        *,
        target_assignment_epoch: int,
        target_assignment: Assignment,
        current_partition_epoch: Callable[[TopicId, int], int],
        topic_id_of: Callable[[str], TopicId | None],
        owned_topic_partitions: OwnedTopicPartitions | None = None,
        has_subscription_changed: bool = False,
        resolved_regexes: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._member = member
        self._target_epoch = target_assignment_epoch
        self._target = target_assignment
        self._current_partition_epoch = current_partition_epoch
        self._topic_id_of = topic_id_of
        if owned_topic_partitions is None:
            self._owned: list[tuple[TopicId, list[int]]] | None = None
        else:
            items = (
                owned_topic_partitions.items()
                if isinstance(owned_topic_partitions, Mapping)
                else owned_topic_partitions
            )
            self._owned = [(topic_id, list(parts)) for topic_id, parts in items]
        self._has_subscription_changed = has_subscription_changed
        self._resolved_regexes = resolved_regexes or {}

    def build(self) -> ConsumerGroupMember:
        """The member after this reconciliation step (the same object when nothing changed).

        Raises:
            ConsumerGroupError: FENCED_MEMBER_EPOCH for a member in the UNKNOWN state that did not report
                owning no partitions.
        """
        member = self._member
        state = member.state
        if state is MemberState.STABLE:
            if member.member_epoch != self._target_epoch:
                return self._compute_next_assignment(member.member_epoch)
            if self._has_subscription_changed:
                return self._update_current_assignment()
            return member
        if state is MemberState.UNREVOKED_PARTITIONS:
            if self._owns_revoked_partitions(member.partitions_pending_revocation):
                if self._has_subscription_changed:
                    return self._update_current_assignment()
                return member
            return self._compute_next_assignment(member.member_epoch)
        if state is MemberState.UNRELEASED_PARTITIONS:
            return self._compute_next_assignment(member.member_epoch)
        # UNKNOWN: a state written by a newer coordinator; the member starts over from no partitions.
        if self._owned is None or self._owned:
            raise ConsumerGroupError(
                "FENCED_MEMBER_EPOCH",
                "The consumer group member is in a unknown state. "
                "The member must abandon all its partitions and rejoin.",
            )
        return self._compute_next_assignment(self._target_epoch)

    def _owns_revoked_partitions(self, pending: StampedAssignment) -> bool:
        if self._owned is None:
            return True
        for topic_id, partitions in self._owned:
            revoked = pending.get(topic_id)
            if revoked and any(p in revoked for p in partitions):
                return True
        return False

    def _subscribed_topic_ids(self) -> frozenset[TopicId]:
        names = subscribed_topic_names(self._member, self._resolved_regexes)
        return topic_ids(names, self._topic_id_of)

    def _update_current_assignment(self) -> ConsumerGroupMember:
        member = self._member
        subscribed = self._subscribed_topic_ids()
        assigned = member.assigned_partitions
        if not subscribed and not member.partitions_pending_revocation:
            new_assigned: dict[TopicId, dict[int, int]] = {}
            new_pending = {t: dict(p) for t, p in assigned.items()}
        else:
            new_assigned = {t: dict(p) for t, p in assigned.items() if t in subscribed}
            new_pending = {t: dict(p) for t, p in member.partitions_pending_revocation.items()}
            for topic_id, partitions in assigned.items():
                if topic_id not in subscribed:
                    new_pending.setdefault(topic_id, {}).update(partitions)
        if len(new_assigned) == len(assigned):
            return member  # nothing was unsubscribed
        if new_pending and self._owns_revoked_partitions(new_pending):
            return member.update_member_epoch(
                member.member_epoch,
                state=MemberState.UNREVOKED_PARTITIONS,
                assigned_partitions=new_assigned,
                partitions_pending_revocation=new_pending,
            )
        # The dropped partitions were already revoked: the assignment just shrinks.
        return member.update_member_epoch(member.member_epoch, assigned_partitions=new_assigned)

    def _compute_next_assignment(self, member_epoch: int) -> ConsumerGroupMember:
        member = self._member
        subscribed = self._subscribed_topic_ids()
        own_pending = member.partitions_pending_revocation
        has_unreleased = False
        new_assigned: dict[TopicId, dict[int, int]] = {}
        new_pending: dict[TopicId, dict[int, int]] = {}
        to_assign: dict[TopicId, list[int]] = {}
        topics = list(self._target)
        topics += [t for t in member.assigned_partitions if t not in self._target]
        for topic_id in topics:
            target = self._target.get(topic_id, frozenset()) if topic_id in subscribed else frozenset()
            current = member.assigned_partitions.get(topic_id, {})
            kept = {p: epoch for p, epoch in current.items() if p in target}
            revoke = {p: epoch for p, epoch in current.items() if p not in kept}
            pending_assignment = []
            for partition in sorted(target):
                if partition in kept:
                    continue
                held_by_other = self._current_partition_epoch(topic_id, partition) != -1 and (
                    partition not in own_pending.get(topic_id, {})
                )
                if held_by_other:
                    has_unreleased = True
                else:
                    pending_assignment.append(partition)
            if kept:
                new_assigned[topic_id] = kept
            if revoke:
                new_pending[topic_id] = revoke
            if pending_assignment:
                to_assign[topic_id] = pending_assignment

        if new_pending and self._owns_revoked_partitions(new_pending):
            return member.update_member_epoch(
                member_epoch,
                state=MemberState.UNREVOKED_PARTITIONS,
                assigned_partitions=new_assigned,
                partitions_pending_revocation=new_pending,
            )
        if to_assign:
            for topic_id, partitions in to_assign.items():
                new_assigned.setdefault(topic_id, {}).update(dict.fromkeys(partitions, self._target_epoch))
            state = MemberState.UNRELEASED_PARTITIONS if has_unreleased else MemberState.STABLE
        elif has_unreleased:
            state = MemberState.UNRELEASED_PARTITIONS
        else:
            state = MemberState.STABLE
        return member.update_member_epoch(
            self._target_epoch,
            state=state,
            assigned_partitions=new_assigned,
            partitions_pending_revocation={},
        )
