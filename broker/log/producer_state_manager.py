"""Idempotent producer state of one partition: last batches per producer id.

Owns: for each producer id, its epoch and the metadata of its last five batches
(first/last sequence, first/last offset).  The leader consults it before appending
so a retried batch (same producer id, epoch and sequences) is answered with its
original offsets instead of being written twice, and a batch whose sequence does not
follow the last one is refused with OUT_OF_ORDER_SEQUENCE_NUMBER.  Followers and
log loading replay batch headers into it, so a new leader dedupes retries too.
Rebuilt after truncation and at start-up from the snapshot a clean close wrote
(``producer_state_snapshot``) plus the batch headers after it, or without one from the batch
headers of the log's last two segments; owned by the partition's ``UnifiedLog``.

Transactions: a transactional batch opens its producer's transaction (its first offset
kept as ``current_txn_first_offset``, the partition's ongoing transactions ordered by it);
a control batch (a COMMIT/ABORT marker) ends it, giving a ``CompletedTxn`` that stays
"unreplicated" until the high watermark passes the marker.  The smallest first offset of
an ongoing or unreplicated transaction is the first unstable offset, which bounds the
last stable offset (LSO).  The replay at start-up and after truncation reads the markers
too and re-appends aborted transactions missing from their segment's ``.txnindex``.

Kafka concept: ``ProducerStateManager``/``ProducerStateEntry``/``ProducerAppendInfo``/
``CompletedTxn`` (KIP-98), with ``NUM_BATCHES_TO_RETAIN`` = 5
(= max.in.flight.requests.per.connection).
"""

from __future__ import annotations

import collections
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kafkette.broker.log.producer_state_snapshot import (
    CorruptSnapshotError,
    SnapshotEntry,
    delete_snapshots,
    read_snapshot,
    snapshot_offsets,
    snapshot_path,
    write_snapshot,
)
from kafkette.broker.log.transaction_index import AbortedTxn, TransactionIndex
from kafkette.broker.log.verification_guard import VerificationGuard, VerificationStateEntry
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    is_control_batch,
    is_transactional_batch,
    read_end_txn_marker,
)
from kafkette.protocol.errors import (
    InvalidProducerEpochError,
    InvalidTxnStateError,
    OutOfOrderSequenceNumberError,
    TransactionCoordinatorFencedError,
)
from kafkette.protocol.record_batch import BatchHeader

if TYPE_CHECKING:
    from kafkette.broker.log.unified_log import UnifiedLog

NUM_BATCHES_TO_RETAIN = 5

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class BatchMetadata:
    """Where one producer batch landed: sequences and offsets (inclusive), and its max timestamp
    as written (ms; the broker's stamp on a LogAppendTime topic), which a retry of the batch is
    answered with as ``log_append_time_ms`` (Kafka's ``BatchMetadata.timestamp``).

    Never changed once made.  Not a frozen dataclass: one is made per appended producer batch,
    and a frozen dataclass sets each field with ``object.__setattr__``."""

    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int = field(default=-1, compare=False)


