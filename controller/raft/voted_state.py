"""VotedState: a voter that has given its one vote of an epoch to a candidate.

Owns: the role's epoch, the candidate voted for and the election timer.  Does not own
moving to another role (``QuorumState``) nor answering requests (``KafkaRaftClient``).

Kafka concept: ``org.apache.kafka.raft.VotedState`` (KIP-595; newer Kafka folds it into
``UnattachedState`` with a ``votedKey``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.controller.raft.quorum_state_store import ElectionState


@dataclass
class VotedState:
    """Voted for ``voted_id`` in ``epoch`` (the vote is durable before it was answered); this
    voter becomes a candidate at ``election_deadline_ms`` unless it learns of a leader first.

    Invariant: one vote per epoch: only ``voted_id`` is granted again (a retried request).
    """

    epoch: int
    voted_id: int
    election_deadline_ms: int

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch and the vote."""
        return ElectionState(self.epoch, voted_id=self.voted_id)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Only the candidate already voted for (its retried request) is granted."""
        return candidate_id == self.voted_id

    def next_deadline_ms(self) -> int:
        """When the election timer fires (ms)."""
        return self.election_deadline_ms
