"""Replica assignment: which brokers host the replicas of each new partition.

Owns: ``assign_replicas_to_brokers``, Kafka's rack-unaware algorithm.  Does not own
validation of a manual assignment (``topic_validation.py``) nor the choice of which
brokers are eligible (the caller passes the sorted live broker ids).

Kafka concept: ``AdminUtils.assignReplicasToBrokers`` /
``assignReplicasToBrokersRackUnaware`` (seeds 000 and 003).  Goals: spread replicas
evenly over brokers, and put the replicas of one partition on distinct brokers.

Algorithm (n = number of brokers)::

    start_index        = fixed_start_index if >= 0 else random in [0, n)
    next_replica_shift = fixed_start_index if >= 0 else random in [0, n)
    for each partition p (from max(0, start_partition_id), counting up):
        if p > 0 and p % n == 0: next_replica_shift += 1
        first = (p + start_index) % n                      # leader, round-robin
        replica j (j = 0 .. rf-2) = (first + 1 + (next_replica_shift + j) % (n - 1)) % n

The shift bump every n partitions keeps large topics from repeating the same
leader/follower pairs.  Worked example (seed 000): brokers [0..4], 10 partitions,
RF 3, start index 0, shift 0 gives p0 -> [0, 1, 2], p2 -> [2, 3, 4],
p5 -> [0, 2, 3], p8 -> [3, 0, 1].

Rack-aware assignment (used by Kafka when every broker has a rack) is not
implemented yet; ``assign_replicas_to_brokers`` is always rack-unaware.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from protocol.errors import InvalidPartitionsError, InvalidReplicationFactorError  # type: ignore[attr-defined]


def assign_replicas_to_brokers(
    n_partitions: int,
    replication_factor: int,
    broker_ids: Sequence[int],
    *,
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
    return _assign_replicas_to_brokers_rack_unaware(
        n_partitions, replication_factor, list(broker_ids), fixed_start_index, start_partition_id, rng
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
    randrange = rng.randrange  # type: ignore[attr-defined]
    start_index = fixed_start_index if fixed_start_index >= 0 else randrange(n_brokers)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else randrange(n_brokers)
    current_partition_id = max(0, start_partition_id)
    assignment: dict[int, list[int]] = {}
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % n_brokers == 0:
            next_replica_shift += 1
        first_replica_index = (current_partition_id + start_index) % n_brokers
        replicas = [broker_array[first_replica_index]]
        for j in range(replication_factor - 1):
            replicas.append(broker_array[replica_index(first_replica_index, next_replica_shift, j, n_brokers)])
        assignment[current_partition_id] = replicas
        current_partition_id += 1
    return assignment


def replica_index(first_replica_index: int, second_replica_shift: int, replica_index: int, n_brokers: int) -> int:
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
