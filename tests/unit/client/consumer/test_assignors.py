"""The range and round-robin assignors divide partitions as Kafka's do."""

from __future__ import annotations

import pytest

from kafkette.client.consumer.assignors import (
    CooperativeStickyAssignor,
    RangeAssignor,
    RoundRobinAssignor,
    StickyAssignor,
    assignor_for,
)
from kafkette.protocol.topic_partition import TopicPartition


def tps(topic: str, *partitions: int) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in partitions]


def test_range_gives_consecutive_ranges_the_first_members_one_more() -> None:
    plan = RangeAssignor().assign({"t": 7}, {"c": ["t"], "a": ["t"], "b": ["t"]})
    assert plan == {"a": tps("t", 0, 1, 2), "b": tps("t", 3, 4), "c": tps("t", 5, 6)}


def test_range_works_per_topic_over_the_members_subscribed_to_it() -> None:
    plan = RangeAssignor().assign({"t": 2, "u": 3}, {"a": ["t", "u"], "b": ["u"]})
    assert plan == {"a": tps("t", 0, 1) + tps("u", 0, 1), "b": tps("u", 2)}


def test_round_robin_deals_partitions_in_turn() -> None:
    plan = RoundRobinAssignor().assign({"t": 3, "u": 2}, {"a": ["t", "u"], "b": ["t", "u"]})
    assert plan == {
        "a": [TopicPartition("t", 0), TopicPartition("t", 2), TopicPartition("u", 1)],
        "b": [TopicPartition("t", 1), TopicPartition("u", 0)],
    }


def test_round_robin_skips_members_not_subscribed() -> None:
    plan = RoundRobinAssignor().assign({"t": 2, "u": 2}, {"a": ["t"], "b": ["u"]})
    assert plan == {"a": tps("t", 0, 1), "b": tps("u", 0, 1)}


@pytest.mark.parametrize("assignor", [RangeAssignor(), RoundRobinAssignor()])
def test_every_partition_once_and_members_without_topics_get_nothing(assignor) -> None:
    plan = assignor.assign(
        {"t": 6, "missing-is-absent": 0}, {"a": ["t"], "b": ["t"], "c": ["t"], "d": ["other"]}
    )
    given = [tp for ps in plan.values() for tp in ps]
    assert sorted(given) == tps("t", *range(6)) and plan["d"] == []
    assert {len(plan[m]) for m in "abc"} == {2}


def test_unknown_assignor_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known: cooperative-sticky, range, roundrobin, sticky"):
        assignor_for("sticky-ish")


def test_sticky_keeps_owned_partitions_and_balances() -> None:
    owned = {"a": tps("t", 0, 1, 2), "b": tps("t", 3, 4, 5)}
    plan = StickyAssignor().assign({"t": 6}, {"a": ["t"], "b": ["t"], "c": ["t"]}, owned)
    assert set(plan["a"]) < set(owned["a"]) and set(plan["b"]) < set(owned["b"])
    assert sorted(len(ps) for ps in plan.values()) == [2, 2, 2]
    assert sorted(tp for ps in plan.values() for tp in ps) == tps("t", *range(6))


def test_sticky_drops_owned_partitions_that_no_longer_exist_or_are_not_subscribed() -> None:
    owned = {"a": tps("t", 0, 5) + tps("gone", 0)}
    plan = StickyAssignor().assign({"t": 2}, {"a": ["t"], "b": ["t"]}, owned)
    assert plan == {"a": tps("t", 0), "b": tps("t", 1)}


def test_cooperative_sticky_never_hands_over_a_partition_its_owner_still_holds() -> None:
    owned = {"a": tps("t", 0, 1, 2), "b": tps("t", 3, 4, 5), "c": []}
    plan = CooperativeStickyAssignor().assign({"t": 6}, {"a": ["t"], "b": ["t"], "c": ["t"]}, owned)
    assert plan["c"] == []  # its share is still owned: a and b give it up first
    assert len(plan["a"]) == len(plan["b"]) == 2
    after = {"a": plan["a"], "b": plan["b"], "c": []}  # the follow-up rebalance
    assert (
        len(CooperativeStickyAssignor().assign({"t": 6}, {"a": ["t"], "b": ["t"], "c": ["t"]}, after)["c"])
        == 2
    )
