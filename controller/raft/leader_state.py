"""LeaderState: the leader of an epoch and what it knows of each voter's log.

Owns: the epoch and the offset of its first entry (the ``LeaderChange`` entry), each
voter's end offset as reported by its fetches (``ReplicaState``; the leader's own is its
flushed end), the voters not yet fetching in this epoch (BeginQuorumEpoch is sent to
them again until they do), the offset a majority holds (the high watermark candidate:
it counts only once it is in this epoch) and check quorum (the voters that fetched since
the timer last started; without a majority of them by ``check_quorum_deadline_ms`` the
leader resigns).  Does not own the high watermark itself, the log, nor sending anything
(``KafkaRaftClient``).

Kafka concept: ``org.apache.kafka.raft.LeaderState`` (``updateReplicaState``,
``maybeUpdateHighWatermark``, ``timeUntilCheckQuorumExpires``,
``nonLeaderVotersByDescendingFetchOffset``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.controller.raft.quorum_state_store import ElectionState

NO_DEADLINE_MS = 2**62  # a single voter's leader has no timer to run


@dataclass
class ReplicaState:
    """A voter's log end offset as last reported (0 until it fetches) and when it last fetched (ms)."""

    end_offset: int = 0
    last_fetch_ms: int = -1


@dataclass
class LeaderState:
    """Leader ``node_id`` of ``epoch`` among ``voters``; its epoch starts at ``epoch_start_offset``.

    Invariants: a voter's reported end offset is the durable end of its log at the time
    of its fetch; the majority offset only counts as committed once it is past
    ``epoch_start_offset`` (an entry of this epoch), so an entry of an earlier epoch is
    committed only by committing one of this epoch after it (Raft's commitment rule).
    """

    epoch: int
    node_id: int
    voters: frozenset[int]
    epoch_start_offset: int
    check_quorum_deadline_ms: int
    replicas: dict[int, ReplicaState] = field(default_factory=dict)
    unacknowledged: set[int] = field(default_factory=set)
    next_begin_ms: dict[int, int] = field(default_factory=dict)
    fetched_voters: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        for voter in self.voters:
            self.replicas.setdefault(voter, ReplicaState())
        self.unacknowledged |= self.voters - {self.node_id}

    @property
    def majority(self) -> int:
        return len(self.voters) // 2 + 1

    def update_local_state(self, flushed_end_offset: int) -> None:
        """The leader's own log is durable up to ``flushed_end_offset``."""
        self.replicas[self.node_id].end_offset = flushed_end_offset

    def update_replica_state(self, voter_id: int, end_offset: int, now_ms: int) -> None:
        """``voter_id`` fetched at ``end_offset`` at ``now_ms``: its log holds everything before it.

        Raises:
            ValueError: ``voter_id`` is not a voter.
        """
        replica = self.replicas.get(voter_id)
        if replica is None:
            raise ValueError(f"{voter_id} is not a voter of {sorted(self.voters)}")
        replica.end_offset = end_offset
        replica.last_fetch_ms = now_ms
        self.unacknowledged.discard(voter_id)
        self.next_begin_ms.pop(voter_id, None)

    def high_watermark_candidate(self) -> int | None:
        """The largest end offset a majority of voters holds, if it is past the epoch start
        offset (so the entries it commits include one of this epoch); None otherwise."""
        offsets = sorted((r.end_offset for r in self.replicas.values()), reverse=True)
        candidate = offsets[self.majority - 1]
        return candidate if candidate > self.epoch_start_offset else None

    def record_voter_fetch(self, voter_id: int, now_ms: int, check_quorum_timeout_ms: int) -> None:
        """A Fetch or FetchSnapshot from ``voter_id`` in this epoch at ``now_ms``; once a majority
        (this leader included) has fetched, the check-quorum timer starts again.  The voter
        knows of this epoch: BeginQuorumEpoch is no longer sent to it."""
        self.fetched_voters.add(voter_id)
        self.unacknowledged.discard(voter_id)
        self.next_begin_ms.pop(voter_id, None)
        if len(self.fetched_voters | {self.node_id}) >= self.majority:
            self.fetched_voters.clear()
            self.check_quorum_deadline_ms = now_ms + check_quorum_timeout_ms

    def has_lost_quorum(self, now_ms: int) -> bool:
        """True when no majority fetched within the check-quorum timeout (never for one voter)."""
        return len(self.voters) > 1 and now_ms >= self.check_quorum_deadline_ms

    def voters_by_descending_end_offset(self) -> tuple[int, ...]:
        """The other voters, the most up to date first (EndQuorumEpoch's preferred successors)."""
        others = [v for v in self.voters if v != self.node_id]
        return tuple(sorted(others, key=lambda v: (-self.replicas[v].end_offset, v)))

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch and that this node leads it (having voted for itself)."""
        return ElectionState(self.epoch, voted_id=self.node_id, leader_id=self.node_id)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Never in the epoch it leads."""
        return False

    def next_deadline_ms(self) -> int:
        """The earliest of the check-quorum timer and the BeginQuorumEpoch retries (ms)."""
        retries = [self.next_begin_ms.get(v, 0) for v in self.unacknowledged]
        check_quorum = self.check_quorum_deadline_ms if len(self.voters) > 1 else NO_DEADLINE_MS
        return min([check_quorum, *retries])
