"""The Raft RPCs as the core sees them: Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch and FetchSnapshot.

Owns: one frozen dataclass per request and response (Kafka's field names, in snake_case,
for the one partition ``__cluster_metadata-0``) and ``Outbound`` (a message the core
asks its driver to send).  ``correlation_id`` pairs a follower's Fetch or FetchSnapshot
with its answer (the frame's correlation id on the wire).  The wire schemas are
``kafkette.protocol.apis.raft`` and ``kafkette.protocol.apis.fetch``; ``raft_wire``
converts.  Does not own any behaviour.

Kafka concept: the ``VoteRequestData`` ... ``FetchSnapshotResponseData`` of KIP-595 and KIP-630.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch


@dataclass(frozen=True)
class VoteRequest:
    """Candidate ``replica_id`` asks for a vote in ``replica_epoch`` (in a Vote the replica is the
    candidate: Kafka's CandidateId / CandidateEpoch before KIP-996); its log ends at
    ``last_offset`` (exclusive) with an entry of ``last_offset_epoch``."""

    replica_epoch: int
    replica_id: int
    last_offset_epoch: int
    last_offset: int


@dataclass(frozen=True)
class VoteResponse:
    """The voter's answer, with the epoch and leader it knows (-1 unknown)."""

    error_code: int
    leader_id: int
    leader_epoch: int
    vote_granted: bool


@dataclass(frozen=True)
class BeginQuorumEpochRequest:
    """The new leader ``leader_id`` announces ``leader_epoch``."""

    leader_id: int
    leader_epoch: int


@dataclass(frozen=True)
class BeginQuorumEpochResponse:
    error_code: int
    leader_id: int
    leader_epoch: int


@dataclass(frozen=True)
class EndQuorumEpochRequest:
    """Leader ``leader_id`` gives up ``leader_epoch``; ``preferred_successors`` (the most up to
    date voters first) should campaign first."""

    leader_id: int
    leader_epoch: int
    preferred_successors: tuple[int, ...]


@dataclass(frozen=True)
class EndQuorumEpochResponse:
    error_code: int
    leader_id: int
    leader_epoch: int


@dataclass(frozen=True)
class FetchRequest:
    """A follower's pull: its current epoch, the next offset it wants (its durable log end)
    and the epoch of the entry before it (``last_fetched_epoch``, 0 at offset 0)."""

    replica_id: int
    current_leader_epoch: int
    fetch_offset: int
    last_fetched_epoch: int
    correlation_id: int = 0


@dataclass(frozen=True)
class FetchResponse:
    """The leader's answer: entries from ``fetch_offset``; or ``diverging_epoch``, where the
    follower's log stops agreeing (it truncates there); or ``snapshot_id``, the snapshot to
    fetch because the entries it needs are gone; with the leader's high watermark."""

    error_code: int
    leader_id: int
    leader_epoch: int
    high_watermark: int
    diverging_epoch: OffsetAndEpoch | None = None
    snapshot_id: OffsetAndEpoch | None = None
    entries: tuple[LogEntry, ...] = ()
    correlation_id: int = 0


@dataclass(frozen=True)
class FetchSnapshotRequest:
    """Up to ``max_bytes`` of snapshot ``snapshot_id`` from byte ``position``."""

    replica_id: int
    current_leader_epoch: int
    snapshot_id: OffsetAndEpoch
    position: int
    max_bytes: int
    correlation_id: int = 0


@dataclass(frozen=True)
class FetchSnapshotResponse:
    """A chunk of snapshot ``snapshot_id``: ``unaligned_records`` from byte ``position`` of ``size``."""

    error_code: int
    leader_id: int
    leader_epoch: int
    snapshot_id: OffsetAndEpoch
    size: int = 0
    position: int = 0
    unaligned_records: bytes = b""
    correlation_id: int = 0


@dataclass(frozen=True)
class Outbound:
    """A message the driver must deliver: ``destination`` node id and the message."""

    destination: int
    message: Any
