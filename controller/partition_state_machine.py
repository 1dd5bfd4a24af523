"""PartitionStateMachine: the four partition states and their legal transitions.

Owns: ``PartitionState`` and ``PartitionStateMachine`` (a ``StateMachine`` keyed by
``TopicPartition``).  Does not own leader election or leader/ISR data (those live in
``leader_election.py`` and ``ControllerContext``); the context moves partitions
between states while it replays metadata records.

Kafka concept: ``PartitionStateMachine``.  States:

- ``NonExistentPartition``: never created, or deleted.
- ``NewPartition``: created with assigned replicas, no leader or ISR yet.
- ``OnlinePartition``: a leader is elected; the only state that serves clients.
- ``OfflinePartition``: the leader died and no replacement is elected yet.

Transition table (target <- legal previous states)::

    NewPartition          <- NonExistentPartition
    OnlinePartition       <- NewPartition, OnlinePartition, OfflinePartition
    OfflinePartition      <- NewPartition, OnlinePartition, OfflinePartition
    NonExistentPartition  <- OfflinePartition

Creation moves ``NonExistent -> New -> Online`` (first live replica leads); leader
loss moves ``Online -> Offline``, and a later election ``Offline -> Online``.
``Online -> Online`` is a re-election (a new leader or leader epoch).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from kafkette.controller.state_machine import StateMachine
from kafkette.protocol.topic_partition import TopicPartition


class PartitionState(Enum):
    """Kafka's partition states (names as in Kafka)."""

    NonExistentPartition = 0
    NewPartition = 1
    OnlinePartition = 2
    OfflinePartition = 3


VALID_PREVIOUS_PARTITION_STATES: dict[PartitionState, frozenset[PartitionState]] = {
    PartitionState.NewPartition: frozenset({PartitionState.NonExistentPartition}),
    PartitionState.OnlinePartition: frozenset(
        {PartitionState.NewPartition, PartitionState.OnlinePartition, PartitionState.OfflinePartition}
    ),
    PartitionState.OfflinePartition: frozenset(
        {PartitionState.NewPartition, PartitionState.OnlinePartition, PartitionState.OfflinePartition}
    ),
    PartitionState.NonExistentPartition: frozenset({PartitionState.OfflinePartition}),
}


class PartitionStateMachine(StateMachine[TopicPartition, PartitionState]):
    """Tracks each partition's ``PartitionState``; refuses illegal transitions.

    Args:
        log_prefix: callable returning the controller's identity prefix for log lines.

    Raises (from ``transition``):
        IllegalStateTransitionError: e.g. ``NonExistentPartition -> OnlinePartition``.
    """

    def __init__(self, log_prefix: Callable[[], str] = lambda: "") -> None:
        super().__init__(
            "partition", PartitionState.NonExistentPartition, VALID_PREVIOUS_PARTITION_STATES, log_prefix
        )

    def online_partitions(self) -> list[TopicPartition]:
        """Partitions in ``OnlinePartition``."""
        return self.keys_in_state(PartitionState.OnlinePartition)
