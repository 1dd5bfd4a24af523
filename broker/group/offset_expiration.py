"""Which committed offsets have outlived ``offsets.retention.minutes``.

Owns: the rule (KIP-211): the offsets of a group without members expire once the retention has
passed since the group became Empty (or, when that time is unknown, since each offset was
committed); a group with members keeps its offsets.  Pure code: the coordinator's periodic
cleanup applies it.

Kafka concept: ``GroupMetadata.removeExpiredOffsets`` / ``GroupMetadataManager.cleanupGroupMetadata``.
"""

from __future__ import annotations

from collections.abc import Mapping

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
