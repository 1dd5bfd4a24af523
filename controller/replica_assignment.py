"""Replica assignment: which brokers host the replicas of each new partition.

Owns: ``assign_replicas_to_brokers`` with Kafka's rack-unaware and rack-aware
algorithms, and ``get_rack_alternated_broker_list``.  Does not own
validation of a manual assignment (``topic_validation.py``) nor the choice of which
brokers are eligible (the caller passes the sorted live broker ids).

Kafka concept: ``AdminUtils.assignReplicasToBrokers`` /
``assignReplicasToBrokersRackUnaware``.  Goals: spread replicas
evenly over brokers, and put the replicas of one partition on distinct brokers.

Algorithm (n = number of brokers)::

    start_index        = fixed_start_index if >= 0 else random in [0, n)
    next_replica_shift = fixed_start_index if >= 0 else random in [0, n)
    for each partition p (from max(0, start_partition_id), counting up):
        if p > 0 and p % n == 0: next_replica_shift += 1
        first = (p + start_index) % n                      # leader, round-robin
        replica j (j = 0 .. rf-2) = (first + 1 + (next_replica_shift + j) % (n - 1)) % n

The shift bump every n partitions keeps large topics from repeating the same
leader/follower pairs.  Worked example: brokers [0..4], 10 partitions,
RF 3, start index 0, shift 0 gives p0 -> [0, 1, 2], p2 -> [2, 3, 4],
p5 -> [0, 2, 3], p8 -> [3, 0, 1].

Rack-aware (``assignReplicasToBrokersRackAware``, used when every broker has a rack;
an error when only some have one)::

    arranged = brokers interleaved by rack (racks sorted, ids sorted within a rack):
               {0: r1, 1: r3, 2: r3, 3: r2, 4: r2, 5: r1} -> [0, 3, 1, 5, 4, 2]
    leader of p = arranged[(p + start_index) % n]           # same round-robin
    followers: walk k = 0, 1, ... over
        arranged[replica_index(first, next_replica_shift * n_racks, k, n)]
      and take a broker unless (its rack already holds a replica of p and some rack
      holds none) or (it already holds a replica of p and some broker holds none).

So the replicas of a partition land on distinct racks first (all racks before any
rack twice), leaders rotate over the rack-alternated list (evenly over racks and
brokers), and followers are spread like the rack-unaware ones.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from kafkette.protocol.errors import (
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
)

NOT_ALL_BROKERS_HAVE_RACK = "Not all brokers have rack information for replica rack aware assignment."


def assign_replicas_to_brokers(
    n_partitions: int,
    replication_factor: int,
    broker_ids: Sequence[int],
    *,
    broker_racks: Mapping[int, str | None] | None = None,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | object = random,
) -> dict[int, list[int]]:
    """Assign ``replication_factor`` distinct brokers to each of ``n_partitions`` partitions.

    Args:
        n_partitions: number of partitions to assign (>= 1).
        replication_factor: replicas per partition (1 .. len(broker_ids)).
        broker_ids: candidate broker ids in the order the algorithm indexes them
            (the controller passes the sorted live broker ids).
        broker_racks: ``{broker id: rack or None}`` for ``broker_ids``; when every
            broker has a rack the assignment is rack-aware, when none has one (or
            ``broker_racks`` is None) rack-unaware.
        fixed_start_index: when >= 0, used as both the start index and the initial
            replica shift (deterministic, as in Kafka's tests); else random.
        start_partition_id: id of the first partition to assign (for added
            partitions); -1 means 0.
        rng: source of randomness with ``randrange`` (the ``random`` module or a
            ``random.Random``), for reproducible tests.

    Returns:
        ``{partition id: [broker ids]}``; the first broker of each list is the
        preferred leader.

    Raises:
        InvalidPartitionsError: ``n_partitions`` <= 0.
        InvalidReplicationFactorError: ``replication_factor`` <= 0 or larger than the
            number of brokers.
        InvalidReplicaAssignmentError: only some brokers have a rack (Kafka's
            AdminOperationException "Not all brokers have rack information ...").
        ValueError: ``broker_ids`` contains duplicates.
    """
    if n_partitions <= 0:
        raise InvalidPartitionsError("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InvalidReplicationFactorError("Replication factor must be larger than 0.")
    if replication_factor > len(broker_ids):
        raise InvalidReplicationFactorError(
            f"Replication factor: {replication_factor} larger than available brokers: {len(broker_ids)}."
        )
    if len(set(broker_ids)) != len(broker_ids):
        raise ValueError(f"broker_ids must be distinct, got {list(broker_ids)}")
    racks = {b: (broker_racks or {}).get(b) for b in broker_ids}
    if all(rack is None for rack in racks.values()):
        return _assign_replicas_to_brokers_rack_unaware(
            n_partitions, replication_factor, list(broker_ids), fixed_start_index, start_partition_id, rng
        )
    if any(rack is None for rack in racks.values()):
        raise InvalidReplicaAssignmentError(NOT_ALL_BROKERS_HAVE_RACK)
    return _assign_replicas_to_brokers_rack_aware(
        n_partitions,
        replication_factor,
        racks,
        fixed_start_index,
        start_partition_id,
        rng,  # type: ignore[arg-type]
    )


def get_rack_alternated_broker_list(broker_racks: Mapping[int, str]) -> list[int]:
    """Brokers interleaved by rack: one broker of each rack in turn (racks sorted by name,
    brokers by id within a rack), until every broker is listed.

    Kafka concept: ``AdminUtils.getRackAlternatedBrokerList``.

    Returns:
        e.g. ``{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}``
        -> ``[0, 3, 1, 5, 4, 2]``.
    """
    by_rack: dict[str, list[int]] = {}
    for broker_id, rack in broker_racks.items():
        by_rack.setdefault(rack, []).append(broker_id)
    iterators = {rack: iter(sorted(ids)) for rack, ids in by_rack.items()}
    racks = sorted(iterators)
    result: list[int] = []
    rack_index = 0
    while len(result) < len(broker_racks):
        broker_id = next(iterators[racks[rack_index]], None)
        if broker_id is not None:
            result.append(broker_id)
        rack_index = (rack_index + 1) % len(racks)
    return result


def _assign_round_robin(
    n_partitions: int,
    broker_array: list[int],
    fixed_start_index: int,
    start_partition_id: int,
    rng: object,
    replicas_for: Callable[[int, int], list[int]],
) -> dict[int, list[int]]:
    """Kafka's round-robin walk shared by the rack-aware and rack-unaware assignments.

    Picks a start index and a replica shift (fixed, or drawn from ``rng`` in that order),
    places partition ``p``'s first replica at ``(p + start_index) % n_brokers`` and bumps the
    shift each time the partition id wraps around the broker array.

    Args:
        n_partitions: how many partitions to assign.
        broker_array: the brokers in walk order.
        fixed_start_index: start index and initial shift; negative to draw both from ``rng``.
        start_partition_id: first partition id to assign (negative counts as 0).
        rng: source of ``randrange`` (a ``random.Random`` or the ``random`` module).
        replicas_for: ``(first_replica_index, next_replica_shift) -> replicas`` for one partition.

    Returns:
        ``{partition_id: replicas}``.
    """
    n_brokers = len(broker_array)
    randrange = rng.randrange  # type: ignore[attr-defined]
    start_index = fixed_start_index if fixed_start_index >= 0 else randrange(n_brokers)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else randrange(n_brokers)
    current_partition_id = max(0, start_partition_id)
    assignment: dict[int, list[int]] = {}
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % n_brokers == 0:
            next_replica_shift += 1
        first_replica_index = (current_partition_id + start_index) % n_brokers
        assignment[current_partition_id] = replicas_for(first_replica_index, next_replica_shift)
        current_partition_id += 1
    return assignment


def _assign_replicas_to_brokers_rack_aware(
    n_partitions: int,
    replication_factor: int,
    broker_racks: Mapping[int, str],
    fixed_start_index: int,
    start_partition_id: int,
    rng: object,
) -> dict[int, list[int]]:
    num_racks = len(set(broker_racks.values()))
    arranged = get_rack_alternated_broker_list(broker_racks)
    n_brokers = len(arranged)

    def replicas_for(first_replica_index: int, next_replica_shift: int) -> list[int]:
        leader = arranged[first_replica_index]
        replicas = [leader]
        racks_with_replicas = {broker_racks[leader]}
        brokers_with_replicas = {leader}
        k = 0
        for _ in range(replication_factor - 1):
            while True:  # ends within 2 * n_brokers steps: the walk visits every broker
                broker = arranged[
                    replica_index(first_replica_index, next_replica_shift * num_racks, k, n_brokers)
                ]
                rack = broker_racks[broker]
                k += 1
                if (rack not in racks_with_replicas or len(racks_with_replicas) == num_racks) and (
                    broker not in brokers_with_replicas or len(brokers_with_replicas) == n_brokers
                ):
                    replicas.append(broker)
                    racks_with_replicas.add(rack)
                    brokers_with_replicas.add(broker)
                    break
        return replicas

    return _assign_round_robin(
        n_partitions, arranged, fixed_start_index, start_partition_id, rng, replicas_for
    )


def _assign_replicas_to_brokers_rack_unaware(
    n_partitions: int,
    replication_factor: int,
    broker_array: list[int],
    fixed_start_index: int,
    start_partition_id: int,
    rng: object,
) -> dict[int, list[int]]:
    n_brokers = len(broker_array)

    def replicas_for(first_replica_index: int, next_replica_shift: int) -> list[int]:
        return [broker_array[first_replica_index]] + [
            broker_array[replica_index(first_replica_index, next_replica_shift, j, n_brokers)]
            for j in range(replication_factor - 1)
        ]

    return _assign_round_robin(
        n_partitions, broker_array, fixed_start_index, start_partition_id, rng, replicas_for
    )


def replica_index(
    first_replica_index: int, second_replica_shift: int, replica_index: int, n_brokers: int
) -> int:
    """Index (into the broker array) of follower ``replica_index`` of a partition.

    Args:
        first_replica_index: index of the partition's first replica (its leader).
        second_replica_shift: the current ``next_replica_shift``.
        replica_index: 0 for the second replica, 1 for the third, ...
        n_brokers: number of brokers (> 1 whenever there are followers).

    Returns:
        ``(first + 1 + (shift + replica_index) % (n_brokers - 1)) % n_brokers``; never
        equal to ``first_replica_index``.
    """
    shift = 1 + (second_replica_shift + replica_index) % (n_brokers - 1)
    return (first_replica_index + shift) % n_brokers
