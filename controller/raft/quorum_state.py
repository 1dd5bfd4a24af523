"""QuorumState: a voter's role in the quorum and the legal moves between roles.

Owns: the six role states (``UnattachedState``, ``VotedState``, ``CandidateState``,
``LeaderState``, ``FollowerState``, ``ResignedState``), each holding its epoch and the
timers and counts of that role, and ``QuorumState``, which moves between them, refuses an
illegal move with ``IllegalQuorumTransition`` and writes the ``ElectionState`` to the
store before the move takes effect.

Transitions (epoch E; "higher" means a larger epoch learnt from a message):

    Unattached(E) -> Unattached(higher) | Voted(E or higher) | Candidate(E+1) | Follower(E or higher)
    Voted(E)      -> Unattached(higher) | Follower(E or higher) | Candidate(E+1)
    Candidate(E)  -> Unattached(higher) | Follower(E or higher) | Candidate(E+1) | Leader(E)
    Leader(E)     -> Unattached(higher) | Follower(higher) | Resigned(E)
    Follower(E)   -> Unattached(higher) | Follower(higher) | Candidate(E+1)
    Resigned(E)   -> Unattached(higher) | Follower(higher) | Candidate(E+1)

Kafka concept: ``org.apache.kafka.raft.QuorumState`` and its ``EpochState`` classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.controller.raft.quorum_state_store import ElectionState


class IllegalQuorumTransition(RuntimeError):
    """A move the transition table forbids (a bug in the caller)."""


@dataclass
class UnattachedState:
    """No leader and no vote in ``epoch``; an election starts at ``election_deadline_ms``."""

    epoch: int
    election_deadline_ms: int


@dataclass
class VotedState:
    """Voted for ``voted_id`` in ``epoch``; an election starts at ``election_deadline_ms``."""

    epoch: int
    voted_id: int
    election_deadline_ms: int


@dataclass
class CandidateState:
    """Asking for votes in ``epoch``; ``granted`` includes this node."""

    epoch: int
    granted: set[int]
    rejected: set[int]
    election_deadline_ms: int
    next_request_ms: dict[int, int] = field(default_factory=dict)


@dataclass
class LeaderState:
    """Leading ``epoch``, whose first entry is at ``epoch_start_offset``.

    ``end_offsets`` holds each voter's log end offset as last reported by a fetch (the
    leader's own is its flushed end), ``last_fetch_ms`` when each follower last fetched;
    ``unacknowledged`` the voters not yet told BeginQuorumEpoch (or not yet fetching).
    """

    epoch: int
    epoch_start_offset: int
    end_offsets: dict[int, int]
    last_fetch_ms: dict[int, int]
    unacknowledged: set[int]
    next_begin_ms: dict[int, int] = field(default_factory=dict)
    check_quorum_deadline_ms: int = 0


@dataclass
class FollowerState:
    """Following ``leader_id`` in ``epoch``; an election starts if no fetch succeeds by
    ``fetch_deadline_ms``; the next fetch goes out at ``fetch_outstanding_until_ms``, and only
    the answer to the last one sent (``inflight_correlation_id``) is acted on."""

    epoch: int
    leader_id: int
    fetch_deadline_ms: int
    fetch_outstanding_until_ms: int = -1
    inflight_correlation_id: int = -1


@dataclass
class ResignedState:
    """Gave up leading ``epoch`` (it lost its quorum); waits for another leader or an election."""

    epoch: int
    election_deadline_ms: int


RoleState = UnattachedState | VotedState | CandidateState | LeaderState | FollowerState | ResignedState

_ALLOWED: dict[type, set[type]] = {
    UnattachedState: {UnattachedState, VotedState, CandidateState, FollowerState},
    VotedState: {UnattachedState, FollowerState, CandidateState},
    CandidateState: {UnattachedState, FollowerState, CandidateState, LeaderState},
    LeaderState: {UnattachedState, FollowerState, ResignedState},
    FollowerState: {UnattachedState, FollowerState, CandidateState},
    ResignedState: {UnattachedState, FollowerState, CandidateState},
}


def election_state(state: RoleState, node_id: int) -> ElectionState:
    """What must be durable about ``state``: epoch, vote and leader."""
    if isinstance(state, VotedState):
        return ElectionState(state.epoch, state.voted_id, -1)
    if isinstance(state, CandidateState):
        return ElectionState(state.epoch, node_id, -1)
    if isinstance(state, (LeaderState, ResignedState)):
        return ElectionState(state.epoch, node_id, node_id)
    if isinstance(state, FollowerState):
        return ElectionState(state.epoch, -1, state.leader_id)
    return ElectionState(state.epoch, -1, -1)


class QuorumState:
    """The current role of ``node_id`` and its durable election state.

    Args:
        node_id: this voter.
        store: where ``ElectionState`` is written (``read()`` / ``write(state)``).
        initial: the role to start in (built by the client from the stored state).
    """

    def __init__(self, node_id: int, store: object, initial: RoleState) -> None:
        self.node_id = node_id
        self._store = store
        self.state: RoleState = initial

    @property
    def epoch(self) -> int:
        return self.state.epoch

    def transition(self, new: RoleState) -> None:
        """Move to ``new``: check the table, write its election state, then switch.

        Raises:
            IllegalQuorumTransition: the table forbids it, or the epoch would go back, or a
                same-epoch move that may only happen in a higher epoch.
        """
        old = self.state
        if type(new) not in _ALLOWED[type(old)]:
            raise IllegalQuorumTransition(f"{type(old).__name__}(epoch {old.epoch}) -> {type(new).__name__}")
        if new.epoch < old.epoch:
            raise IllegalQuorumTransition(f"epoch would go back from {old.epoch} to {new.epoch}")
        same_epoch_ok = (
            (isinstance(old, UnattachedState) and isinstance(new, (VotedState, FollowerState)))
            or (isinstance(old, VotedState) and isinstance(new, FollowerState))
            or (isinstance(old, CandidateState) and isinstance(new, (FollowerState, LeaderState)))
            or (isinstance(old, LeaderState) and isinstance(new, ResignedState))
        )
        if new.epoch == old.epoch and not same_epoch_ok:
            raise IllegalQuorumTransition(f"{type(old).__name__} -> {type(new).__name__} needs a higher epoch "
                                          f"than {old.epoch}")
        if isinstance(new, CandidateState) and new.epoch != old.epoch + 1:
            raise IllegalQuorumTransition(f"a candidate's epoch is the previous one plus 1, not {new.epoch}")
        self._store.write(election_state(new, self.node_id))  # type: ignore[attr-defined]
        self.state = new
