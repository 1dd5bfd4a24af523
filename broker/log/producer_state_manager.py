"""Idempotent producer state of one partition: last batches per producer id.

Owns: for each producer id, its epoch and the metadata of its last five batches
(first/last sequence, first/last offset).  The leader consults it before appending
so a retried batch (same producer id, epoch and sequences) is answered with its
original offsets instead of being written twice, and a batch whose sequence does not
follow the last one is refused with OUT_OF_ORDER_SEQUENCE_NUMBER.  Followers and
log loading replay batch headers into it, so a new leader dedupes retries too.
Rebuilt from the batch headers of the log's last two segments after truncation and at
start-up (no snapshots yet); owned by the partition's ``UnifiedLog``.

Kafka concept: ``ProducerStateManager``/``ProducerStateEntry`` (KIP-98), with
``NUM_BATCHES_TO_RETAIN`` = 5 (= max.in.flight.requests.per.connection).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkette.protocol.errors import InvalidProducerEpochError, OutOfOrderSequenceNumberError
from kafkette.protocol.record_batch import BatchHeader

if TYPE_CHECKING:
    from kafkette.broker.log.unified_log import UnifiedLog

NUM_BATCHES_TO_RETAIN = 5


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


@dataclass(slots=True)
class ProducerStateEntry:
    """One producer's epoch and its last batches."""

    producer_id: int
    producer_epoch: int
    batches: collections.deque[BatchMetadata] = field(
        default_factory=lambda: collections.deque(maxlen=NUM_BATCHES_TO_RETAIN)
    )

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else -1


def _last_seq(header: BatchHeader) -> int:
    return header.base_sequence + header.last_offset_delta


class ProducerStateManager:
    """Per-partition producer id -> ProducerStateEntry."""

    def __init__(self) -> None:
        self.entries: dict[int, ProducerStateEntry] = {}

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

    def update(self, header: BatchHeader, first_offset: int, max_timestamp: int | None = None) -> None:
        """Record an appended batch (``first_offset`` = its base offset in the log, ``max_timestamp``
        its max timestamp as written when it differs from ``header``'s, ms)."""
        if header.producer_id < 0:
            return
        entry = self.entries.get(header.producer_id)
        if entry is None or header.producer_epoch > entry.producer_epoch:
            entry = ProducerStateEntry(header.producer_id, header.producer_epoch)
            self.entries[header.producer_id] = entry
        elif header.producer_epoch < entry.producer_epoch:
            return
        entry.batches.append(
            BatchMetadata(
                header.base_sequence,
                _last_seq(header),
                first_offset,
                first_offset + header.last_offset_delta,
                header.max_timestamp if max_timestamp is None else max_timestamp,
            )
        )

    def rebuild(self, log: UnifiedLog) -> None:
        """Rebuild from the batch headers of ``log``'s last two segments (blocking: one pread per
        16 KiB of headers; payloads are skipped, CRCs are the read path's job).

        Raises:
            ValueError: a header has a bad magic or an impossible length.
        """
        self.entries.clear()
        start = log.log_start_offset
        for segment in log.segments[-2:]:
            for _, header in segment.iter_headers():
                if header.last_offset >= start:
                    self.update(header, header.base_offset)