class CompletedTxn(NamedTuple):
    """A transaction a marker ended: its producer, first offset, marker offset, and whether it
    was aborted (Kafka's ``CompletedTxn``)."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


@dataclass(slots=True)
class ProducerStateEntry:
    """One producer's epoch, its last batches, the epoch of the coordinator that last wrote a
    marker for it (-1: none) and the first offset of its ongoing transaction (-1: none; Kafka's
    snapshot field ``CurrentTxnFirstOffset``)."""

    producer_id: int
    producer_epoch: int
    batches: collections.deque[BatchMetadata] = field(
        default_factory=lambda: collections.deque(maxlen=NUM_BATCHES_TO_RETAIN)
    )
    coordinator_epoch: int = -1
    current_txn_first_offset: int = -1

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else -1


def _last_seq(header: BatchHeader) -> int:
    return header.base_sequence + header.last_offset_delta


class ProducerStateManager:
    """Per-partition producer id -> ProducerStateEntry."""

    def __init__(self) -> None:
        self.entries: dict[int, ProducerStateEntry] = {}
        self.ongoing_txns: dict[int, int] = {}  # first offset -> producer id, in offset order
        self.unreplicated_txns: dict[int, CompletedTxn] = {}  # first offset -> txn, marker >= HW
        self.verification_states: dict[int, VerificationStateEntry] = {}  # producer id -> (KIP-890)

    def clear(self) -> None:
        """Forget every producer and transaction (the log was emptied)."""
        self.entries.clear()
        self.ongoing_txns.clear()
        self.unreplicated_txns.clear()
        self.verification_states.clear()

    def has_ongoing_transaction(self, producer_id: int, producer_epoch: int) -> bool:
        """Whether ``producer_id`` at ``producer_epoch`` has a transaction open on the partition
        (Kafka's ``UnifiedLog.hasOngoingTransaction``)."""
        entry = self.entries.get(producer_id)
        return (
            entry is not None
            and entry.current_txn_first_offset >= 0
            and entry.producer_epoch == producer_epoch
        )

    def maybe_create_verification_state_entry(
        self, producer_id: int, sequence: int, epoch: int
    ) -> VerificationStateEntry:
        """The producer's verification state, created with a new guard when it has none (a retry keeps
        the guard it already has: Kafka's ``ProducerStateManager.maybeCreateVerificationStateEntry``)."""
        entry = self.verification_states.get(producer_id)
        if entry is None:
            entry = VerificationStateEntry(VerificationGuard(), sequence, epoch)
            self.verification_states[producer_id] = entry
        else:
            entry.maybe_update_lowest_sequence_and_epoch(sequence, epoch)
        return entry

    def verification_guard(self, producer_id: int) -> VerificationGuard:
        """The producer's outstanding guard, SENTINEL when it has none."""
        entry = self.verification_states.get(producer_id)
        return entry.verification_guard if entry is not None else VerificationGuard.SENTINEL

    def clear_verification_state_entry(self, producer_id: int) -> None:
        """Drop the producer's guard: its transaction started here, or a marker closed it."""
        self.verification_states.pop(producer_id, None)

    def first_unstable_offset(self) -> int | None:
        """The smallest first offset of an ongoing transaction or of a completed one whose marker
        the high watermark has not passed yet; None when there is none.

        Kafka concept: ``ProducerStateManager.firstUnstableOffset``."""
        first = next(iter(self.ongoing_txns), None)
        if self.unreplicated_txns:
            unreplicated = min(self.unreplicated_txns)
            first = unreplicated if first is None else min(first, unreplicated)
        return first

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        """Drop the completed transactions whose marker is below ``high_watermark`` (offset).

        Kafka concept: ``ProducerStateManager.onHighWatermarkUpdated``."""
        if self.unreplicated_txns:
            self.unreplicated_txns = {
                first: txn
                for first, txn in self.unreplicated_txns.items()
                if txn.last_offset >= high_watermark
            }

    def last_stable_offset(self, completed: CompletedTxn) -> int:
        """The LSO once ``completed`` is no longer ongoing: the first offset of the earliest other
        ongoing transaction, else the offset after its marker (Kafka's
        ``ProducerStateManager.lastStableOffset``, stored in ``AbortedTxn``)."""
        for first_offset, producer_id in self.ongoing_txns.items():
            if producer_id != completed.producer_id:
                return first_offset
        return completed.last_offset + 1

    def update_txn_index(self, completed: CompletedTxn, txn_index: TransactionIndex) -> None:
        """Append ``completed`` to ``txn_index`` (the segment holding its marker) when it was
        aborted and the index does not hold it yet (Kafka's ``LogSegment.updateTxnIndex``).

        Raises:
            OSError: the write failed.
        """
        if not completed.is_aborted:
            return
        entries = txn_index.entries
        if entries and entries[-1].last_offset >= completed.last_offset:
            return  # already indexed (a replay at start-up)
        txn_index.append(
            AbortedTxn(
                completed.producer_id,
                completed.first_offset,
                completed.last_offset,
                self.last_stable_offset(completed),
            )
        )

    def check_end_txn_marker(self, header: BatchHeader, marker: EndTransactionMarker) -> None:
        """Validate a COMMIT/ABORT marker about to be appended by the leader.

        Raises:
            InvalidProducerEpochError: the marker's producer epoch is older than the producer's.
            TransactionCoordinatorFencedError: its coordinator epoch is older than the last
                one seen for the producer (a zombie coordinator).

        Kafka concept: ``ProducerAppendInfo.appendEndTxnMarker`` (``checkProducerEpoch``,
        ``checkCoordinatorEpoch``).
        """
        entry = self.entries.get(header.producer_id)
        if entry is None:
            return
        if header.producer_epoch < entry.producer_epoch:
            raise InvalidProducerEpochError(
                f"Epoch of producer {header.producer_id} at offset {header.base_offset} is "
                f"{header.producer_epoch}, which is smaller than the last seen epoch {entry.producer_epoch}"
            )
        if entry.coordinator_epoch > marker.coordinator_epoch:
            raise TransactionCoordinatorFencedError(
                f"Invalid coordinator epoch for producerId {header.producer_id}: "
                f"{marker.coordinator_epoch} (zombie), {entry.coordinator_epoch} (current)"
            )

    def check(self, header: BatchHeader) -> BatchMetadata | None:
        """Validate a producer batch about to be appended by the leader.

        Args:
            header: the batch header (offsets not yet assigned).

        Returns:
            The original BatchMetadata when the batch is a duplicate (do not append),
            None when it should be appended.

        Raises:
            InvalidProducerEpochError: the epoch is older than the producer's.
            OutOfOrderSequenceNumberError: the sequence does not follow the last one.
        """
        if header.producer_id < 0:
            return None
        entry = self.entries.get(header.producer_id)
        if entry is None:
            return None
        if entry.current_txn_first_offset >= 0 and not is_transactional_batch(header):
            raise InvalidTxnStateError(
                f"Expected transactional write from producer {header.producer_id} "
                f"(its transaction began at offset {entry.current_txn_first_offset})"
            )
        if header.producer_epoch < entry.producer_epoch:
            raise InvalidProducerEpochError(
                f"Producer {header.producer_id} epoch {header.producer_epoch} is older than "
                f"{entry.producer_epoch}"
            )
        if header.producer_epoch > entry.producer_epoch:
            if header.base_sequence != 0:
                raise OutOfOrderSequenceNumberError(
                    f"Producer {header.producer_id} started epoch {header.producer_epoch} at sequence "
                    f"{header.base_sequence}, expected 0"
                )
            return None
        batches = entry.batches
        if batches and header.base_sequence == batches[-1].last_seq + 1:
            return None  # the next batch in sequence (the common case): no retained batch can match it
        last = _last_seq(header)
        for batch in batches:
            if batch.first_seq == header.base_sequence and batch.last_seq == last:
                return batch
        if entry.batches and header.base_sequence != entry.last_seq + 1:
            raise OutOfOrderSequenceNumberError(
                f"Out of order sequence number for producer {header.producer_id}: "
                f"{header.base_sequence} (incoming), {entry.last_seq} (current end sequence)"
            )
        return None

    def check_batches(self, headers: list[BatchHeader]) -> list[BatchMetadata | None]:
        """``check`` for the batches of one produce request, in order.

        A batch is checked against the stored state and the batches before it in the
        same request (Kafka's ``ProducerAppendInfo``), so consecutive sequences in one
        request are accepted.

        Returns:
            One entry per header: the original BatchMetadata of a duplicate, else None.

        Raises:
            InvalidProducerEpochError, OutOfOrderSequenceNumberError: as ``check``.
        """
        if len(headers) == 1:  # the common case: one batch per partition
            return [self.check(headers[0])]
        pending: dict[int, tuple[int, int]] = {}  # producer id -> (epoch, last sequence) in this request
        results: list[BatchMetadata | None] = []
        for header in headers:
            if header.producer_id < 0:
                results.append(None)
                continue
            earlier = pending.get(header.producer_id)
            if earlier is None:
                result = self.check(header)
            else:
                epoch, last_seq = earlier
                if header.producer_epoch < epoch:
                    raise InvalidProducerEpochError(
                        f"Producer {header.producer_id} epoch {header.producer_epoch} is older than {epoch}"
                    )
                expected = last_seq + 1 if header.producer_epoch == epoch else 0
                if header.base_sequence != expected:
                    raise OutOfOrderSequenceNumberError(
                        f"Out of order sequence number for producer {header.producer_id}: "
                        f"{header.base_sequence} (incoming), {expected - 1} (current end sequence)"
                    )
                result = None
            results.append(result)
            if result is None:
                pending[header.producer_id] = (header.producer_epoch, _last_seq(header))
        return results

    def update(
        self,
        header: BatchHeader,
        first_offset: int,
        max_timestamp: int | None = None,
        marker: EndTransactionMarker | None = None,
    ) -> CompletedTxn | None:
        """Record an appended batch (``first_offset`` = its base offset in the log, ``max_timestamp``
        its max timestamp as written when it differs from ``header``'s, ms; ``marker`` the
        decoded marker of a control batch).

        Returns:
            The CompletedTxn when ``marker`` ended a transaction holding data, else None.
        """
        if header.producer_id < 0:
            return None
        entry = self.entries.get(header.producer_id)
        if entry is None:
            entry = ProducerStateEntry(header.producer_id, header.producer_epoch)
            self.entries[header.producer_id] = entry
        elif header.producer_epoch > entry.producer_epoch:  # a new epoch keeps the open transaction
            entry.producer_epoch = header.producer_epoch
            entry.batches.clear()
        elif header.producer_epoch < entry.producer_epoch and marker is None:
            return None
        if marker is not None:
            self.clear_verification_state_entry(header.producer_id)  # a verified batch starts none now
            return self._end_txn(entry, first_offset, marker)
        if is_transactional_batch(header) and entry.current_txn_first_offset < 0:
            entry.current_txn_first_offset = first_offset
            self.ongoing_txns[first_offset] = header.producer_id
            self.clear_verification_state_entry(header.producer_id)  # the transaction began
        entry.batches.append(
            BatchMetadata(
                header.base_sequence,
                _last_seq(header),
                first_offset,
                first_offset + header.last_offset_delta,
                header.max_timestamp if max_timestamp is None else max_timestamp,
            )
        )
        return None

    def _end_txn(
        self, entry: ProducerStateEntry, offset: int, marker: EndTransactionMarker
    ) -> CompletedTxn | None:
        """Close ``entry``'s transaction with the marker at ``offset`` (a marker for a producer
        with no open transaction completes nothing, as in Kafka)."""
        entry.coordinator_epoch = max(entry.coordinator_epoch, marker.coordinator_epoch)
        first_offset = entry.current_txn_first_offset
        if first_offset < 0:
            return None
        entry.current_txn_first_offset = -1
        self.ongoing_txns.pop(first_offset, None)
        completed = CompletedTxn(
            entry.producer_id, first_offset, offset, marker.control_type == ControlRecordType.ABORT
        )
        self.unreplicated_txns[first_offset] = completed
        return completed

    def take_snapshot(self, dir: Path, offset: int, *, sync: bool = True) -> Path:
        """Write the producers to ``<dir>/<offset>.snapshot`` (blocking; ``offset`` = the log end
        offset, or the base offset of a segment being rolled) (Kafka's
        ``ProducerStateManager.takeSnapshot``); ``sync`` False skips the fsyncs (a roll on the
        event loop: a snapshot a crash tears fails its CRC and an older one is used).

        Raises:
            OSError: the write failed.
        """
        entries = []
        for entry in self.entries.values():
            last = entry.batches[-1] if entry.batches else None
            entries.append(
                SnapshotEntry(
                    entry.producer_id,
                    entry.producer_epoch,
                    last.last_seq if last else -1,
                    last.last_offset if last else -1,
                    last.last_offset - last.first_offset if last else 0,
                    last.timestamp if last else -1,
                    entry.coordinator_epoch,
                    entry.current_txn_first_offset,
                )
            )
        return write_snapshot(dir, offset, entries, sync=sync)

    def _load_snapshot(self, log: UnifiedLog) -> int | None:
        """Load the latest usable snapshot of ``log`` (at an offset within [log start, recovery
        point]); return its offset, or None when there is none.  Snapshots past the log end offset
        (an unclean shutdown's recovery truncated the log, or a follower truncation) are removed,
        as Kafka's ``truncateAndReload`` does; those between the recovery point and the log end are
        kept but not used, so the replay covers every segment the loader recovered and rebuilds
        their ``.txnindex`` (Kafka's ``LogLoader.recoverSegment`` replays each recovered segment
        into a producer state rebuilt up to its base).  A corrupt one is removed and the one
        before it tried (logged)."""
        dir, end = log.dir, log.log_end_offset
        delete_snapshots(dir, lambda offset: offset > end)
        bound = min(end, log.recovery_point)
        offsets = [offset for offset in snapshot_offsets(dir) if log.log_start_offset <= offset <= bound]
        entries = None
        while offsets and entries is None:
            path = snapshot_path(dir, offsets[-1])
            try:
                entries = read_snapshot(path)
            except (CorruptSnapshotError, OSError) as exc:  # e.g. a roll's snapshot torn by a crash
                logger.warning("Ignoring the producer state snapshot %s: %s", path, exc)
                path.unlink(missing_ok=True)
                offsets.pop()
        if entries is None:
            return None
        for snap in entries:
            entry = ProducerStateEntry(snap.producer_id, snap.producer_epoch)
            entry.coordinator_epoch = snap.coordinator_epoch
            entry.current_txn_first_offset = snap.current_txn_first_offset
            if snap.last_offset >= 0:
                entry.batches.append(
                    BatchMetadata(
                        snap.last_sequence - snap.offset_delta,
                        snap.last_sequence,
                        snap.last_offset - snap.offset_delta,
                        snap.last_offset,
                        snap.timestamp,
                    )
                )
            if entry.current_txn_first_offset >= 0:
                self.ongoing_txns[entry.current_txn_first_offset] = entry.producer_id
            self.entries[entry.producer_id] = entry
        self.ongoing_txns = dict(sorted(self.ongoing_txns.items()))
        return offsets[-1]

    def rebuild(self, log: UnifiedLog) -> None:
        """Rebuild from ``log``'s latest snapshot at or below its recovery point and the batch headers
        after it, or without one from the batch headers of the whole log (after an unclean
        shutdown) or of its last two segments (blocking: one pread per 16 KiB of headers;
        payloads are skipped but for control batches, CRCs are the read path's job),
        re-appending to a segment's ``.txnindex`` the aborted transactions it lacks.

        Raises:
            ValueError: a header has a bad magic or an impossible length, or a control batch
                does not hold a marker.
        """
        self.clear()
        start = log.log_start_offset
        # without a snapshot: a recovered log is replayed from its start (Kafka's), a clean one
        # from its last two segments (Kafka's reload of a log without snapshots after a clean shutdown)
        segments = log.segments if log.recovery_point < log.log_end_offset else log.segments[-2:]
        snapshot_offset = self._load_snapshot(log)
        if snapshot_offset is not None:
            start = max(start, snapshot_offset)
            segments = log.segments[log.local_log.segment_index(snapshot_offset) :]
        for segment in segments:
            for position, header in segment.iter_headers():
                if header.last_offset < start:
                    continue
                marker = None
                if is_control_batch(header):
                    marker = read_end_txn_marker(
                        segment.read_batch_at(position, header.size_in_bytes), 0, header
                    )
                completed = self.update(header, header.base_offset, marker=marker)
                if completed is not None:
                    self.update_txn_index(completed, segment.txn_index)
