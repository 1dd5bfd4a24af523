"""ReplicatedLog: the metadata log as the Raft core uses it, and an in-memory one.

Owns: ``LogEntry`` (offset, the leader epoch that wrote it, payload, the end of its
batch); ``OffsetAndEpoch`` (an end offset and the epoch of the entry before it: epoch
lookups, diverging epochs and snapshot ids); the ``ReplicatedLog`` protocol (append,
truncate, read, epoch lookup, flush, snapshots and the log start offset); the rules a
leader and a follower apply to a log: ``validate_offset_and_epoch`` (what the leader
answers a fetch position), ``truncation_offset`` (where the follower then cuts its log)
and ``read_whole_batches``; and ``MemoryReplicatedLog`` (for the simulation: what was
flushed and the snapshot survive a crash, the rest of the log is lost).

Offsets are dense from the log start offset; entries are appended in whole batches, so
the log end offset, a flush and every epoch's end fall on batch boundaries.  Does not own
commitment (the high watermark is the core's) nor what a payload or a snapshot's bytes
mean.

Kafka concept: ``org.apache.kafka.raft.ReplicatedLog`` (``endOffsetForEpoch``,
``truncateTo``, ``flush``, ``validateOffsetAndEpoch``, ``createNewSnapshot``,
``truncateToLatestSnapshot``, ``startOffset``) and KIP-630's snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple, Protocol


@dataclass(frozen=True)
class LogEntry:
    """One entry: its ``offset``, the ``epoch`` of the leader that appended it, its ``payload``, and
    ``batch_end_offset``: the offset after the last entry of the batch it was proposed in (a
    batch is appended, fetched, truncated and committed whole; 0 given means a batch of one,
    stored as ``offset + 1``)."""

    offset: int
    epoch: int
    payload: Any
    batch_end_offset: int = 0

    def __post_init__(self) -> None:
        if self.batch_end_offset == 0:
            object.__setattr__(self, "batch_end_offset", self.offset + 1)
        elif self.batch_end_offset <= self.offset:
            raise ValueError(f"entry {self.offset}: batch end offset {self.batch_end_offset} is not after it")


class OffsetAndEpoch(NamedTuple):
    """An end ``offset`` (exclusive) and the ``epoch`` of the entry just before it.

    A snapshot's id is the ``OffsetAndEpoch`` of the last entry it covers; an epoch lookup
    answers where an epoch ends.  Kafka concept: ``OffsetAndEpoch``.
    """

    offset: int
    epoch: int


class Kind(Enum):
    """What a leader answers a fetch position (Kafka's ``ValidOffsetAndEpoch.Kind``)."""

    VALID = "valid"
    DIVERGING = "diverging"
    SNAPSHOT = "snapshot"


class ValidOffsetAndEpoch(NamedTuple):
    """A leader's verdict on a follower's fetch position (Kafka's ``ValidOffsetAndEpoch``).

    ``kind`` VALID: the follower's log matches up to its fetch offset; DIVERGING: it must
    truncate to ``offset_and_epoch``; SNAPSHOT: it must fetch the snapshot
    ``offset_and_epoch`` (the entries it needs are gone from the leader's log).
    """

    kind: Kind
    offset_and_epoch: OffsetAndEpoch


class ReplicatedLog(Protocol):
    """The operations the core needs; entries are appended in offset order.

    The log holds the entries from ``log_start_offset()`` to ``end_offset()``; what lies
    before the log start offset is summed up by the latest snapshot, whose id is
    (log start offset, epoch of the entry before it).
    """

    def log_start_offset(self) -> int:
        """The offset of the first entry held (0, or the latest snapshot's end offset)."""

    def end_offset(self) -> int:
        """The offset the next entry gets (the log end offset)."""

    def last_epoch(self) -> int:
        """The epoch of the last entry (the snapshot's when the log is empty after one), 0 for none."""

    def append(self, entries: list[LogEntry]) -> None:
        """Append entries whose offsets continue the log (not durable until ``flush``).

        Raises:
            ValueError: an offset that does not continue the log or an epoch below the last.
        """

    def truncate_to(self, offset: int) -> None:
        """Drop every entry at ``offset`` and above (never below the log start offset)."""

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        """Up to ``max_entries`` entries from ``start`` (>= the log start offset), fewer at the end."""

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        """The end offset of the largest epoch <= ``epoch`` held (the latest snapshot counts as
        the entry before the log start offset): where a follower that last fetched ``epoch``
        agrees with this log.  (0, 0) when there is none."""

    def flush(self) -> None:
        """Make every appended entry durable."""

    def flushed_offset(self) -> int:
        """The end offset of the durable prefix."""

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        """The id of the latest snapshot, None when there is none."""

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> bytes | None:
        """The bytes of snapshot ``snapshot_id``, None when this log does not hold it."""

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Store ``data`` durably as the state up to ``snapshot_id`` and drop the entries before
        it (the log start offset becomes ``snapshot_id.offset``).

        Raises:
            ValueError: ``snapshot_id`` is not after the log start offset, not within the log,
                or its epoch is not that of the entry before its offset.
        """

    def install_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Store ``data``, a snapshot fetched from the leader, durably, and drop the whole log:
        it starts again, empty, at ``snapshot_id.offset``."""


def validate_offset_and_epoch(log: ReplicatedLog, offset: int, epoch: int) -> ValidOffsetAndEpoch:
    """Whether a follower whose log ends at ``offset`` with last epoch ``epoch`` agrees with ``log``.

    A snapshot is answered when the leader has one and the follower's log is empty, ends
    before the log start offset, or cannot be checked against the snapshot (it ends at the
    log start offset with another epoch, or its last epoch is older than the snapshot's);
    otherwise the follower diverges when ``log`` does not hold ``epoch`` up to ``offset``.

    Args:
        log: the leader's log.
        offset: the follower's fetch offset.
        epoch: the follower's last fetched epoch (the epoch of the entry at ``offset - 1``).

    Returns:
        VALID, DIVERGING with where to truncate to, or SNAPSHOT with the snapshot to fetch.

    Kafka concept: ``ReplicatedLog.validateOffsetAndEpoch`` and the empty-follower shortcut
    of ``KafkaRaftClient.tryCompleteFetchRequest``.
    """
    snapshot_id = log.latest_snapshot_id()
    start = log.log_start_offset()
    if snapshot_id is not None and (
        offset == 0
        or offset < start
        or epoch < snapshot_id.epoch
        or (offset == start and epoch != snapshot_id.epoch)
    ):
        return ValidOffsetAndEpoch(Kind.SNAPSHOT, snapshot_id)
    if offset == 0:
        return ValidOffsetAndEpoch(Kind.VALID, OffsetAndEpoch(0, 0))
    end = log.end_offset_for_epoch(epoch)
    if end.epoch != epoch or end.offset < offset:
        return ValidOffsetAndEpoch(Kind.DIVERGING, end)
    return ValidOffsetAndEpoch(Kind.VALID, OffsetAndEpoch(offset, epoch))


def truncation_offset(log: ReplicatedLog, diverging: OffsetAndEpoch) -> int:
    """Where a follower cuts its log when the leader's answer says it diverges: the end of
    ``diverging.epoch`` in both logs, or, when the follower has no entry of that epoch, the end
    of its largest epoch below it (Kafka's ``ReplicatedLog.truncateToEndOffset``).

    Args:
        log: the follower's log.
        diverging: the leader's end offset of the largest epoch it holds up to the follower's.

    Returns:
        The offset to truncate to (at most the log end offset).
    """
    local = log.end_offset_for_epoch(diverging.epoch)
    offset = min(local.offset, diverging.offset) if local.epoch == diverging.epoch else local.offset
    return min(offset, log.end_offset())


def read_whole_batches(log: ReplicatedLog, start: int, max_entries: int) -> list[LogEntry]:
    """About ``max_entries`` entries from ``start`` (a batch boundary), ending on a batch boundary:
    more when the last batch is longer, as Kafka returns at least one whole batch."""
    entries = log.read(start, max_entries)
    if entries and entries[-1].batch_end_offset > entries[-1].offset + 1:
        last = entries[-1]
        entries += log.read(last.offset + 1, last.batch_end_offset - last.offset - 1)
    return entries


class MemoryReplicatedLog:
    """A ``ReplicatedLog`` in memory; ``crash()`` keeps only the flushed prefix and the snapshot.

    Only the latest snapshot is kept; it always ends at the log start offset.
    """

    def __init__(self) -> None:
        self._start = 0
        self._entries: list[LogEntry] = []  # the entry at offset o is _entries[o - _start]
        self._flushed = 0
        self._snapshot: tuple[OffsetAndEpoch, bytes] | None = None

    def log_start_offset(self) -> int:
        return self._start

    def end_offset(self) -> int:
        return self._start + len(self._entries)

    def last_epoch(self) -> int:
        if self._entries:
            return self._entries[-1].epoch
        return self._snapshot[0].epoch if self._snapshot else 0

    def append(self, entries: list[LogEntry]) -> None:
        for entry in entries:
            if entry.offset != self.end_offset() or entry.epoch < self.last_epoch():
                raise ValueError(
                    f"entry {entry.offset} (epoch {entry.epoch}) does not continue a log "
                    f"ending at {self.end_offset()} (epoch {self.last_epoch()})"
                )
            self._entries.append(entry)

    def truncate_to(self, offset: int) -> None:
        del self._entries[max(offset - self._start, 0) :]
        self._flushed = min(self._flushed, self.end_offset())

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        if start < self._start:
            raise ValueError(f"offset {start} is below the log start offset {self._start}")
        return self._entries[start - self._start : start - self._start + max_entries]

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        found = OffsetAndEpoch(0, 0)
        if self._snapshot and self._snapshot[0].epoch <= epoch:
            found = self._snapshot[0]
        for entry in self._entries:
            if entry.epoch > epoch:
                break
            found = OffsetAndEpoch(entry.offset + 1, entry.epoch)
        return found

    def flush(self) -> None:
        self._flushed = self.end_offset()

    def flushed_offset(self) -> int:
        return self._flushed

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._snapshot[0] if self._snapshot else None

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> bytes | None:
        return self._snapshot[1] if self._snapshot and self._snapshot[0] == snapshot_id else None

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        offset = snapshot_id.offset
        if not self._start < offset <= self.end_offset():
            raise ValueError(
                f"snapshot {snapshot_id} is not within the log [{self._start}, {self.end_offset()}]"
            )
        if self._entries[offset - 1 - self._start].epoch != snapshot_id.epoch:
            raise ValueError(
                f"snapshot {snapshot_id}: the entry before it has epoch "
                f"{self._entries[offset - 1 - self._start].epoch}"
            )
        del self._entries[: offset - self._start]
        self._start = offset
        self._flushed = max(self._flushed, offset)
        self._snapshot = (snapshot_id, bytes(data))

    def install_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        self._entries.clear()
        self._start = self._flushed = snapshot_id.offset
        self._snapshot = (snapshot_id, bytes(data))

    def crash(self) -> None:
        """Lose what was not flushed (a kill -9); the snapshot stays."""
        del self._entries[max(self._flushed - self._start, 0) :]

    def entries(self) -> list[LogEntry]:
        """Every entry held, from the log start offset (for invariant checks)."""
        return list(self._entries)
