"""The Raft RPCs as the core sees them: Vote, BeginQuorumEpoch, EndQuorumEpoch and Fetch.

Owns: one frozen dataclass per request and response (Kafka's field names, in snake_case,
for the one partition ``__cluster_metadata-0``) and ``Outbound`` (a message the core
asks its driver to send).  The wire schemas are ``kafkette.protocol.apis.raft`` and
``kafkette.protocol.apis.fetch``; a driver converts.  Does not own any behaviour.

Kafka concept: the ``VoteRequestData`` ... ``FetchResponseData`` of KIP-595.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafkette.controller.raft.replicated_log import LogEntry


@dataclass(frozen=True)
class VoteRequest:
    candidate_epoch: int
    candidate_id: int
    last_offset_epoch: int
    last_offset: int


@dataclass(frozen=True)
class VoteResponse:
    error_code: int
    leader_id: int
    leader_epoch: int
    vote_granted: bool


@dataclass(frozen=True)
class BeginQuorumEpochRequest:
    leader_id: int
    leader_epoch: int


@dataclass(frozen=True)
class BeginQuorumEpochResponse:
    error_code: int
    leader_id: int
    leader_epoch: int


@dataclass(frozen=True)
class EndQuorumEpochRequest:
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
    """A follower's pull: its current epoch, the next offset it wants and the epoch of the
    entry before it (``last_fetched_epoch``, 0 at offset 0).  ``correlation_id`` pairs the
    answer with the request (the frame's correlation id on the wire)."""

    replica_id: int
    current_leader_epoch: int
    fetch_offset: int
    last_fetched_epoch: int
    correlation_id: int = 0


@dataclass(frozen=True)
class FetchResponse:
    """Entries from ``fetch_offset``, or where the follower's log diverges
    (``diverging_epoch``: (epoch, end offset) to truncate to), with the leader's high watermark."""

    error_code: int
    leader_id: int
    leader_epoch: int
    high_watermark: int
    diverging_epoch: tuple[int, int] | None
    entries: tuple[LogEntry, ...]
    correlation_id: int = 0


@dataclass(frozen=True)
class Outbound:
    """A message the driver must deliver: ``destination`` node id and the message."""

    destination: int
    message: Any
