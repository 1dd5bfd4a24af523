"""Kafka's ``RangeAssignor`` (name ``range``): exact placements, ported from Kafka's RangeAssignorTest
plus the member order (static members first by instance id, Java string order)."""

from __future__ import annotations

import pytest
from server_assignor_fakes import (
    HETEROGENEOUS,
    HOMOGENEOUS,
    T1,
    T2,
    T3,
    FakeTopicDescriber,
    check_valid,
    group_spec,
    member,
    plain,
)

from kafkette.broker.group.assignors.api import PartitionAssignorError
from kafkette.broker.group.assignors.range import RangeAssignor, sorted_member_ids

ASSIGNOR = RangeAssignor()


def _assign(members, subscription_type, counts):
    topics = FakeTopicDescriber(counts)
    spec = group_spec(members, subscription_type)
    result = ASSIGNOR.assign(spec, topics)
    check_valid(spec, topics, result)
    return plain(result)


def test_range_assignor_is_named_range():
    assert ASSIGNOR.name == "range"


def test_empty_group_gets_an_empty_assignment():
    assert ASSIGNOR.assign(group_spec({}, HOMOGENEOUS), FakeTopicDescriber({T1: 3})).members == {}


def test_one_member_without_topics_gets_nothing():
    assert _assign({"A": member()}, HOMOGENEOUS, {T1: 3}) == {"A": {}}


@pytest.mark.parametrize("subscription_type", [HOMOGENEOUS, HETEROGENEOUS])
def test_a_member_subscribed_to_a_missing_topic_fails_the_assignment(subscription_type):
    spec = group_spec({"A": member(T2)}, subscription_type)
    with pytest.raises(PartitionAssignorError):
        ASSIGNOR.assign(spec, FakeTopicDescriber({T1: 3}))


def test_first_assignment_two_members_two_topics_same_subscriptions():
    members = {"A": member(T1, T3), "B": member(T1, T3)}
    assert _assign(members, HOMOGENEOUS, {T1: 3, T3: 2}) == {
        "A": {T1: {0, 1}, T3: {0}},
        "B": {T1: {2}, T3: {1}},
    }


def test_first_assignment_three_members_three_topics_different_subscriptions():
    members = {"A": member(T1, T2), "B": member(T3), "C": member(T2, T3)}
    assert _assign(members, HETEROGENEOUS, {T1: 3, T2: 3, T3: 2}) == {
        "A": {T1: {0, 1, 2}, T2: {0, 1}},
        "B": {T3: {0}},
        "C": {T2: {2}, T3: {1}},
    }


def test_first_assignment_more_members_than_partitions():
    members = {"A": member(T1, T3), "B": member(T1, T3), "C": member(T1, T3)}
    assert _assign(members, HOMOGENEOUS, {T1: 3, T3: 2}) == {
        "A": {T1: {0}, T3: {0}},
        "B": {T1: {1}, T3: {1}},
        "C": {T1: {2}},
    }


def test_static_member_rejoining_with_a_new_member_id_keeps_its_partitions():
    first = _assign(
        {"A": member(T1, instance_id="instanceA"), "B": member(T1, instance_id="instanceB")},
        HOMOGENEOUS,
        {T1: 3},
    )
    second = _assign(
        {"B": member(T1, instance_id="instanceB"), "memberA1": member(T1, instance_id="instanceA")},
        HOMOGENEOUS,
        {T1: 3},
    )
    assert second == {"memberA1": first["A"], "B": first["B"]}
    assert first == {"A": {T1: {0, 1}}, "B": {T1: {2}}}


def test_mixed_static_and_dynamic_members_keep_their_partitions_across_a_static_rejoin():
    counts = {T1: 5}
    first = _assign(
        {"A": member(T1, instance_id="instanceA"), "B": member(T1), "C": member(T1, instance_id="instanceC")},
        HOMOGENEOUS,
        counts,
    )
    second = _assign(
        {
            "B": member(T1),
            "C": member(T1, instance_id="instanceC"),
            "memberA1": member(T1, instance_id="instanceA"),
        },
        HOMOGENEOUS,
        counts,
    )
    assert second == {"memberA1": first["A"], "B": first["B"], "C": first["C"]}
    # static members first (instanceA, instanceC), the dynamic B last
    assert first == {"A": {T1: {0, 1}}, "C": {T1: {2, 3}}, "B": {T1: {4}}}


