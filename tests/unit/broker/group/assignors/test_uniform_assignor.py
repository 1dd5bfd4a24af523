"""Kafka's ``UniformAssignor`` (name ``uniform``): the expectations of Kafka's
UniformHomogeneousAssignmentBuilderTest (where they do not depend on Java's hash iteration order),
UniformHeterogeneousAssignmentBuilderTest (exact: that builder's order is the members' and the topic
ids') and the common assignor tests (assignment reuse, stickiness whatever the member order)."""

from __future__ import annotations

import itertools

import pytest
from server_assignor_fakes import (
    HETEROGENEOUS,
    HOMOGENEOUS,
    T1,
    T2,
    T3,
    T4,
    FakeTopicDescriber,
    check_balanced,
    check_valid,
    group_spec,
    kafka_uuid,
    member,
    plain,
    size,
    with_targets,
)

from kafkette.broker.group.assignors.api import PartitionAssignorError
from kafkette.broker.group.assignors.uniform import UniformAssignor
from kafkette.broker.group.assignors.uniform_heterogeneous import topic_id_sort_key

ASSIGNOR = UniformAssignor()


def _assign(members, subscription_type, counts):
    topics = FakeTopicDescriber(counts)
    spec = group_spec(members, subscription_type)
    result = ASSIGNOR.assign(spec, topics)
    check_valid(spec, topics, result)
    return result


def test_uniform_assignor_is_named_uniform():
    assert ASSIGNOR.name == "uniform"


def test_topic_ids_sort_as_kafka_uuid_compare_to_with_signed_halves():
    negative = bytes([0x80]) + bytes(15)
    assert sorted([T3, T1, negative, T2], key=topic_id_sort_key) == [negative, T1, T2, T3]
    assert kafka_uuid("AAAAAAAAAAAAAAAAAAAAAA") == bytes(16)


def test_empty_group_gets_an_empty_assignment():
    assert ASSIGNOR.assign(group_spec({}, HOMOGENEOUS), FakeTopicDescriber({T1: 3})).members == {}


# ---- homogeneous ----


def test_homogeneous_one_member_without_topics_gets_nothing():
    assert plain(_assign({"A": member()}, HOMOGENEOUS, {T1: 3})) == {"A": {}}


@pytest.mark.parametrize("subscription_type", [HOMOGENEOUS, HETEROGENEOUS])
def test_a_member_subscribed_to_a_missing_topic_fails_the_assignment(subscription_type):
    spec = group_spec(
        {"A": member(T2), "B": member(T3 if subscription_type is HETEROGENEOUS else T2)}, subscription_type
    )
    with pytest.raises(PartitionAssignorError, match="doesn't exist"):
        ASSIGNOR.assign(spec, FakeTopicDescriber({T1: 3}))


def test_homogeneous_first_assignment_gives_the_extra_partition_to_the_last_member():
    result = _assign({"A": member(T1, T3), "B": member(T1, T3)}, HOMOGENEOUS, {T1: 3, T3: 2})
    assert [size(result.members["A"]), size(result.members["B"])] == [2, 3]


def test_homogeneous_more_members_than_partitions_leaves_the_first_member_empty():
    members = {"A": member(T3), "B": member(T3), "C": member(T3)}
    assert plain(_assign(members, HOMOGENEOUS, {T3: 2})) == {"A": {}, "B": {T3: {0}}, "C": {T3: {1}}}


def test_homogeneous_large_group_is_valid_and_balanced():
    topics = [i.to_bytes(16, "big") for i in range(1, 101)]
    members = {f"member{i}": member(*topics) for i in range(1, 50)}
    check_balanced(_assign(members, HOMOGENEOUS, dict.fromkeys(topics, 3)))


def test_homogeneous_unbalanced_previous_assignment_moves_one_partition():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 1}, T2: {0, 1}}),
        "B": member(T1, T2, assigned={T1: {2}, T2: {2}}),
    }
    assert plain(_assign(members, HOMOGENEOUS, {T1: 3, T2: 3})) == {
        "A": {T1: {0, 1}, T2: {0}},
        "B": {T1: {2}, T2: {1, 2}},
    }


