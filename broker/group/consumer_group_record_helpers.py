"""The records a consumer group step writes to ``__consumer_offsets``, built from the model (KIP-848).

Owns: one function per record Kafka's coordinator writes for a consumer group (member metadata, group
epoch, target assignment per member and its epoch, current assignment, the legacy subscription
metadata's tombstone), each a ``(key, value)`` pair of ``consumer_group_records`` classes, ``value``
None for a tombstone.  Does not own the bytes (``coordinator_records``) nor applying them
(``consumer_group_replay``).

Kafka concept: ``GroupCoordinatorRecordHelpers`` (``newConsumerGroupMemberSubscriptionRecord``,
``newConsumerGroupEpochRecord``, ``newConsumerGroupTargetAssignmentRecord``,
``newConsumerGroupTargetAssignmentEpochRecord``, ``newConsumerGroupCurrentAssignmentRecord`` and their
tombstones).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.broker.group.consumer_group_records import (
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupKey,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupPartitionMetadataKey,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerGroupValue,
    CurrentTopicPartitions,
    TargetTopicPartitions,
)

CoordinatorRecord = tuple[ConsumerGroupKey, ConsumerGroupValue | None]
"""A record of ``__consumer_offsets``: its key and its value, None for a tombstone."""


def member_subscription_record(group_id: str, member: ConsumerGroupMember) -> CoordinatorRecord:
    """The member's metadata: identity, client, subscription, rebalance timeout and assignor."""
    return (
        ConsumerGroupMemberMetadataKey(group_id, member.member_id),
        ConsumerGroupMemberMetadataValue(
            instance_id=member.instance_id,
            rack_id=member.rack_id,
            client_id=member.client_id,
            client_host=member.client_host,
            subscribed_topic_names=tuple(sorted(member.subscribed_topic_names)),
            subscribed_topic_regex=member.subscribed_topic_regex,
            rebalance_timeout_ms=member.rebalance_timeout_ms,
            server_assignor=member.server_assignor_name,
            classic_member_metadata=member.classic_member_metadata,
        ),
    )


def member_subscription_tombstone(group_id: str, member_id: str) -> CoordinatorRecord:
    """Removes the member (written after its current and target assignment tombstones)."""
    return ConsumerGroupMemberMetadataKey(group_id, member_id), None


def group_epoch_record(group_id: str, epoch: int, metadata_hash: int) -> CoordinatorRecord:
    """The group epoch and the metadata hash it was bumped with."""
    return ConsumerGroupMetadataKey(group_id), ConsumerGroupMetadataValue(epoch, metadata_hash)


def group_epoch_tombstone(group_id: str) -> CoordinatorRecord:
    """Deletes the group (the last of its tombstones)."""
    return ConsumerGroupMetadataKey(group_id), None


def subscription_metadata_tombstone(group_id: str) -> CoordinatorRecord:
    """Deletes the legacy subscription metadata a pre-4.1 coordinator wrote."""
    return ConsumerGroupPartitionMetadataKey(group_id), None


def target_assignment_record(
    group_id: str, member_id: str, assignment: Mapping[TopicId, Iterable[int]]
) -> CoordinatorRecord:
    """A member's target assignment."""
    return (
        ConsumerGroupTargetAssignmentMemberKey(group_id, member_id),
        ConsumerGroupTargetAssignmentMemberValue(
            tuple(
                TargetTopicPartitions(topic_id, tuple(sorted(partitions)))
                for topic_id, partitions in assignment.items()
            )
        ),
    )


def target_assignment_tombstone(group_id: str, member_id: str) -> CoordinatorRecord:
    """Removes a member's target assignment."""
    return ConsumerGroupTargetAssignmentMemberKey(group_id, member_id), None


def target_assignment_epoch_record(group_id: str, epoch: int, timestamp_ms: int) -> CoordinatorRecord:
    """The epoch the target assignment is for and when it was computed (ms since the epoch)."""
    return (
        ConsumerGroupTargetAssignmentMetadataKey(group_id),
        ConsumerGroupTargetAssignmentMetadataValue(epoch, timestamp_ms),
    )


def target_assignment_epoch_tombstone(group_id: str) -> CoordinatorRecord:
    """Removes the target assignment's epoch (a group being deleted)."""
    return ConsumerGroupTargetAssignmentMetadataKey(group_id), None


def _stamped(assignment: Mapping[TopicId, Mapping[int, int]]) -> tuple[CurrentTopicPartitions, ...]:
    entries = []
    for topic_id, stamps in assignment.items():
        partitions = sorted(stamps)
        entries.append(
            CurrentTopicPartitions(topic_id, tuple(partitions), tuple(stamps[p] for p in partitions))
        )
    return tuple(entries)


def current_assignment_record(group_id: str, member: ConsumerGroupMember) -> CoordinatorRecord:
    """The member's epochs, reconciliation state and partitions, each stamped with the epoch it was
    assigned at (KIP-1251)."""
    return (
        ConsumerGroupCurrentMemberAssignmentKey(group_id, member.member_id),
        ConsumerGroupCurrentMemberAssignmentValue(
            member_epoch=member.member_epoch,
            previous_member_epoch=member.previous_member_epoch,
            state=int(member.state),
            assigned_partitions=_stamped(member.assigned_partitions),
            partitions_pending_revocation=_stamped(member.partitions_pending_revocation),
        ),
    )


def current_assignment_tombstone(group_id: str, member_id: str) -> CoordinatorRecord:
    """Removes the member's current assignment (the first of its three tombstones)."""
    return ConsumerGroupCurrentMemberAssignmentKey(group_id, member_id), None
