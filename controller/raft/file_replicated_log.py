"""FileReplicatedLog: the metadata log partition ``__cluster_metadata-0`` on disk, for the Raft core.

Owns: one segment file, ``<dir>/<log start offset, 20 digits>.log``, of framed entries, and the
latest snapshot, ``<dir>/<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`` (KIP-630's
snapshot files); opening them (every frame read and its CRC32C checked; the first torn or
corrupt frame and everything after it are cut off with a WARNING, as a torn tail after kill -9
is), appends (written, not yet durable), ``flush`` (fsync: the durable end; or ``begin_flush`` /
``complete_flush`` around an fsync the caller runs off its event loop), ``truncate_to``
(the file cut and fsynced), snapshots (``create_snapshot``: the state up to an offset written
and fsynced, then the entries before it dropped by writing the rest to a new segment named
after the new log start offset and deleting the old one; ``install_snapshot``: a snapshot
fetched from the leader replaces the whole log) and the epoch lookups the core needs.  The
entries are also kept in memory (the metadata log is small).  What an entry's payload or a
snapshot's bytes are belongs to the caller: ``encode`` and ``decode`` turn payloads into bytes
and back.  Blocking file I/O; the driver decides where it runs: with ``defer_rewrites`` a
snapshot changes the log in memory at once and leaves its file work (a ``SegmentRewrite``) to
the driver (``take_rewrite``, run on a worker thread, ``complete_rewrite``); appends meanwhile
are buffered and written to the new segment when it is in place.

On-disk format, one frame per entry, offsets dense from the segment's base offset::

    length   : uint32 big-endian  = len(body) in bytes
    crc      : uint32 big-endian  = CRC32C(body)
    body     : msgpack([offset: int, epoch: int, payload: bytes, batch_end_offset: int])

``batch_end_offset`` is the offset after the last entry of the entry's batch (absent in
files written before batches: a batch of one).  A batch cut short by a torn tail is
dropped whole on open, as the torn frame is: it was never acknowledged.  A snapshot file is
one frame whose body is the snapshot's bytes; it is written to ``.checkpoint.tmp``, fsynced
and renamed, so it is whole or absent.  Every step of a snapshot leaves files that open to
the same log: a crash between writing the snapshot and replacing the segment leaves the old
segment, whose entries before the snapshot are dropped when it is opened.

Kafka concept: ``KafkaMetadataLog`` (the ``ReplicatedLog`` over the ``__cluster_metadata``
partition's ``UnifiedLog``, with its ``FileRawSnapshotWriter`` snapshots).
"""

from __future__ import annotations

import bisect
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import crc32c
import msgpack

from kafkette.common.durable_files import fsync_dir, write_file_atomically
from kafkette.controller.raft.log_frames import FRAME_HEADER, FrameScan, frame
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch
from kafkette.controller.raft.segment_rewrite import SegmentRewrite

logger = logging.getLogger(__name__)

SEGMENT_SUFFIX = ".log"
SNAPSHOT_SUFFIX = ".checkpoint"
TMP_SUFFIX = ".tmp"  # write_file_atomically's temporary files
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")
_SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")


@dataclass(frozen=True)
class FlushTicket:
    """A flush under way (``FileReplicatedLog.begin_flush``).

    Attributes:
        end_offset: the log end offset when the flush began: entries below it become durable
            once ``fd`` is fsynced.
        fd: a descriptor of the segment (a duplicate: whoever runs the fsync closes it, see
            ``fsync_and_close``).
    """

    end_offset: int
    fd: int


def fsync_and_close(fd: int) -> None:
    """fsync a ``FlushTicket``'s descriptor, then close it (blocking: meant for a worker thread).

    Raises:
        OSError: the fsync failed (the descriptor is closed all the same).
    """
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CorruptSnapshotError(OSError):
    """A snapshot file whose frame does not check out: the log cannot be opened without losing
    what it summed up (nothing is deleted)."""


def segment_file_name(base_offset: int) -> str:
    """``<base offset, 20 digits>.log``."""
    return f"{base_offset:020d}{SEGMENT_SUFFIX}"


def snapshot_file_name(snapshot_id: OffsetAndEpoch) -> str:
    """``<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`` (Kafka's snapshot file name)."""
    return f"{snapshot_id.offset:020d}-{snapshot_id.epoch:010d}{SNAPSHOT_SUFFIX}"


