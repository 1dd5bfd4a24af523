"""Log compaction: the cleaner task and the segment rewrite it runs in an executor.

Owns ``LogCleaner`` (one background task, owned by ``LogManager``: every
``log.cleaner.backoff.ms`` it cleans the dirtiest compacted log) and ``Cleaner`` (the
blocking work: build the key -> latest offset map from the dirty section, rewrite the
cleanable segments into ``.cleaned`` files keeping the latest record per key).  Does
not own the choice of log or the checkpoints (``log_cleaner_manager``), the swap of
segments in the log (``UnifiedLog.replace_segments``) or the completion of an interrupted
swap at start-up (``log_loader``).

Rules (Kafka's ``Cleaner.shouldRetainRecord``): below the end of the offset map a
record is kept when its key's latest offset is its own (or the key is not in the map);
records without a key are dropped; a tombstone (value None) is kept until its batch's
delete horizon (KIP-534): the first pass keeping it writes now + ``delete.retention.ms``
into the batch (``DELETE_HORIZON_MASK``, the base timestamp), a pass after that time drops
it.  Transactions (``cleaner_batch_filter``, ``CleanedTransactionMetadata``): aborted batches go,
markers outlive their data and go after their own delete horizon.  Offsets never change: a
rewritten batch keeps its base offset, last offset delta, producer fields, codec and record
encoding (Kafkette's msgpack or Kafka's varint records), each kept record its offset delta
and its timestamp.  The cleaned ``.log`` file's mtime is the latest cleaning time of its
sources.

Kafka concept: ``LogCleaner`` / ``Cleaner`` (``core/.../log/LogCleaner.scala``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkette.broker.log.abstract_index import INT32_MAX
from kafkette.broker.log.checkpoint import fsync_dir
from kafkette.broker.log.cleaned_transaction_metadata import CleanedTransactionMetadata
from kafkette.broker.log.cleaner_batch_filter import CleanerBatchFilter
from kafkette.broker.log.log_cleaner_manager import (
    LogCleanerManager,
    LogToClean,
    SegmentSnapshot,
)
from kafkette.broker.log.log_loader import CLEANED_SUFFIX
from kafkette.broker.log.log_segment import INDEX_SUFFIX, LOG_SUFFIX, segment_file_name
from kafkette.broker.log.offset_index import OffsetIndex
from kafkette.broker.log.offset_map import OffsetMap
from kafkette.broker.log.transaction_index import TXN_INDEX_SUFFIX, AbortedTxn, TransactionIndex
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.protocol.control_record import read_end_txn_marker
from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    HEADER_SIZE,
    MAGIC,
    CorruptRecordError,
    compute_crc,
    decode_rows,
    read_header,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_READ_BUFFER_BYTES = 1 << 20
STOP_TIMEOUT_S = 30.0


class CleaningAbortedError(Exception):
    """The cleaning of a log was aborted (broker stopping, log deleted); its ``.cleaned`` files are
    removed."""


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------- batches
def iter_file_batches(path: Path, size: int) -> Any:
    """Yield ``(header, batch bytes)`` for each batch of the first ``size`` bytes of a segment file.

    Raises:
        CorruptRecordError: a header is invalid, a batch is torn, or a CRC does not match.
        OSError: the file cannot be read.
    """
    with open(path, "rb", buffering=_READ_BUFFER_BYTES) as fh:
        position = 0
        while size - position >= HEADER_SIZE:
            head = fh.read(HEADER_SIZE)
            header = read_header(head)
            length = header.size_in_bytes
            if (
                header.magic != MAGIC
                or length < HEADER_SIZE
                or position + length > size
                or header.records_count < 0  # 0: a producer's last batch emptied by compaction
            ):
                raise CorruptRecordError(f"invalid batch at position {position} of {path}")
            batch = head + fh.read(length - HEADER_SIZE)
            if len(batch) != length or compute_crc(batch, 0, length) != header.crc:
                raise CorruptRecordError(f"batch at offset {header.base_offset} of {path} fails its CRC")
            yield header, batch
            position += length


# ---------------------------------------------------------------------------- cleaner
@dataclass(frozen=True, slots=True)
class CleanedSegment:
    """One rewritten segment: ``<base>.log.cleaned``, ``<base>.index.cleaned`` and, when it keeps an
    ABORT marker for data it still holds, ``<base>.txnindex.cleaned`` (``txn_index_path``, else
    None), and the sources it replaces."""

    base_offset: int
    log_path: Path
    index_path: Path
    sources: tuple[SegmentSnapshot, ...]
    size: int
    txn_index_path: Path | None = None

    @property
    def paths(self) -> list[Path]:
        """Its files."""
        return [self.log_path, self.index_path] + ([self.txn_index_path] if self.txn_index_path else [])


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What one cleaning produced.

    Attributes:
        end_offset: first offset not covered by the offset map (the next first dirty offset).
        cleaned: the new segments, oldest first.
        records_read: records examined in the rewritten segments.
        records_kept: records written.
    """

    end_offset: int
    cleaned: list[CleanedSegment]
    records_read: int
    records_kept: int


