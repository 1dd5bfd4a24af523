"""A consumer group of the new protocol (KIP-848) in memory: its members, epochs, targets and indexes.

Owns: the group's state derived from records (group epoch and metadata hash, members, target assignment
per member and its inverse, the assignment epoch and timestamp, resolved regexes), the indexes kept
beside them (static members, subscription counts by name and by regex, server assignor votes, the epoch
of every partition a member holds), and the questions asked of them (state, subscription type, preferred
assignor, and, through ``consumer_group_offsets``, the member-epoch checks of OffsetCommit and
OffsetFetch).  The counting rules live in ``consumer_group_subscriptions``.  Does not own records, I/O,
timers or the heartbeat's rules (the coordinator computes a step, writes its records, then applies each
one through the mutators here, one mutator per record kind).

Every mutator changes only this object and leaves it untouched when it raises.  Members iterate in the
order they joined (Kafka's ``HashMap`` order is not reproduced).

Kafka concept: ``modern/ModernGroup`` and ``modern/consumer/ConsumerGroup`` (``updateMember``,
``removeMember``, ``updateTargetAssignment``, ``currentPartitionEpoch``, ``addPartitionEpochs``,
``subscriptionType``, ``computePreferredServerAssignor``, ``validateOffsetCommit``,
``validateOffsetFetch``), ``modern/SubscriptionCount``, ``ResolvedRegularExpression`` and the
``GroupMetadataManager.replay`` overloads of the consumer group records.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping

from kafkette.broker.group.assignors.api import Assignment, SubscriptionType, TopicId
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import (
    EMPTY_ASSIGNMENT,
    LEAVE_GROUP_MEMBER_EPOCH,
    ConsumerGroupMember,
    MemberState,
    StampedAssignment,
    plain_assignment,
    subscribed_topic_names,
    topic_ids,
)
from kafkette.broker.group.consumer_group_offsets import (
    CommitPartitionValidator,
    validate_offset_commit,
    validate_offset_fetch,
)
from kafkette.broker.group.consumer_group_subscriptions import (
    ResolvedRegularExpression,
    SubscriptionCount,
    add_topic_counts,
    dec_count,
    subscription_type_of,
)
from kafkette.protocol.errors import IllegalStateError

INITIAL_GROUP_EPOCH = 1
"""A new group's epoch and assignment epoch (``ModernGroup``, ``TargetAssignmentMetadata.INITIAL``)."""


class ConsumerGroupState(enum.Enum):
    """A consumer group's state; the value is Kafka's string (``ConsumerGroup.ConsumerGroupState``)."""

    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


