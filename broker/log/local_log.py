"""The segments and files of one partition's log.

Owns the partition directory's segments in base offset order, the log end offset,
the recovery point and the last flush time: appending bytes whose offsets are already
assigned (rolling by size, time, full indexes and offset overflow), reading whole
batches with their CRCs checked, truncating, fsyncing, removing leading segments
(renamed ``*.deleted``) and swapping in cleaned ones (``.swap``), and taking the log
offline when its files are corrupt.  Does not own offsets' meaning: the log start
offset, the high watermark, leader epochs, producer state, validation and retention
rules belong to ``UnifiedLog``, which holds one ``LocalLog``.

Kafka concept: ``LocalLog``.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kafkette.broker.log.abstract_index import INT32_MAX
from kafkette.broker.log.checkpoint import fsync_dir
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_loader import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    SWAP_SUFFIX,
    new_segment,
    segment_files,
)
from kafkette.broker.log.log_segment import LogSegment, segment_file_name
from kafkette.broker.log.transaction_index import TXN_INDEX_SUFFIX
from kafkette.common.clock import SYSTEM_TIME, Time
from kafkette.protocol.errors import KafkaStorageError, OffsetOutOfRangeError
from kafkette.protocol.record_batch import BASE_OFFSET, first_invalid_batch
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """The result of a read: whole batches, and the base offset of the first one.

    ``first_batch_offset`` may be below the requested offset (the batch containing it);
    with no records it equals the requested offset.
    """

    records: bytes
    first_batch_offset: int


class LocalLog:
    """The segments of one partition in one directory (see the module docstring).

    Segments are sorted by base offset; only the last (active) one is appended to; there
    is always at least one.  ``recovery_point <= log_end_offset`` and every offset below
    the recovery point is fsynced.  Used from the event loop only; fsyncs run in the
    default executor on duplicated file descriptors.

    Args:
        dir: the partition directory ``<log dir>/<topic>-<partition>``.
        tp: the partition.
        config: its log config.
        segments: the loaded segments, oldest first (at least one).
        recovery_point: offset below which data is fsynced (clamped to the segments).
        time: the log's clock: ``monotonic_ms`` for ``segment.ms`` without timestamps,
            segment creation and the last flush time.
    """

    def __init__(
        self,
        dir: Path,
        tp: TopicPartition,
        config: LogConfig,
        segments: list[LogSegment],
        *,
        recovery_point: int,
        time: Time = SYSTEM_TIME,
    ) -> None:
        self.dir = Path(dir)
        self.tp = tp
        self.config = config
        self.time = time
        self._segments = segments
        self._bases = [segment.base_offset for segment in segments]
        self._log_end_offset = segments[-1].next_offset()
        self._recovery_point = min(max(recovery_point, segments[0].base_offset), self._log_end_offset)
        self._truncations = 0
        self._dir_dirty = False
        self._last_flush_ms = self._now_ms()
        self.prefix = f"[Log partition={tp}, dir={self.dir.parent}]"
        self.offline_reason: str | None = None
        self.on_offline: Callable[[TopicPartition], None] | None = (
            None  # LogDirFailureChannel, set by LogManager
        )
        self.on_roll: Callable[[int], None] | None = None  # UnifiedLog's producer state snapshot

    def _now_ms(self) -> int:
        return int(self.time.monotonic_ms())

    # --------------------------------------------------------------- properties
    @property
    def log_end_offset(self) -> int:
        """Offset the next appended record will get (LEO)."""
        return self._log_end_offset

    @property
    def recovery_point(self) -> int:
        """Offset below which every record is fsynced."""
        return self._recovery_point

    def advance_recovery_point(self, offset: int) -> None:
        """Raise the recovery point to ``offset`` (never down, never past the LEO): offsets
        below the log start offset need no recovery."""
        self._recovery_point = max(self._recovery_point, min(offset, self._log_end_offset))

    @property
    def last_flush_time_ms(self) -> int:
        """When the last flush finished, on the log's monotonic clock (ms); creation time before."""
        return self._last_flush_ms

    @property
    def segments(self) -> list[LogSegment]:
        """The segments, oldest first (a copy of the list)."""
        return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        """The last segment, the one appended to."""
        return self._segments[-1]

    @property
    def size_in_bytes(self) -> int:
        """Total size of the segments' ``.log`` files in bytes."""
        return sum(segment.size for segment in self._segments)

    @property
    def truncation_count(self) -> int:
        """Times the log was truncated since it was opened (the cleaner aborts a swap when it moved)."""
        return self._truncations

    @property
    def unflushed_messages(self) -> int:
        """Offsets appended since the recovery point (log end offset - recovery point)."""
        return self._log_end_offset - self._recovery_point

    def segment_index(self, offset: int) -> int:
        """Index in ``segments`` of the segment holding ``offset`` (0 below the first)."""
        return max(0, bisect.bisect_right(self._bases, offset) - 1)

    # ------------------------------------------------------------------ offline
    @property
    def is_offline(self) -> bool:
        """True when corruption or a failed write took this log offline (see ``offline_reason``)."""
        return self.offline_reason is not None

    def mark_offline(self, reason: str) -> None:
        """Take the log offline: appends and reads raise KafkaStorageError from now on.

        Logged at ERROR once; the files are left as they are for an operator; the
        LogDirFailureChannel (``on_offline``) is told.

        Args:
            reason: what is wrong, with the file and position.
        """
        if self.offline_reason is None:
            self.offline_reason = reason
            logger.error("%s Taking the log offline: %s", self.prefix, reason)
            if self.on_offline is not None:
                self.on_offline(self.tp)

    def check_online(self) -> None:
        """Raises:
        KafkaStorageError: the log is offline (KAFKA_STORAGE_ERROR on the wire)."""
        if self.offline_reason is not None:
            raise KafkaStorageError(
                f"The log of {self.tp} in {self.dir.parent} is offline: {self.offline_reason}"
            )

    # ------------------------------------------------------------------ appends
    def append(
        self, records: bytes | bytearray | memoryview, last_offset: int, max_timestamp: tuple[int, int]
    ) -> None:
        """Append whole batches whose offsets are assigned, rolling first when needed.

        Args:
            records: the batches.
            last_offset: last offset they hold; the LEO becomes ``last_offset + 1``.
            max_timestamp: ``(largest batch max timestamp ms, last offset of the first batch
                carrying it)``, computed by the caller's walk over the batches.

        Raises:
            ValueError: ``last_offset`` is below the LEO.
            KafkaStorageError: the log is offline, or the write (or the roll before it) failed
                (a full disk, an I/O error): the log is taken offline then, as Kafka's
                ``maybeHandleIOException`` takes the log dir offline, and its bytes past the
                LEO are left to the recovery at the next start.
        """
        self.check_online()
        try:
            segment = self._maybe_roll(len(records), last_offset, max_timestamp[0])
            segment.append(records, last_offset, max_timestamp)
        except OSError as exc:
            self.mark_offline(f"error appending offsets up to {last_offset}: {exc}")
            raise KafkaStorageError(f"The log of {self.tp} in {self.dir.parent} is offline: {exc}") from exc
        self._log_end_offset = last_offset + 1

    def _maybe_roll(self, size: int, last_offset: int, max_timestamp: int) -> LogSegment:
        """Roll a new segment at the LEO when the active one is full (bytes, time, indexes, offsets).

        Kafka's ``LogSegment.shouldRoll``; ``max_timestamp`` (ms, of the batches about to be
        appended) is what ``segment.ms`` is measured with, and on a compacted log
        ``max.compaction.lag.ms`` when smaller (``LogConfig.max_segment_ms``).
        """
        segment = self._segments[-1]
        if segment.size == 0:
            return segment
        reason = None
        max_segment_ms = self.config.max_segment_ms
        if segment.size + size > self.config.segment_bytes:
            reason = f"size {segment.size} + {size} bytes > segment.bytes {self.config.segment_bytes}"
        elif (
            segment.time_waited_for_roll(self._now_ms(), max_timestamp)
            > max_segment_ms - segment.roll_jitter_ms
        ):
            name = "segment.ms" if max_segment_ms == self.config.segment_ms else "max.compaction.lag.ms"
            reason = f"{name} {max_segment_ms} reached (jitter {segment.roll_jitter_ms} ms)"
        elif segment.index.is_full:
            reason = f"offset index full ({segment.index.entries} entries)"
        elif segment.time_index.is_full:
            reason = f"time index full ({segment.time_index.entries} entries)"
        elif last_offset - segment.base_offset > INT32_MAX:
            reason = "relative offset overflow"
        if reason is None:
            return segment
        return self.roll(reason)

    def roll(self, reason: str = "requested") -> LogSegment:
        """Start a new active segment at the log end offset, then call ``on_roll`` with its base
        offset (the owner's producer state snapshot, Kafka's ``UnifiedLog.roll``).

        Returns:
            The new active segment (the current one if it is empty at the LEO already).
        """
        active = self._segments[-1]
        if active.base_offset == self._log_end_offset:
            return active
        active.on_become_inactive_segment()
        segment = new_segment(self.dir, self._log_end_offset, self.config, created_ms=self._now_ms())
        self._segments.append(segment)
        self._bases.append(segment.base_offset)
        self._dir_dirty = True
        logger.info("%s Rolled new log segment at offset %d (%s)", self.prefix, segment.base_offset, reason)
        if self.on_roll is not None:
            self.on_roll(segment.base_offset)
        return segment

    # -------------------------------------------------------------------- reads
    def read(
        self, start_offset: int, max_bytes: int, max_offset_exclusive: int | None, min_one_message: bool
    ) -> FetchDataInfo:
        """Read whole batches starting with the batch that contains ``start_offset``.

        Cost: a bisect over segment base offsets, an index binary search and a scan of
        at most ``index.interval.bytes`` of headers, then one pread and a CRC32C check
        of the batches returned, so that no replica or consumer is served a corrupt batch.

        Args:
            start_offset: fetch offset (the caller checked it against the log start offset).
            max_bytes: size limit in bytes (whole batches only).
            max_offset_exclusive: do not return batches whose base offset is >= this; None =
                up to the LEO.
            min_one_message: return the first batch even if larger than ``max_bytes``.

        Returns:
            FetchDataInfo; empty records at the LEO or at ``max_offset_exclusive``.

        Raises:
            OffsetOutOfRangeError: ``start_offset`` is above the log end offset.
            KafkaStorageError: the log is offline, or this read found a corrupt batch (which
                takes it offline).
        """
        self.check_online()
        if start_offset > self._log_end_offset:
            raise OffsetOutOfRangeError(
                f"offset {start_offset} is out of range for {self.tp}: log end offset {self._log_end_offset}"
            )
        if start_offset == self._log_end_offset or (
            max_offset_exclusive is not None and start_offset >= max_offset_exclusive
        ):
            return FetchDataInfo(b"", start_offset)
        for segment in self._segments[self.segment_index(start_offset) :]:
            if segment.next_offset() <= start_offset or segment.size == 0:
                continue  # start_offset lies past this segment's last batch (or compaction emptied it)
            data = self._read_checked(segment, start_offset, max_bytes, max_offset_exclusive, min_one_message)
            if data:
                return FetchDataInfo(data, BASE_OFFSET.unpack_from(data, 0)[0])
            break
        return FetchDataInfo(b"", start_offset)

    def _read_checked(
        self,
        segment: LogSegment,
        start_offset: int,
        max_bytes: int,
        max_offset_exclusive: int | None,
        min_one_message: bool,
    ) -> bytes:
        """``segment.read``, taking the log offline on a corrupt batch."""
        data = b""
        try:
            data = segment.read(start_offset, max_bytes, max_offset_exclusive, min_one_message)
            invalid = first_invalid_batch(data)
            if invalid is not None:  # a bad CRC, magic or length in the bytes read
                found = segment.translate_offset(start_offset)
                where = f"position {found[0] + invalid[0]}" if found else "an unknown position"
                self.mark_offline(
                    f"corrupt batch in {segment.log_path} at {where} (reading offset "
                    f"{start_offset}): {invalid[1]}"
                )
            elif not data and min_one_message and start_offset < segment.next_offset():
                found = segment.translate_offset(start_offset)
                if found is not None and (
                    max_offset_exclusive is None or found[1].base_offset < max_offset_exclusive
                ):
                    # The first batch always fits unless its length is corrupt.
                    self.mark_offline(
                        f"corrupt batch in {segment.log_path} at position {found[0]} (reading offset "
                        f"{start_offset}): invalid batch header: {found[1].size_in_bytes} bytes run past the "
                        f"end of the file ({segment.size} bytes)"
                    )
        except ValueError as exc:  # a bad header met by the index scan; the message gives file and position
            self.mark_offline(
                f"corrupt batch header in {segment.log_path} (reading offset {start_offset}): {exc}"
            )
        self.check_online()
        return data

    # --------------------------------------------------------------- truncation
    def truncate_to(self, target_offset: int) -> bool:
        """Drop every batch at or after ``target_offset``; a batch straddling it goes whole.

        Segments starting at or after the target are deleted; the LEO becomes the end of
        the last kept batch (<= target) and the recovery point follows it down.  The caller
        checked that the target is above the first segment's base offset.

        Returns:
            True when anything was removed.
        """
        if target_offset >= self._log_end_offset:
            return False
        self._truncations += 1
        while self._segments[-1].base_offset >= target_offset:
            self._segments.pop().delete()
            self._bases.pop()
        self._segments[-1].truncate_to(target_offset)
        self._log_end_offset = self._segments[-1].next_offset()
        self._recovery_point = min(self._recovery_point, self._log_end_offset)
        return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Delete every segment and start one empty segment at ``offset`` (LEO = recovery point = offset)."""
        self._truncations += 1
        for segment in self._segments:
            segment.delete()
        self._segments = [new_segment(self.dir, offset, self.config, created_ms=self._now_ms())]
        self._bases = [offset]
        self._dir_dirty = True
        self._log_end_offset = self._recovery_point = offset

    # ------------------------------------------------------------------ flushing
    def _segments_to_flush(self, up_to: int) -> list[LogSegment]:
        first = self.segment_index(self._recovery_point)
        return [segment for segment in self._segments[first:] if segment.base_offset < up_to]

    async def flush(self, up_to: int) -> None:
        """fsync every segment holding offsets in ``[recovery_point, up_to)`` (and the directory
        when segments came or went) in the default executor, then advance the recovery point.

        A truncation while the fsync runs leaves the recovery point where it is.

        Raises:
            OSError: an fsync failed (the recovery point does not move).
            CancelledError: the fsync may still complete; the recovery point does not move.
        """
        target = min(up_to, self._log_end_offset)
        if target <= self._recovery_point:
            return
        fds: list[int] = []
        for segment in self._segments_to_flush(target):
            fds.extend(segment.dup_fds())
        sync_dir = self._dir_dirty
        self._dir_dirty = False
        truncations = self._truncations
        await asyncio.get_running_loop().run_in_executor(
            None, _fsync_and_close, fds, self.dir if sync_dir else None
        )
        self._last_flush_ms = self._now_ms()
        if truncations == self._truncations:
            self._recovery_point = max(self._recovery_point, min(target, self._log_end_offset))

    def flush_sync(self) -> None:
        """fsync everything up to the LEO now (blocking; for shutdown) and advance the recovery point."""
        for segment in self._segments_to_flush(self._log_end_offset):
            segment.flush()
        if self._dir_dirty:
            fsync_dir(self.dir)
            self._dir_dirty = False
        self._recovery_point = self._log_end_offset
        self._last_flush_ms = self._now_ms()

    # ------------------------------------------------------------ segment removal
    def remove_leading_segments(self, count: int, reason: str) -> list[Path]:
        """Remove the first ``count`` segments (never the active one) from the log; close them and
        rename every file of theirs ``<name>.deleted`` (Kafka's ``LocalLog.deleteSegmentFiles``).

        Args:
            count: segments to remove, oldest first (0 does nothing).
            reason: why, for the INFO log line.

        Returns:
            The ``.deleted`` paths, for the caller to unlink after ``file.delete.delay.ms``.

        Raises:
            ValueError: ``count`` would remove the active segment.
            OSError: a rename failed (segments before it are already removed).
        """
        if count <= 0:
            return []
        if count >= len(self._segments):
            raise ValueError(f"{self.prefix} cannot remove the active segment")
        deleted, self._segments = self._segments[:count], self._segments[count:]
        self._bases = self._bases[count:]
        self._dir_dirty = True
        logger.info(
            "%s Deleting segments %s due to %s", self.prefix, [s.base_offset for s in deleted], reason
        )
        renamed: list[Path] = []
        for segment in deleted:
            renamed += _rename_to_deleted(segment)
        return renamed

    def replace_segments(
        self, old: list[LogSegment], cleaned: list[tuple[int, Path, Path]], expected_truncations: int
    ) -> list[Path]:
        """Swap cleaned segments in for ``old`` atomically on the event loop (log cleaner).

        Kafka's ``LocalLog.replaceSegments``: every ``<base>.{index,log}.cleaned`` is renamed
        to ``.swap`` (the index first: a ``.log.swap`` commits its group; a ``.txnindex.cleaned``
        of ABORT markers the cleaned segment keeps after it), every file of the
        old segments to ``.deleted``, then every ``.swap`` into place, and the in-memory
        segment list is spliced.  A crash anywhere in between is completed or undone by
        ``log_loader.load_segments``.  The renames rely on in-order metadata journaling
        (ext4, xfs); the caller fsyncs the directory and deletes the returned files.

        Args:
            old: contiguous non-active segments of this log, oldest first.
            cleaned: ``(base_offset, cleaned .log path, cleaned .index path)`` per new
                segment, oldest first; the first base offset equals ``old[0]``'s.
            expected_truncations: ``truncation_count`` when the cleaner took its snapshot.

        Returns:
            The renamed ``.deleted`` files of the old segments (to delete).

        Raises:
            ValueError: the log changed since the snapshot (truncated, or ``old`` is no longer
                a contiguous run of non-active segments); nothing was renamed.
        """
        if expected_truncations != self._truncations or not old or not cleaned:
            raise ValueError(f"{self.prefix} log changed while it was cleaned")
        try:
            first = next(i for i, s in enumerate(self._segments) if s is old[0])
        except StopIteration:
            raise ValueError(f"{self.prefix} segment {old[0].base_offset} is gone") from None
        if (
            self._segments[first : first + len(old)] != old
            or first + len(old) >= len(self._segments)
            or cleaned[0][0] != old[0].base_offset
        ):
            raise ValueError(f"{self.prefix} segments changed while they were cleaned")
        swaps: list[list[Path]] = []
        for base, log_path, index_path in cleaned:
            txn_index_path = log_path.with_name(segment_file_name(base, TXN_INDEX_SUFFIX + CLEANED_SUFFIX))
            paths = [index_path, log_path] + ([txn_index_path] if txn_index_path.exists() else [])
            group = []
            for path in paths:
                swap = path.with_name(path.name.removesuffix(CLEANED_SUFFIX) + SWAP_SUFFIX)
                os.replace(path, swap)
                group.append(swap)
            swaps.append(group)
        retired: list[Path] = []
        for segment in old:
            retired += _rename_to_deleted(segment)
        new_segments = []
        for (base, _, _), group in zip(cleaned, swaps, strict=True):
            for swap in group:
                os.replace(swap, swap.with_name(swap.name.removesuffix(SWAP_SUFFIX)))
            new_segments.append(new_segment(self.dir, base, self.config))
        self._segments[first : first + len(old)] = new_segments
        self._bases = [segment.base_offset for segment in self._segments]
        self._dir_dirty = True
        logger.info(
            "%s Replaced %d segments from offset %d with %d cleaned segments",
            self.prefix,
            len(old),
            old[0].base_offset,
            len(new_segments),
        )
        return retired

    # ----------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Close every segment's files (does not flush)."""
        for segment in self._segments:
            segment.close()

    def delete(self) -> None:
        """Close and remove the whole partition directory (blocking)."""
        self.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        logger.info("%s Deleted log", self.prefix)


def _rename_to_deleted(segment: LogSegment) -> list[Path]:
    """Close ``segment`` and rename every file of its base name to ``<name>.deleted``."""
    segment.close()
    renamed = []
    for path in segment_files(segment.dir, segment.base_offset):
        target = path.with_name(path.name + DELETED_SUFFIX)
        os.replace(path, target)
        renamed.append(target)
    return renamed


def _fsync_and_close(fds: list[int], dir: Path | None) -> None:
    """fsync and close duplicated descriptors, then the directory (executor side)."""
    try:
        for fd in fds:
            os.fsync(fd)
        if dir is not None:
            fsync_dir(dir)
    finally:
        for fd in fds:
            os.close(fd)