class Cleaner:
    """Blocking compaction of one log's cleanable segments (runs in an executor).

    Args:
        offset_map_capacity: keys the offset map may hold (``log.cleaner.dedupe.buffer.size``).
        abort: set from the event loop to stop between batches.
    """

    def __init__(self, offset_map_capacity: int, abort: threading.Event) -> None:
        self.offset_map = OffsetMap(offset_map_capacity)
        self.abort = abort

    def _check_abort(self) -> None:
        if self.abort.is_set():
            raise CleaningAbortedError("cleaning aborted")

    def build_offset_map(
        self, segments: list[SegmentSnapshot], start: int, end: int, aborted: list[AbortedTxn] | None = None
    ) -> int:
        """Fill the offset map with the keys of records in ``[start, end)``, skipping control batches
        and the batches of the ``aborted`` transactions (Kafka's ``buildOffsetMapForSegment``).

        Returns:
            The first offset not in the map: ``end``, or the offset of the first record
            whose key did not fit the full map.
        """
        self.offset_map.clear()
        txns = CleanedTransactionMetadata(
            [txn for txn in aborted or () if txn.last_offset >= start and txn.first_offset < end]
        )
        for snapshot in segments:
            if snapshot.next_offset <= start or snapshot.base_offset >= end:
                continue
            for header, batch in iter_file_batches(snapshot.log_path, snapshot.size):
                self._check_abort()
                if header.last_offset < start or header.base_offset >= end:
                    continue
                if header.attributes & CONTROL_MASK:
                    txns.on_control_batch_read(header, read_end_txn_marker(batch, 0, header))
                    continue
                if txns.on_batch_read(header):
                    continue
                for row in decode_rows(batch, 0, header):
                    offset = header.base_offset + row[0]
                    if offset < start or offset >= end or row[2] is None:
                        continue
                    if not self.offset_map.can_put(row[2]):
                        return offset
                    self.offset_map.put(row[2], offset)
        return end

    def clean(self, to_clean: LogToClean, now_ms: int) -> CleanResult:
        """Build the offset map from the dirty section and write the cleaned segments.

        Every segment below the map's end is rewritten, grouped into segments of at most
        ``segment.bytes`` (by source size).  On failure or abort the ``.cleaned`` files
        written so far are removed.

        Args:
            to_clean: the log and its range (``compute_range`` done).
            now_ms: wall-clock time in ms (delete horizon; mtime of the cleaned files).

        Returns:
            The CleanResult.

        Raises:
            CleaningAbortedError: ``abort`` was set.
            CorruptRecordError: a batch in the range is invalid.
            OSError: a file could not be read or written.
        """
        end = self.build_offset_map(
            to_clean.segments,
            to_clean.first_dirty_offset,
            to_clean.first_uncleanable_offset,
            to_clean.aborted_transactions,
        )
        config = to_clean.log.config
        segments = [s for s in to_clean.segments if s.base_offset < end]
        cleaned_ms = {
            s.base_offset: now_ms if s.next_offset > to_clean.first_dirty_offset else _mtime_ms(s.log_path)
            for s in segments
        }
        written: list[CleanedSegment] = []
        counts = [0, 0]
        try:
            for group in group_segments_by_size(segments, config.segment_bytes):
                written.append(self._clean_group(to_clean, group, end, now_ms, cleaned_ms, counts))
        except BaseException:
            for cleaned in written:
                for path in cleaned.paths:
                    path.unlink(missing_ok=True)
            raise
        return CleanResult(end, written, counts[0], counts[1])

    def _clean_group(
        self,
        to_clean: LogToClean,
        group: list[SegmentSnapshot],
        end: int,
        now_ms: int,
        cleaned_ms_of: dict[int, int],
        counts: list[int],
    ) -> CleanedSegment:
        config = to_clean.log.config
        base = group[0].base_offset
        directory = group[0].log_path.parent
        log_path = directory / segment_file_name(base, LOG_SUFFIX + CLEANED_SUFFIX)
        index_path = directory / segment_file_name(base, INDEX_SUFFIX + CLEANED_SUFFIX)
        index_path.unlink(missing_ok=True)
        index = OffsetIndex(index_path, base, config.segment_index_bytes)
        txn_index_path = directory / segment_file_name(base, TXN_INDEX_SUFFIX + CLEANED_SUFFIX)
        txn_index_path.unlink(missing_ok=True)
        txn_index = TransactionIndex(base, txn_index_path)
        txns = CleanedTransactionMetadata(
            [t for t in to_clean.aborted_transactions if t.last_offset >= base and t.first_offset < end],
            txn_index,
        )
        batch_filter = CleanerBatchFilter(
            self.offset_map, txns, to_clean.last_data_offsets, end, now_ms, config.delete_retention_ms, counts
        )
        cleaned_ms = 0
        position = bytes_since_index_entry = 0
        try:
            with open(log_path, "wb") as out:
                for snapshot in group:
                    cleaned_ms = max(cleaned_ms, cleaned_ms_of[snapshot.base_offset])
                    for header, batch in iter_file_batches(snapshot.log_path, snapshot.size):
                        self._check_abort()
                        kept = batch_filter.filter(header, batch)
                        if kept is None:
                            continue
                        out.write(kept)
                        if bytes_since_index_entry >= config.index_interval_bytes and not index.is_full:
                            index.append(header.last_offset, position)
                            bytes_since_index_entry = 0
                        bytes_since_index_entry += len(kept)
                        position += len(kept)
                out.flush()
                os.fsync(out.fileno())
            index.flush()
            txn_index.flush()
        except BaseException:
            index.close()
            txn_index.close()
            for path in (log_path, index_path, txn_index_path):
                path.unlink(missing_ok=True)
            raise
        index.close()
        txn_index.close()
        stamp_ns = cleaned_ms * 1_000_000
        os.utime(log_path, ns=(stamp_ns, stamp_ns))
        return CleanedSegment(
            base,
            log_path,
            index_path,
            tuple(group),
            position,
            txn_index_path if txn_index_path.exists() else None,
        )


