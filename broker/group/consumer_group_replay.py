"""Applying consumer group records to the groups in memory, and their bytes (KIP-848).

Owns: ``replay_record``, which applies one ``__consumer_offsets`` record of a consumer group to the
coordinator's groups through the model's mutator for its kind (creating the group at its first record,
dropping it at its ConsumerGroupMetadata tombstone), the same path for a partition being loaded and for
a step just written; and ``encode_records``, the records' bytes.  Does not own deciding which records
to write.

Kafka concept: ``GroupMetadataManager.replay`` of ``ConsumerGroupMetadataKey/Value``,
``ConsumerGroupPartitionMetadataKey/Value``, ``ConsumerGroupMemberMetadataKey/Value``,
``ConsumerGroupTargetAssignmentMetadataKey/Value``, ``ConsumerGroupTargetAssignmentMemberKey/Value``,
``ConsumerGroupCurrentMemberAssignmentKey/Value`` and ``ConsumerGroupRegularExpressionKey/Value``.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping

from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_member import assignment_from_topic_partitions
from kafkette.broker.group.consumer_group_record_helpers import CoordinatorRecord
from kafkette.broker.group.consumer_group_records import (
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupPartitionMetadataKey,
    ConsumerGroupRegularExpressionKey,
    ConsumerGroupRegularExpressionValue,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
    CurrentTopicPartitions,
)
from kafkette.broker.group.coordinator_records import encode_key, encode_value


def encode_records(records: Iterable[CoordinatorRecord]) -> list[tuple[bytes, bytes | None]]:
    """Each record's key and value bytes (the value None for a tombstone)."""
    return [(encode_key(key), encode_value(value)) for key, value in records]


def _stamped(entries: tuple[CurrentTopicPartitions, ...], member_epoch: int) -> dict[bytes, dict[int, int]]:
    return assignment_from_topic_partitions(
        (
            (
                e.topic_id,
                list(e.partitions),
                None if e.assignment_epochs is None else list(e.assignment_epochs),
            )
            for e in entries
        ),
        member_epoch,
    )


def replay_record(groups: MutableMapping[str, ConsumerGroup], record: CoordinatorRecord) -> None:
    """Apply one record to ``groups`` (group id -> group).

    Raises:
        IllegalStateError: the record breaks an invariant of the group (a tombstone out of order, a
            partition held twice); the group is unchanged then.
    """
    key, value = record
    group_id = key.group_id
    group = groups.get(group_id)
    if group is None:
        if value is None:
            return  # a tombstone of a group already gone
        group = groups[group_id] = ConsumerGroup(group_id)
    if isinstance(key, ConsumerGroupMetadataKey):
        if value is None:
            group.check_group_tombstone()
            del groups[group_id]
        else:
            assert isinstance(value, ConsumerGroupMetadataValue)
            group.set_group_epoch(value.epoch, value.metadata_hash)
    elif isinstance(key, ConsumerGroupPartitionMetadataKey):
        group.set_has_subscription_metadata_record(value is not None)
    elif isinstance(key, ConsumerGroupMemberMetadataKey):
        if value is None:
            group.replay_member_metadata_tombstone(key.member_id)
        else:
            assert isinstance(value, ConsumerGroupMemberMetadataValue)
            group.replay_member_metadata(
                key.member_id,
                instance_id=value.instance_id,
                rack_id=value.rack_id,
                client_id=value.client_id,
                client_host=value.client_host,
                subscribed_topic_names=value.subscribed_topic_names,
                subscribed_topic_regex=value.subscribed_topic_regex,
                rebalance_timeout_ms=value.rebalance_timeout_ms,
                server_assignor_name=value.server_assignor,
                classic_member_metadata=value.classic_member_metadata,
            )
    elif isinstance(key, ConsumerGroupTargetAssignmentMemberKey):
        if value is None:
            group.remove_target_assignment(key.member_id)
        else:
            assert isinstance(value, ConsumerGroupTargetAssignmentMemberValue)
            group.set_target_assignment(
                key.member_id, {tp.topic_id: tp.partitions for tp in value.topic_partitions}
            )
    elif isinstance(key, ConsumerGroupTargetAssignmentMetadataKey):
        if value is None:
            group.replay_target_assignment_metadata_tombstone()
        else:
            assert isinstance(value, ConsumerGroupTargetAssignmentMetadataValue)
            group.set_target_assignment_metadata(value.assignment_epoch, value.assignment_timestamp)
    elif isinstance(key, ConsumerGroupCurrentMemberAssignmentKey):
        if value is None:
            group.replay_current_assignment_tombstone(key.member_id)
        else:
            assert isinstance(value, ConsumerGroupCurrentMemberAssignmentValue)
            group.replay_current_assignment(
                key.member_id,
                member_epoch=value.member_epoch,
                previous_member_epoch=value.previous_member_epoch,
                state=value.state,
                assigned_partitions=_stamped(value.assigned_partitions, value.member_epoch),
                partitions_pending_revocation=_stamped(
                    value.partitions_pending_revocation, value.member_epoch
                ),
            )
    elif isinstance(key, ConsumerGroupRegularExpressionKey):
        if value is None:
            group.remove_resolved_regex(key.regular_expression)
        else:
            assert isinstance(value, ConsumerGroupRegularExpressionValue)
            group.set_resolved_regex(key.regular_expression, value.topics, value.version, value.timestamp)
