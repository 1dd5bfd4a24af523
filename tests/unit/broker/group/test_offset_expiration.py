"""KIP-211's rule for expiring the offsets of a group without members."""

from __future__ import annotations

from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.broker.group.offset_expiration import expired_consumer_group_offsets, expired_offsets
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


def test_a_consumer_groups_unsubscribed_topics_expire_by_commit_time_and_subscribed_ones_stay() -> None:
    other = TopicPartition("other", 0)
    offsets = {
        T0: OffsetCommitValue(5, commit_timestamp=0),
        other: OffsetCommitValue(7, commit_timestamp=HOUR),
    }

    def subscribed(topic: str) -> bool:
        return topic == "t"

    assert expired_consumer_group_offsets(offsets, 2 * HOUR, 2 * HOUR, subscribed) == ([], False)
    assert expired_consumer_group_offsets(offsets, 3 * HOUR, 2 * HOUR, subscribed) == ([other], False)
    assert expired_consumer_group_offsets(offsets, 3 * HOUR, 2 * HOUR, lambda topic: False) == (
        [other, T0],
        True,
    )


def test_a_consumer_group_without_offsets_has_all_of_them_expired() -> None:
    assert expired_consumer_group_offsets({}, 0, HOUR, lambda topic: True) == ([], True)