def group_segments_by_size(
    segments: list[SegmentSnapshot], max_size_bytes: int
) -> list[list[SegmentSnapshot]]:
    """Group consecutive segments whose total size fits ``max_size_bytes`` and whose offsets
    fit one segment (int32 relative offsets), as Kafka's ``groupSegmentsBySize``.

    Returns:
        Non-empty groups, in order, covering every segment once.
    """
    groups: list[list[SegmentSnapshot]] = []
    size = 0
    for snapshot in segments:
        if (
            groups
            and size + snapshot.size <= max_size_bytes
            and snapshot.next_offset - 1 - groups[-1][0].base_offset <= INT32_MAX
        ):
            groups[-1].append(snapshot)
            size += snapshot.size
        else:
            groups.append([snapshot])
            size = snapshot.size
    return groups


def _mtime_ms(path: Path) -> int:
    return os.stat(path).st_mtime_ns // 1_000_000


def _delete_files(paths: list[Path], directory: Path | None) -> None:
    """Executor side: fsync the directory (after a swap), then delete files."""
    if directory is not None:
        fsync_dir(directory)
    for path in paths:
        path.unlink(missing_ok=True)


# ------------------------------------------------------------------------- the task
class LogCleaner:
    """The background cleaner of compacted logs (one task; Kafka runs ``log.cleaner.threads``).

    Each round snapshots every compacted log on the event loop, picks the dirtiest one at
    or above its ``min.cleanable.dirty.ratio`` or past its ``max.compaction.lag.ms``
    in the executor (``LogCleanerManager.grab_filthiest``), cleans it in the executor
    (``Cleaner``), swaps the segments in on the event loop (``UnifiedLog.replace_segments``),
    then deletes the old files and writes the cleaner checkpoint in the executor.  When
    no log needs cleaning it sleeps ``log.cleaner.backoff.ms``.  A log whose cleaning
    fails is logged and skipped until restart; reads and appends continue throughout.

    Lifecycle: ``start()`` (loads checkpoints) -> ``stop()`` (cancels and awaits the task;
    an executor job in flight is aborted between batches and removes its files).

    Args:
        log_dirs: the broker's log dirs (checkpoint files).
        logs: returns the current ``{TopicPartition: UnifiedLog}``.
        backoff_ms: ``log.cleaner.backoff.ms``.
        offset_map_capacity: keys the offset map holds (from ``log.cleaner.dedupe.buffer.size``).
        high_watermark: returns a partition's high watermark (cleaning stays below it) or
            None when unknown.
        now_ms: wall clock in ms (batch timestamps, delete horizon); injected in tests.
    """

    def __init__(
        self,
        log_dirs: list[Path],
        logs: Callable[[], dict[TopicPartition, UnifiedLog]],
        *,
        backoff_ms: int,
        offset_map_capacity: int,
        high_watermark: Callable[[TopicPartition], int | None] | None = None,
        now_ms: Callable[[], int] = _wall_clock_ms,
    ) -> None:
        self.manager = LogCleanerManager(log_dirs)
        self._logs = logs
        self._backoff_ms = backoff_ms
        self._offset_map_capacity = offset_map_capacity
        self.high_watermark = high_watermark
        self._now_ms = now_ms
        self._task = ShutdownableTask("log-cleaner", log_prefix="[kafka-log-cleaner-thread-0]")
        self._abort = threading.Event()  # of the cleaning in flight; a new one per cleaning
        self._cleaning: TopicPartition | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._prefix = "[kafka-log-cleaner-thread-0]"

    async def start(self) -> None:
        """Load the cleaner checkpoints (executor) and start the cleaner task."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.manager.load_checkpoints)
        self._task.start(self._run)
        logger.info("%s Started (backoff %d ms)", self._prefix, self._backoff_ms)

    async def stop(self) -> None:
        """Abort the cleaning in flight, cancel the task and await it (at most 30 s)."""
        self._abort.set()
        await self._task.shutdown(STOP_TIMEOUT_S)

    async def abort_cleaning(self, tp: TopicPartition) -> None:
        """Abort a cleaning of ``tp`` in flight and wait (at most 30 s) until it has stopped
        and removed its files (Kafka's ``abortCleaning``, called before a log is deleted)."""
        if self._cleaning != tp:
            return
        self._abort.set()
        try:
            await asyncio.wait_for(self._idle.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            logger.warning("%s Cleaning of %s did not stop within %.0f s", self._prefix, tp, STOP_TIMEOUT_S)

    async def _run(self) -> None:
        while True:
            cleaned = False
            try:
                cleaned = await self.clean_once()
            except Exception:
                logger.exception("%s Cleaning round failed", self._prefix)
            if not cleaned:
                await asyncio.sleep(self._backoff_ms / 1000)

    async def clean_once(self) -> bool:
        """Clean the dirtiest compacted log, if one is at or above its ``min.cleanable.dirty.ratio``
        or holds a dirty record older than its ``max.compaction.lag.ms``.

        Returns:
            True when a log was cleaned.

        Raises:
            CancelledError: the in-flight executor job is told to abort.
        """
        candidates = []
        for tp, log in self._logs().items():
            if tp in self.manager.uncleanable or not log.config.is_compacted:
                continue
            high_watermark = self.high_watermark(tp) if self.high_watermark is not None else None
            snapshot = self.manager.snapshot(tp, log, high_watermark)
            if snapshot is not None:
                candidates.append(snapshot)
        if not candidates:
            return False
        loop = asyncio.get_running_loop()
        now_ms = self._now_ms()
        chosen = await loop.run_in_executor(None, LogCleanerManager.grab_filthiest, candidates, now_ms)
        if chosen is None:
            return False
        try:
            await self.clean(chosen, now_ms)
        except CleaningAbortedError:
            logger.info("%s Cleaning of %s was aborted", self._prefix, chosen.tp)
        except (CorruptRecordError, OSError) as exc:
            if self._logs().get(chosen.tp) is not chosen.log:
                logger.info(
                    "%s Cleaning of %s stopped: the log was removed (%s)", self._prefix, chosen.tp, exc
                )
            else:
                self.manager.uncleanable.add(chosen.tp)
                logger.error(
                    "%s Cleaning of %s failed; it will not be cleaned until restart: %s",
                    self._prefix,
                    chosen.tp,
                    exc,
                )
        return True

    async def clean(self, to_clean: LogToClean, now_ms: int) -> CleanResult | None:
        """Clean one log: rewrite in the executor, swap on the event loop, then tidy up.

        Args:
            to_clean: the log and its computed range.
            now_ms: wall-clock time in ms.

        Returns:
            The CleanResult, or None when the log changed meanwhile (cleaned files dropped).

        Raises:
            CleaningAbortedError: ``abort_cleaning`` or ``stop`` was called meanwhile.
            CorruptRecordError, OSError: from the rewrite.
            CancelledError: the executor job is told to abort.
        """
        loop = asyncio.get_running_loop()
        self._abort = threading.Event()
        self._cleaning = to_clean.tp
        self._idle.clear()
        try:
            return await self._clean(loop, to_clean, now_ms)
        except asyncio.CancelledError:
            self._abort.set()
            raise
        finally:
            self._cleaning = None
            self._idle.set()

    async def _clean(
        self, loop: asyncio.AbstractEventLoop, to_clean: LogToClean, now_ms: int
    ) -> CleanResult | None:
        cleaner = Cleaner(self._offset_map_capacity, self._abort)
        result = await loop.run_in_executor(None, cleaner.clean, to_clean, now_ms)
        log = to_clean.log
        files = [path for c in result.cleaned for path in c.paths]
        sources = [s.segment for c in result.cleaned for s in c.sources]
        if self._abort.is_set():
            await loop.run_in_executor(None, _delete_files, files, None)
            raise CleaningAbortedError(f"cleaning of {to_clean.tp} aborted")
        if self._logs().get(to_clean.tp) is not log:
            await loop.run_in_executor(None, _delete_files, files, None)
            return None
        try:
            retired = log.replace_segments(
                sources,
                [(c.base_offset, c.log_path, c.index_path) for c in result.cleaned],
                to_clean.truncations,
            )
        except ValueError as exc:
            logger.info("%s Dropping the cleaning of %s: %s", self._prefix, to_clean.tp, exc)
            await loop.run_in_executor(None, _delete_files, files, None)
            return None
        self.manager.update_checkpoint(to_clean.tp, result.end_offset, to_clean.truncations)
        await loop.run_in_executor(None, _delete_files, retired, log.dir)
        await loop.run_in_executor(None, self.manager.write_checkpoints, dict(self._logs()))
        before = sum(s.size for s in sources)
        after = sum(c.size for c in result.cleaned)
        deadline = ""
        if to_clean.needs_compaction_now:
            deadline = (
                f" (dirty ratio {to_clean.cleanable_ratio:.3f}, max.compaction.lag.ms "
                f"{to_clean.max_compaction_lag_ms} passed by {to_clean.max_compaction_delay_ms} ms)"
            )
        logger.info(
            "%s Cleaned %s offsets %d to %d: %d segments, %d -> %d bytes, %d of %d records kept%s",
            self._prefix,
            to_clean.tp,
            to_clean.segments[0].base_offset,
            result.end_offset,
            len(result.cleaned),
            before,
            after,
            result.records_kept,
            result.records_read,
            deadline,
        )
        return result
