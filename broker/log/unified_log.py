"""One partition's replicated log: offsets, leader epochs, producer state and the append.

Owns what the offsets mean: the log start offset, the high watermark as the Partition
last gave it, the leader epoch cache and its checkpoint file, the idempotent producers'
state, the whole leader append (``append_as_leader``: validation, producer state,
offsets, the write and the flush request, in that one place) and the follower append,
retention (which leading segments go) and the log's own flush task.  Holds one
``LocalLog`` for the segments and files.  Does not own when to check retention or
unlink deleted files (``LogManager`` schedules those), the ISR, or how the high
watermark moves (``Partition``).

Kafka concept: ``UnifiedLog`` (``append``, ``analyzeAndValidateRecords``,
``analyzeAndValidateProducerState``, ``deleteOldSegments``,
``maybeIncrementLogStartOffset``) over ``LocalLog``, loaded by ``LogLoader``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import NamedTuple

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.checkpoint import CorruptCheckpointError
from kafkette.broker.log.leader_epoch_cache import (
    LEADER_EPOCH_CHECKPOINT_FILE,
    EpochEntry,
    LeaderEpochCheckpointFile,
    LeaderEpochFileCache,
)
from kafkette.broker.log.local_log import FetchDataInfo, LocalLog
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_loader import load_segments
from kafkette.broker.log.log_segment import LogSegment, TimestampAndOffset
from kafkette.broker.log.log_validator import check_control_batch_origin, validate_messages_and_assign_offsets
from kafkette.broker.log.producer_state_manager import ProducerStateManager
from kafkette.broker.log.producer_state_snapshot import delete_snapshots
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.verification_guard import VerificationGuard
from kafkette.common.clock import SYSTEM_TIME, Time
from kafkette.protocol.apis.list_offsets import MAX_TIMESTAMP
from kafkette.protocol.control_record import (
    EndTransactionMarker,
    is_control_batch,
    is_transactional_batch,
    read_end_txn_marker,
)
from kafkette.protocol.errors import (
    DuplicateSequenceNumberError,
    InvalidTxnStateError,
    KafkaStorageError,
    OffsetOutOfRangeError,
)
from kafkette.protocol.record_batch import BatchHeader, iter_batches, validate_batches
from kafkette.protocol.topic_partition import TopicPartition

__all__ = ["MAX_TIMESTAMP", "FetchDataInfo", "LogAppendInfo", "UnexpectedAppendOffsetError", "UnifiedLog"]

logger = logging.getLogger(__name__)


class UnexpectedAppendOffsetError(ValueError):
    """A follower append does not start at the log end offset (the follower must truncate)."""

    def __init__(self, message: str, first_offset: int, log_end_offset: int) -> None:
        super().__init__(message)
        self.first_offset = first_offset
        self.log_end_offset = log_end_offset


class LogAppendInfo(NamedTuple):
    """What an append wrote.

    Attributes:
        first_offset: offset of the first record appended.
        last_offset: offset of the last record appended.
        num_records: records appended (sum of batch record counts).
        valid_bytes: bytes appended (0 for a retried batch answered with its original offsets).
        max_timestamp: largest batch max timestamp (ms).
        log_append_time_ms: -1 (CreateTime) unless the broker stamped LogAppendTime; for a retried
            batch, the original batch's max timestamp (as Kafka answers a duplicate).
    """

    first_offset: int
    last_offset: int
    num_records: int
    valid_bytes: int
    max_timestamp: int
    log_append_time_ms: int = -1


class UnifiedLog:
    """The replicated log of one partition (see the module docstring).

    On-disk layout::

        <log.dirs entry>/<topic>-<partition>/
            00000000000000000000.log     batches back to back (protocol.record_batch format)
            00000000000000000000.index   sparse offset index (OffsetIndex)
            00000000000000000000.timeindex  sparse time index (TimeIndex)
            00000000000000000000.txnindex   aborted transactions (TransactionIndex), when any
            00000000000000012345.log     next segment: base offset 12345
            leader-epoch-checkpoint      LeaderEpochFileCache entries (LeaderEpochCheckpointFile)
            00000000000000012400.snapshot  producer state at a clean close (producer_state_snapshot)

    Invariants: ``log_start_offset <= high_watermark <= log_end_offset``; retention never
    deletes the active segment nor a segment holding offsets at or above the HW.  A
    compacted log has gaps between batches (the cleaner removes records, never changes
    offsets).  Used from the event loop only.

    Leader epochs: the cache gets ``(epoch, LEO)`` when a leader appends in a new epoch
    and the epochs of a follower's appended batches, and is truncated with the log.  Its
    checkpoint is written (in the executor) before a flush advances the recovery point, so
    the file covers every fsynced batch; ``open`` rebuilds it from batch headers when it is
    missing or corrupt and re-learns the epochs of batches past the recovery point.

    Flushes: an append that leaves ``flush.messages`` unflushed offsets, or a new leader
    epoch, starts the log's one flush task (Kafka flushes inline in ``UnifiedLog.append``;
    here the fsync runs in the executor while the loop serves others).  ``LogManager``
    flushes on ``flush.ms`` and awaits the task through ``stop_flushing``.  A log used
    without a running event loop (tools, some tests) flushes only when asked.

    Offline: corruption found by the loader or by a read, or a failed write (a full disk),
    takes the log offline: appends
    and reads raise KafkaStorageError, the recovery point stops moving, the files are left
    for an operator (``LocalLog.mark_offline``).

    Args:
        local_log: the segments and files.
        log_start_offset: first readable offset.
        leader_epoch_cache: the epochs, loaded.
        epoch_checkpoint: the ``leader-epoch-checkpoint`` file.
        time: the log's clock: wall-clock ms for LogAppendTime and
            ``message.timestamp.before.max.ms``/``after.max.ms``, monotonic for segments and flushes.
    """

    def __init__(
        self,
        local_log: LocalLog,
        *,
        log_start_offset: int,
        leader_epoch_cache: LeaderEpochFileCache,
        epoch_checkpoint: LeaderEpochCheckpointFile,
        time: Time = SYSTEM_TIME,
    ) -> None:
        self.local_log = local_log
        self.time = time
        self._log_start_offset = log_start_offset
        self._high_watermark = log_start_offset
        self.leader_epoch_cache = leader_epoch_cache
        self._epoch_checkpoint = epoch_checkpoint
        self._epoch_checkpoint_version = leader_epoch_cache.version
        self._epoch_checkpoint_lock = asyncio.Lock()
        self.producer_state_manager = ProducerStateManager()
        local_log.on_roll = self._take_producer_snapshot
        self._flush_task: asyncio.Task[None] | None = None
        self._flushing_stopped = False

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
        time: Time = SYSTEM_TIME,
    ) -> UnifiedLog:
        """Open (or create) the log in partition directory ``dir`` (blocking: use an executor).

        Loads every segment (``log_loader.load_segments``: stray files, indexes, and after
        an unclean shutdown recovery of every segment from the one holding
        ``recovery_point``), then the leader epoch cache and the producer state from the
        log's tail.  A log found corrupt opens offline, its state left unloaded.

        Args:
            dir: the partition directory ``<log dir>/<topic>-<partition>``; created if missing.
            tp: the partition.
            config: its log config.
            recovery_point: offset below which data is known to be fsynced (checkpoint).
            log_start_offset: checkpointed log start offset.
            had_clean_shutdown: True when the clean-shutdown marker was present.
            time: the log's clock.

        Returns:
            The opened log.
        """
        dir = Path(dir)
        dir.mkdir(parents=True, exist_ok=True)
        loaded = load_segments(
            dir,
            tp,
            config,
            recovery_point=recovery_point,
            log_start_offset=log_start_offset,
            had_clean_shutdown=had_clean_shutdown,
            now_ms=int(time.monotonic_ms()),
        )
        segments = loaded.segments
        leo = segments[-1].next_offset()
        if loaded.offline_reason is None and had_clean_shutdown:
            recovery_point = (
                leo  # else kept as checkpointed: an offline log's next start-up rescans the same range
            )
        local = LocalLog(dir, tp, config, segments, recovery_point=recovery_point, time=time)
        log = cls(
            local,
            log_start_offset=max(log_start_offset, segments[0].base_offset),
            leader_epoch_cache=LeaderEpochFileCache(),
            epoch_checkpoint=LeaderEpochCheckpointFile(dir / LEADER_EPOCH_CHECKPOINT_FILE),
            time=time,
        )
        if loaded.offline_reason is not None:
            local.offline_reason = loaded.offline_reason
            return log
        log._load_leader_epoch_cache(had_clean_shutdown)
        if log._log_start_offset > leo:
            logger.warning(
                "%s Log start offset %d is past the log end offset %d; starting an empty log there",
                local.prefix,
                log._log_start_offset,
                leo,
            )
            log.truncate_fully_and_start_at(log._log_start_offset)
        bases = {segment.base_offset for segment in segments}
        # Kafka's removeStraySnapshots: a snapshot of a segment gone (merged by the cleaner), but the
        # last one past every segment's base (the clean close's, at the log end)
        delete_snapshots(dir, lambda offset: offset not in bases and offset < segments[-1].base_offset)
        try:
            log.producer_state_manager.rebuild(log)
        except ValueError as exc:
            log.mark_offline(f"corrupt batch header while loading producer state: {exc}")
            return log
        logger.info(
            "%s Loaded log with %d segments, log start offset %d, log end offset %d, recovery point %d",
            local.prefix,
            len(segments),
            log._log_start_offset,
            log.log_end_offset,
            log.recovery_point,
        )
        return log

    def _load_leader_epoch_cache(self, had_clean_shutdown: bool) -> None:
        """Blocking: read the checkpoint, else rebuild from every batch header; fold in the
        epochs of batches past the recovery point; drop entries outside the log."""
        try:
            entries = self._epoch_checkpoint.read()
        except CorruptCheckpointError as exc:
            logger.warning("%s %s; rebuilding it from the batch headers", self.local_log.prefix, exc)
            entries = None
        segments = self.local_log.segments
        first_scanned = 0
        if entries is not None:
            self.leader_epoch_cache = LeaderEpochFileCache(entries)
            self._epoch_checkpoint_version = self.leader_epoch_cache.version
            first_scanned = (
                len(segments) if had_clean_shutdown else self.local_log.segment_index(self.recovery_point)
            )
        cache = self.leader_epoch_cache
        cache.truncate_from_end(self.log_end_offset)
        for segment in segments[first_scanned:]:
            for _, header in segment.iter_headers():
                cache.assign(header.partition_leader_epoch, header.base_offset)
        cache.truncate_from_start(self._log_start_offset)
        if cache.version != self._epoch_checkpoint_version:  # a new empty log writes nothing (no fsync here)
            self._epoch_checkpoint.write(cache.entries)
            self._epoch_checkpoint_version = cache.version

    # --------------------------------------------------------------- properties
    @property
    def dir(self) -> Path:
        """The partition directory."""
        return self.local_log.dir

    @property
    def tp(self) -> TopicPartition:
        """The partition."""
        return self.local_log.tp

    @property
    def config(self) -> LogConfig:
        """The topic's log config."""
        return self.local_log.config

    def update_config(self, config: LogConfig) -> None:
        """Replace the topic config (segment size, flush policy, validation, ...) for future appends."""
        self.local_log.config = config

    @property
    def log_end_offset(self) -> int:
        """Offset the next appended record will get (LEO)."""
        return self.local_log.log_end_offset

    @property
    def log_start_offset(self) -> int:
        """First offset readable from this log."""
        return self._log_start_offset

    @property
    def high_watermark(self) -> int:
        """The high watermark as last set by the owning Partition (``update_high_watermark``)."""
        return self._high_watermark

    def update_high_watermark(self, high_watermark: int) -> int:
        """Record the partition's high watermark, clamped to [log start offset, log end offset].

        Kafka concept: ``UnifiedLog.updateHighWatermark``.

        Args:
            high_watermark: the partition's high watermark (offset).

        Returns:
            The value stored.
        """
        self._high_watermark = min(max(high_watermark, self._log_start_offset), self.log_end_offset)
        self.producer_state_manager.on_high_watermark_updated(self._high_watermark)
        return self._high_watermark

    @property
    def last_stable_offset(self) -> int:
        """The first unstable offset (smallest first offset of an open transaction, or of one whose
        marker the HW has not passed) when below the high watermark, else the high watermark, and
        never below the log start offset: a READ_COMMITTED consumer reads up to it.

        Kafka concept: ``UnifiedLog.lastStableOffset`` (KIP-98)."""
        first_unstable = self.producer_state_manager.first_unstable_offset()
        if first_unstable is not None and first_unstable < self._high_watermark:
            return max(first_unstable, self._log_start_offset)  # a transaction open below the start
        return self._high_watermark

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """The aborted transactions overlapping ``[start_offset, upper_bound_offset)``, from the
        ``.txnindex`` of the segments from the one holding ``start_offset`` on (a transaction is
        indexed in its marker's segment, which may follow the range), stopping at the first index
        whose search is complete.

        Kafka concept: ``UnifiedLog.collectAbortedTransactions``.

        Args:
            start_offset: the fetch offset.
            upper_bound_offset: exclusive end (the end of the data fetched, bounded by the LSO).

        Returns:
            The AbortedTxn entries, oldest marker first.
        """
        segments = self.local_log.segments
        found: list[AbortedTxn] = []
        for segment in segments[self.local_log.segment_index(start_offset) :]:
            result = segment.txn_index.collect_aborted_txns(start_offset, upper_bound_offset)
            found += result.aborted_transactions
            if result.is_complete:
                break
        return found

    def aborted_transactions_in(self, fetch_offset: int, records: bytes) -> list[AbortedTxn]:
        """The aborted transactions a READ_COMMITTED fetch from ``fetch_offset`` returning
        ``records`` must carry: those overlapping ``[fetch_offset, end of records)`` (Kafka's
        ``LocalLog.addAbortedTransactions``).

        Raises:
            CorruptRecordError: ``records`` holds a batch with a bad header.
        """
        upper_bound = fetch_offset
        for _, header in iter_batches(records):
            upper_bound = header.next_offset
        return self.collect_aborted_transactions(fetch_offset, upper_bound)

    @property
    def recovery_point(self) -> int:
        """Offset below which every record is fsynced."""
        return self.local_log.recovery_point

    @property
    def segments(self) -> list[LogSegment]:
        """The segments, oldest first (a copy of the list)."""
        return self.local_log.segments

    @property
    def active_segment(self) -> LogSegment:
        """The last segment, the one appended to."""
        return self.local_log.active_segment

    @property
    def size_in_bytes(self) -> int:
        """Total size of the segments' ``.log`` files in bytes."""
        return self.local_log.size_in_bytes

    @property
    def truncation_count(self) -> int:
        """Times the log was truncated since it was opened (the cleaner aborts a swap when it moved)."""
        return self.local_log.truncation_count

    @property
    def unflushed_messages(self) -> int:
        """Offsets appended since the recovery point."""
        return self.local_log.unflushed_messages

    @property
    def flush_needed(self) -> bool:
        """True when ``unflushed_messages >= flush.messages``."""
        return self.local_log.unflushed_messages >= self.config.flush_messages

    @property
    def last_flush_time_ms(self) -> int:
        """When the last flush finished (monotonic ms on the log's clock)."""
        return self.local_log.last_flush_time_ms

    @property
    def is_offline(self) -> bool:
        """True when corruption took this log offline (see ``offline_reason``)."""
        return self.local_log.is_offline

    @property
    def offline_reason(self) -> str | None:
        """Why the log is offline (file and position), None while online."""
        return self.local_log.offline_reason

    @property
    def on_offline(self) -> Callable[[TopicPartition], None] | None:
        """Called with the partition when the log goes offline (the LogDirFailureChannel)."""
        return self.local_log.on_offline

    @on_offline.setter
    def on_offline(self, callback: Callable[[TopicPartition], None] | None) -> None:
        self.local_log.on_offline = callback

    def mark_offline(self, reason: str) -> None:
        """Take the log offline (``LocalLog.mark_offline``)."""
        self.local_log.mark_offline(reason)

    # ------------------------------------------------------------------ appends
    def append_as_leader(
        self,
        records: bytearray | bytes | memoryview,
        leader_epoch: int,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        verification_guard: VerificationGuard | None = None,
    ) -> LogAppendInfo:
        """The leader's append of one Produce partition's batches (Kafka's ``UnifiedLog.append``
        with offsets assigned).

        In order: one walk over the bytes checks every batch whole and CRC-valid; the
        idempotent producers' state is checked (a retried batch is answered with its
        original offsets and nothing is written); the LogValidator checks the batches and
        their records (keys on a compacted topic, ``message.timestamp.before.max.ms``),
        converts them (``compression.type``, LogAppendTime) and writes offsets from the
        LEO and ``leader_epoch``; the batches are written; the epoch cache, the producer
        state and the flush request follow.

        Args:
            records: one or more batches from a Produce request.  A bytearray gets its offsets
                and epoch written in place (no copy); other types are copied first.
            leader_epoch: the leader's current epoch.
            origin: ``AppendOrigin.COORDINATOR`` for transaction markers (control batches), else
                ``CLIENT``.
            verification_guard: with ``transaction.partition.verification.enable`` (KIP-890), the
                guard ``maybe_start_transaction_verification`` gave the request (SENTINEL when the
                producer had a transaction open then): a transactional batch of a producer with no
                open transaction now appends only with its producer's outstanding guard (else
                INVALID_TXN_STATE, "Record was not part of an ongoing transaction"); None: no check.

        Returns:
            The LogAppendInfo (offsets of the first and last records, ``log_append_time_ms``, ...).

        Raises:
            CorruptRecordError: malformed batches, a CRC mismatch, or records that do not decode
                when they must be read (CORRUPT_MESSAGE).
            InvalidRecordError, InvalidTimestampError, MessageTooLargeError,
            UnsupportedCompressionTypeError: from the LogValidator.
            InvalidProducerEpochError, OutOfOrderSequenceNumberError, InvalidTxnStateError,
            TransactionCoordinatorFencedError: from the producer state.
            DuplicateSequenceNumberError: a retried batch came with others in one request.
            KafkaStorageError: the log is offline.
        """
        self.local_log.check_online()
        if not isinstance(records, bytearray):
            records = bytearray(records)
        positions = validate_batches(records)
        headers = [positions[0][1]] if len(positions) == 1 else [header for _, header in positions]
        markers = self._end_txn_markers(records, positions, origin)
        if markers is None:
            duplicate = self._check_producer_state(headers)
            if duplicate is not None:
                return duplicate
            if verification_guard is not None:
                self._check_verification(headers, verification_guard)
        first_offset = self.log_end_offset
        validated = validate_messages_and_assign_offsets(
            records,
            positions,
            tp=self.tp,
            config=self.config,
            first_offset=first_offset,
            leader_epoch=leader_epoch,
            now_ms=self.time.milliseconds(),
            origin=origin,
        )
        self.local_log.append(
            validated.records,
            validated.last_offset,
            (validated.max_timestamp, validated.offset_of_max_timestamp),
        )
        if leader_epoch > self.leader_epoch_cache.latest_epoch:
            self.leader_epoch_cache.assign(leader_epoch, first_offset)
        offset = first_offset
        stamped = validated.log_append_time_ms if validated.log_append_time_ms != -1 else None
        for index, header in enumerate(headers):
            self._update_producer_state(header, offset, stamped, markers[index] if markers else None)
            offset += header.last_offset_delta + 1
        self._maybe_request_flush()
        return LogAppendInfo(
            first_offset,
            validated.last_offset,
            validated.num_records,
            len(validated.records),
            validated.max_timestamp,
            validated.log_append_time_ms,
        )

    def _end_txn_markers(
        self, records: bytearray, positions: list[tuple[int, BatchHeader]], origin: AppendOrigin
    ) -> list[EndTransactionMarker | None] | None:
        """The decoded markers of a coordinator's append (one per batch, None for a data batch),
        checked against the producer state; None for a client's append.

        Raises:
            InvalidRecordError: a client's append holds a control batch.
            CorruptRecordError: a control batch holds no valid marker.
            InvalidProducerEpochError, TransactionCoordinatorFencedError: a stale marker.
        """
        if origin != AppendOrigin.COORDINATOR:
            for _, header in positions:
                if is_control_batch(header):  # refused before the producer state sees it, as Kafka
                    check_control_batch_origin(self.tp, origin)
            return None
        markers: list[EndTransactionMarker | None] = []
        for position, header in positions:
            if is_control_batch(header):
                marker = read_end_txn_marker(records, position, header)
                self.producer_state_manager.check_end_txn_marker(header, marker)
                markers.append(marker)
            else:
                markers.append(None)
        return markers

    def _update_producer_state(
        self, header: BatchHeader, offset: int, stamped: int | None, marker: EndTransactionMarker | None
    ) -> None:
        """Record one appended batch; a marker that aborted a transaction goes into the active
        segment's ``.txnindex`` (Kafka's ``UnifiedLog.append`` with ``updateTxnIndex``)."""
        completed = self.producer_state_manager.update(header, offset, stamped, marker)
        if completed is not None:
            self.producer_state_manager.update_txn_index(completed, self.local_log.active_segment.txn_index)

    def has_ongoing_transaction(self, producer_id: int, producer_epoch: int) -> bool:
        """Whether the producer at this epoch has a transaction open here (Kafka's
        ``UnifiedLog.hasOngoingTransaction``)."""
        return self.producer_state_manager.has_ongoing_transaction(producer_id, producer_epoch)

    def maybe_start_transaction_verification(
        self, producer_id: int, sequence: int, epoch: int
    ) -> VerificationGuard:
        """SENTINEL when the producer already has a transaction open here (nothing to verify), else
        its verification guard, created if it has none (Kafka's
        ``UnifiedLog.maybeStartTransactionVerification``, KIP-890)."""
        if self.has_ongoing_transaction(producer_id, epoch):
            return VerificationGuard.SENTINEL
        return self.producer_state_manager.maybe_create_verification_state_entry(
            producer_id, sequence, epoch
        ).verification_guard

    def _check_verification(self, headers: list[BatchHeader], verification_guard: VerificationGuard) -> None:
        """Kafka's ``batchMissingRequiredVerification`` in ``analyzeAndValidateProducerState``.

        Raises:
            InvalidTxnStateError: a transactional batch whose producer has no open transaction and
                whose request does not hold the producer's outstanding guard.
        """
        state = self.producer_state_manager
        for header in headers:
            if (
                is_transactional_batch(header)
                and not is_control_batch(header)
                and not state.has_ongoing_transaction(header.producer_id, header.producer_epoch)
                and not state.verification_guard(header.producer_id).verify(verification_guard)
            ):
                raise InvalidTxnStateError("Record was not part of an ongoing transaction")

    def _check_producer_state(self, headers: list[BatchHeader]) -> LogAppendInfo | None:
        """Kafka's ``analyzeAndValidateProducerState``: None to append, else the answer for a retry."""
        duplicates = self.producer_state_manager.check_batches(headers)
        if duplicates.count(None) == len(duplicates):
            return None
        original = duplicates[0]
        if len(headers) != 1 or original is None:
            raise DuplicateSequenceNumberError(f"a retried batch was sent together with others to {self.tp}")
        logger.debug(
            "%s Duplicate batch from producer %d: offsets %d-%d",
            self.local_log.prefix,
            headers[0].producer_id,
            original.first_offset,
            original.last_offset,
        )
        # Kafka answers a retry with the original batch's timestamp as its log append time
        return LogAppendInfo(
            original.first_offset,
            original.last_offset,
            headers[0].records_count,
            0,
            headers[0].max_timestamp,
            original.timestamp,
        )

    def append_as_follower(self, records: bytes | bytearray | memoryview) -> LogAppendInfo | None:
        """Append batches copied from the leader (offsets and epochs already set), in one walk.

        Batches entirely below the LEO are skipped; a trailing partial batch is ignored.
        The first kept batch may start above the LEO: a compacted leader log has gaps
        between batches (Kafka only rejects a batch starting below the LEO).  The epochs
        and producer batches appended are recorded and a flush requested when due.

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
        self.local_log.check_online()
        log_end_offset = self.log_end_offset
        view = memoryview(records)
        start = end = -1
        first_offset = expected = log_end_offset
        num_records = 0
        max_timestamp, offset_of_max = -1, -1
        epochs: list[tuple[int, int]] = []
        appended: list[BatchHeader] = []
        markers: list[EndTransactionMarker | None] = []
        latest_epoch = self.leader_epoch_cache.latest_epoch
        for position, header in iter_batches(view, verify_crc=True):
            if start < 0:
                if header.last_offset < log_end_offset:
                    continue
                if header.base_offset < log_end_offset:
                    raise UnexpectedAppendOffsetError(
                        f"{self.local_log.prefix} follower append starts at offset {header.base_offset}, "
                        f"expected the log end offset {log_end_offset}",
                        header.base_offset,
                        log_end_offset,
                    )
                start = position
                first_offset = header.base_offset
            elif header.base_offset < expected:
                raise UnexpectedAppendOffsetError(
                    f"{self.local_log.prefix} out of order offsets in follower append: {header.base_offset} "
                    f"after {expected}",
                    header.base_offset,
                    log_end_offset,
                )
            expected = header.next_offset
            if header.partition_leader_epoch > (epochs[-1][0] if epochs else latest_epoch):
                epochs.append((header.partition_leader_epoch, header.base_offset))
            end = position + header.size_in_bytes
            num_records += header.records_count
            if header.max_timestamp > max_timestamp:
                max_timestamp, offset_of_max = header.max_timestamp, header.last_offset
            appended.append(header)
            markers.append(read_end_txn_marker(view, position, header) if is_control_batch(header) else None)
        if start < 0:
            return None
        self.local_log.append(view[start:end], expected - 1, (max_timestamp, offset_of_max))
        for epoch, epoch_start in epochs:
            self.leader_epoch_cache.assign(epoch, epoch_start)
        for header, marker in zip(appended, markers, strict=True):
            self._update_producer_state(header, header.base_offset, None, marker)
        self._maybe_request_flush()
        return LogAppendInfo(first_offset, expected - 1, num_records, end - start, max_timestamp)

    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        """Record that ``leader_epoch`` starts at ``start_offset`` (a new leader, at its LEO) and
        write the checkpoint soon (Kafka writes it at once)."""
        self.leader_epoch_cache.assign(leader_epoch, start_offset)
        self._maybe_request_flush()

    def roll(self, reason: str = "requested") -> LogSegment:
        """Start a new active segment at the log end offset (``LocalLog.roll``), which snapshots the
        producer state at its base offset (``_take_producer_snapshot``)."""
        return self.local_log.roll(reason)

    def _take_producer_snapshot(self, offset: int) -> None:
        """Write the producer state snapshot at ``offset`` (the base offset of a segment just
        rolled: the producer state covers every batch below it), so a recovery after an unclean
        shutdown replays the log from there rather than from the last two segments' headers.

        Kafka concept: ``UnifiedLog.roll`` -> ``ProducerStateManager.takeSnapshot``."""
        try:
            self.producer_state_manager.take_snapshot(self.dir, offset, sync=False)  # on the event loop
        except OSError as exc:  # the recovery then replays from an older snapshot
            logger.warning(
                "%s Could not write the producer state snapshot at %d: %s", self.local_log.prefix, offset, exc
            )

    # -------------------------------------------------------------------- reads
    def read(
        self,
        start_offset: int,
        max_bytes: int,
        max_offset_exclusive: int | None = None,
        min_one_message: bool = True,
    ) -> FetchDataInfo:
        """Read whole batches starting with the batch that contains ``start_offset``.

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
        self.local_log.check_online()
        if start_offset < self._log_start_offset:
            raise OffsetOutOfRangeError(
                f"offset {start_offset} is out of range for {self.tp}: log start offset "
                f"{self._log_start_offset}, log end offset {self.log_end_offset}"
            )
        return self.local_log.read(start_offset, max_bytes, max_offset_exclusive, min_one_message)

    def fetch_offset_by_timestamp(self, timestamp_ms: int) -> TimestampAndOffset | None:
        """Find a record by timestamp for ListOffsets (Kafka's ``UnifiedLog.fetchOffsetByTimestamp``).

        Args:
            timestamp_ms: a timestamp >= 0 (ms): the first record at or after the log start
                offset whose timestamp is >= it, searched from the first segment whose
                ``largest_timestamp`` reaches it; or ``MAX_TIMESTAMP`` (-3): the first record
                carrying the largest timestamp of the log.

        Returns:
            The record's timestamp, offset and batch leader epoch; None when no record
            qualifies (Kafka then answers offset -1, timestamp -1).

        Raises:
            ValueError: another negative ``timestamp_ms``.
            CorruptRecordError: a batch's records cannot be decoded.
        """
        segments = self.local_log.segments
        if timestamp_ms == MAX_TIMESTAMP:
            best = max(segments, key=lambda segment: segment.max_timestamp_so_far)  # the first of the largest
            return best.read_max_timestamp_and_offset()
        if timestamp_ms < 0:
            raise ValueError(f"cannot look up {self.tp} by timestamp {timestamp_ms}")
        for segment in segments:
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
        last kept batch (<= target).  The epoch cache and the producer state follow the
        log.  With nothing to drop, epochs starting at the LEO still go: one this broker
        assigned as leader and never wrote would otherwise be asked about forever (Kafka's
        ``truncateTo``).  An offline log is left as it is (False).

        Returns:
            True when anything was removed.

        Raises:
            ValueError: negative target.
        """
        if target_offset < 0:
            raise ValueError(f"cannot truncate {self.tp} to negative offset {target_offset}")
        if self.is_offline:
            logger.warning(
                "%s Not truncating the offline log to offset %d", self.local_log.prefix, target_offset
            )
            return False
        if target_offset >= self.log_end_offset:
            self.leader_epoch_cache.truncate_from_end(self.log_end_offset)
            return False
        logger.info(
            "%s Truncating to offset %d (log end offset %d)",
            self.local_log.prefix,
            target_offset,
            self.log_end_offset,
        )
        if target_offset <= self.local_log.segments[0].base_offset:
            self.truncate_fully_and_start_at(target_offset)
            return True
        self.local_log.truncate_to(target_offset)
        leo = self.log_end_offset
        self.leader_epoch_cache.truncate_from_end(leo)
        self._log_start_offset = min(self._log_start_offset, leo)
        self._high_watermark = min(self._high_watermark, leo)
        try:
            self.producer_state_manager.rebuild(self)
        except ValueError as exc:
            self.mark_offline(f"corrupt batch header while rebuilding producer state: {exc}")
        return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Delete every segment and start an empty log at ``offset`` (LEO = start = HW = offset).

        An offline log is left as it is.

        Raises:
            ValueError: negative offset.
        """
        if offset < 0:
            raise ValueError(f"cannot start {self.tp} at negative offset {offset}")
        if self.is_offline:
            logger.warning(
                "%s Not truncating the offline log fully (to start at %d)", self.local_log.prefix, offset
            )
            return
        logger.info("%s Truncating fully and starting at offset %d", self.local_log.prefix, offset)
        self.local_log.truncate_fully_and_start_at(offset)
        self._log_start_offset = self._high_watermark = offset
        self.leader_epoch_cache.clear()
        self.producer_state_manager.clear()

    # ----------------------------------------------------------------- retention
    def maybe_increment_log_start_offset(self, new_log_start_offset: int, reason: str) -> bool:
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
        logger.info(
            "%s Incremented log start offset from %d to %d (%s)",
            self.local_log.prefix,
            self._log_start_offset,
            new_log_start_offset,
            reason,
        )
        self._set_log_start_offset(new_log_start_offset)
        return True

    def _set_log_start_offset(self, offset: int) -> None:
        self._log_start_offset = offset
        self.local_log.advance_recovery_point(offset)
        self.leader_epoch_cache.truncate_from_start(offset)

    def delete_old_segments(self, now_ms: int) -> list[Path]:
        """Delete the segments retention no longer keeps; return their renamed files.

        Deletes, oldest first and stopping at the first segment kept: segments whose
        ``largest_timestamp`` is older than ``retention.ms`` and the oldest segments while
        the log is larger than ``retention.bytes`` (-1 disables either; only when
        ``cleanup.policy`` contains ``delete``), then segments wholly below the log start
        offset (any policy).  Never the active segment, nor a segment holding an offset at
        or above the high watermark.  Files are renamed ``.deleted`` (the ``.txnindex`` with
        the rest); the caller removes them after ``file.delete.delay.ms``.  The producer state
        snapshots below the first kept segment are removed.  The log start offset moves to the first kept
        segment.

        Kafka concept: ``UnifiedLog.deleteOldSegments`` (retentionMs, retentionSize and
        logStartOffset breaches).

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
        renamed += self._delete_segments(
            lambda _: True, f"log start offset {self._log_start_offset} breach", below_log_start_offset=True
        )
        return renamed

    def _delete_segments(
        self, predicate: Callable[[LogSegment], bool], reason: str, *, below_log_start_offset: bool = False
    ) -> list[Path]:
        """Remove the leading non-active segments that end at or below the HW and match."""
        segments = self.local_log.segments
        count = 0
        for segment, following in zip(segments, segments[1:], strict=False):
            if following.base_offset > self._high_watermark:
                break
            if below_log_start_offset and following.base_offset > self._log_start_offset:
                break
            if not predicate(segment):
                break
            count += 1
        if count == 0:
            return []
        renamed = self.local_log.remove_leading_segments(count, reason)
        new_start = self.local_log.segments[0].base_offset
        delete_snapshots(self.dir, lambda offset: offset < new_start)  # Kafka's deleteProducerSnapshots
        if new_start > self._log_start_offset:
            self._set_log_start_offset(new_start)
        logger.info("%s Log start offset is now %d", self.local_log.prefix, self._log_start_offset)
        return renamed

    def replace_segments(
        self, old: list[LogSegment], cleaned: list[tuple[int, Path, Path]], expected_truncations: int
    ) -> list[Path]:
        """Swap cleaned segments in for ``old`` (the log cleaner's ``LocalLog.replace_segments``).

        Returns:
            The renamed ``.deleted`` files of the old segments (to delete).

        Raises:
            ValueError: the log changed since the cleaner's snapshot; nothing was renamed.
        """
        return self.local_log.replace_segments(old, cleaned, expected_truncations)

    # ------------------------------------------------------------------ flushing
    async def flush(self, up_to: int | None = None) -> None:
        """Write the leader epoch checkpoint when it changed, then fsync every segment holding
        offsets in ``[recovery_point, up_to)`` in the default executor and advance the
        recovery point.  An offline log is not flushed.

        Args:
            up_to: exclusive offset to flush up to; None = the current log end offset.

        Raises:
            OSError: an fsync or the checkpoint write failed (the recovery point does not move).
            CancelledError: the fsync may still complete; the recovery point does not move.
        """
        if self.is_offline:
            return
        await self.checkpoint_leader_epochs()
        await self.local_log.flush(self.log_end_offset if up_to is None else up_to)

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
            if not self.leader_epoch_checkpoint_dirty or self.is_offline:
                return
            version, entries = self.leader_epoch_cache.version, self.leader_epoch_cache.entries
            await asyncio.get_running_loop().run_in_executor(
                None, self._write_epoch_checkpoint, version, entries
            )

    def _write_epoch_checkpoint(self, version: int, entries: list[EpochEntry]) -> None:
        self._epoch_checkpoint.write(entries)
        self._epoch_checkpoint_version = version

    def flush_sync(self) -> None:
        """fsync everything up to the LEO now (blocking; for shutdown) after writing the leader
        epoch checkpoint when it changed.  No-op when offline."""
        if self.is_offline:
            return
        if self.leader_epoch_checkpoint_dirty:
            self._write_epoch_checkpoint(self.leader_epoch_cache.version, self.leader_epoch_cache.entries)
        self.local_log.flush_sync()

    def _maybe_request_flush(self) -> None:
        """Start the log's flush task when ``flush.messages`` offsets are unflushed, or a write of
        the leader epoch checkpoint when it changed; at most one runs at a time."""
        if (
            self.local_log.unflushed_messages < self.config.flush_messages
            and self.leader_epoch_cache.version == self._epoch_checkpoint_version
        ):
            return  # the common case: nothing to do
        if self._flushing_stopped or (self._flush_task is not None and not self._flush_task.done()):
            return
        if self.flush_needed:
            self._start_flush(self.flush(self.log_end_offset))
        elif self.leader_epoch_checkpoint_dirty:
            self._start_flush(
                self.checkpoint_leader_epochs()
            )  # a new leader epoch: rare, written at once as Kafka does

    def _start_flush(self, work: Coroutine[object, object, None]) -> asyncio.Task[None] | None:
        """Run ``work`` as the log's flush task; None (``work`` dropped) without a running loop
        (a tool or a synchronous test: the next flush writes it) or once flushing stopped."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            return None
        if self._flushing_stopped:
            work.close()
            return None
        self._flush_task = loop.create_task(work, name=f"flush-{self.tp}")
        self._flush_task.add_done_callback(self._on_flush_done)
        return self._flush_task

    @property
    def flush_due(self) -> bool:
        """True when ``flush.messages`` offsets are unflushed: Kafka's ``UnifiedLog.append`` then
        flushes before it returns, so the append's acknowledgement waits for ``flush_through``."""
        return self.local_log.unflushed_messages >= self.config.flush_messages

    async def flush_through(self, offset: int) -> None:
        """Return once every offset up to ``offset`` (inclusive) is fsynced, running the log's
        flush task (or waiting for the one that runs) as often as needed.

        What Kafka does inline in ``UnifiedLog.append`` when ``flush.messages`` is reached, the
        callers do here before they answer: the produce path before acknowledging, a follower
        before it fetches (and so reports) past what it appended.  Returns at once when
        flushing stopped (shutdown: the clean shutdown flushes everything).

        Raises:
            KafkaStorageError: the log is offline, or the fsync failed (the log is then taken offline).
        """
        while self.recovery_point <= offset:
            self.local_log.check_online()
            task = self.pending_flush or self._start_flush(self.flush(self.log_end_offset))
            if task is None:
                return
            try:
                await asyncio.shield(task)
            except OSError as exc:
                self.mark_offline(f"error flushing offsets up to {offset}: {exc}")
                raise KafkaStorageError(f"The log of {self.tp} could not be flushed: {exc}") from exc

    def _on_flush_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error("%s Flush failed", self.local_log.prefix, exc_info=task.exception())

    @property
    def pending_flush(self) -> asyncio.Task[None] | None:
        """The log's own flush (or epoch checkpoint) task while it runs, else None."""
        task = self._flush_task
        return task if task is not None and not task.done() else None

    async def stop_flushing(self, timeout_s: float) -> None:
        """Start no more flush tasks and wait for the running one (at most ``timeout_s`` seconds,
        then cancel it and wait for it to end).  For shutdown and deletion."""
        self._flushing_stopped = True
        task = self._flush_task
        if task is None or task.done():
            return
        _, not_done = await asyncio.wait([task], timeout=timeout_s)
        for pending in not_done:
            pending.cancel()
        if not_done:
            await asyncio.wait(not_done)

    # ----------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Write the producer state snapshot at the log end offset (an online log), then close
        every segment's files (does not flush the segments)."""
        if not self.is_offline:
            try:
                self.producer_state_manager.take_snapshot(self.dir, self.log_end_offset)
            except OSError as exc:  # the next start-up replays the log's tail instead
                logger.warning(
                    "%s Could not write the producer state snapshot: %s", self.local_log.prefix, exc
                )
        self.local_log.close()

    def delete(self) -> None:
        """Close and remove the whole partition directory (blocking)."""
        self.local_log.delete()

    def __repr__(self) -> str:
        return (
            f"UnifiedLog(tp={self.tp}, dir={self.dir}, log_start_offset={self._log_start_offset}, "
            f"log_end_offset={self.log_end_offset}, segments={len(self.local_log.segments)})"
        )
