"""Which committed offsets have outlived ``offsets.retention.minutes``.

Owns: the rules.  A classic group (KIP-211): the offsets of a group without members expire once
the retention has passed since the group became Empty (or, when that time is unknown, since each
offset was committed); a group with members keeps its offsets.  A KIP-848 consumer group: the
offsets of each topic no member subscribes to expire once the retention has passed since each was
committed, members or not; the offsets of subscribed topics stay.  Pure code: the coordinator's
periodic cleanup applies them.  Does not own deleting the offsets or the groups
(``GroupCoordinator.expire_offsets``).

Kafka concept: ``GroupMetadata.removeExpiredOffsets`` / ``GroupMetadataManager.cleanupGroupMetadata``
(classic); ``OffsetMetadataManager.cleanupExpiredOffsets`` with ``ConsumerGroup.offsetExpirationCondition``
(an ``OffsetExpirationConditionImpl`` on the commit timestamp) and ``ModernGroup.isSubscribedToTopic``
(consumer groups).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.protocol.topic_partition import TopicPartition


def expired_offsets(
    offsets: Mapping[TopicPartition, OffsetCommitValue],
    now_ms: int,
    retention_ms: int,
    empty_since_ms: int | None,
) -> list[TopicPartition]:
    """The partitions of an Empty group's offsets that have expired.

    Args:
        offsets: the group's committed offsets.
        now_ms: wall clock (ms since the epoch).
        retention_ms: ``offsets.retention.minutes`` in ms.
        empty_since_ms: when the group became Empty (wall clock ms), None when unknown (a group
            that never had members, or one loaded without that time): each offset's commit
            timestamp counts instead.

    Returns:
        The expired partitions, sorted.
    """
    expired = []
    for tp, value in offsets.items():
        base = empty_since_ms if empty_since_ms is not None else value.commit_timestamp
        if now_ms - base >= retention_ms:
            expired.append(tp)
    return sorted(expired)


def expired_consumer_group_offsets(
    offsets: Mapping[TopicPartition, OffsetCommitValue],
    now_ms: int,
    retention_ms: int,
    is_subscribed_to_topic: Callable[[str], bool],
) -> tuple[list[TopicPartition], bool]:
    """The expired offsets of a KIP-848 consumer group, and whether none would be left.

    Args:
        offsets: the group's committed offsets.
        now_ms: wall clock (ms since the epoch).
        retention_ms: ``offsets.retention.minutes`` in ms.
        is_subscribed_to_topic: whether a member of the group subscribes to a topic (by name or by a
            resolved regex; always False for an Empty group).

    Returns:
        ``(expired partitions sorted, all expired)``: an offset of an unsubscribed topic expires when
        ``now_ms - commit_timestamp >= retention_ms``; ``all expired`` is True when every offset expired
        (also when there are none), the condition for Kafka to delete an Empty group
        (``GroupMetadataManager.maybeDeleteGroup``).
    """
    expired = []
    all_expired = True
    for tp, value in offsets.items():
        if not is_subscribed_to_topic(tp.topic) and now_ms - value.commit_timestamp >= retention_ms:
            expired.append(tp)
        else:
            all_expired = False
    return sorted(expired), all_expired