def test_homogeneous_added_partitions_go_to_members_below_quota_who_keep_theirs():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 2}, T2: {0}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {1, 2}}),
    }
    result = plain(_assign(members, HOMOGENEOUS, {T1: 6, T2: 5}))
    assert {0, 2} <= result["A"][T1] and {0} <= result["A"][T2]
    assert {1} <= result["B"][T1] and {1, 2} <= result["B"][T2]
    assert [sum(map(len, result[m].values())) for m in "AB"] == [5, 6]


def test_homogeneous_added_member_takes_one_partition_from_each_member_over_quota():
    members = {
        "A": member(T1, T2, assigned={T1: {0, 2}, T2: {0}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {1, 2}}),
        "C": member(T1, T2),
    }
    assert plain(_assign(members, HOMOGENEOUS, {T1: 3, T2: 3})) == {
        "A": {T1: {0, 2}},
        "B": {T1: {1}, T2: {1}},
        "C": {T2: {0, 2}},
    }


def test_homogeneous_removed_member_partitions_are_shared_by_the_others():
    members = {
        "A": member(T1, T2, assigned={T1: {0}, T2: {0}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {1}}),
    }
    result = plain(_assign(members, HOMOGENEOUS, {T1: 3, T2: 3}))
    assert {0} <= result["A"][T1] and {0} <= result["A"][T2]
    assert {1} <= result["B"][T1] and {1} <= result["B"][T2]
    assert [sum(map(len, result[m].values())) for m in "AB"] == [3, 3]


def test_homogeneous_unsubscribed_topic_is_revoked():
    members = {
        "A": member(T2, assigned={T1: {0}, T2: {0}}),
        "B": member(T2, assigned={T1: {1}, T2: {1}}),
    }
    assert plain(_assign(members, HOMOGENEOUS, {T1: 2, T2: 2})) == {"A": {T2: {0}}, "B": {T2: {1}}}


# ---- heterogeneous (members in sorted order, as Kafka's test group spec gives them) ----


def test_heterogeneous_two_members_without_topics_get_nothing():
    assert plain(_assign({"A": member(), "B": member()}, HETEROGENEOUS, {T1: 3})) == {"A": {}, "B": {}}


def test_heterogeneous_first_assignment_two_members_two_topics():
    members = {"A": member(T1, T3), "B": member(T3)}
    assert plain(_assign(members, HETEROGENEOUS, {T1: 3, T3: 6})) == {
        "A": {T1: {0, 1, 2}, T3: {4}},
        "B": {T3: {0, 1, 2, 3, 5}},
    }


def test_heterogeneous_first_assignment_more_members_than_partitions():
    members = {"A": member(T3), "B": member(T3), "C": member(T1)}
    assert plain(_assign(members, HETEROGENEOUS, {T3: 1, T1: 2})) == {
        "A": {T3: {0}},
        "B": {},
        "C": {T1: {0, 1}},
    }


def test_heterogeneous_unbalanced_previous_assignment_three_topics():
    members = {
        "A": member(T1, assigned={T1: {0, 1, 2}}),
        "B": member(T1, T2, assigned={T1: {3}, T2: {0}}),
        "C": member(T1, T2, T3, assigned={T1: {4, 5}, T2: {1, 2, 3}, T3: {0, 1, 2, 3}}),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 6, T2: 4, T3: 4})) == {
        "A": {T1: {0, 1, 2, 5}},
        "B": {T1: {3}, T2: {0, 1, 2, 3}},
        "C": {T1: {4}, T3: {0, 1, 2, 3}},
    }


def test_heterogeneous_partitions_added_for_two_members():
    members = {
        "A": member(T1, T3, assigned={T1: {0, 1, 2, 3}, T3: {0, 1}}),
        "B": member(T1, T2, T3, T4, assigned={T2: {0, 1, 2}, T4: {0, 1, 2}}),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 6, T2: 5, T3: 3, T4: 3})) == {
        "A": {T1: {0, 1, 2, 3, 4, 5}, T3: {0, 1, 2}},
        "B": {T2: {0, 1, 2, 3, 4}, T4: {0, 1, 2}},
    }


