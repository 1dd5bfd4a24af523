"""Kafka's rack-unaware replica assignment (seed 000 worked example and properties)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kafkette.controller.replica_assignment import assign_replicas_to_brokers, get_rack_alternated_broker_list
from kafkette.protocol.errors import (
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
)


def test_seed_worked_example_five_brokers_ten_partitions_rf_three():
    assignment = assign_replicas_to_brokers(10, 3, [0, 1, 2, 3, 4], fixed_start_index=0)
    assert assignment[0] == [0, 1, 2]
    assert assignment[2] == [2, 3, 4]
    assert assignment[5] == [0, 2, 3]
    assert assignment[8] == [3, 0, 1]
    assert assignment == {
        0: [0, 1, 2],
        1: [1, 2, 3],
        2: [2, 3, 4],
        3: [3, 4, 0],
        4: [4, 0, 1],
        5: [0, 2, 3],
        6: [1, 3, 4],
        7: [2, 4, 0],
        8: [3, 0, 1],
        9: [4, 1, 2],
    }


def test_broker_ids_are_taken_from_the_list_not_the_index():
    assignment = assign_replicas_to_brokers(3, 2, [10, 20, 30], fixed_start_index=0)
    assert assignment == {0: [10, 20], 1: [20, 30], 2: [30, 10]}


def test_start_partition_id_continues_leader_round_robin_for_added_partitions():
    # The shift only bumps when the loop crosses a multiple of the broker count, as in Kafka.
    added = assign_replicas_to_brokers(5, 3, [0, 1, 2, 3, 4], fixed_start_index=0, start_partition_id=6)
    assert added == {6: [1, 2, 3], 7: [2, 3, 4], 8: [3, 4, 0], 9: [4, 0, 1], 10: [0, 2, 3]}


@pytest.mark.parametrize("seed", range(20))
def test_random_assignment_has_distinct_replicas_and_even_leaders(seed):
    brokers = [1, 2, 3, 4, 5, 6]
    assignment = assign_replicas_to_brokers(24, 3, brokers, rng=random.Random(seed))
    assert sorted(assignment) == list(range(24))
    for replicas in assignment.values():
        assert len(replicas) == 3
        assert len(set(replicas)) == 3
        assert set(replicas) <= set(brokers)
    leaders = Counter(replicas[0] for replicas in assignment.values())
    assert set(leaders.values()) == {4}
    replica_counts = Counter(b for replicas in assignment.values() for b in replicas)
    assert set(replica_counts.values()) == {12}


def test_same_rng_seed_gives_the_same_assignment():
    a = assign_replicas_to_brokers(8, 2, [0, 1, 2], rng=random.Random(3))
    b = assign_replicas_to_brokers(8, 2, [0, 1, 2], rng=random.Random(3))
    assert a == b


def test_replication_factor_larger_than_brokers_is_rejected_with_kafkas_message():
    with pytest.raises(
        InvalidReplicationFactorError, match=r"Replication factor: 4 larger than available brokers: 3\."
    ):
        assign_replicas_to_brokers(1, 4, [0, 1, 2])


@pytest.mark.parametrize("rf", [0, -1])
def test_non_positive_replication_factor_is_rejected(rf):
    with pytest.raises(InvalidReplicationFactorError):
        assign_replicas_to_brokers(1, rf, [0, 1, 2])


@pytest.mark.parametrize("n", [0, -3])
def test_non_positive_partition_count_is_rejected(n):
    with pytest.raises(InvalidPartitionsError):
        assign_replicas_to_brokers(n, 1, [0, 1, 2])


def test_single_broker_rf_one_assigns_every_partition_to_it():
    assert assign_replicas_to_brokers(3, 1, [7]) == {0: [7], 1: [7], 2: [7]}


# ------------------------------------------------------------------ rack-aware

RACKS_6 = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}


def test_rack_alternated_broker_list_interleaves_racks_in_name_order():
    assert get_rack_alternated_broker_list(RACKS_6) == [0, 3, 1, 5, 4, 2]


def test_rack_alternated_broker_list_with_uneven_racks_lists_every_broker_once():
    racks = {0: "a", 1: "a", 2: "a", 3: "b"}
    assert get_rack_alternated_broker_list(racks) == [0, 3, 1, 2]


def test_rack_aware_assignment_matches_kafkas_worked_example():
    assignment = assign_replicas_to_brokers(7, 3, sorted(RACKS_6), broker_racks=RACKS_6, fixed_start_index=0)
    assert assignment == {
        0: [0, 3, 1],
        1: [3, 1, 5],
        2: [1, 5, 4],
        3: [5, 4, 2],
        4: [4, 2, 0],
        5: [2, 0, 3],
        6: [0, 4, 2],
    }


def _check_rack_spreading(assignment, racks, rf):
    num_racks = len(set(racks.values()))
    for replicas in assignment.values():
        assert len(set(replicas)) == rf
        assert len({racks[b] for b in replicas}) == min(rf, num_racks)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(
    ("racks", "partitions", "rf"),
    [
        ({0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}, 6, 3),
        (RACKS_6, 12, 2),
        ({0: "a", 1: "b", 2: "c", 3: "a", 4: "b", 5: "c", 6: "a", 7: "b", 8: "c"}, 9, 3),
        ({0: "a", 1: "b", 2: "a", 3: "b"}, 8, 3),  # RF above the rack count: every rack first
    ],
)
def test_rack_aware_replicas_use_distinct_racks_and_leaders_are_spread_evenly(seed, racks, partitions, rf):
    assignment = assign_replicas_to_brokers(
        partitions, rf, sorted(racks), broker_racks=racks, rng=random.Random(seed)
    )
    assert sorted(assignment) == list(range(partitions))
    _check_rack_spreading(assignment, racks, rf)
    leaders = Counter(replicas[0] for replicas in assignment.values())
    assert set(leaders.values()) == {partitions // len(racks)}
    replica_counts = Counter(b for replicas in assignment.values() for b in replicas)
    assert set(replica_counts.values()) == {partitions * rf // len(racks)}


def test_rack_aware_assignment_spreads_leaders_over_racks():
    racks = {0: "a", 1: "a", 2: "b", 3: "b", 4: "c", 5: "c"}
    assignment = assign_replicas_to_brokers(6, 1, sorted(racks), broker_racks=racks, fixed_start_index=0)
    leader_racks = [racks[assignment[p][0]] for p in range(6)]
    assert leader_racks == ["a", "b", "c", "a", "b", "c"]


def test_rack_aware_start_partition_id_continues_the_assignment():
    whole = assign_replicas_to_brokers(10, 2, sorted(RACKS_6), broker_racks=RACKS_6, fixed_start_index=1)
    tail = assign_replicas_to_brokers(
        4, 2, sorted(RACKS_6), broker_racks=RACKS_6, fixed_start_index=1, start_partition_id=6
    )
    assert tail == {p: whole[p] for p in range(6, 10)}


def test_some_brokers_without_rack_is_an_error():
    with pytest.raises(InvalidReplicaAssignmentError, match="Not all brokers have rack information"):
        assign_replicas_to_brokers(3, 2, [1, 2, 3], broker_racks={1: "a", 2: None, 3: "b"})


def test_no_broker_with_a_rack_is_rack_unaware():
    plain = assign_replicas_to_brokers(10, 3, [0, 1, 2, 3, 4], fixed_start_index=0)
    assert (
        assign_replicas_to_brokers(
            10, 3, [0, 1, 2, 3, 4], broker_racks=dict.fromkeys(range(5)), fixed_start_index=0
        )
        == plain
    )
