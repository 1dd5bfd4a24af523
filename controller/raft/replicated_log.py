"""ReplicatedLog: the metadata log as the Raft core uses it, and an in-memory one.

Owns: ``LogEntry`` (offset, the leader epoch that wrote it, payload), the
``ReplicatedLog`` protocol (append, truncate, read, the end offset of an epoch, flush)
and ``MemoryReplicatedLog`` (for the simulation: what was flushed survives a crash,
the rest is lost).  Offsets are dense from 0.  Does not own commitment (the high
watermark is the core's).

Kafka concept: ``org.apache.kafka.raft.ReplicatedLog`` (``endOffsetForEpoch``,
``truncateTo``, ``flush``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class LogEntry:
    """One entry: its ``offset``, the ``epoch`` of the leader that appended it, its ``payload``."""

    offset: int
    epoch: int
    payload: Any


class ReplicatedLog(Protocol):
    """The operations the core needs; entries are appended in offset order."""

    def end_offset(self) -> int:
        """The offset the next entry gets (the log end offset)."""

    def last_epoch(self) -> int:
        """The epoch of the last entry, 0 for an empty log."""

    def append(self, entries: list[LogEntry]) -> None:
        """Append entries whose offsets continue the log.

        Raises:
            ValueError: an offset that does not continue the log or an epoch below the last.
        """

    def truncate_to(self, offset: int) -> None:
        """Drop every entry at ``offset`` and above."""

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        """Up to ``max_entries`` entries from ``start``."""

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        """(largest epoch <= ``epoch`` in the log, the end offset of that epoch): where a
        follower that last fetched ``epoch`` agrees with this log; (0, 0) when none."""

    def flush(self) -> None:
        """Make every appended entry durable."""

    def flushed_offset(self) -> int:
        """The end offset of the durable prefix."""


class MemoryReplicatedLog:
    """A ``ReplicatedLog`` in memory; ``crash()`` keeps only the flushed prefix."""

    def __init__(self) -> None:
        self._entries: list[LogEntry] = []
        self._flushed = 0

    def end_offset(self) -> int:
        return len(self._entries)

    def last_epoch(self) -> int:
        return self._entries[-1].epoch if self._entries else 0

    def append(self, entries: list[LogEntry]) -> None:
        for entry in entries:
            if entry.offset != len(self._entries) or entry.epoch < self.last_epoch():
                raise ValueError(f"entry {entry} does not continue a log ending at {len(self._entries)} "
                                 f"(epoch {self.last_epoch()})")
            self._entries.append(entry)

    def truncate_to(self, offset: int) -> None:
        del self._entries[max(offset, 0):]
        self._flushed = min(self._flushed, len(self._entries))

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        return self._entries[start:start + max_entries]

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        found = (0, 0)
        for entry in self._entries:
            if entry.epoch > epoch:
                break
            found = (entry.epoch, entry.offset + 1)
        return found

    def flush(self) -> None:
        self._flushed = len(self._entries)

    def flushed_offset(self) -> int:
        return self._flushed

    def crash(self) -> None:
        """Lose what was not flushed (a kill -9)."""
        del self._entries[self._flushed:]

    def entries(self) -> list[LogEntry]:
        """Every entry (for invariant checks)."""
        return list(self._entries)
