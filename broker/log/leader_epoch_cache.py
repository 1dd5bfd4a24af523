"""The leader epoch cache of one partition and its ``leader-epoch-checkpoint`` file.

Owns the in-memory list of ``(leader epoch, start offset)`` entries, its rules for
assignment and truncation, and the file format.  Does not decide when the file is
written (``UnifiedLog`` writes it off the event loop before a flush moves the recovery
point, and ``UnifiedLog.open`` rebuilds it); all I/O functions here block.

Kafka concept: ``LeaderEpochFileCache`` / ``LeaderEpochCheckpointFile``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kafkette.broker.log.checkpoint import CHECKPOINT_VERSION, CorruptCheckpointError, write_file_atomically

LEADER_EPOCH_CHECKPOINT_FILE = "leader-epoch-checkpoint"
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


@dataclass(frozen=True, slots=True)
class EpochEntry:
    """The first offset written by a leader in ``epoch``."""

    epoch: int
    start_offset: int


class LeaderEpochCheckpointFile:
    """Reads and atomically writes ``<partition dir>/leader-epoch-checkpoint``.

    Format (Kafka's, UTF-8 text)::

        0             <- version
        2             <- number of entries
        0 0           <- "<epoch> <start offset>", epochs and offsets increasing
        3 1200

    Args:
        path: the checkpoint file.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def write(self, entries: Iterable[EpochEntry]) -> None:
        """Atomically replace the file with ``entries`` (temp file, fsync, rename, dir fsync).

        Raises:
            OSError: the file could not be written.
        """
        entries = list(entries)
        lines = [str(CHECKPOINT_VERSION), str(len(entries))]
        lines.extend(f"{e.epoch} {e.start_offset}" for e in entries)
        write_file_atomically(self.path, ("\n".join(lines) + "\n").encode("utf-8"))

    def read(self) -> list[EpochEntry] | None:
        """Read the file.

        Returns:
            The entries, or None when the file does not exist.

        Raises:
            CorruptCheckpointError: wrong version or count, a malformed line, or epochs /
                start offsets that do not increase.
            OSError: the file exists but cannot be read.
        """
        try:
            text = self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            raise CorruptCheckpointError(self.path, f"not UTF-8 ({exc})") from None
        lines = text.splitlines()
        if len(lines) < 2 or lines[0].strip() != str(CHECKPOINT_VERSION):
            raise CorruptCheckpointError(self.path, "missing or unrecognised version or entry count")
        try:
            expected = int(lines[1])
            entries = [
                EpochEntry(*(int(part) for part in line.split())) for line in lines[2:] if line.strip()
            ]
        except (ValueError, TypeError):
            raise CorruptCheckpointError(self.path, "malformed entry line") from None
        if len(entries) != expected:
            raise CorruptCheckpointError(self.path, f"expected {expected} entries, found {len(entries)}")
        for before, after in zip(entries, entries[1:], strict=False):
            if after.epoch <= before.epoch or after.start_offset < before.start_offset:
                raise CorruptCheckpointError(self.path, f"entries out of order: {before} then {after}")
        return entries


class LeaderEpochFileCache:
    """Which leader epoch wrote which offsets: ``[(epoch, start offset)]``, both increasing.

    Entry ``(e, s)`` says the leader of epoch ``e`` wrote its first record at offset ``s``;
    epoch ``e`` covers ``[s, start offset of the next entry)``.  A leader assigns
    ``(epoch, log end offset)`` when its epoch grows; a follower learns entries from the
    ``partition_leader_epoch`` of the batches it appends.  Truncating the log drops
    entries starting at or after the new end; advancing the log start offset drops
    entries below it, keeping the one covering it (moved up to it).

    ``version`` grows on every change so that a snapshot written off the event loop
    knows whether it is still current.  Pure in-memory state; persistence goes through
    ``LeaderEpochCheckpointFile``.

    Args:
        entries: initial entries (from the checkpoint), oldest first.
    """

    def __init__(self, entries: Iterable[EpochEntry] = ()) -> None:
        self._entries: list[EpochEntry] = list(entries)
        self.version = 0

    @property
    def entries(self) -> list[EpochEntry]:
        """The entries, oldest first (a copy)."""
        return list(self._entries)

    @property
    def latest_epoch(self) -> int:
        """The last epoch, or ``UNDEFINED_EPOCH`` (-1) when empty."""
        return self._entries[-1].epoch if self._entries else UNDEFINED_EPOCH

    def assign(self, epoch: int, start_offset: int) -> bool:
        """Record that ``epoch`` starts at ``start_offset`` when it is newer than the last entry.

        Entries that conflict with the new one (epoch >= ``epoch`` or start offset >=
        ``start_offset``) are removed first, as Kafka does when a follower's log diverged.

        Args:
            epoch: a leader epoch (>= 0).
            start_offset: offset of its first record.

        Returns:
            True when the cache changed.
        """
        if epoch < 0:
            return False
        if self._entries:
            last = self._entries[-1]
            if last.epoch == epoch and last.start_offset <= start_offset:
                return False
            if last.epoch > epoch and last.start_offset <= start_offset:
                return False  # an older epoch's batch inside a newer epoch's range: nothing to learn
        self._entries = [e for e in self._entries if e.epoch < epoch and e.start_offset < start_offset]
        self._entries.append(EpochEntry(epoch, start_offset))
        self.version += 1
        return True

    def truncate_from_end(self, end_offset: int) -> None:
        """Drop every entry starting at or after ``end_offset`` (the log was truncated there)."""
        kept = [e for e in self._entries if e.start_offset < end_offset]
        if len(kept) != len(self._entries):
            self._entries = kept
            self.version += 1

    def truncate_from_start(self, start_offset: int) -> None:
        """Drop entries wholly below ``start_offset`` (the new log start offset).

        The entry covering ``start_offset`` is kept with its start offset raised to it.
        """
        index = bisect.bisect_right([e.start_offset for e in self._entries], start_offset) - 1
        if index < 0:
            return
        covering = self._entries[index]
        kept = [EpochEntry(covering.epoch, max(covering.start_offset, start_offset))] + self._entries[
            index + 1 :
        ]
        if kept != self._entries:
            self._entries = kept
            self.version += 1

    def clear(self) -> None:
        """Drop every entry (the log was emptied)."""
        if self._entries:
            self._entries = []
            self.version += 1

    def epoch_for_offset(self, offset: int) -> int:
        """The epoch that wrote ``offset``.

        Returns:
            The epoch of the last entry starting at or below ``offset``, or
            ``UNDEFINED_EPOCH`` (-1) when ``offset`` precedes every entry.
        """
        index = bisect.bisect_right([e.start_offset for e in self._entries], offset) - 1
        return self._entries[index].epoch if index >= 0 else UNDEFINED_EPOCH

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """Kafka's ``endOffsetFor``: the largest epoch <= ``requested_epoch`` and its end offset.

        The end offset of an epoch is the start offset of the next larger epoch, or the
        log end offset for the latest epoch (OffsetsForLeaderEpoch answers with it).

        Args:
            requested_epoch: the epoch a follower asks about.
            log_end_offset: this log's end offset.

        Returns:
            ``(epoch, end offset)``: for the latest epoch the log end offset; for an epoch
            older than every entry ``(requested_epoch, first start offset)``; ``(-1, -1)``
            when ``requested_epoch`` is undefined, newer than the latest, or the cache is empty.
        """
        if requested_epoch == UNDEFINED_EPOCH or not self._entries or requested_epoch > self.latest_epoch:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if requested_epoch == self.latest_epoch:
            return self.latest_epoch, log_end_offset
        index = bisect.bisect_right([e.epoch for e in self._entries], requested_epoch)
        if index == 0:
            return requested_epoch, self._entries[0].start_offset
        return self._entries[index - 1].epoch, self._entries[index].start_offset

    def __repr__(self) -> str:
        return f"LeaderEpochFileCache({[(e.epoch, e.start_offset) for e in self._entries]})"
