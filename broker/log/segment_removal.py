"""Removing whole segments from a partition's log: retention (``retention.ms``,
``retention.bytes``), log start offset breaches (DeleteRecords, the leader's log start
offset on followers) and the log cleaner's swap of cleaned segments.

Owns the rules for which leading segments go and the renames (``.deleted``, ``.swap``).
Does not own scheduling the checks or unlinking ``.deleted`` files after
``file.delete.delay.ms`` (``LogManager``), nor cleaning itself (``LogCleaner``).
``SegmentRemoval`` is a part of ``Log`` (a mixin over its state), used from the event
loop only.

Kafka concept: ``UnifiedLog.deleteOldSegments`` / ``maybeIncrementLogStartOffset`` and
``LocalLog.replaceSegments`` / ``asyncDeleteSegment``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kafkette.broker.log.log_loader import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    SWAP_SUFFIX,
    new_segment,
    segment_files,
)
from kafkette.broker.log.log_segment import LogSegment
from kafkette.protocol.errors import OffsetOutOfRangeError

if TYPE_CHECKING:
    from kafkette.broker.log.log import Log

logger = logging.getLogger(__name__)


class SegmentRemoval:
    """Segment removal methods of ``Log`` (see the module docstring)."""

    def maybe_increment_log_start_offset(self: Log, new_log_start_offset: int, reason: str) -> bool:
        """Move the log start offset up to ``new_log_start_offset`` (never down).

        Offsets below it stop being readable at once; the segments wholly below it are
        deleted by the next retention pass (``delete_old_segments``).  The recovery point
        follows when it was lower.

        Kafka concept: ``UnifiedLog.maybeIncrementLogStartOffset`` (DeleteRecords on the
        leader, the leader's log start offset on followers).

        Args:
            new_log_start_offset: the wanted log start offset.
            reason: why, for the INFO log line (e.g. "client delete records").

        Returns:
            True when the log start offset moved.

        Raises:
            OffsetOutOfRangeError: ``new_log_start_offset`` is above the high watermark.
        """
        if new_log_start_offset > self._high_watermark:
            raise OffsetOutOfRangeError(
                f"Cannot increment the log start offset of {self.tp} to {new_log_start_offset}: it is above "
                f"the high watermark {self._high_watermark}"
            )
        if new_log_start_offset <= self._log_start_offset:
            return False
        logger.info("%s Incremented log start offset from %d to %d (%s)", self._prefix, self._log_start_offset,
                    new_log_start_offset, reason)
        self._log_start_offset = new_log_start_offset
        self._recovery_point = max(self._recovery_point, new_log_start_offset)
        self.leader_epoch_cache.truncate_from_start(new_log_start_offset)
        return True

    def delete_old_segments(self: Log, now_ms: int) -> list[Path]:
        """Delete the segments retention no longer keeps; return their renamed files.

        Deletes, oldest first and stopping at the first segment kept: segments wholly
        below the log start offset (any cleanup policy), and, when ``cleanup.policy``
        contains ``delete``, segments whose ``largest_timestamp`` is older than
        ``retention.ms`` and the oldest segments while the log is larger than
        ``retention.bytes`` (-1 disables either).  Never the active segment, and never a
        segment holding an offset at or above the high watermark.  Deleted segments are
        closed and their files (``.log``, ``.index``, any other file of the same base
        name) renamed with a ``.deleted`` suffix; the caller removes them after
        ``file.delete.delay.ms``.  The log start offset moves to the first kept segment.

        Kafka concept: ``UnifiedLog.deleteOldSegments`` (retentionMs, retentionSize and
        logStartOffset breaches) and ``LocalLog.asyncDeleteSegment``.

        Args:
            now_ms: wall-clock time in ms (compared with record timestamps).

        Returns:
            The ``.deleted`` paths to remove later (empty when nothing was deleted).

        Raises:
            OSError: a rename failed (segments before it are already removed).
        """
        renamed: list[Path] = []
        if "delete" in self.config.cleanup_policy.split(","):
            retention_ms = self.config.retention_ms
            if retention_ms >= 0:
                renamed += self._delete_segments(
                    lambda segment: now_ms - segment.largest_timestamp > retention_ms,
                    f"retention time {retention_ms}ms breach",
                )
            retention_bytes = self.config.retention_bytes
            if retention_bytes >= 0 and self.size_in_bytes > retention_bytes:
                excess = [self.size_in_bytes - retention_bytes]

                def over_size(segment: LogSegment) -> bool:
                    if excess[0] - segment.size < 0:
                        return False
                    excess[0] -= segment.size
                    return True

                renamed += self._delete_segments(over_size, f"retention size {retention_bytes} bytes breach")
        renamed += self._delete_segments(lambda _: True, f"log start offset {self._log_start_offset} breach",
                                         below_log_start_offset=True)
        return renamed

    def _delete_segments(self: Log, predicate: Callable[[LogSegment], bool], reason: str, *,
                         below_log_start_offset: bool = False) -> list[Path]:
        """Remove the leading non-active segments that end at or below the HW and match."""
        count = 0
        for segment, following in zip(self._segments, self._segments[1:], strict=False):
            if following.base_offset > self._high_watermark:
                break
            if below_log_start_offset and following.base_offset > self._log_start_offset:
                break
            if not predicate(segment):
                break
            count += 1
        if count == 0:
            return []
        deleted, self._segments = self._segments[:count], self._segments[count:]
        self._bases = self._bases[count:]
        self._dir_dirty = True
        new_start = self._segments[0].base_offset
        if new_start > self._log_start_offset:
            self._log_start_offset = new_start
            self._recovery_point = max(self._recovery_point, new_start)
            self.leader_epoch_cache.truncate_from_start(new_start)
        logger.info(
            "%s Deleting segments %s due to %s; log start offset is now %d",
            self._prefix, [s.base_offset for s in deleted], reason, self._log_start_offset,
        )
        renamed: list[Path] = []
        for segment in deleted:
            renamed += _rename_to_deleted(segment)
        return renamed

    def replace_segments(
        self: Log, old: list[LogSegment], cleaned: list[tuple[int, Path, Path]], expected_truncations: int
    ) -> list[Path]:
        """Swap cleaned segments in for ``old`` atomically on the event loop (log cleaner).

        Kafka's ``replaceSegments``: every ``<base>.{index,log}.cleaned`` is renamed to
        ``.swap`` (the index first: a ``.log.swap`` commits its group), every file of the
        old segments to ``.deleted``, then every ``.swap`` into place, and the in-memory
        segment list is spliced.  A crash anywhere in between is completed or undone
        by ``log_loader.load_segments``.  The renames rely on in-order metadata
        journaling (ext4, xfs); the caller fsyncs the directory and deletes the
        returned files in an executor.

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
            raise ValueError(f"{self._prefix} log changed while it was cleaned")
        try:
            first = next(i for i, s in enumerate(self._segments) if s is old[0])
        except StopIteration:
            raise ValueError(f"{self._prefix} segment {old[0].base_offset} is gone") from None
        if self._segments[first:first + len(old)] != old or first + len(old) >= len(self._segments) \
                or cleaned[0][0] != old[0].base_offset:
            raise ValueError(f"{self._prefix} segments changed while they were cleaned")
        swaps: list[tuple[Path, Path]] = []
        for _, log_path, index_path in cleaned:
            pair = []
            for path in (index_path, log_path):
                swap = path.with_name(path.name.removesuffix(CLEANED_SUFFIX) + SWAP_SUFFIX)
                os.replace(path, swap)
                pair.append(swap)
            swaps.append((pair[0], pair[1]))
        retired: list[Path] = []
        for segment in old:
            retired += _rename_to_deleted(segment)
        new_segments = []
        for (base, _, _), (index_swap, log_swap) in zip(cleaned, swaps, strict=True):
            for swap in (index_swap, log_swap):
                os.replace(swap, swap.with_name(swap.name.removesuffix(SWAP_SUFFIX)))
            new_segments.append(new_segment(self.dir, base, self.config))
        self._segments[first:first + len(old)] = new_segments
        self._bases = [segment.base_offset for segment in self._segments]
        self._dir_dirty = True
        logger.info(
            "%s Replaced %d segments from offset %d with %d cleaned segments",
            self._prefix, len(old), old[0].base_offset, len(new_segments),
        )
        return retired


def _rename_to_deleted(segment: LogSegment) -> list[Path]:
    """Close ``segment`` and rename every file of its base name to ``<name>.deleted``."""
    segment.close()
    renamed = []
    for path in segment_files(segment.dir, segment.base_offset):
        target = path.with_name(path.name + DELETED_SUFFIX)
        os.replace(path, target)
        renamed.append(target)
    return renamed
