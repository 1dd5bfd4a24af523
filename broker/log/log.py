"""One partition's log: an ordered list of segments with a log end offset.

Owns the partition directory, segment loading and crash recovery, leader and follower
appends (offset assignment, size checks, rolling by size, time and full indexes), reads
for fetches, lookups by timestamp (ListOffsets), truncation, the fsync / recovery point
bookkeeping, the log start offset and which segments retention deletes (renamed
``*.deleted``; those rules and the cleaner's segment swap live in ``segment_removal``,
part of ``Log``).  Does not own the high watermark, the ISR or when to flush, check
retention or unlink deleted files (``LogManager`` schedules those; ``Partition`` owns the
HW and passes it with ``update_high_watermark``).

Kafka concept: ``UnifiedLog`` / ``LocalLog`` / ``LogLoader``.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kafkette.broker.log.abstract_index import INT32_MAX
from kafkette.broker.log.checkpoint import CorruptCheckpointError, fsync_dir
from kafkette.broker.log.leader_epoch_cache import (
    LEADER_EPOCH_CHECKPOINT_FILE,
    EpochEntry,
    LeaderEpochCheckpointFile,
    LeaderEpochFileCache,
)
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_loader import load_segments, new_segment
from kafkette.broker.log.log_segment import (
    LogSegment,
    TimestampAndOffset,
    max_timestamp_and_offset,
    monotonic_ms,
)
from kafkette.broker.log.log_validator import validate_and_convert
from kafkette.broker.log.segment_removal import SegmentRemoval
from kafkette.protocol.apis.list_offsets import MAX_TIMESTAMP
from kafkette.protocol.errors import KafkaStorageError, MessageTooLargeError, OffsetOutOfRangeError
from kafkette.protocol.record_batch import (
    BASE_OFFSET,
    assign_offsets,
    first_invalid_batch,
    iter_batches,
    validate_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class UnexpectedAppendOffsetError(ValueError):
    """A follower append does not start at the log end offset (the follower must truncate)."""

    def __init__(self, message: str, first_offset: int, log_end_offset: int) -> None:
        super().__init__(message)
        self.first_offset = first_offset
        self.log_end_offset = log_end_offset


@dataclass(frozen=True, slots=True)
class LogAppendInfo:
    """What an append wrote.

    Attributes:
        first_offset: offset of the first record appended.
        last_offset: offset of the last record appended.
        num_records: records appended (sum of batch record counts).
        valid_bytes: bytes appended.
        max_timestamp: largest batch max timestamp (ms).
        log_append_time_ms: -1 (CreateTime) unless the broker stamped LogAppendTime.
    """

    first_offset: int
    last_offset: int
    num_records: int
    valid_bytes: int
    max_timestamp: int
    log_append_time_ms: int = -1


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """The result of a read: whole batches, and the base offset of the first one.

    ``first_batch_offset`` may be below the requested offset (the batch containing it);
    with no records it equals the requested offset.
    """

    records: bytes
    first_batch_offset: int


class Log(SegmentRemoval):
    """The replicated log of one partition, stored as segments in one directory.

    On-disk layout::

        <log.dirs entry>/<topic>-<partition>/
            00000000000000000000.log     batches back to back (protocol.record_batch format)
            00000000000000000000.index   sparse offset index (OffsetIndex)
            00000000000000000000.timeindex  sparse time index (TimeIndex)
            00000000000000012345.log     next segment: base offset 12345
            00000000000000012345.index
            leader-epoch-checkpoint      LeaderEpochFileCache entries (LeaderEpochCheckpointFile)

    Segments are sorted by base offset; only the last (active) one is appended to.
    Offsets increase through the log; each segment starts at the log end offset of the
    moment it was rolled.  A compacted log has gaps between batches (the log cleaner
    removes records but never changes offsets, see ``replace_segments``).  Stray
    ``.tmp``/``.cleaned``/``.deleted`` files are removed on open and ``.swap`` files
    complete an interrupted segment swap.  Segments deleted by retention leave the list
    at once and their files are renamed ``<name>.deleted`` until the LogManager unlinks
    them (``file.delete.delay.ms``).

    Invariants: ``log_start_offset <= high_watermark <= log_end_offset`` (the HW as last
    given by the Partition); retention never deletes the active segment nor a segment
    holding offsets at or above the HW; ``recovery_point <=
    log_end_offset`` and every offset below it is fsynced; there is always at least one
    segment.  The log is used from the event loop only; blocking fsyncs run in the
    default executor on duplicated file descriptors.

    Each segment also has a ``.timeindex`` (``TimeIndex``).  The active segment rolls
    when the append would pass ``segment.bytes``, when the appended batches' max
    timestamp is ``segment.ms`` (less the segment's jitter) past its first batch's
    (Kafka's ``timeWaitedForRoll``), when either index is full, or when offsets would
    overflow the segment's int32 relative offsets.

    Args:
        time_ms: clock for ``segment.ms`` when batches carry no timestamp (ms; default
            monotonic).

    Leader epochs: ``leader_epoch_cache`` gets ``(epoch, LEO)`` when a leader appends in
    a new epoch and the epochs of a follower's appended batches; it is truncated with
    the log.  Its checkpoint is written (in the executor) before a flush advances the
    recovery point, so the file covers every fsynced batch; ``open`` rebuilds it from
    batch headers when it is missing or corrupt and re-learns the epochs of batches
    past the recovery point.

    Offline: corruption found by the loader (not a torn tail) or by a read (a batch
    failing its header checks or CRC32C) takes the log offline: appends and reads
    raise KafkaStorageError (KAFKA_STORAGE_ERROR on the wire), the recovery point stops
    moving, and the files are left untouched for an operator.  Kafka concept: an
    offline log dir (``LogDirFailureChannel``), per partition here.
    """

    def __init__(self, dir: Path, tp: TopicPartition, config: LogConfig, segments: list[LogSegment], *,
                 time_ms: Callable[[], int] = monotonic_ms) -> None:
        self.dir = Path(dir)
        self.tp = tp
        self.config = config
        self._time_ms = time_ms
        self._segments = segments
        self._bases = [segment.base_offset for segment in segments]
        self._log_end_offset = segments[-1].next_offset()
        self._log_start_offset = segments[0].base_offset
        self._recovery_point = self._log_end_offset
        self._high_watermark = self._log_start_offset
        self._truncations = 0
        self._dir_dirty = False
        self._prefix = f"[Log partition={tp}, dir={self.dir.parent}]"
        self.leader_epoch_cache = LeaderEpochFileCache()
        self._epoch_checkpoint = LeaderEpochCheckpointFile(self.dir / LEADER_EPOCH_CHECKPOINT_FILE)
        self._epoch_checkpoint_version = 0
        self._epoch_checkpoint_lock = asyncio.Lock()
        self.offline_reason: str | None = None
        self.on_offline: Callable[[TopicPartition], None] | None = None  # LogDirFailureChannel, set by LogManager

    # ------------------------------------------------------------------ loading
    @classmethod
    def open(
        cls,
        dir: Path,
        tp: TopicPartition,
        config: LogConfig,
        *,
        recovery_point: int = 0,
        log_start_offset: int = 0,
        had_clean_shutdown: bool,
        time_ms: Callable[[], int] = monotonic_ms,
    ) -> Log:
        """Open (or create) the log in partition directory ``dir`` (blocking: use an executor).

        Loads every segment, deletes stray files, rebuilds missing or corrupt indexes,
        and after an unclean shutdown recovers every segment from the one holding
        ``recovery_point``: the first torn or corrupt batch ends the log (the file is
        truncated there, later segments are deleted, a WARNING gives the bytes dropped).

        Args:
            dir: the partition directory ``<log dir>/<topic>-<partition>``; created if missing.
            tp: the partition.
            config: its log config.
            recovery_point: offset below which data is known to be fsynced (checkpoint).
            log_start_offset: checkpointed log start offset.
            had_clean_shutdown: True when the clean-shutdown marker was present.
            time_ms: the log's clock (ms) for ``segment.ms`` without timestamps; default monotonic.

        Returns:
            The opened log.
        """
        dir = Path(dir)
        dir.mkdir(parents=True, exist_ok=True)
        loaded = load_segments(
            dir, tp, config,
            recovery_point=recovery_point, log_start_offset=log_start_offset, had_clean_shutdown=had_clean_shutdown,
            now_ms=time_ms(),
        )
        segments = loaded.segments
        log = cls(dir, tp, config, segments, time_ms=time_ms)
        leo = log._log_end_offset
        log._recovery_point = leo if had_clean_shutdown else min(max(recovery_point, segments[0].base_offset), leo)
        log._log_start_offset = max(log_start_offset, segments[0].base_offset)
        if loaded.offline_reason is not None:
            log._recovery_point = recovery_point  # unchanged: the next start-up scans the same range
            log.offline_reason = loaded.offline_reason
            return log
        log._load_leader_epoch_cache(had_clean_shutdown)
        if log._log_start_offset > leo:
            logger.warning(
                "%s Log start offset %d is past the log end offset %d; starting an empty log there",
                log._prefix, log._log_start_offset, leo,
            )
            log.truncate_fully_and_start_at(log._log_start_offset)
        logger.info(
            "%s Loaded log with %d segments, log start offset %d, log end offset %d, recovery point %d",
            log._prefix, len(log._segments), log._log_start_offset, log._log_end_offset, log._recovery_point,
        )
        return log

    def _load_leader_epoch_cache(self, had_clean_shutdown: bool) -> None:
        """Blocking: read the checkpoint, else rebuild from every batch header; fold in the
        epochs of batches past the recovery point; drop entries outside the log."""
        try:
            entries = self._epoch_checkpoint.read()
        except CorruptCheckpointError as exc:
            logger.warning("%s %s; rebuilding it from the batch headers", self._prefix, exc)
            entries = None
        first_scanned = 0
        if entries is not None:
            self.leader_epoch_cache = LeaderEpochFileCache(entries)
            self._epoch_checkpoint_version = self.leader_epoch_cache.version
            first_scanned = len(self._segments) if had_clean_shutdown else self._segment_index(self._recovery_point)
        cache = self.leader_epoch_cache
        cache.truncate_from_end(self._log_end_offset)
        for segment in self._segments[first_scanned:]:
            for _, header in segment.iter_headers():
                cache.assign(header.partition_leader_epoch, header.base_offset)
        cache.truncate_from_start(self._log_start_offset)
        if cache.version != self._epoch_checkpoint_version:  # a new empty log writes nothing (no fsync here)
            self._epoch_checkpoint.write(cache.entries)
            self._epoch_checkpoint_version = cache.version

    def _segment_index(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self._bases, offset) - 1)

    # --------------------------------------------------------------- properties
    @property
    def log_end_offset(self) -> int:
        """Offset the next appended record will get (LEO)."""
        return self._log_end_offset

    @property
    def log_start_offset(self) -> int:
        """First offset readable from this log."""
        return self._log_start_offset

    @property
    def high_watermark(self) -> int:
        """The high watermark as last set by the owning Partition (``update_high_watermark``).

        Retention never deletes a segment holding offsets at or above it.
        """
        return self._high_watermark

    def update_high_watermark(self, high_watermark: int) -> int:
        """Record the partition's high watermark, clamped to [log start offset, log end offset].

        Kafka concept: ``UnifiedLog.updateHighWatermark``.

        Args:
            high_watermark: the partition's high watermark (offset).

        Returns:
            The value stored.
        """
        self._high_watermark = min(max(high_watermark, self._log_start_offset), self._log_end_offset)
        return self._high_watermark

    @property
    def recovery_point(self) -> int:
        """Offset below which every record is fsynced."""
        return self._recovery_point

    @property
    def size_in_bytes(self) -> int:
        """Total size of the segments' ``.log`` files in bytes."""
        return sum(segment.size for segment in self._segments)

    @property
    def segments(self) -> list[LogSegment]:
        """The segments, oldest first (a copy of the list)."""
        return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        """The last segment, the one appended to."""
        return self._segments[-1]

    @property
    def truncation_count(self) -> int:
        """Times the log was truncated since it was opened (the cleaner aborts a swap when it moved)."""
        return self._truncations

    @property
    def unflushed_messages(self) -> int:
        """Offsets appended since the recovery point (log end offset - recovery point)."""
        return self._log_end_offset - self._recovery_point

    @property
    def flush_needed(self) -> bool:
        """True when ``unflushed_messages >= flush.messages``."""
        return self.unflushed_messages >= self.config.flush_messages

    @property
    def is_offline(self) -> bool:
        """True when corruption took this log offline (see ``offline_reason``)."""
        return self.offline_reason is not None

    def mark_offline(self, reason: str) -> None:
        """Take the log offline: appends and reads raise KafkaStorageError from now on.

        Logged at ERROR once; the files are left as they are.

        Args:
            reason: what is wrong, with the file and position.
        """
        if self.offline_reason is None:
            self.offline_reason = reason
            logger.error("%s Taking the log offline: %s", self._prefix, reason)
            if self.on_offline is not None:
                self.on_offline(self.tp)

    def _check_online(self) -> None:
        if self.offline_reason is not None:
            raise KafkaStorageError(f"The log of {self.tp} in {self.dir.parent} is offline: {self.offline_reason}")

    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        """Record that ``leader_epoch`` starts at ``start_offset`` (a new leader, at its LEO).

        The checkpoint is written by the next ``checkpoint_leader_epochs`` or flush.
        """
        self.leader_epoch_cache.assign(leader_epoch, start_offset)

    def update_config(self, config: LogConfig) -> None:
        """Replace the topic config (segment size, flush policy, ...) for future appends."""
        self.config = config

    # ------------------------------------------------------------------ appends
    def append_as_leader(
        self, records: bytearray | bytes | memoryview, leader_epoch: int, *, now_ms: int | None = None
    ) -> LogAppendInfo:
        """Validate, convert (LogValidator), assign offsets from the LEO and the leader epoch
        (in place), and append.

        Batches are recompressed to the topic's ``compression.type`` unless it is
        ``producer``, and stamped with ``now_ms`` under ``message.timestamp.type=LogAppendTime``
        (see ``kafkette.broker.log.log_validator``); ``max.message.bytes`` applies to the result.

        Args:
            records: one or more batches from a Produce request.  A bytearray gets its
                offsets and epoch written in place (no copy); other types are copied first.
            leader_epoch: the leader's current epoch.
            now_ms: the broker's wall clock in ms for LogAppendTime (default: now).

        Returns:
            The LogAppendInfo (offsets of the first and last records, ``log_append_time_ms``, ...).

        Raises:
            CorruptRecordError: malformed batches, a CRC mismatch, or a payload that does
                not decompress when it must be recompressed.
            UnsupportedCompressionTypeError: a batch names an unknown codec id.
            MessageTooLargeError: a batch (after recompression) is larger than ``max.message.bytes``.
            KafkaStorageError: the log is offline.
        """
        self._check_online()
        if not isinstance(records, bytearray):
            records = bytearray(records)
        validated = validate_and_convert(
            records, validate_batches(records),
            compression_type=self.config.compression_type, timestamp_type=self.config.message_timestamp_type,
            now_ms=int(time.time() * 1000) if now_ms is None else now_ms,
        )
        records, positions = validated.records, validated.positions
        num_records = 0
        max_timestamp = -1
        for _, header in positions:
            if header.size_in_bytes > self.config.max_message_bytes:
                raise MessageTooLargeError(
                    f"batch of {header.size_in_bytes} bytes is larger than max.message.bytes "
                    f"{self.config.max_message_bytes} of {self.tp}"
                )
            num_records += header.records_count
            max_timestamp = max(max_timestamp, header.max_timestamp)
        first_offset = self._log_end_offset
        next_offset = assign_offsets(records, positions, first_offset, leader_epoch)
        self._append(records, next_offset - 1)
        if leader_epoch > self.leader_epoch_cache.latest_epoch:
            self.leader_epoch_cache.assign(leader_epoch, first_offset)
        return LogAppendInfo(
            first_offset, next_offset - 1, num_records, len(records), max_timestamp, validated.log_append_time_ms
        )

    def append_as_follower(self, records: bytes | bytearray | memoryview) -> LogAppendInfo | None:
        """Append batches copied from the leader (offsets and epochs already set).

        Batches entirely below the LEO are skipped; a trailing partial batch is ignored.
        The first kept batch may start above the LEO: a compacted leader log has gaps
        between batches (Kafka only rejects a batch starting below the LEO).

        Args:
            records: batches from a Fetch response.

        Returns:
            The LogAppendInfo, or None when nothing was appended.

        Raises:
            CorruptRecordError: bad magic, length or CRC.
            UnexpectedAppendOffsetError: the first kept batch starts below the LEO, or
                offsets go backwards.
            KafkaStorageError: the log is offline.
        """
        self._check_online()
        view = memoryview(records)
        start = end = -1
        first_offset = expected = self._log_end_offset
        num_records = 0
        max_timestamp = -1
        epochs: list[tuple[int, int]] = []
        for position, header in iter_batches(view, verify_crc=True):
            if start < 0:
                if header.last_offset < self._log_end_offset:
                    continue
                if header.base_offset < self._log_end_offset:
                    raise UnexpectedAppendOffsetError(
                        f"{self._prefix} follower append starts at offset {header.base_offset}, "
                        f"expected the log end offset {self._log_end_offset}",
                        header.base_offset, self._log_end_offset,
                    )
                start = position
                first_offset = header.base_offset
            elif header.base_offset < expected:
                raise UnexpectedAppendOffsetError(
                    f"{self._prefix} out of order offsets in follower append: {header.base_offset} after {expected}",
                    header.base_offset, self._log_end_offset,
                )
            expected = header.next_offset
            if header.partition_leader_epoch > (epochs[-1][0] if epochs else self.leader_epoch_cache.latest_epoch):
                epochs.append((header.partition_leader_epoch, header.base_offset))
            end = position + header.size_in_bytes
            num_records += header.records_count
            max_timestamp = max(max_timestamp, header.max_timestamp)
        if start < 0:
            return None
        self._append(view[start:end], expected - 1)
        for epoch, epoch_start in epochs:
            self.leader_epoch_cache.assign(epoch, epoch_start)
        return LogAppendInfo(first_offset, expected - 1, num_records, end - start, max_timestamp)

    def _append(self, records: bytes | bytearray | memoryview, last_offset: int) -> None:
        max_timestamp = max_timestamp_and_offset(records)
        segment = self._maybe_roll(len(records), last_offset, max_timestamp[0])
        segment.append(records, last_offset, max_timestamp)
        self._log_end_offset = last_offset + 1

    def _maybe_roll(self, size: int, last_offset: int, max_timestamp: int = -1) -> LogSegment:
        """Roll a new segment at the LEO when the active one is full (bytes, time, indexes, offsets).

        Kafka's ``LogSegment.shouldRoll``; ``max_timestamp`` (ms, of the batches about to be
        appended) is what ``segment.ms`` is measured with.
        """
        segment = self._segments[-1]
        if segment.size == 0:
            return segment
        reason = None
        if segment.size + size > self.config.segment_bytes:
            reason = f"size {segment.size} + {size} bytes > segment.bytes {self.config.segment_bytes}"
        elif segment.time_waited_for_roll(self._time_ms(), max_timestamp) > (
            self.config.segment_ms - segment.roll_jitter_ms
        ):
            reason = f"segment.ms {self.config.segment_ms} reached (jitter {segment.roll_jitter_ms} ms)"
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
        """Start a new active segment at the log end offset.

        Returns:
            The new active segment (the current one if it is empty at the LEO already).
        """
        active = self._segments[-1]
        if active.base_offset == self._log_end_offset:
            return active
        active.on_become_inactive_segment()
        segment = new_segment(self.dir, self._log_end_offset, self.config, created_ms=self._time_ms())
        self._segments.append(segment)
        self._bases.append(segment.base_offset)
        self._dir_dirty = True
        logger.info("%s Rolled new log segment at offset %d (%s)", self._prefix, segment.base_offset, reason)
        return segment

    # -------------------------------------------------------------------- reads
    def read(
        self,
        start_offset: int,
        max_bytes: int,
        max_offset_exclusive: int | None = None,
        min_one_message: bool = True,
    ) -> FetchDataInfo:
        """Read whole batches starting with the batch that contains ``start_offset``.

        Cost: a bisect over segment base offsets, an index binary search and a scan of
        at most ``index.interval.bytes`` of headers, then one pread and a CRC32C check
        of the batches returned (hardware accelerated), so that no replica or consumer
        is ever served a corrupt batch.

        Args:
            start_offset: fetch offset.
            max_bytes: size limit in bytes (whole batches only).
            max_offset_exclusive: do not return batches whose base offset is >= this
                (the high watermark for consumers); None = up to the LEO.
            min_one_message: return the first batch even if larger than ``max_bytes``.

        Returns:
            FetchDataInfo; empty records at the LEO or at ``max_offset_exclusive``.

        Raises:
            OffsetOutOfRangeError: ``start_offset`` is below the log start offset or above
                the log end offset.
            KafkaStorageError: the log is offline, or this read found a corrupt batch
                (which takes it offline).
        """
        self._check_online()
        if start_offset < self._log_start_offset or start_offset > self._log_end_offset:
            raise OffsetOutOfRangeError(
                f"offset {start_offset} is out of range for {self.tp}: log start offset "
                f"{self._log_start_offset}, log end offset {self._log_end_offset}"
            )
        if start_offset == self._log_end_offset or (
            max_offset_exclusive is not None and start_offset >= max_offset_exclusive
        ):
            return FetchDataInfo(b"", start_offset)
        index = max(0, bisect.bisect_right(self._bases, start_offset) - 1)
        for segment in self._segments[index:]:
            if segment.next_offset() <= start_offset or segment.size == 0:
                continue  # start_offset lies past this segment's last batch (or compaction emptied it)
            try:
                data = segment.read(start_offset, max_bytes, max_offset_exclusive, min_one_message)
                invalid = first_invalid_batch(data)
                if invalid is not None:  # a bad CRC, magic or length in the bytes read
                    found = segment.translate_offset(start_offset)
                    where = f"position {found[0] + invalid[0]}" if found else "an unknown position"
                    self.mark_offline(f"corrupt batch in {segment.log_path} at {where} (reading offset "
                                      f"{start_offset}): {invalid[1]}")
                    self._check_online()
                if not data and min_one_message and start_offset < segment.next_offset():
                    found = segment.translate_offset(start_offset)
                    if found is not None and (max_offset_exclusive is None
                                              or found[1].base_offset < max_offset_exclusive):
                        # The first batch always fits unless its length is corrupt.
                        self.mark_offline(
                            f"corrupt batch in {segment.log_path} at position {found[0]} (reading offset "
                            f"{start_offset}): invalid batch header: {found[1].size_in_bytes} bytes run past the "
                            f"end of the file ({segment.size} bytes)")
                        self._check_online()
            except ValueError as exc:  # a bad header met by the index scan; the message gives file and position
                self.mark_offline(f"corrupt batch header in {segment.log_path} (reading offset {start_offset}): {exc}")
                self._check_online()
            if data:
                return FetchDataInfo(data, BASE_OFFSET.unpack_from(data, 0)[0])
            break
        return FetchDataInfo(b"", start_offset)

    def fetch_offset_by_timestamp(self, timestamp_ms: int) -> TimestampAndOffset | None:
        """Find a record by timestamp for ListOffsets (Kafka's ``UnifiedLog.fetchOffsetByTimestamp``).

        Args:
            timestamp_ms: a timestamp >= 0 (ms): the first record at or after the log start
                offset whose timestamp is >= it, searched from the first segment whose
                ``largest_timestamp`` reaches it (time index, offset index, one batch
                decoded); or ``MAX_TIMESTAMP`` (-3): the first record carrying the largest
                timestamp of the log.

        Returns:
            The record's timestamp, offset and batch leader epoch; None when no record
            qualifies (Kafka then answers offset -1, timestamp -1).

        Raises:
            ValueError: another negative ``timestamp_ms`` (earliest and latest are not
                timestamps: the caller answers them from the offsets).
            CorruptRecordError: a batch's records cannot be decoded.
        """
        if timestamp_ms == MAX_TIMESTAMP:
            best = None
            for segment in self._segments:
                if best is None or segment.max_timestamp_so_far > best.max_timestamp_so_far:
                    best = segment
            return best.read_max_timestamp_and_offset() if best is not None else None
        if timestamp_ms < 0:
            raise ValueError(f"cannot look up {self.tp} by timestamp {timestamp_ms}")
        for segment in self._segments:
            if segment.next_offset() <= self._log_start_offset or segment.largest_timestamp < timestamp_ms:
                continue
            found = segment.find_offset_by_timestamp(timestamp_ms, self._log_start_offset)
            if found is not None:
                return found
        return None

    # --------------------------------------------------------------- truncation
    def truncate_to(self, target_offset: int) -> bool:
        """Drop every batch at or after ``target_offset`` (follower truncation).

        A batch straddling the target is dropped whole, so the LEO becomes the end of the
        last kept batch (<= target).  Segments starting at or after the target are deleted.
        An offline log is left as it is (False).

        Returns:
            True when anything was removed.

        Raises:
            ValueError: negative target.
        """
        if target_offset < 0:
            raise ValueError(f"cannot truncate {self.tp} to negative offset {target_offset}")
        if self.offline_reason is not None:
            logger.warning("%s Not truncating the offline log to offset %d", self._prefix, target_offset)
            return False
        if target_offset >= self._log_end_offset:
            return False
        logger.info("%s Truncating to offset %d (log end offset %d)", self._prefix, target_offset, self._log_end_offset)
        if target_offset <= self._segments[0].base_offset:
            self.truncate_fully_and_start_at(target_offset)
            return True
        self._truncations += 1
        while self._segments[-1].base_offset >= target_offset:
            self._segments.pop().delete()
            self._bases.pop()
        self._segments[-1].truncate_to(target_offset)
        self._log_end_offset = self._segments[-1].next_offset()
        self.leader_epoch_cache.truncate_from_end(self._log_end_offset)
        self._recovery_point = min(self._recovery_point, self._log_end_offset)
        self._log_start_offset = min(self._log_start_offset, self._log_end_offset)
        self._high_watermark = min(self._high_watermark, self._log_end_offset)
        return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Delete every segment and start an empty log at ``offset`` (LEO = start = offset).

        An offline log is left as it is.

        Raises:
            ValueError: negative offset.
        """
        if offset < 0:
            raise ValueError(f"cannot start {self.tp} at negative offset {offset}")
        if self.offline_reason is not None:
            logger.warning("%s Not truncating the offline log fully (to start at %d)", self._prefix, offset)
            return
        logger.info("%s Truncating fully and starting at offset %d", self._prefix, offset)
        self._truncations += 1
        for segment in self._segments:
            segment.delete()
        self._segments = [new_segment(self.dir, offset, self.config, created_ms=self._time_ms())]
        self._bases = [offset]
        self._dir_dirty = True
        self._log_end_offset = self._log_start_offset = self._recovery_point = self._high_watermark = offset
        self.leader_epoch_cache.clear()

    # ------------------------------------------------------------------ flushing
    def _segments_to_flush(self, up_to: int) -> list[LogSegment]:
        first = max(0, bisect.bisect_right(self._bases, self._recovery_point) - 1)
        return [segment for segment in self._segments[first:] if segment.base_offset < up_to]

    async def flush(self, up_to: int | None = None) -> None:
        """fsync every segment holding offsets in ``[recovery_point, up_to)`` in the default
        executor, then advance the recovery point to ``up_to``.

        Args:
            up_to: exclusive offset to flush up to; None = the current log end offset.

        The leader epoch checkpoint is written first when it changed, so that it covers
        every batch below the recovery point.  An offline log is not flushed.

        Raises:
            OSError: an fsync failed (the recovery point does not move).
            CancelledError: the fsync may still complete; the recovery point does not move.
        """
        if self.offline_reason is not None:
            return
        await self.checkpoint_leader_epochs()
        target = self._log_end_offset if up_to is None else min(up_to, self._log_end_offset)
        if target <= self._recovery_point:
            return
        fds: list[int] = []
        for segment in self._segments_to_flush(target):
            fds.extend(segment.dup_fds())
        sync_dir = self._dir_dirty
        self._dir_dirty = False
        truncations = self._truncations
        await asyncio.get_running_loop().run_in_executor(None, _fsync_and_close, fds, self.dir if sync_dir else None)
        if truncations == self._truncations:
            self._recovery_point = max(self._recovery_point, min(target, self._log_end_offset))

    @property
    def leader_epoch_checkpoint_dirty(self) -> bool:
        """True when the leader epoch cache changed since its checkpoint was last written."""
        return self.leader_epoch_cache.version != self._epoch_checkpoint_version

    async def checkpoint_leader_epochs(self) -> None:
        """Write ``leader-epoch-checkpoint`` atomically in the default executor if the cache changed.

        Raises:
            OSError: the write failed (the next call retries).
        """
        async with self._epoch_checkpoint_lock:  # one writer at a time: they share the temp file
            if not self.leader_epoch_checkpoint_dirty or self.offline_reason is not None:
                return
            version, entries = self.leader_epoch_cache.version, self.leader_epoch_cache.entries
            await asyncio.get_running_loop().run_in_executor(None, self._write_epoch_checkpoint, version, entries)

    def _write_epoch_checkpoint(self, version: int, entries: list[EpochEntry]) -> None:
        self._epoch_checkpoint.write(entries)
        self._epoch_checkpoint_version = version

    def flush_sync(self) -> None:
        """fsync everything up to the LEO now (blocking; for shutdown) and advance the recovery
        point; writes the leader epoch checkpoint first when it changed.  No-op when offline."""
        if self.offline_reason is not None:
            return
        if self.leader_epoch_checkpoint_dirty:
            self._write_epoch_checkpoint(self.leader_epoch_cache.version, self.leader_epoch_cache.entries)
        for segment in self._segments_to_flush(self._log_end_offset):
            segment.flush()
        if self._dir_dirty:
            fsync_dir(self.dir)
            self._dir_dirty = False
        self._recovery_point = self._log_end_offset

    # ----------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Close every segment's files (does not flush)."""
        for segment in self._segments:
            segment.close()

    def delete(self) -> None:
        """Close and remove the whole partition directory (blocking)."""
        self.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        logger.info("%s Deleted log", self._prefix)

    def __repr__(self) -> str:
        return (
            f"Log(tp={self.tp}, dir={self.dir}, log_start_offset={self._log_start_offset}, "
            f"log_end_offset={self._log_end_offset}, segments={len(self._segments)})"
        )


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