def test_heterogeneous_one_member_and_partitions_added():
    members = {
        "A": member(T1, assigned={T1: {0, 2}, T2: {0}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {1, 2}}),
        "C": member(T1, T2),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 6, T2: 7})) == {
        "A": {T1: {0, 2, 3, 4, 5}},
        "B": {T1: {1}, T2: {1, 2, 6}},
        "C": {T2: {0, 3, 4, 5}},
    }


def test_heterogeneous_one_member_removed_from_three():
    members = {
        "A": member(T1, T3, assigned={T1: {0, 1, 2}, T3: {0, 1}}),
        "B": member(T2, assigned={T2: {3, 4, 5, 6}}),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 3, T2: 8, T3: 3})) == {
        "A": {T1: {0, 1, 2}, T3: {0, 1, 2}},
        "B": {T2: set(range(8))},
    }


def test_heterogeneous_one_subscription_removed():
    members = {
        "A": member(T1, assigned={T1: {0, 2}, T2: {1, 3}}),
        "B": member(T1, T2, assigned={T1: {1}, T2: {0, 2, 4}}),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 3, T2: 5})) == {
        "A": {T1: {0, 1, 2}},
        "B": {T2: {0, 1, 2, 3, 4}},
    }


def test_heterogeneous_balancing_stops_when_a_topic_runs_out_of_partitions_to_move():
    members = {
        "A": member(T1, T2, T3, assigned={T1: {0, 1}, T2: {0, 1}, T3: {0, 1}}),
        "B": member(T1, T2, T3),
    }
    assert plain(_assign(members, HETEROGENEOUS, {T1: 2, T2: 2, T3: 2})) == {
        "A": {T2: {0}, T3: {0, 1}},
        "B": {T1: {0, 1}, T2: {1}},
    }


def test_heterogeneous_first_assignment_with_a_member_without_subscriptions():
    members = {"A": member(T1), "B": member()}
    assert plain(_assign(members, HETEROGENEOUS, {T1: 3})) == {"A": {T1: {0, 1, 2}}, "B": {}}


# ---- common: reuse and stickiness, with and without racks ----


def _three_members(subscription_type, racks):
    counts = {T1: 2, T2: 5, T3: 7}
    members = {
        name: member(T1, T2, T3, rack_id=f"rack{i}" if racks else None)
        for i, name in enumerate("ABC", start=1)
    }
    topics = FakeTopicDescriber(counts, racks=racks)
    return group_spec(members, subscription_type), topics


@pytest.mark.parametrize("racks", [False, True])
@pytest.mark.parametrize("subscription_type", [HOMOGENEOUS, HETEROGENEOUS])
def test_an_unchanged_assignment_is_returned_as_the_same_objects(subscription_type, racks):
    spec, topics = _three_members(subscription_type, racks)
    first = ASSIGNOR.assign(spec, topics)
    check_valid(spec, topics, first)
    check_balanced(first)
    second_spec = with_targets(spec, first)
    second = ASSIGNOR.assign(second_spec, topics)
    for member_id in spec.members:
        assert second.members[member_id] is second_spec.members[member_id].assigned_partitions


@pytest.mark.parametrize("racks", [False, True])
@pytest.mark.parametrize("subscription_type", [HOMOGENEOUS, HETEROGENEOUS])
def test_reassignment_is_sticky_whatever_the_member_order(subscription_type, racks):
    spec, topics = _three_members(subscription_type, racks)
    first = ASSIGNOR.assign(spec, topics)
    for order in itertools.permutations("ABC"):
        again = ASSIGNOR.assign(with_targets(spec, first, list(order)), topics)
        assert plain(again) == plain(first), order


@pytest.mark.parametrize("subscription_type", [HOMOGENEOUS, HETEROGENEOUS])
def test_a_held_partition_the_topic_no_longer_has_is_dropped(subscription_type):
    members = {"A": member(T1, assigned={T1: {0, 5}}), "B": member(T1, assigned={T1: {1}})}
    assert plain(_assign(members, subscription_type, {T1: 3})) in (
        {"A": {T1: {0}}, "B": {T1: {1, 2}}},
        {"A": {T1: {0, 2}}, "B": {T1: {1}}},
    )