class FileReplicatedLog:
    """A ``ReplicatedLog`` in one file (see the module docstring for the format).

    Args:
        directory: the partition directory (created if missing).
        encode: payload -> bytes.
        decode: bytes -> payload; raising ValueError marks the frame corrupt.
        defer_rewrites: leave a snapshot's file work to the driver (``take_rewrite``) instead of
            doing it inside ``create_snapshot`` / ``install_snapshot``.

    Raises:
        OSError: the directory or file cannot be read or written.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        encode: Callable[[Any], bytes],
        decode: Callable[[bytes], Any],
        *,
        defer_rewrites: bool = False,
    ) -> None:
        self.dir = Path(directory)
        self._defer_rewrites = defer_rewrites
        self._rewrites: list[SegmentRewrite] = []  # planned, in order; the first may be running
        self._buffered: list[bytes] = []  # frames appended while a rewrite is planned
        self._encode = encode
        self._decode = decode
        self._start = 0
        self._entries: list[LogEntry] = []  # the entry at offset o is _entries[o - _start]
        self._positions: list[int] = []  # file position of each entry's frame
        self._epoch_starts: list[tuple[int, int]] = []  # (epoch, first offset) of the entries held
        self._snapshot: tuple[OffsetAndEpoch, bytes] | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        for suffix in (SEGMENT_SUFFIX, SNAPSHOT_SUFFIX):
            for leftover in self.dir.glob(f"*{suffix}{TMP_SUFFIX}"):
                leftover.unlink()
        self._snapshot = self._load_snapshot()
        self._start = self._snapshot[0].offset if self._snapshot else 0
        segment = self._choose_segment()
        self.path = self.dir / segment_file_name(self._start)
        valid_end = self._load(segment) if segment is not None else 0
        if segment is not None and segment != self.path:  # a snapshot was taken but the segment not replaced
            self._rewrite_segment()
            segment.unlink()
            fsync_dir(self.dir)
        self._file = open(self.path, "r+b" if self.path.exists() else "w+b")  # noqa: SIM115 - owned until close()
        size = self._file.seek(0, os.SEEK_END)
        if valid_end < size and segment == self.path:
            self._file.truncate(valid_end)
            self._file.seek(valid_end)
            os.fsync(self._file.fileno())
            size = valid_end
        self._end_position = size  # where the next frame goes, in the newest segment
        self._flushed = self.end_offset()
        self._durable_cap = self._flushed  # lowered by a truncation or snapshot during a flush

    # ------------------------------------------------------------------ opening

    def _load_snapshot(self) -> tuple[OffsetAndEpoch, bytes] | None:
        """The latest snapshot file (older ones are deleted).

        Raises:
            CorruptSnapshotError: its frame is torn or its CRC does not match.
        """
        found = sorted(
            (OffsetAndEpoch(int(m[1]), int(m[2])), path)
            for path in self.dir.iterdir()
            if (m := _SNAPSHOT_NAME.match(path.name))
        )
        if not found:
            return None
        snapshot_id, path = found[-1]
        for _, older in found[:-1]:
            older.unlink()
        data = path.read_bytes()
        if len(data) >= FRAME_HEADER.size:
            length, crc = FRAME_HEADER.unpack_from(data)
            body = data[FRAME_HEADER.size :]
            if length == len(body) and crc32c.crc32c(body) == crc:
                return snapshot_id, body
        raise CorruptSnapshotError(
            f"snapshot file {path} is corrupt (torn frame or CRC mismatch); it sums up "
            f"the metadata log before offset {snapshot_id.offset}"
        )

    def _choose_segment(self) -> Path | None:
        """The segment to read: the one starting at the log start offset, else the newest one
        below it (a snapshot taken or installed before its segment was replaced); others go."""
        segments = sorted(
            (int(m[1]), path) for path in self.dir.iterdir() if (m := _SEGMENT_NAME.match(path.name))
        )
        usable = [(base, path) for base, path in segments if base <= self._start]
        if len(usable) < len(segments):
            newer = [str(path) for base, path in segments if base > self._start]
            raise CorruptSnapshotError(
                f"metadata log segments {newer} start after the log start offset "
                f"{self._start}: a snapshot file is missing"
            )
        chosen = usable[-1][1] if usable else None
        for _, path in usable[:-1]:
            path.unlink()
        return chosen

    def _load(self, segment: Path) -> int:
        """Read ``segment``'s valid entries from the log start offset; returns where its valid
        bytes end."""
        scan = FrameScan(segment.read_bytes())
        base = int(segment.name[:20])
        expected, previous_epoch = base, 0
        for position, body in scan:
            try:
                offset, epoch, payload, *batch_end = msgpack.unpackb(body, raw=False)
                if offset != expected or epoch < previous_epoch:
                    raise ValueError(f"entry {offset} (epoch {epoch}) out of order")
                expected, previous_epoch = expected + 1, epoch
                if offset < self._start:
                    continue
                entry = LogEntry(offset, epoch, self._decode(payload), *batch_end)
            except (ValueError, TypeError, msgpack.UnpackException) as exc:
                scan.stop(f"undecodable entry at position {position}: {exc}")
                continue
            self._remember(entry, position)
        valid_end, reason = scan.valid_end, scan.reason
        if self._entries and self._entries[-1].batch_end_offset > self.end_offset():
            first, batch_end = len(self._entries) - 1, self._entries[-1].batch_end_offset
            while first > 0 and self._entries[first - 1].batch_end_offset == batch_end:
                first -= 1
            valid_end = self._positions[first]
            self._forget_from(self._start + first)
            reason = reason or f"the batch from offset {self._start + first} is incomplete"
        if self._snapshot and base < self._start:
            # entries after the snapshot are kept only if the log agrees with it at its end
            before = self._snapshot[0]
            if expected < before.offset or not self._agrees_with_snapshot(segment, before):
                self._forget_from(self._start)
        if reason:
            logger.warning(
                "Truncating metadata log %s at byte %d (%s); %d entries kept",
                segment,
                valid_end,
                reason,
                len(self._entries),
            )
        return valid_end

    def _agrees_with_snapshot(self, segment: Path, snapshot_id: OffsetAndEpoch) -> bool:
        """True when ``segment`` holds the entry before the snapshot with the snapshot's epoch."""
        for _, body in FrameScan(segment.read_bytes()):
            offset, epoch, *_ = msgpack.unpackb(body, raw=False)
            if offset == snapshot_id.offset - 1:
                return epoch == snapshot_id.epoch
        return False

    def _remember(self, entry: LogEntry, position: int) -> None:
        if not self._epoch_starts or self._epoch_starts[-1][0] != entry.epoch:
            self._epoch_starts.append((entry.epoch, entry.offset))
        self._entries.append(entry)
        self._positions.append(position)

    def _forget_from(self, offset: int) -> None:
        index = offset - self._start
        del self._entries[index:]
        del self._positions[index:]
        while self._epoch_starts and self._epoch_starts[-1][1] >= offset:
            self._epoch_starts.pop()

    def _frame(self, entry: LogEntry) -> bytes:
        return frame(
            msgpack.packb(
                [entry.offset, entry.epoch, self._encode(entry.payload), entry.batch_end_offset],
                use_bin_type=True,
            )
        )

    def _rewrite_segment(self) -> None:
        """Write the entries held to ``self.path`` (a segment starting at the log start offset),
        durably, recomputing their positions."""
        frames = [self._frame(entry) for entry in self._entries]
        positions, position = [], 0
        for framed in frames:
            positions.append(position)
            position += len(framed)
        write_file_atomically(self.path, b"".join(frames))
        self._positions = positions

    # ------------------------------------------------------------------ ReplicatedLog

    def log_start_offset(self) -> int:
        return self._start

    def end_offset(self) -> int:
        return self._start + len(self._entries)

    def last_epoch(self) -> int:
        if self._entries:
            return self._entries[-1].epoch
        return self._snapshot[0].epoch if self._snapshot else 0

    def append(self, entries: list[LogEntry]) -> None:
        """Write ``entries`` after the last one (not durable until ``flush``).

        Raises:
            ValueError: an offset that does not continue the log or an epoch below the last.
            OSError: the write failed.
        """
        position = self._end_position
        frames = []
        for entry in entries:
            if entry.offset != self.end_offset() or entry.epoch < self.last_epoch():
                raise ValueError(
                    f"entry {entry.offset} (epoch {entry.epoch}) does not continue a log ending at "
                    f"{self.end_offset()} (epoch {self.last_epoch()})"
                )
            framed = self._frame(entry)
            self._remember(entry, position)
            position += len(framed)
            frames.append(framed)
        self._write(b"".join(frames))
        self._end_position = position

    def _write(self, data: bytes) -> None:
        """Write ``data`` at the end of the segment, or buffer it while a rewrite is planned (it
        goes to the new segment once that is in place)."""
        if self._rewrites:
            self._buffered.append(data)
        else:
            self._file.write(data)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry at ``offset`` and above (never below the log start offset), on disk
        too (fsynced).

        Raises:
            OSError: the truncation failed.
        """
        offset = max(offset, self._start)
        if offset >= self.end_offset():
            return
        position = self._positions[offset - self._start]
        self._forget_from(offset)
        self._end_position = position
        if self._rewrites:
            self._truncate_planned(offset, position)
        else:
            self._file.flush()
            self._file.truncate(position)
            self._file.seek(position)
            os.fsync(self._file.fileno())
        self._flushed = min(self._flushed, offset)
        self._durable_cap = min(self._durable_cap, offset)

    def _truncate_planned(self, offset: int, position: int) -> None:
        """A truncation while rewrites are planned: ``position`` is in the newest one's segment;
        cut the buffered frames there, or mark that segment to be cut once in place."""
        for rewrite in self._rewrites:
            rewrite.durable_end = min(rewrite.durable_end, offset)
        newest = self._rewrites[-1]
        # the buffered frames follow the new segment's kept bytes, or the cut made into them
        base = len(newest.segment_bytes) if newest.truncate_at is None else newest.truncate_at
        if position >= base:
            self._buffered = [b"".join(self._buffered)[: position - base]]
        else:
            self._buffered = []
            newest.truncate_at = position

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        """Up to ``max_entries`` entries from ``start``.

        Raises:
            ValueError: ``start`` is below the log start offset (those entries are in the snapshot).
        """
        if start < self._start:
            raise ValueError(f"offset {start} is below the log start offset {self._start}")
        return self._entries[start - self._start : start - self._start + max_entries]

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        index = bisect.bisect_right(self._epoch_starts, (epoch, float("inf"))) - 1
        if index < 0:
            if self._snapshot and self._snapshot[0].epoch <= epoch:
                return self._snapshot[0]
            return OffsetAndEpoch(0, 0)
        found_epoch = self._epoch_starts[index][0]
        end = self._epoch_starts[index + 1][1] if index + 1 < len(self._epoch_starts) else self.end_offset()
        return OffsetAndEpoch(end, found_epoch)

    def flush(self) -> None:
        """fsync what was appended, on the calling thread.

        Raises:
            OSError: the fsync failed.
        """
        self._run_rewrites_here()
        if self._flushed == self.end_offset():
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._flushed = self.end_offset()

    def begin_flush(self) -> FlushTicket | None:
        """Start a flush whose fsync runs elsewhere (a worker thread): what was appended is
        handed to the OS now, and the returned ticket holds its own descriptor of the segment,
        so the fsync stays valid even if a snapshot replaces the segment meanwhile.  Entries
        become durable (``flushed_offset``) only at ``complete_flush``, after the fsync.

        Returns:
            The ticket, or None when everything appended is already durable or a snapshot's file
            work is planned (the entries become durable in its new segment; ``take_rewrite``).

        Raises:
            OSError: handing the bytes to the OS failed.
        """
        if self._flushed == self.end_offset() or self._rewrites:
            return None
        self._file.flush()
        self._durable_cap = self.end_offset()
        return FlushTicket(self.end_offset(), os.dup(self._file.fileno()))

    def complete_flush(self, ticket: FlushTicket) -> None:
        """Mark the entries below ``ticket.end_offset`` durable (the ticket's fsync is done), except
        those a truncation or snapshot replaced since ``begin_flush``."""
        self._flushed = max(self._flushed, min(ticket.end_offset, self._durable_cap, self.end_offset()))

    def flushed_offset(self) -> int:
        return self._flushed

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._snapshot[0] if self._snapshot else None

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> bytes | None:
        return self._snapshot[1] if self._snapshot and self._snapshot[0] == snapshot_id else None

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Write ``data`` as the snapshot ``snapshot_id`` (fsynced), then drop the entries before
        it: the rest go to a new segment named after ``snapshot_id.offset``, the old segment and
        older snapshots are deleted.

        Raises:
            ValueError: ``snapshot_id`` is not within the log after its start, or its epoch is not
                that of the entry before its offset.
            OSError: a file could not be written.
        """
        offset = snapshot_id.offset
        if not self._start < offset <= self.end_offset():
            raise ValueError(
                f"snapshot {snapshot_id} is not within the log [{self._start}, {self.end_offset()}]"
            )
        before = self._entries[offset - 1 - self._start]
        if before.epoch != snapshot_id.epoch:
            raise ValueError(f"snapshot {snapshot_id}: the entry before it has epoch {before.epoch}")
        self._replace(snapshot_id, bytes(data), keep_from=offset)

    def install_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Write ``data``, a snapshot fetched from the leader, as the snapshot ``snapshot_id`` and
        drop the whole log: it starts again, empty, at ``snapshot_id.offset``.

        Raises:
            OSError: a file could not be written.
        """
        self._replace(snapshot_id, bytes(data), keep_from=None)

    def _replace(self, snapshot_id: OffsetAndEpoch, data: bytes, keep_from: int | None) -> None:
        """Move the log in memory to start at ``snapshot_id`` (keeping the entries from
        ``keep_from``, or none) and plan the file work; without ``defer_rewrites`` it is done here."""
        newest_segment = self._rewrites[-1].segment_path if self._rewrites else self.path
        old_snapshot = self._snapshot
        kept = self._entries[keep_from - self._start :] if keep_from is not None else []
        self._snapshot = (snapshot_id, data)
        self._start = snapshot_id.offset
        self._entries, self._positions, self._epoch_starts = [], [], []
        position = 0
        frames = []
        for entry in kept:
            framed = self._frame(entry)
            self._remember(entry, position)
            position += len(framed)
            frames.append(framed)
        self._end_position = position
        self._buffered = []  # every entry held is in the new segment's bytes
        self.path = self.dir / segment_file_name(self._start)
        self._rewrites.append(
            SegmentRewrite(
                directory=self.dir,
                snapshot_path=self.dir / snapshot_file_name(snapshot_id),
                snapshot_bytes=frame(data),
                segment_path=self.path,
                segment_bytes=b"".join(frames),
                old_segment=newest_segment,
                old_snapshot=None if old_snapshot is None else self.dir / snapshot_file_name(old_snapshot[0]),
                durable_end=self.end_offset(),
            )
        )
        logger.info(
            "Metadata log %s now starts at offset %d after snapshot %s", self.dir, self._start, snapshot_id
        )
        if not self._defer_rewrites:
            self._run_rewrites_here()

    def take_rewrite(self) -> SegmentRewrite | None:
        """The next planned snapshot file work for the driver to run (``SegmentRewrite.run``, on a
        worker thread) and then hand to ``complete_rewrite``; None when there is none or one is
        running.  Rewrites run one at a time, in the order planned."""
        if not self._rewrites or self._rewrites[0].started:
            return None
        self._rewrites[0].started = True
        return self._rewrites[0]

    @property
    def rewrite_pending(self) -> bool:
        """True while a snapshot's file work is planned or running."""
        return bool(self._rewrites)

    def complete_rewrite(self, rewrite: SegmentRewrite, segment: BinaryIO) -> None:
        """Switch to ``rewrite``'s new segment (``segment``, what its ``run`` returned): unless a
        newer rewrite follows, cut it where the log was truncated meanwhile and write the frames
        appended meanwhile (not yet durable).  The entries it holds fsynced become durable.

        Raises:
            ValueError: ``rewrite`` is not the running one.
            OSError: the cut or the write failed.
        """
        if not self._rewrites or self._rewrites[0] is not rewrite:
            raise ValueError("not the running snapshot rewrite")
        self._rewrites.pop(0)
        self._file.close()
        self._file = segment
        if not self._rewrites:
            if rewrite.truncate_at is not None:
                segment.truncate(rewrite.truncate_at)
                segment.seek(rewrite.truncate_at)
                os.fsync(segment.fileno())
            segment.write(b"".join(self._buffered))
            self._buffered = []
        self._flushed = max(self._flushed, min(rewrite.durable_end, self.end_offset()))

    def _run_rewrites_here(self) -> None:
        """Do the planned file work on this thread (none may be running elsewhere).

        Raises:
            RuntimeError: a driver is running a rewrite.
            OSError: a file could not be written.
        """
        while self._rewrites:
            rewrite = self.take_rewrite()
            if rewrite is None:
                raise RuntimeError(f"metadata log {self.dir}: a snapshot rewrite is running elsewhere")
            self.complete_rewrite(rewrite, rewrite.run())

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._file.closed:
            self.flush()
            self._file.close()
