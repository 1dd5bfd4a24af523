"""UnattachedState: a voter that knows of an epoch but neither its leader nor a vote of its own in it.

Owns: the role's epoch and election timer.  Does not own moving to another role
(``QuorumState``) nor sending anything (``KafkaRaftClient``).

Kafka concept: ``org.apache.kafka.raft.UnattachedState``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.controller.raft.quorum_state_store import ElectionState


@dataclass
class UnattachedState:
    """No leader and no vote in ``epoch``; this voter becomes a candidate at
    ``election_deadline_ms`` unless it learns of a leader or votes first.

    Entered at start-up with no stored vote or leader, and on learning of a higher epoch.
    """

    epoch: int
    election_deadline_ms: int

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch alone."""
        return ElectionState(self.epoch)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Any candidate whose log is at least as up to date as this voter's gets the vote."""
        return log_up_to_date

    def next_deadline_ms(self) -> int:
        """When the election timer fires (ms)."""
        return self.election_deadline_ms