def test_a_new_member_gets_nothing_when_members_outnumber_partitions():
    members = {
        "A": member(T1, T2, assigned={T1: {0}, T2: {0}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {1}}),
        "C": member(T1, T2),
    }
    assert _assign(members, HOMOGENEOUS, {T1: 2, T2: 2}) == {
        "A": {T1: {0}, T2: {0}},
        "B": {T1: {1}, T2: {1}},
        "C": {},
    }


def test_one_partition_added_to_each_topic_goes_to_the_second_member():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 1}, T2: {0, 1}}),
        "B": member(T1, T2, assigned={T1: {2}, T2: {2}}),
    }
    assert _assign(members, HOMOGENEOUS, {T1: 4, T2: 4}) == {
        "A": {T1: {0, 1}, T2: {0, 1}},
        "B": {T1: {2, 3}, T2: {2, 3}},
    }


def test_one_member_added_to_two_members_on_two_topics_reranges_everything():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 1}, T2: {0, 1}}),
        "B": member(T1, T2, assigned={T1: {2}, T2: {2}}),
        "C": member(T1, T2),
    }
    assert _assign(members, HOMOGENEOUS, {T1: 3, T2: 3}) == {
        "A": {T1: {0}, T2: {0}},
        "B": {T1: {1}, T2: {1}},
        "C": {T1: {2}, T2: {2}},
    }


def test_one_member_and_one_partition_added_heterogeneous():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 1}, T2: {0, 1}}),
        "B": member(T1, T2, assigned={T1: {2}, T2: {2}}),
        "C": member(T1),
    }
    assert _assign(members, HETEROGENEOUS, {T1: 4, T2: 3}) == {
        "A": {T1: {0, 1}, T2: {0, 1}},
        "B": {T1: {2}, T2: {2}},
        "C": {T1: {3}},
    }


def test_the_remaining_member_takes_everything_when_one_leaves():
    members = {"B": member(T1, T2, assigned={T1: {2}, T2: {2}})}
    assert _assign(members, HOMOGENEOUS, {T1: 3, T2: 3}) == {"B": {T1: {0, 1, 2}, T2: {0, 1, 2}}}


def test_subscriptions_changed_on_three_members_are_reranged_per_topic():
    members = {
        "A": member(T1, assigned={T1: {0, 1, 2}, T2: {0}}),
        "B": member(T1, T2, T3, assigned={T2: {1}}),
        "C": member(T2, assigned={T2: {2}, T3: {0, 1}}),
    }
    assert _assign(members, HETEROGENEOUS, {T1: 3, T2: 3, T3: 2}) == {
        "A": {T1: {0, 1}},
        "B": {T1: {2}, T2: {0, 1}, T3: {0, 1}},
        "C": {T2: {2}},
    }


def test_members_are_ordered_static_first_by_instance_id_then_by_member_id_in_java_string_order():
    members = {
        "z-dynamic": member(T1),
        "\U0001f600-dynamic": member(T1),  # a surrogate pair sorts before U+FF21 in Java
        "\uff21-dynamic": member(T1),
        "a-dynamic": member(T1),
        "m-static": member(T1, instance_id="instance-2"),
        "b-static": member(T1, instance_id="instance-10"),
    }
    spec = group_spec(members, HOMOGENEOUS)
    assert sorted_member_ids(spec) == [
        "b-static",
        "m-static",
        "a-dynamic",
        "z-dynamic",
        "\U0001f600-dynamic",
        "\uff21-dynamic",
    ]
    result = plain(ASSIGNOR.assign(spec, FakeTopicDescriber({T1: 8})))
    assert [result[m][T1] for m in sorted_member_ids(spec)] == [{0, 1}, {2, 3}, {4}, {5}, {6}, {7}]


def test_range_ignores_the_current_target():
    moved = {"A": member(T1, assigned={T1: {2}}), "B": member(T1, assigned={T1: {0, 1}})}
    assert _assign(moved, HOMOGENEOUS, {T1: 3}) == {"A": {T1: {0, 1}}, "B": {T1: {2}}}
