"""Kafka's rack-unaware replica assignment (seed 000 worked example and properties)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.replica_assignment import assign_replicas_to_brokers
from protocol.errors import InvalidPartitionsError, InvalidReplicationFactorError  # type: ignore[attr-defined]


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
    with pytest.raises(InvalidReplicationFactorError, match=r"Replication factor: 4 larger than available brokers: 3\."):
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
