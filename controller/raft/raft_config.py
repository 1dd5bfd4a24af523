"""RaftConfig: the quorum's timing settings, with Kafka's names and defaults (ms).

Kafka concept: ``QuorumConfig`` (``controller.quorum.*``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RaftConfig:
    """Attributes (all ms):
        election_timeout_ms: ``controller.quorum.election.timeout.ms`` (1000): a voter with no
            leader becomes a candidate after this plus up to the same again at random.
        fetch_timeout_ms: ``controller.quorum.fetch.timeout.ms`` (2000): a follower that has
            not fetched from its leader this long starts an election; a leader that has not
            heard from a majority for 1.5 times this resigns (check quorum).
        election_backoff_max_ms: ``controller.quorum.election.backoff.max.ms`` (1000): the most a
            candidate that lost waits before it tries again.
        request_timeout_ms: ``controller.quorum.request.timeout.ms`` (2000): when a request without
            an answer is sent again.
        max_fetch_entries: entries per Fetch response.
    """

    election_timeout_ms: int = 1000
    fetch_timeout_ms: int = 2000
    election_backoff_max_ms: int = 1000
    request_timeout_ms: int = 2000
    max_fetch_entries: int = 64
