"""SubscriptionState: assignment, seeks and offset resets of the consumer."""

from __future__ import annotations

import pytest

from kafkette.client.consumer.subscription_state import SubscriptionState, parse_offset_reset
from kafkette.protocol.apis.list_offsets import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP
from kafkette.protocol.errors import IllegalStateError
from kafkette.protocol.topic_partition import TopicPartition

A = TopicPartition("t", 0)
B = TopicPartition("t", 1)


class ManualClock:
    def __init__(self) -> None:
        self.now_s = 10.0

    def __call__(self) -> float:
        return self.now_s


def test_new_partitions_need_a_reset_with_the_default_strategy():
    subs = SubscriptionState("earliest")
    subs.assign([A, B])
    assert subs.partitions_needing_reset() == {A: EARLIEST_TIMESTAMP, B: EARLIEST_TIMESTAMP}
    assert subs.fetchable_partitions() == []
    assert subs.position(A) is None


def test_seek_sets_the_position_and_makes_the_partition_fetchable():
    subs = SubscriptionState("latest")
    subs.assign([A, B])
    subs.seek(A, 42)
    assert subs.position(A) == 42
    assert subs.fetchable_partitions() == [A]
    assert subs.partitions_needing_reset() == {B: LATEST_TIMESTAMP}


def test_reassignment_keeps_positions_of_kept_partitions():
    subs = SubscriptionState()
    subs.assign([A, B])
    subs.seek(A, 7)
    subs.assign([A])
    assert subs.position(A) == 7
    assert not subs.is_assigned(B)


def test_requested_reset_overrides_a_position_until_completed():
    subs = SubscriptionState("latest")
    subs.assign([A])
    subs.seek(A, 10)
    subs.request_reset(A, EARLIEST_TIMESTAMP)
    assert subs.position(A) is None
    assert subs.partitions_needing_reset() == {A: EARLIEST_TIMESTAMP}
    assert not subs.complete_reset(A, LATEST_TIMESTAMP, 99)  # answer for another reset
    assert subs.complete_reset(A, EARLIEST_TIMESTAMP, 3)
    assert subs.position(A) == 3 and subs.partitions_needing_reset() == {}


def test_none_strategy_raises_when_no_position_is_known():
    subs = SubscriptionState("none")
    subs.assign([A])
    assert subs.partitions_needing_reset() == {}
    with pytest.raises(IllegalStateError):
        subs.reset_timestamp(A)


def test_backoff_hides_a_partition_until_it_expires():
    clock = ManualClock()
    subs = SubscriptionState("earliest", clock=clock)
    subs.assign([A])
    subs.seek(A, 0)
    subs.backoff(A, 100)
    assert subs.fetchable_partitions() == []
    assert subs.next_backoff_expiry_ms() == pytest.approx(100)
    clock.now_s += 0.1
    assert subs.fetchable_partitions() == [A]


def test_seek_on_an_unassigned_partition_or_negative_offset_is_refused():
    subs = SubscriptionState()
    subs.assign([A])
    with pytest.raises(IllegalStateError):
        subs.seek(B, 0)
    with pytest.raises(ValueError):
        subs.seek(A, -1)


def test_assign_requires_topic_partitions_and_known_strategies():
    subs = SubscriptionState()
    with pytest.raises(TypeError):
        subs.assign([("t", 0)])
    with pytest.raises(ValueError):
        parse_offset_reset("smallest")


def test_paused_partitions_are_not_fetchable_until_resumed() -> None:
    subs = SubscriptionState("earliest")
    a, b = TopicPartition("t", 0), TopicPartition("t", 1)
    subs.assign([a, b])
    subs.seek(a, 3)
    subs.seek(b, 4)
    subs.pause([a, TopicPartition("unassigned", 0)])
    assert subs.paused() == {a} and subs.is_paused(a) and not subs.is_paused(b)
    assert subs.fetchable_partitions() == [b]
    subs.resume([a])
    assert sorted(subs.fetchable_partitions()) == [a, b] and subs.position(a) == 3
