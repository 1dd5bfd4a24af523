"""KIP-211's rule for expiring the offsets of a group without members."""

from __future__ import annotations

from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.broker.group.offset_expiration import expired_offsets
from kafkette.protocol.topic_partition import TopicPartition

T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)
HOUR = 3_600_000


def test_without_an_empty_time_each_offset_counts_from_its_commit() -> None:
    offsets = {
        T0: OffsetCommitValue(5, commit_timestamp=0),
        T1: OffsetCommitValue(9, commit_timestamp=2 * HOUR),
    }
    assert expired_offsets(offsets, now_ms=3 * HOUR, retention_ms=2 * HOUR, empty_since_ms=None) == [T0]
    assert expired_offsets(offsets, now_ms=4 * HOUR, retention_ms=2 * HOUR, empty_since_ms=None) == [T0, T1]


def test_an_emptied_group_counts_from_when_it_emptied() -> None:
    offsets = {T0: OffsetCommitValue(5, commit_timestamp=0), T1: OffsetCommitValue(9, commit_timestamp=0)}
    assert expired_offsets(offsets, now_ms=3 * HOUR, retention_ms=2 * HOUR, empty_since_ms=2 * HOUR) == []
    assert expired_offsets(offsets, now_ms=4 * HOUR, retention_ms=2 * HOUR, empty_since_ms=2 * HOUR) == [
        T0,
        T1,
    ]
