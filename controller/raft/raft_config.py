"""RaftConfig: the quorum's timing and snapshot settings, with Kafka's names and defaults.

Owns: the settings the Raft core and its driver read, each checked when the config is
built.  Does not own parsing ``server.properties`` (the node's config does that and
builds this).

Kafka concept: ``QuorumConfig`` (``controller.quorum.*``) and the metadata log's
``metadata.log.max.record.bytes.between.snapshots``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

MIB = 1024 * 1024


@dataclass(frozen=True)
class RaftConfig:
    """Attributes (Kafka property, default):
        election_timeout_ms: ``controller.quorum.election.timeout.ms`` (1000): a voter with no
            leader becomes a candidate after this plus up to the same again at random.
        fetch_timeout_ms: ``controller.quorum.fetch.timeout.ms`` (2000): a follower that has
            not fetched from its leader this long starts an election; a leader that has not
            been fetched from by a majority for 1.5 times this resigns (check quorum).
        election_backoff_max_ms: ``controller.quorum.election.backoff.max.ms`` (1000): the most a
            candidate that lost waits before it tries again.
        request_timeout_ms: ``controller.quorum.request.timeout.ms`` (2000): when a request without
            an answer is sent again.
        retry_backoff_ms: ``controller.quorum.retry.backoff.ms`` (20): the wait before a request is
            sent again after an error answer, and the step of the successors' election backoff.
        metadata_log_max_record_bytes_between_snapshots:
            ``metadata.log.max.record.bytes.between.snapshots`` (20 MiB): the bytes of records a
            replica applies before its driver takes a new snapshot.
        max_fetch_entries: entries per Fetch response (Kafka bounds a fetch in bytes instead).
        idle_fetch_backoff_ms: how long a follower whose fetch brought nothing waits before the
            next (50): it stands in for the leader holding an empty fetch up to its max wait, which
            a sans-I/O core cannot do; ``RaftManager``, whose leader does hold fetches, uses 1.
        fetch_snapshot_max_bytes: bytes per FetchSnapshot request (``max_bytes``; Kafka's
            ``KafkaRaftClient.MAX_FETCH_SIZE_BYTES``, 8 MiB).

    Raises:
        ValueError: a setting below 1 (named in the message).
    """

    election_timeout_ms: int = 1000
    fetch_timeout_ms: int = 2000
    election_backoff_max_ms: int = 1000
    request_timeout_ms: int = 2000
    retry_backoff_ms: int = 20
    metadata_log_max_record_bytes_between_snapshots: int = 20 * MIB
    max_fetch_entries: int = 64
    idle_fetch_backoff_ms: int = 50
    fetch_snapshot_max_bytes: int = 8 * MIB

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"RaftConfig.{field.name} must be an integer >= 1, not {value!r}")

    @property
    def check_quorum_timeout_ms(self) -> int:
        """How long a leader may go without fetches from a majority before it resigns (ms):
        1.5 x ``fetch_timeout_ms`` (Kafka's ``LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR``)."""
        return self.fetch_timeout_ms * 3 // 2
