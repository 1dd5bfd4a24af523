"""FollowerState: a voter (or observer) that fetches the log from the leader of its epoch.

Owns: the leader and epoch followed, the fetch timer (no successful fetch by then starts
an election), when the next Fetch or FetchSnapshot goes out, the one request in flight
(its correlation id and fetch offset: only its answer is acted on, so a duplicated,
delayed or overtaken answer is ignored), and a snapshot being downloaded in chunks.
Also how long a follower waits to campaign when its leader resigns.  Does not own moving
to another role (``QuorumState``) nor the log.

Kafka concept: ``org.apache.kafka.raft.FollowerState`` (``fetchingSnapshot``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.controller.raft.quorum_state_store import ElectionState
from kafkette.controller.raft.replicated_log import OffsetAndEpoch


@dataclass
class SnapshotDownload:
    """The bytes of snapshot ``snapshot_id`` fetched so far (the next position is ``len(data)``)."""

    snapshot_id: OffsetAndEpoch
    data: bytearray = field(default_factory=bytearray)


@dataclass
class FollowerState:
    """Following ``leader_id`` in ``epoch``.

    ``fetch_deadline_ms``: when this voter gives up on the leader and becomes a candidate
    (pushed back by each successful answer).  ``next_fetch_ms``: when the next request is
    sent (the request timeout after the last one, sooner once it is answered).
    ``inflight_correlation_id`` / ``inflight_fetch_offset``: the request in flight (-1 none).
    ``fetching_snapshot``: set while the leader's snapshot is being fetched instead of
    the log.
    """

    epoch: int
    leader_id: int
    fetch_deadline_ms: int
    next_fetch_ms: int = 0
    inflight_correlation_id: int = -1
    inflight_fetch_offset: int = -1
    fetching_snapshot: SnapshotDownload | None = None

    def reset_fetch_timeout(self, now_ms: int, fetch_timeout_ms: int) -> None:
        """The leader answered at ``now_ms``: the fetch timer starts again."""
        self.fetch_deadline_ms = now_ms + fetch_timeout_ms

    def override_fetch_timeout(self, now_ms: int, backoff_ms: int) -> None:
        """The leader resigned: start an election ``backoff_ms`` from ``now_ms`` unless it is due sooner."""
        self.fetch_deadline_ms = min(self.fetch_deadline_ms, now_ms + backoff_ms)

    def complete_inflight(self, correlation_id: int) -> bool:
        """True when ``correlation_id`` is the request in flight, which is then no longer in flight."""
        if correlation_id != self.inflight_correlation_id or correlation_id < 0:
            return False
        self.inflight_correlation_id = -1
        return True

    def election_state(self, node_id: int) -> ElectionState:
        """What must be durable: the epoch and its leader."""
        return ElectionState(self.epoch, leader_id=self.leader_id)

    def can_grant_vote(self, candidate_id: int, log_up_to_date: bool) -> bool:
        """Never: this epoch has a leader."""
        return False

    def next_deadline_ms(self) -> int:
        """The earliest of the fetch timer and the next request (ms)."""
        return min(self.fetch_deadline_ms, self.next_fetch_ms)


def end_epoch_election_backoff_ms(
    preferred_successors: tuple[int, ...], node_id: int, retry_backoff_ms: int, election_backoff_max_ms: int
) -> int:
    """How long a follower waits before it campaigns after its leader's EndQuorumEpoch (ms): the
    first preferred successor (the most up to date) at once, the next ones after exponentially
    longer waits, a voter not named after ``election_backoff_max_ms``.

    Kafka concept: ``KafkaRaftClient.endEpochElectionBackoff`` (strict exponential backoff).
    """
    if node_id not in preferred_successors:
        return election_backoff_max_ms
    position = preferred_successors.index(node_id)
    return 0 if position == 0 else min(election_backoff_max_ms, retry_backoff_ms << (position - 1))