class ConsumerGroup:
    """One consumer group (Kafka's ``ConsumerGroup``); see the module docstring."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = INITIAL_GROUP_EPOCH
        self.metadata_hash = 0
        self.assignment_epoch = INITIAL_GROUP_EPOCH
        self.assignment_timestamp_ms = 0
        self.has_subscription_metadata_record = False
        self._members: dict[str, ConsumerGroupMember] = {}
        self._static_members: dict[str, str] = {}
        self._subscribed_topic_names: dict[str, SubscriptionCount] = {}
        self._subscribed_regexes: dict[str, int] = {}
        self._server_assignors: dict[str, int] = {}
        self._resolved_regexes: dict[str, ResolvedRegularExpression] = {}
        self._target_assignment: dict[str, dict[TopicId, frozenset[int]]] = {}
        self._inverted_target: dict[tuple[TopicId, int], str] = {}
        self._partition_epochs: dict[TopicId, dict[int, int]] = {}
        self._subscription_type = SubscriptionType.HOMOGENEOUS

    # ---- views -------------------------------------------------------------------------------------

    @property
    def members(self) -> Mapping[str, ConsumerGroupMember]:
        """member id -> member, in join order (read-only view)."""
        return self._members

    @property
    def static_members(self) -> Mapping[str, str]:
        """instance id -> member id of the static members."""
        return self._static_members

    @property
    def resolved_regexes(self) -> Mapping[str, ResolvedRegularExpression]:
        """regex -> its resolution."""
        return self._resolved_regexes

    @property
    def subscribed_regexes(self) -> Mapping[str, int]:
        """regex -> number of members subscribing with it."""
        return self._subscribed_regexes

    @property
    def target_assignment(self) -> Mapping[str, Assignment]:
        """member id -> its target ``{topic_id: frozenset(partitions)}``."""
        return self._target_assignment

    @property
    def inverted_target_assignment(self) -> Mapping[tuple[TopicId, int], str]:
        """``(topic_id, partition)`` -> member id holding it in the target (``GroupSpec``'s shape)."""
        return self._inverted_target

    def resolved_regex_topics(self) -> dict[str, frozenset[str]]:
        """regex -> resolved topic names: the shape the builders take."""
        return {regex: resolved.topics for regex, resolved in self._resolved_regexes.items()}

    def num_members(self) -> int:
        """The number of members, static members at epoch -2 included."""
        return len(self._members)

    def has_member(self, member_id: str) -> bool:
        """Whether ``member_id`` is a member."""
        return member_id in self._members

    def get_or_maybe_create_member(self, member_id: str, create_if_not_exists: bool) -> ConsumerGroupMember:
        """The member, or a new one (epoch 0, previous -1, STABLE) not yet added.

        Raises:
            ConsumerGroupError: UNKNOWN_MEMBER_ID when absent and ``create_if_not_exists`` is false.
        """
        member = self._members.get(member_id)
        if member is not None:
            return member
        if not create_if_not_exists:
            raise ConsumerGroupError(
                "UNKNOWN_MEMBER_ID", f"Member {member_id} is not a member of group {self.group_id}."
            )
        return ConsumerGroupMember(member_id)

    def static_member_id(self, instance_id: str | None) -> str | None:
        """The member id holding ``instance_id``, None if none."""
        return None if instance_id is None else self._static_members.get(instance_id)

    def static_member(self, instance_id: str | None) -> ConsumerGroupMember | None:
        """The member holding ``instance_id``, None if none."""
        member_id = self.static_member_id(instance_id)
        return None if member_id is None else self._members.get(member_id)

    def has_static_member(self, instance_id: str | None) -> bool:
        """Whether a member holds ``instance_id``."""
        return instance_id is not None and instance_id in self._static_members

    def target_assignment_of(self, member_id: str, instance_id: str | None = None) -> Assignment:
        """A member's target; for a static member, the target of the member holding its instance id
        (a replacement inherits it).  Empty when none (Kafka's ``targetAssignment(memberId, instanceId)``)."""
        if instance_id is None:
            return self._target_assignment.get(member_id, EMPTY_ASSIGNMENT)
        previous = self.static_member_id(instance_id)
        if previous is not None:
            return self._target_assignment.get(previous, EMPTY_ASSIGNMENT)
        return EMPTY_ASSIGNMENT

    def state(self) -> ConsumerGroupState:
        """Empty (no members), Assigning (group epoch > assignment epoch), Reconciling (a member not
        reconciled to the assignment epoch, a -2 static member included), else Stable."""
        if not self._members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if any(not m.is_reconciled_to(self.assignment_epoch) for m in self._members.values()):
            return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def last_resolved_regex_refresh_time_ms(self) -> int | None:
        """When a regex was last resolved (ms), None when none is (Kafka's ``Long.MIN_VALUE``); all regexes
        are resolved together, so any one tells."""
        first = next(iter(self._resolved_regexes.values()), None)
        return None if first is None else first.timestamp_ms

    def last_resolved_regex_version(self) -> int:
        """The metadata version regexes were last resolved against, 0 when none is."""
        first = next(iter(self._resolved_regexes.values()), None)
        return 0 if first is None else first.version

    def subscription_type(self) -> SubscriptionType:
        """The subscription type as of the last member update or removal (Kafka recomputes it only then)."""
        return self._subscription_type

    def subscribed_topic_names(self) -> Mapping[str, SubscriptionCount]:
        """topic name -> how it is subscribed (by name and by resolved regex)."""
        return self._subscribed_topic_names

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """Whether a member subscribes to ``topic`` by name or by a resolved regex (OffsetDelete's check)."""
        return topic in self._subscribed_topic_names

    def num_subscribed_members(self, regex: str) -> int:
        """How many members subscribe with ``regex``."""
        return self._subscribed_regexes.get(regex, 0)

    def current_partition_epoch(self, topic_id: TopicId, partition: int) -> int:
        """The epoch of the member holding the partition (assigned or pending revocation), -1 if free."""
        return self._partition_epochs.get(topic_id, {}).get(partition, -1)

    def preferred_server_assignor(self, default: str) -> str:
        """The most requested ``ServerAssignor``, else ``default`` (ConsumerGroupDescribe's AssignorName).
        Ties go to the assignor first requested."""
        if not self._server_assignors:
            return default
        return max(self._server_assignors.items(), key=lambda kv: kv[1])[0]

    def compute_preferred_server_assignor(
        self, old_member: ConsumerGroupMember | None, new_member: ConsumerGroupMember | None, default: str
    ) -> str:
        """The preferred assignor once ``old_member`` is replaced by ``new_member`` (either None)."""
        counts = dict(self._server_assignors)
        if old_member is not None and old_member.server_assignor_name is not None:
            dec_count(counts, old_member.server_assignor_name)
        if new_member is not None and new_member.server_assignor_name is not None:
            counts[new_member.server_assignor_name] = counts.get(new_member.server_assignor_name, 0) + 1
        return max(counts.items(), key=lambda kv: kv[1])[0] if counts else default

    def compute_subscribed_regexes(
        self, old_member: ConsumerGroupMember | None, new_member: ConsumerGroupMember | None
    ) -> dict[str, int]:
        """regex -> member count once ``old_member`` is replaced by ``new_member``."""
        counts = dict(self._subscribed_regexes)
        old = old_member.subscribed_topic_regex_or_none() if old_member else None
        new = new_member.subscribed_topic_regex_or_none() if new_member else None
        if old != new:
            if old is not None:
                dec_count(counts, old)
            if new is not None:
                counts[new] = counts.get(new, 0) + 1
        return counts

    def compute_subscribed_topic_names(
        self, old_member: ConsumerGroupMember | None, new_member: ConsumerGroupMember | None
    ) -> dict[str, SubscriptionCount]:
        """The subscription counts once ``old_member`` is replaced by ``new_member``; an old regex whose
        last user leaves stops counting its resolved topics."""
        counts = dict(self._subscribed_topic_names)
        if old_member is not None:
            add_topic_counts(counts, old_member.subscribed_topic_names, -1, 0)
        if new_member is not None:
            add_topic_counts(counts, new_member.subscribed_topic_names, 1, 0)
        old_regex = old_member.subscribed_topic_regex_or_none() if old_member else None
        new_regex = new_member.subscribed_topic_regex_or_none() if new_member else None
        if old_regex is not None and old_regex != new_regex and self.num_subscribed_members(old_regex) == 1:
            resolved = self._resolved_regexes.get(old_regex)
            if resolved is not None:
                add_topic_counts(counts, resolved.topics, 0, -1)
        return counts

    def subscribed_topic_ids(
        self, member: ConsumerGroupMember, topic_id_of: Callable[[str], TopicId | None]
    ) -> frozenset[TopicId]:
        """The ids of the existing topics ``member`` subscribes to, by name or resolved regex.

        Args:
            topic_id_of: topic name -> id, None when the topic does not exist.
        """
        return topic_ids(subscribed_topic_names(member, self.resolved_regex_topics()), topic_id_of)

    def waiting_on_unreleased_partition(self, member: ConsumerGroupMember) -> bool:
        """Whether an UNRELEASED_PARTITIONS member waits on a target partition another member still holds
        (the classic Heartbeat's REBALANCE_IN_PROGRESS rule)."""
        if member.state is not MemberState.UNRELEASED_PARTITIONS:
            return False
        for topic_id, partitions in self._target_assignment.get(member.member_id, {}).items():
            assigned = member.assigned_partitions.get(topic_id, {})
            for partition in partitions:
                if partition not in assigned and self.current_partition_epoch(topic_id, partition) != -1:
                    return True
        return False

    # ---- mutators, one per record kind ----------------------------------------------------------------

    def set_group_epoch(self, epoch: int, metadata_hash: int) -> None:
        """Apply a ConsumerGroupMetadata record."""
        self.group_epoch = epoch
        self.metadata_hash = metadata_hash

    def check_group_tombstone(self) -> None:
        """Check a ConsumerGroupMetadata tombstone may delete the group (the caller then drops it).

        Raises:
            IllegalStateError: members or targets remain, or the TargetAssignmentMetadata tombstone is
                missing (assignment epoch != -1).
        """
        if self._members:
            raise IllegalStateError(
                f"Received a tombstone record to delete group {self.group_id} but the group still has "
                f"{len(self._members)} members."
            )
        if self._target_assignment:
            raise IllegalStateError(
                f"Received a tombstone record to delete group {self.group_id} but the target assignment "
                f"still has {len(self._target_assignment)} members."
            )
        if self.assignment_epoch != -1:
            raise IllegalStateError(
                f"Received a tombstone record to delete group {self.group_id} but did not receive "
                "ConsumerGroupTargetAssignmentMetadataValue tombstone."
            )

    def set_has_subscription_metadata_record(self, present: bool) -> None:
        """Apply a legacy ConsumerGroupPartitionMetadata record (True) or its tombstone (False)."""
        self.has_subscription_metadata_record = present

    def update_member(self, member: ConsumerGroupMember) -> None:
        """Add or replace a member, updating every index (Kafka's ``ConsumerGroup.updateMember``).

        This applies a MemberMetadata record (``member.update_with_metadata``) or a CurrentAssignment
        record (``member.update_with_current_assignment``) built on ``get_or_maybe_create_member``.  The
        old member's partition epochs are removed, then the new member's added.

        Raises:
            IllegalStateError: a partition of the new member is held at an epoch >= its own (Kafka's
                ``addPartitionEpochs``); nothing is changed then.
        """
        old = self._members.get(member.member_id)
        partition_epochs = self._partition_epochs_after(old, member)
        self._members[member.member_id] = member
        self._partition_epochs = partition_epochs
        self._update_indexes(old, member)
        if member.instance_id is not None:
            self._static_members[member.instance_id] = member.member_id

    def remove_member(self, member_id: str) -> None:
        """Remove a member and its index entries; an unknown id is ignored (``removeMember``)."""
        old = self._members.pop(member_id, None)
        if old is None:
            return
        self._partition_epochs = self._partition_epochs_after(old, None)
        self._update_indexes(old, None)
        if old.instance_id is not None and self._static_members.get(old.instance_id) == member_id:
            del self._static_members[old.instance_id]

    def replay_member_metadata(
        self,
        member_id: str,
        *,
        instance_id: str | None,
        rack_id: str | None,
        client_id: str,
        client_host: str,
        subscribed_topic_names: Iterable[str],
        subscribed_topic_regex: str | None,
        rebalance_timeout_ms: int,
        server_assignor_name: str | None,
        classic_member_metadata: object = None,
    ) -> None:
        """Apply a MemberMetadata record: create the member if new, then set the record's fields."""
        member = self.get_or_maybe_create_member(member_id, True)
        self.update_member(
            member.update_with_metadata(
                instance_id=instance_id,
                rack_id=rack_id,
                client_id=client_id,
                client_host=client_host,
                subscribed_topic_names=subscribed_topic_names,
                subscribed_topic_regex=subscribed_topic_regex,
                rebalance_timeout_ms=rebalance_timeout_ms,
                server_assignor_name=server_assignor_name,
                classic_member_metadata=classic_member_metadata,
            )
        )

    def replay_current_assignment(
        self,
        member_id: str,
        *,
        member_epoch: int,
        previous_member_epoch: int,
        state: int,
        assigned_partitions: StampedAssignment,
        partitions_pending_revocation: StampedAssignment,
    ) -> None:
        """Apply a CurrentAssignment record: create the member if new, then set epochs, state and stamped
        partitions (``consumer_group_member.assignment_from_topic_partitions`` stamps a record without them).

        Raises:
            IllegalStateError: as ``update_member``; nothing is changed then.
        """
        member = self.get_or_maybe_create_member(member_id, True)
        self.update_member(
            member.update_with_current_assignment(
                member_epoch=member_epoch,
                previous_member_epoch=previous_member_epoch,
                state=state,
                assigned_partitions=assigned_partitions,
                partitions_pending_revocation=partitions_pending_revocation,
            )
        )

    def replay_member_metadata_tombstone(self, member_id: str) -> None:
        """Apply a MemberMetadata tombstone: remove the member, ignoring an unknown one.

        Raises:
            IllegalStateError: its CurrentAssignment or TargetAssignmentMember tombstone came not before.
        """
        member = self._members.get(member_id)
        if member is None:
            return
        if member.member_epoch != LEAVE_GROUP_MEMBER_EPOCH:
            raise IllegalStateError(
                f"Received a tombstone record to delete member {member_id} but did not receive "
                "ConsumerGroupCurrentMemberAssignmentValue tombstone."
            )
        if member_id in self._target_assignment:
            raise IllegalStateError(
                f"Received a tombstone record to delete member {member_id} but did not receive "
                "ConsumerGroupTargetAssignmentMetadataValue tombstone."
            )
        self.remove_member(member_id)

    def replay_current_assignment_tombstone(self, member_id: str) -> None:
        """Apply a CurrentAssignment tombstone: the member (if known) goes to epoch -1 with no partitions."""
        member = self._members.get(member_id)
        if member is None:
            return
        self.update_member(
            member.replace(
                member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                previous_member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                assigned_partitions={},
                partitions_pending_revocation={},
            )
        )

    def set_target_assignment(self, member_id: str, assignment: Mapping[TopicId, Iterable[int]]) -> None:
        """Apply a TargetAssignmentMember record: the member's target and the inverted target."""
        new = plain_assignment(assignment)
        self._update_inverted(member_id, self._target_assignment.get(member_id, {}), new)
        self._target_assignment[member_id] = new

    def remove_target_assignment(self, member_id: str) -> None:
        """Apply a TargetAssignmentMember tombstone."""
        self._update_inverted(member_id, self._target_assignment.get(member_id, {}), {})
        self._target_assignment.pop(member_id, None)

    def set_target_assignment_metadata(self, epoch: int, timestamp_ms: int) -> None:
        """Apply a TargetAssignmentMetadata record: the assignment epoch and when it was computed (ms)."""
        self.assignment_epoch = epoch
        self.assignment_timestamp_ms = timestamp_ms

    def replay_target_assignment_metadata_tombstone(self) -> None:
        """Apply a TargetAssignmentMetadata tombstone: epoch -1, timestamp 0.

        Raises:
            IllegalStateError: member targets remain.
        """
        if self._target_assignment:
            raise IllegalStateError(
                f"Received a tombstone record to delete target assignment of {self.group_id} but the "
                f"assignment still has {len(self._target_assignment)} members."
            )
        self.set_target_assignment_metadata(-1, 0)

    def set_resolved_regex(self, regex: str, topics: Iterable[str], version: int, timestamp_ms: int) -> None:
        """Apply a RegularExpression record: replace the regex's resolution and its topic counts."""
        self.remove_resolved_regex(regex)
        resolved = ResolvedRegularExpression(frozenset(topics), version, timestamp_ms)
        self._resolved_regexes[regex] = resolved
        add_topic_counts(self._subscribed_topic_names, resolved.topics, 0, 1)

    def remove_resolved_regex(self, regex: str) -> None:
        """Apply a RegularExpression tombstone."""
        old = self._resolved_regexes.pop(regex, None)
        if old is not None:
            add_topic_counts(self._subscribed_topic_names, old.topics, 0, -1)

    # ---- offsets ----------------------------------------------------------------------------------------

    def validate_offset_commit(
        self,
        member_id: str,
        member_epoch: int,
        *,
        api_version: int,
        group_instance_id: str | None = None,
        is_transactional: bool = False,
    ) -> CommitPartitionValidator:
        """Check an OffsetCommit's member and epoch: see ``consumer_group_offsets.validate_offset_commit``."""
        return validate_offset_commit(
            self,
            member_id,
            member_epoch,
            api_version=api_version,
            group_instance_id=group_instance_id,
            is_transactional=is_transactional,
        )

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        """Check an OffsetFetch's member and epoch: see ``consumer_group_offsets.validate_offset_fetch``."""
        validate_offset_fetch(self, member_id, member_epoch)

    def validate_delete_group(self) -> None:
        """Raises ConsumerGroupError NON_EMPTY_GROUP unless the group is Empty (DeleteGroups)."""
        if self.state() is not ConsumerGroupState.EMPTY:
            raise ConsumerGroupError("NON_EMPTY_GROUP", "The group is not empty.")

    # ---- internals ------------------------------------------------------------------------------------

    def _update_indexes(self, old: ConsumerGroupMember | None, new: ConsumerGroupMember | None) -> None:
        if old is not None:
            add_topic_counts(self._subscribed_topic_names, old.subscribed_topic_names, -1, 0)
            if old.server_assignor_name is not None:
                dec_count(self._server_assignors, old.server_assignor_name)
            if old.subscribed_topic_regex:
                dec_count(self._subscribed_regexes, old.subscribed_topic_regex)
        if new is not None:
            add_topic_counts(self._subscribed_topic_names, new.subscribed_topic_names, 1, 0)
            if new.server_assignor_name is not None:
                name = new.server_assignor_name
                self._server_assignors[name] = self._server_assignors.get(name, 0) + 1
            if new.subscribed_topic_regex:
                regex = new.subscribed_topic_regex
                self._subscribed_regexes[regex] = self._subscribed_regexes.get(regex, 0) + 1
        self._subscription_type = subscription_type_of(
            self._subscribed_regexes, self._subscribed_topic_names, len(self._members)
        )

    def _partition_epochs_after(
        self, old: ConsumerGroupMember | None, new: ConsumerGroupMember | None
    ) -> dict[TopicId, dict[int, int]]:
        """The partition epochs once ``old``'s are removed and ``new``'s added; copies only touched topics."""
        epochs = dict(self._partition_epochs)
        touched: set[TopicId] = set()

        def topic(topic_id: TopicId) -> dict[int, int]:
            if topic_id not in touched:
                touched.add(topic_id)
                epochs[topic_id] = dict(epochs.get(topic_id, {}))
            return epochs[topic_id]

        if old is not None:
            for assignment in (old.assigned_partitions, old.partitions_pending_revocation):
                for topic_id, partitions in assignment.items():
                    held = topic(topic_id)
                    for partition in partitions:
                        # Kafka leaves a partition held at another epoch (a newer owner) in place.
                        if held.get(partition) == old.member_epoch:
                            del held[partition]
        if new is not None:
            self._add_epochs(topic, new.assigned_partitions, new.member_epoch)
            self._add_epochs(topic, new.partitions_pending_revocation, new.member_epoch)
        for topic_id in touched:
            if not epochs[topic_id]:
                del epochs[topic_id]
        return epochs

    @staticmethod
    def _add_epochs(
        topic: Callable[[TopicId], dict[int, int]], assignment: StampedAssignment, epoch: int
    ) -> None:
        for topic_id, partitions in assignment.items():
            held = topic(topic_id)
            for partition in partitions:
                previous = held.get(partition)
                if previous is not None and previous >= epoch:
                    raise IllegalStateError(
                        f"Cannot set the epoch of {topic_id.hex()}-{partition} to {epoch} because the "
                        f"partition is still owned at epoch {previous}"
                    )
                held[partition] = epoch

    def _update_inverted(
        self, member_id: str, old: Mapping[TopicId, frozenset[int]], new: Mapping[TopicId, frozenset[int]]
    ) -> None:
        for topic_id, partitions in old.items():
            kept = new.get(topic_id, frozenset())
            for partition in partitions:
                key = (topic_id, partition)
                if partition not in kept and self._inverted_target.get(key) == member_id:
                    del self._inverted_target[key]
        for topic_id, partitions in new.items():
            before = old.get(topic_id, frozenset())
            for partition in partitions:
                if partition not in before:
                    self._inverted_target[(topic_id, partition)] = member_id
