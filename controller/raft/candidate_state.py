"""CandidateState: a voter asking the others to elect it leader of its epoch.

Owns: the votes granted and rejected so far (this voter's own vote included), the
election timer, the per-voter retry times of VoteRequest, and the backoff after a lost
election.  Does not own moving to another role (``QuorumState``) nor sending the
requests (``KafkaRaftClient``).

Kafka concept: ``org.apache.kafka.raft.CandidateState``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.controller.raft.quorum_state_store import ElectionState


@dataclass
class CandidateState:
    """Candidate ``node_id`` in ``epoch`` among ``voters``.

    A candidate votes for itself (durably, before it asks anyone) and wins with the votes
    of a majority of ``voters``; with a majority of rejections it cannot win and waits out
    ``election_deadline_ms`` (shortened to a random backoff) before trying again in the
    next epoch.  ``next_request_ms`` holds when each unanswered voter is asked again.
    """

    epoch: int
    node_id: int
    voters: frozenset[int]
    election_deadline_ms: int
    granted: set[int] = field(default_factory=set)
    rejected: set[int] = field(default_factory=set)
    next_request_ms: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.granted.add(self.node_id)

    @property
    def majority(self) -> int:
        return len(self.voters) // 2 + 1

    def record_granted_vote(self, voter_id: int) -> None:
        """Count ``voter_id``'s vote (a duplicate answer counts once).

        Raises:
            ValueError: ``voter_id`` is not a voter, or it rejected this candidate before.
        """
        self._check_voter(voter_id)
        if voter_id in self.rejected:
            raise ValueError(
                f"voter {voter_id} already rejected candidate {self.node_id} in epoch {self.epoch}"
            )
        self.granted.add(voter_id)
        self.next_request_ms.pop(voter_id, None)

    def record_rejected_vote(self, voter_id: int) -> None:
        """Count ``voter_id``'s rejection.

        Raises:
            ValueError: ``voter_id`` is not a voter, or it granted its vote before.
        """
        self._check_voter(voter_id)
        if voter_id in self.granted:
            raise ValueError(
                f"voter {voter_id} already granted its vote to {self.node_id} in epoch {self.epoch}"
            )
        self.rejected.add(voter_id)
        self.next_request_ms.pop(voter_id, None)

    def is_vote_granted(self) -> bool:
        """True once a majority of the voters voted for this candidate."""
        return len(self.granted) >= self.majority

    def is_vote_rejected(self) -> bool:
        """True once a majority rejected it: this election is lost."""
        return len(self.rejected) >= self.majority

    def unrecorded_voters(self) -> list[int]:
        """The voters that have not answered, in id order."""
        return sorted(self.voters - self.granted - self.rejected)

    def _check_voter(self, voter_id: int) -> None:
        if voter_id not in self.voters:
            raise ValueError(f"{voter_id} is not a voter of {sorted(self.voters)}")

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch and the vote for itself."""
        return ElectionState(self.epoch, voted_id=self.node_id)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Never: a candidate has voted for itself."""
        return False

    def next_deadline_ms(self) -> int:
        """The earliest of the election timer and the vote request retries (ms)."""
        return min([self.election_deadline_ms, *self.next_request_ms.values()])
