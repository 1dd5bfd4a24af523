"""ReplicaStateMachine: the seven replica states and their legal transitions.

Owns: ``ReplicaState``, ``PartitionAndReplica`` and ``ReplicaStateMachine`` (a
``StateMachine`` keyed by (partition, broker id)).  Does not decide when a replica
moves: the controller context drives it while replaying metadata records (creation,
broker fenced, broker unfenced); the deletion states are used by topic deletion.

Kafka concept: ``ReplicaStateMachine``.  States:

- ``NewReplica``: created during topic creation or reassignment; may only be told to
  become a follower.
- ``OnlineReplica``: started and part of the assigned replicas; may lead or follow.
- ``OfflineReplica``: the broker hosting it is down (fenced).
- ``ReplicaDeletionStarted``: StopReplica(delete=true) was sent.
- ``ReplicaDeletionSuccessful``: the broker deleted it without error.
- ``ReplicaDeletionIneligible``: deletion failed; retried later.
- ``NonExistentReplica``: deleted (or never created).

Transition table (target <- legal previous states)::

    NewReplica                 <- NonExistentReplica
    OnlineReplica              <- NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionIneligible
    OfflineReplica             <- NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionIneligible
    ReplicaDeletionStarted     <- OfflineReplica
    ReplicaDeletionSuccessful  <- ReplicaDeletionStarted
    ReplicaDeletionIneligible  <- OfflineReplica, ReplicaDeletionStarted
    NonExistentReplica         <- ReplicaDeletionSuccessful
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import NamedTuple

from kafkette.controller.state_machine import StateMachine
from kafkette.protocol.topic_partition import TopicPartition


class ReplicaState(Enum):
    """Kafka's replica states (names as in Kafka)."""

    NonExistentReplica = 0
    NewReplica = 1
    OnlineReplica = 2
    OfflineReplica = 3
    ReplicaDeletionStarted = 4
    ReplicaDeletionSuccessful = 5
    ReplicaDeletionIneligible = 6


class PartitionAndReplica(NamedTuple):
    """One replica: a partition and the broker hosting it (Kafka's ``PartitionAndReplica``)."""

    topic_partition: TopicPartition
    replica: int


_R = ReplicaState
VALID_PREVIOUS_REPLICA_STATES: dict[ReplicaState, frozenset[ReplicaState]] = {
    _R.NewReplica: frozenset({_R.NonExistentReplica}),
    _R.OnlineReplica: frozenset(
        {_R.NewReplica, _R.OnlineReplica, _R.OfflineReplica, _R.ReplicaDeletionIneligible}
    ),
    _R.OfflineReplica: frozenset(
        {_R.NewReplica, _R.OnlineReplica, _R.OfflineReplica, _R.ReplicaDeletionIneligible}
    ),
    _R.ReplicaDeletionStarted: frozenset({_R.OfflineReplica}),
    _R.ReplicaDeletionSuccessful: frozenset({_R.ReplicaDeletionStarted}),
    _R.ReplicaDeletionIneligible: frozenset({_R.OfflineReplica, _R.ReplicaDeletionStarted}),
    _R.NonExistentReplica: frozenset({_R.ReplicaDeletionSuccessful}),
}


class ReplicaStateMachine(StateMachine[PartitionAndReplica, ReplicaState]):
    """Tracks each replica's ``ReplicaState``; refuses illegal transitions.

    Args:
        log_prefix: callable returning the controller's identity prefix for log lines.

    Raises (from ``transition``):
        IllegalStateTransitionError: e.g. ``OnlineReplica -> ReplicaDeletionStarted``.
    """

    def __init__(self, log_prefix: Callable[[], str] = lambda: "") -> None:
        super().__init__(
            "replica", ReplicaState.NonExistentReplica, VALID_PREVIOUS_REPLICA_STATES, log_prefix
        )

    def replicas_in_state(self, topic: str, state: ReplicaState) -> list[PartitionAndReplica]:
        """Replicas of ``topic`` currently in ``state`` (Kafka's ``replicasInState``)."""
        return [r for r in self.keys_in_state(state) if r.topic_partition.topic == topic]
