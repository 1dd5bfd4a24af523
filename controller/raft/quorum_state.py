"""QuorumState: a voter's role in the quorum and the legal moves between roles.

Owns: the current role (one of the six role states), the transition table below (an
illegal move raises ``IllegalQuorumTransition`` and changes nothing), the durable write
of each new role's ``ElectionState`` before the move takes effect (so a vote, a
candidacy or a new epoch is on disk before anyone hears of it), and the role a voter
restarts in from its stored state.  Does not own when to move (``KafkaRaftClient``).

Transitions (E is the current epoch; "higher" means a larger epoch, learnt from a message):

    ============  ===========================================================================
    from          to
    ============  ===========================================================================
    Unattached E  Unattached (higher): learnt of a new epoch
                  Voted (E): granted a vote
                  Candidate (E+1): the election timer fired
                  Follower (E or higher): learnt of a leader
    Voted E       Unattached (higher): learnt of a new epoch
                  Candidate (E+1): the election timer fired
                  Follower (E or higher): learnt of a leader
    Candidate E   Unattached (higher): learnt of a new epoch
                  Candidate (E+1): the election timed out or was lost
                  Leader (E): a majority voted for it
                  Follower (E or higher): learnt of a leader
    Leader E      Unattached (higher): learnt of a new epoch
                  Follower (higher): learnt of a new leader
                  Resigned (E): no majority fetched within the check-quorum timeout
    Follower E    Unattached (higher): learnt of a new epoch
                  Candidate (E+1): the fetch timer fired
                  Follower (higher): learnt of a new leader
    Resigned E    Unattached (higher): learnt of a new epoch
                  Candidate (E+1): the election timer fired
                  Follower (higher): learnt of a new leader
    ============  ===========================================================================

At start-up the stored state gives the role: Resigned when this node led the stored
epoch, Candidate when it had voted for itself, Voted when it had voted for another,
Follower when it knew the leader, Unattached otherwise.

Kafka concept: ``org.apache.kafka.raft.QuorumState`` and its ``EpochState`` classes.
"""

from __future__ import annotations

import logging
from enum import Enum

from kafkette.controller.raft.candidate_state import CandidateState
from kafkette.controller.raft.follower_state import FollowerState
from kafkette.controller.raft.leader_state import LeaderState
from kafkette.controller.raft.quorum_state_store import ElectionState, QuorumStateStore
from kafkette.controller.raft.resigned_state import ResignedState
from kafkette.controller.raft.unattached_state import UnattachedState
from kafkette.controller.raft.voted_state import VotedState

logger = logging.getLogger(__name__)

RoleState = UnattachedState | VotedState | CandidateState | LeaderState | FollowerState | ResignedState


class IllegalQuorumTransition(RuntimeError):
    """A move the transition table forbids (a bug in the caller; Kafka's IllegalStateException)."""


class _Epoch(Enum):
    SAME = "the same epoch"
    HIGHER = "a higher epoch"
    SAME_OR_HIGHER = "the same or a higher epoch"
    NEXT = "the next epoch"


_S, _H, _SH, _N = _Epoch.SAME, _Epoch.HIGHER, _Epoch.SAME_OR_HIGHER, _Epoch.NEXT
_Unattached, _Voted, _Candidate = UnattachedState, VotedState, CandidateState
_Leader, _Follower, _Resigned = LeaderState, FollowerState, ResignedState

TRANSITIONS: dict[tuple[type, type], _Epoch] = {
    (_Unattached, _Unattached): _H,
    (_Unattached, _Voted): _S,
    (_Unattached, _Candidate): _N,
    (_Unattached, _Follower): _SH,
    (_Voted, _Unattached): _H,
    (_Voted, _Candidate): _N,
    (_Voted, _Follower): _SH,
    (_Candidate, _Unattached): _H,
    (_Candidate, _Candidate): _N,
    (_Candidate, _Leader): _S,
    (_Candidate, _Follower): _SH,
    (_Leader, _Unattached): _H,
    (_Leader, _Follower): _H,
    (_Leader, _Resigned): _S,
    (_Follower, _Unattached): _H,
    (_Follower, _Candidate): _N,
    (_Follower, _Follower): _H,
    (_Resigned, _Unattached): _H,
    (_Resigned, _Candidate): _N,
    (_Resigned, _Follower): _H,
}


def _epoch_allowed(rule: _Epoch, old: int, new: int) -> bool:
    if rule is _Epoch.SAME:
        return new == old
    if rule is _Epoch.HIGHER:
        return new > old
    if rule is _Epoch.SAME_OR_HIGHER:
        return new >= old
    return new == old + 1


class QuorumState:
    """The current role of ``node_id`` and its durable election state.

    Args:
        node_id: this voter.
        store: where each role's ``ElectionState`` is written before the role takes effect.
        initial: the role to start in (``restart_state`` builds it from the stored state).
    """

    def __init__(self, node_id: int, store: QuorumStateStore, initial: RoleState) -> None:
        self.node_id = node_id
        self._store = store
        self.state: RoleState = initial

    @property
    def epoch(self) -> int:
        return self.state.epoch

    def transition(self, new: RoleState) -> None:
        """Move to ``new``: check the table, write its election state durably, then switch.

        Raises:
            IllegalQuorumTransition: the table forbids the move or its epoch; nothing changes.
            OSError: the store could not write; nothing changes.
        """
        old = self.state
        rule = TRANSITIONS.get((type(old), type(new)))
        if rule is None:
            raise IllegalQuorumTransition(
                f"{type(old).__name__}(epoch {old.epoch}) -> {type(new).__name__} "
                "is not in the transition table"
            )
        if not _epoch_allowed(rule, old.epoch, new.epoch):
            raise IllegalQuorumTransition(
                f"{type(old).__name__}(epoch {old.epoch}) -> {type(new).__name__}"
                f"(epoch {new.epoch}) needs {rule.value}"
            )
        self._store.write(new.election_state(self.node_id))
        self.state = new
        logger.info(
            "[RaftClient id=%d] %s(epoch %d) -> %s(epoch %d)",
            self.node_id,
            type(old).__name__,
            old.epoch,
            type(new).__name__,
            new.epoch,
        )


def restart_role(stored: ElectionState, node_id: int) -> type:
    """The role class a voter restarts in, given its stored ``ElectionState`` (see the module docstring)."""
    if stored.leader_id == node_id:
        return ResignedState
    if stored.voted_id == node_id:
        return CandidateState
    if stored.voted_id >= 0:
        return VotedState
    if stored.leader_id >= 0:
        return FollowerState
    return UnattachedState


def restart_state(
    stored: ElectionState,
    node_id: int,
    voters: frozenset[int],
    election_deadline_ms: int,
    fetch_deadline_ms: int,
) -> RoleState:
    """The role ``node_id`` restarts in, in the stored epoch (Kafka's ``QuorumState.initialize``).

    Args:
        stored: what the quorum-state store holds.
        node_id: this voter.
        voters: the voters.
        election_deadline_ms: when a role without a leader starts an election.
        fetch_deadline_ms: when a follower gives up on its leader.
    """
    role = restart_role(stored, node_id)
    if role is ResignedState:
        return ResignedState(stored.epoch, node_id, election_deadline_ms, (), set())
    if role is CandidateState:
        return CandidateState(stored.epoch, node_id, voters, election_deadline_ms)
    if role is VotedState:
        return VotedState(stored.epoch, stored.voted_id, election_deadline_ms)
    if role is FollowerState and stored.leader_id in voters:
        return FollowerState(stored.epoch, stored.leader_id, fetch_deadline_ms)
    return UnattachedState(stored.epoch, election_deadline_ms)
