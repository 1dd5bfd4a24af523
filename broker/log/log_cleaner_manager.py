"""Which compacted log to clean next, and how far each log has been cleaned.

Owns the cleaner checkpoints (``cleaner-offset-checkpoint`` in each log dir: the first
dirty offset of every compacted log), the snapshot of a log's segments taken on the
event loop, the cleanable range of a log (first dirty offset .. first uncleanable
offset) and its dirty ratio, the deadline ``max.compaction.lag.ms`` puts on a log's
oldest dirty record (KIP-354), the choice of the dirtiest log, and the set of logs
that failed to clean.  Does not read record data or rewrite segments
(``kafkette.broker.log.log_cleaner``).

Kafka concept: ``LogCleanerManager`` (``grabFilthiestCompactedLog``,
``cleanableOffsets``, ``maxCompactionDelay``, ``LogToClean``, ``updateCheckpoints``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from kafkette.broker.log.checkpoint import CorruptCheckpointError, OffsetCheckpointFile
from kafkette.broker.log.log_segment import LogSegment
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.config_def import LONG_MAX
from kafkette.protocol.record_batch import HEADER_SIZE, read_header
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

CLEANER_CHECKPOINT_FILE = "cleaner-offset-checkpoint"
_HEADER_SCAN_CHUNK_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class SegmentSnapshot:
    """An immutable view of one non-active segment, taken on the event loop.

    Attributes:
        segment: the LogSegment object (identity is checked again before the swap).
        base_offset: first offset the segment may hold.
        next_offset: offset after its last batch (``base_offset`` when empty).
        size: bytes of its ``.log`` file.
        log_path: its ``.log`` file (read by path in the executor).
        largest_timestamp: max batch timestamp in ms when the segment tracks it, else
            None (computed by a header scan when ``min.compaction.lag.ms`` needs it).
    """

    segment: LogSegment
    base_offset: int
    next_offset: int
    size: int
    log_path: Path
    largest_timestamp: int | None

    @classmethod
    def of(cls, segment: LogSegment) -> SegmentSnapshot:
        """Snapshot ``segment`` (event loop)."""
        largest = getattr(segment, "largest_timestamp", None)
        return cls(
            segment,
            segment.base_offset,
            segment.next_offset(),
            segment.size,
            segment.log_path,
            largest if isinstance(largest, int) else None,
        )


@dataclass(slots=True)
class LogToClean:
    """A compacted log and its cleanable range (Kafka's ``LogToClean``).

    Attributes:
        tp: the partition.
        log: its UnifiedLog.
        segments: every segment before the active one and below ``upper_bound_offset``,
            oldest first.
        first_dirty_offset: first offset not yet cleaned (checkpoint, or the log start).
        first_uncleanable_offset: first offset that may not be cleaned yet (active
            segment, high watermark, ``min.compaction.lag.ms``); set by ``compute_range``.
        upper_bound_offset: min(active segment base offset, high watermark, first unstable
            offset: the first offset of an open transaction, Kafka's ``firstUnstableOffset``).
        truncations: the log's truncation count at snapshot time (a change aborts).
        clean_bytes: bytes of segments wholly below the first dirty offset.
        cleanable_bytes: bytes of segments in [first dirty, first uncleanable).
        min_cleanable_ratio: the log's ``min.cleanable.dirty.ratio``.
        min_compaction_lag_ms: the log's ``min.compaction.lag.ms``.
        max_compaction_lag_ms: the log's ``max.compaction.lag.ms``.
        max_compaction_delay_ms: how long past ``max.compaction.lag.ms`` the oldest dirty
            record is (ms, 0 when none is); set by ``compute_range``.
        aborted_transactions: the aborted transactions overlapping ``[log start, upper bound)``
            (from the ``.txnindex`` files, taken on the event loop).
        last_data_offsets: producer id -> last offset of its last data batch (Kafka's
            ``lastDataOffset``): that batch is kept, emptied if need be, for the producer state.
    """

    tp: TopicPartition
    log: UnifiedLog
    segments: list[SegmentSnapshot]
    first_dirty_offset: int
    upper_bound_offset: int
    truncations: int
    first_uncleanable_offset: int = -1
    clean_bytes: int = 0
    cleanable_bytes: int = 0
    min_cleanable_ratio: float = field(default=0.5)
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    max_compaction_delay_ms: int = 0
    aborted_transactions: list[AbortedTxn] = field(default_factory=list)
    last_data_offsets: dict[int, int] = field(default_factory=dict)

    @property
    def needs_compaction_now(self) -> bool:
        """True when a dirty record is older than ``max.compaction.lag.ms``: the log is cleaned
        whatever its dirty ratio (Kafka's ``LogToClean.needCompactionNow``)."""
        return self.max_compaction_delay_ms > 0

    @property
    def cleanable_ratio(self) -> float:
        """``cleanable_bytes / (clean_bytes + cleanable_bytes)`` (0.0 for an empty range)."""
        total = self.clean_bytes + self.cleanable_bytes
        return self.cleanable_bytes / total if total else 0.0

    def compute_range(self, now_ms: int) -> None:
        """Set the first uncleanable offset and the byte counts (blocking: may scan headers).

        The first uncleanable offset is the smallest of the upper bound and the base
        offset of the first dirty segment holding a record younger than
        ``min.compaction.lag.ms`` (by batch max timestamp, ms since the epoch).  The max
        compaction delay is ``now - max.compaction.lag.ms`` minus the earliest first-batch
        timestamp of the dirty segments, when positive (Kafka's ``maxCompactionDelay``;
        batches without a timestamp do not count).

        Args:
            now_ms: wall-clock time in ms.
        """
        uncleanable = self.upper_bound_offset
        if self.min_compaction_lag_ms > 0:
            for snapshot in self.segments:
                if snapshot.next_offset <= self.first_dirty_offset or snapshot.base_offset >= uncleanable:
                    continue
                largest = snapshot.largest_timestamp
                if largest is None:
                    largest = scan_largest_timestamp(snapshot.log_path, snapshot.size)
                if largest > now_ms - self.min_compaction_lag_ms:
                    uncleanable = max(self.first_dirty_offset, snapshot.base_offset)
                    break
        self.first_uncleanable_offset = uncleanable
        self.max_compaction_delay_ms = self._max_compaction_delay(now_ms)
        self.clean_bytes = sum(s.size for s in self.segments if s.next_offset <= self.first_dirty_offset)
        self.cleanable_bytes = sum(
            s.size
            for s in self.segments
            if s.next_offset > self.first_dirty_offset and s.base_offset < uncleanable
        )

    def _max_compaction_delay(self, now_ms: int) -> int:
        """How long past ``max.compaction.lag.ms`` the earliest first batch of the dirty
        segments is (ms, 0 when not late; blocking: reads one header per dirty segment)."""
        clean_until_ms = now_ms - max(self.max_compaction_lag_ms, 0)
        if clean_until_ms <= 0:  # the default (Long.MAX_VALUE): no record is ever late
            return 0
        earliest = LONG_MAX
        for snapshot in self.segments:
            if snapshot.next_offset <= self.first_dirty_offset:
                continue
            first = read_first_batch_timestamp(snapshot.log_path, snapshot.size)
            if first > 0:
                earliest = min(earliest, first)
        return clean_until_ms - earliest if earliest < clean_until_ms else 0


def read_first_batch_timestamp(log_path: Path, size: int) -> int:
    """Max timestamp (ms) of the first batch of a segment file (blocking: one read of a header).

    Kafka's ``LogSegment.getFirstBatchTimestamp`` (the segment's ``rollingBasedTimestamp``).

    Args:
        log_path: the segment's ``.log`` file.
        size: bytes of its batches (a preallocated file is longer).

    Returns:
        The timestamp, or -1 for an empty or unreadable file.
    """
    if size < HEADER_SIZE:
        return -1
    try:
        with open(log_path, "rb") as fh:
            return read_header(fh.read(HEADER_SIZE)).max_timestamp
    except (OSError, ValueError):
        return -1


def scan_largest_timestamp(log_path: Path, size: int) -> int:
    """Largest batch ``max_timestamp`` (ms) of a segment file, by a header scan (blocking).

    Returns:
        The timestamp, or -1 for an empty or unreadable file.
    """
    largest = -1
    try:
        with open(log_path, "rb") as fh:
            position = 0
            while size - position >= HEADER_SIZE:
                fh.seek(position)
                header = read_header(fh.read(HEADER_SIZE))
                if header.size_in_bytes < HEADER_SIZE:
                    break
                largest = max(largest, header.max_timestamp)
                position += header.size_in_bytes
    except (OSError, ValueError):
        return largest
    return largest


class LogCleanerManager:
    """Tracks cleaner checkpoints per partition and picks the dirtiest compacted log.

    Checkpoints live in ``<log dir>/cleaner-offset-checkpoint`` (the
    ``OffsetCheckpointFile`` format, written atomically).  A log whose cleaning failed
    is marked uncleanable and skipped until the broker restarts (Kafka's
    ``uncleanablePartitions``).  Used from the event loop except ``write_checkpoint``.

    Args:
        log_dirs: the broker's log dirs.
    """

    def __init__(self, log_dirs: list[Path]) -> None:
        self.log_dirs = [Path(d) for d in log_dirs]
        self._checkpoints: dict[TopicPartition, int] = {}
        self._truncations_at_checkpoint: dict[TopicPartition, int] = {}
        self.uncleanable: set[TopicPartition] = set()

    def load_checkpoints(self) -> None:
        """Read every log dir's cleaner checkpoint (blocking; a corrupt file is logged and ignored)."""
        for log_dir in self.log_dirs:
            try:
                self._checkpoints.update(OffsetCheckpointFile(log_dir / CLEANER_CHECKPOINT_FILE).read())
            except CorruptCheckpointError as exc:
                logger.warning("[LogCleanerManager] %s; cleaning those logs from their start", exc)

    def checkpoint(self, tp: TopicPartition) -> int | None:
        """The first dirty offset recorded for ``tp``, or None."""
        return self._checkpoints.get(tp)

    def snapshot(self, tp: TopicPartition, log: UnifiedLog, high_watermark: int | None) -> LogToClean | None:
        """Take a LogToClean snapshot of ``log`` on the event loop (None when nothing can be cleaned).

        A checkpoint outside [log start offset, log end offset], or taken before the log
        was last truncated, is reset to the log start offset (the whole log is cleaned
        again), as Kafka truncates the checkpoint with the log.

        Args:
            tp: the partition.
            log: its UnifiedLog (must be compacted).
            high_watermark: the partition's high watermark, None when unknown (the active
                segment then bounds cleaning alone).
        """
        checkpoint = self._checkpoints.get(tp)
        if self._truncations_at_checkpoint.get(tp, log.truncation_count) != log.truncation_count:
            checkpoint = None
        first_dirty = log.log_start_offset
        if checkpoint is not None and log.log_start_offset <= checkpoint <= log.log_end_offset:
            first_dirty = checkpoint
        upper = log.active_segment.base_offset
        if high_watermark is not None:
            upper = min(upper, high_watermark)
        first_unstable = log.producer_state_manager.first_unstable_offset()
        if first_unstable is not None:  # an open transaction's records are never cleaned
            upper = min(upper, first_unstable)
        if first_dirty >= upper:
            return None
        segments = [SegmentSnapshot.of(s) for s in log.segments[:-1] if s.base_offset < upper]
        if not segments:
            return None
        return LogToClean(
            tp,
            log,
            segments,
            first_dirty,
            upper,
            log.truncation_count,
            min_cleanable_ratio=log.config.min_cleanable_dirty_ratio,
            min_compaction_lag_ms=log.config.min_compaction_lag_ms,
            max_compaction_lag_ms=log.config.max_compaction_lag_ms,
            aborted_transactions=log.collect_aborted_transactions(log.log_start_offset, upper),
            last_data_offsets={
                producer_id: entry.batches[-1].last_offset
                for producer_id, entry in log.producer_state_manager.entries.items()
                if entry.batches
            },
        )

    @staticmethod
    def grab_filthiest(candidates: list[LogToClean], now_ms: int) -> LogToClean | None:
        """Compute each candidate's range and return the one with the highest dirty ratio among
        those at or above their ``min.cleanable.dirty.ratio`` or past their
        ``max.compaction.lag.ms`` deadline with bytes to clean (blocking: may scan headers).

        Args:
            candidates: snapshots from ``snapshot``.
            now_ms: wall-clock time in ms.

        Returns:
            The dirtiest cleanable log, or None.
        """
        best: LogToClean | None = None
        for candidate in candidates:
            candidate.compute_range(now_ms)
            if (
                candidate.cleanable_bytes <= 0
                or candidate.first_uncleanable_offset <= candidate.first_dirty_offset
            ):
                continue
            if (
                candidate.cleanable_ratio < candidate.min_cleanable_ratio
                and not candidate.needs_compaction_now
            ):
                continue
            if best is None or candidate.cleanable_ratio > best.cleanable_ratio:
                best = candidate
        return best

    def update_checkpoint(self, tp: TopicPartition, offset: int, truncations: int) -> None:
        """Record ``offset`` as the first dirty offset of ``tp`` (memory only; see write_checkpoints).

        Args:
            tp: the partition.
            offset: the next first dirty offset.
            truncations: the log's ``truncation_count`` the cleaning was based on.
        """
        self._checkpoints[tp] = offset
        self._truncations_at_checkpoint[tp] = truncations

    def write_checkpoints(self, logs: dict[TopicPartition, UnifiedLog]) -> None:
        """Rewrite every log dir's cleaner checkpoint with the partitions it holds (blocking).

        Partitions without a log here are dropped from the checkpoints.

        Raises:
            OSError: a file could not be written.
        """
        self._checkpoints = {tp: off for tp, off in self._checkpoints.items() if tp in logs}
        for log_dir in self.log_dirs:
            offsets = {tp: off for tp, off in self._checkpoints.items() if logs[tp].dir.parent == log_dir}
            OffsetCheckpointFile(log_dir / CLEANER_CHECKPOINT_FILE).write(offsets)
