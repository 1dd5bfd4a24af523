"""ResignedState: a leader that gave up its epoch and tells the other voters so.

Owns: the epoch it led, the voters not yet told by EndQuorumEpoch (with retry times),
the preferred successors it names (the most up-to-date voters first) and the election
timer.  Does not own moving to another role (``QuorumState``) nor sending the requests
(``KafkaRaftClient``).

Kafka concept: ``org.apache.kafka.raft.ResignedState``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.controller.raft.quorum_state_store import ElectionState


@dataclass
class ResignedState:
    """Former leader ``node_id`` of ``epoch``; it sends EndQuorumEpoch to ``unacknowledged``
    until each answers, and becomes a candidate of the next epoch at ``election_deadline_ms``
    unless a new leader shows up first.

    Invariant: no other leader of ``epoch`` exists, so this node never follows one in it.
    Entered when the leader loses its quorum (check quorum), and at start-up of a node
    whose stored state says it led its epoch.
    """

    epoch: int
    node_id: int
    election_deadline_ms: int
    preferred_successors: tuple[int, ...]
    unacknowledged: set[int]
    next_request_ms: dict[int, int] = field(default_factory=dict)

    def acknowledge_end_quorum_epoch(self, voter_id: int) -> None:
        """``voter_id`` answered EndQuorumEpoch: stop sending it."""
        self.unacknowledged.discard(voter_id)
        self.next_request_ms.pop(voter_id, None)

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch and that this node led it."""
        return ElectionState(self.epoch, voted_id=self.node_id, leader_id=self.node_id)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Never in the epoch it led."""
        return False

    def next_deadline_ms(self) -> int:
        """The earliest of the election timer and the EndQuorumEpoch retries (ms)."""
        retries = [self.next_request_ms.get(voter, 0) for voter in self.unacknowledged]
        return min([self.election_deadline_ms, *retries])
