"""RaftMetadataLog: the active controller's metadata log, written through the Raft quorum.

Owns: the view one active controller term has of the replicated ``__cluster_metadata-0``:
``load`` (the committed state as records: the latest snapshot's, then the committed
entries after it, control entries and transaction markers dropped), ``append`` (propose the records as one
atomic batch and wait until a majority of voters has them: a write is acknowledged only once committed), the
broker epoch of the next registration (the offset the next entry gets, as KRaft's broker epochs
are offsets of the metadata log) and the term's controller epoch (the Raft epoch).  Does
not own the Raft replica (``RaftManager``, owned by ``QuorumController``) nor what the
records mean.

A write that fails (leadership lost, or no commit within the timeout) raises
``NotControllerError`` after calling ``on_write_failure``: the entries may still commit
later, so the term's in-memory state can no longer be trusted and the owner renounces it
(Kafka's ``QuorumController.renounce``).

Kafka concept: the ``RaftClient`` as seen by ``QuorumController`` (``scheduleAtomicAppend``
and the wait for ``handleCommit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kafkette.controller.metadata_records import BeginTransactionRecord, EndTransactionRecord, MetadataRecord
from kafkette.controller.metadata_snapshot import decode_snapshot
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch
from kafkette.protocol.errors import KafkaTimeoutError, NotControllerError, NotLeaderOrFollowerError


class RaftWriter(Protocol):
    """What the controller needs of its Raft replica (``RaftManager`` implements it)."""

    @property
    def epoch(self) -> int: ...

    @property
    def log_end_offset(self) -> int: ...

    def committed_entries(self) -> list[LogEntry]: ...

    def latest_snapshot(self) -> tuple[OffsetAndEpoch, bytes] | None: ...

    async def propose(self, payloads: list[MetadataRecord], timeout_ms: int) -> int: ...


class RaftMetadataLog:
    """One controller term's metadata log (see the module docstring).

    Args:
        raft: the node's Raft replica, leader of ``epoch``.
        epoch: the Raft epoch this term leads; it is the controller epoch.
        commit_timeout_ms: how long a write waits for its commit (``request.timeout.ms``).
        on_write_failure: called once per failed write, before ``NotControllerError`` is raised.
    """

    def __init__(
        self, raft: RaftWriter, epoch: int, *, commit_timeout_ms: int, on_write_failure: Callable[[str], None]
    ) -> None:
        self._raft = raft
        self.epoch = epoch
        self._commit_timeout_ms = commit_timeout_ms
        self._on_write_failure = on_write_failure

    @property
    def next_offset(self) -> int:
        """The offset the next entry gets: a registration's broker epoch."""
        return self._raft.log_end_offset

    def next_controller_epoch(self, replayed_epoch: int) -> int:
        """The controller epoch of this term: the Raft epoch (above every earlier term's)."""
        return max(self.epoch, replayed_epoch + 1)

    async def load(self) -> list[MetadataRecord]:
        """The committed state as records: the latest snapshot's, then the committed entries after
        it, in log order (Raft control entries and transaction markers dropped: a Raft batch is
        committed whole).

        Raises:
            ValueError: a snapshot whose bytes are no snapshot.
        """
        snapshot = self._raft.latest_snapshot()
        records = decode_snapshot(snapshot[1]) if snapshot is not None else []
        return records + [
            e.payload
            for e in self._raft.committed_entries()
            if isinstance(e.payload, MetadataRecord)
            and not isinstance(e.payload, (BeginTransactionRecord, EndTransactionRecord))
        ]

    async def append(self, records: Sequence[MetadataRecord]) -> int:
        """Propose ``records`` as one batch and wait for the commit.

        Returns:
            The offset of the last record.

        Raises:
            NotControllerError: this node is no longer the leader of ``epoch``, or the batch did
                not commit within ``commit_timeout_ms`` (``on_write_failure`` was called).
        """
        try:
            if self._raft.epoch != self.epoch:
                raise NotLeaderOrFollowerError(
                    f"the Raft epoch moved from {self.epoch} to {self._raft.epoch}"
                )
            return await self._raft.propose(list(records), self._commit_timeout_ms)
        except (NotLeaderOrFollowerError, KafkaTimeoutError) as exc:
            reason = f"metadata write of epoch {self.epoch} failed: {exc}"
            self._on_write_failure(reason)
            raise NotControllerError(reason) from exc

    async def close(self) -> None:
        """Nothing to close: the Raft replica outlives the term."""
