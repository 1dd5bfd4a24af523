"""Which fetched batches a read_committed consumer drops: those of aborted transactions.

Owns: ``AbortedTransactionFilter``, built from one fetch answer's ``aborted_transactions``
(``(producer_id, first_offset)`` pairs): walking the answer's batches in offset order, a producer id
is aborted from its ``first_offset`` until its ABORT control batch, and a transactional batch of an
aborted producer id is dropped.  Control batches are never records for the application (either
isolation level).  Does not own decoding records (``fetcher``).

Kafka concept: ``CompletedFetch``'s ``abortedProducerIds`` / ``abortedTransactions`` and
``nextFetchedBatch`` in the consumer's ``Fetcher`` (KIP-98, ``isolation.level=read_committed``).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from kafkette.protocol.control_record import (
    ControlRecordType,
    is_control_batch,
    is_transactional_batch,
    read_end_txn_marker,
)
from kafkette.protocol.record_batch import BatchHeader, CorruptRecordError

READ_UNCOMMITTED = 0
READ_COMMITTED = 1
ISOLATION_LEVELS = {"read_uncommitted": READ_UNCOMMITTED, "read_committed": READ_COMMITTED}


def isolation_level_id(name: str) -> int:
    """Kafka's ``isolation.level`` name -> the FetchRequest/ListOffsetsRequest id (0 or 1).

    Raises:
        ValueError: not ``read_uncommitted`` or ``read_committed``.
    """
    try:
        return ISOLATION_LEVELS[name]
    except KeyError:
        raise ValueError(
            f"isolation_level must be 'read_uncommitted' or 'read_committed', not {name!r}"
        ) from None


class AbortedTransactionFilter:
    """Decides, batch by batch in offset order, whether a read_committed fetch drops a batch.

    Args:
        aborted_transactions: the fetch answer's ``(producer_id, first_offset)`` pairs (objects with
            those attributes, or tuples), in any order; None or empty when nothing was aborted.
    """

    def __init__(self, aborted_transactions: Iterable[object] | None) -> None:
        pending: list[tuple[int, int]] = []
        for txn in aborted_transactions or ():
            if isinstance(txn, tuple):
                producer_id, first_offset = txn
            else:
                producer_id, first_offset = txn.producer_id, txn.first_offset  # type: ignore[attr-defined]
            pending.append((first_offset, producer_id))
        heapq.heapify(pending)
        self._pending = pending  # by first_offset (Kafka's PriorityQueue)
        self._aborted_producer_ids: set[int] = set()

    def skip(self, buf: bytes | memoryview, pos: int, header: BatchHeader) -> bool:
        """True when the batch at ``pos`` is not for the application: a control batch, or a
        transactional batch of a producer id whose transaction was aborted.  Call once per batch,
        in offset order (an ABORT marker ends its producer id's aborted range).

        A control batch whose marker cannot be read is dropped as a COMMIT would be.
        """
        if header.producer_id >= 0:
            pending = self._pending
            while pending and pending[0][0] <= header.last_offset:
                self._aborted_producer_ids.add(heapq.heappop(pending)[1])
            if is_control_batch(header):
                if self._is_abort_marker(buf, pos, header):
                    self._aborted_producer_ids.discard(header.producer_id)
                return True
            if is_transactional_batch(header) and header.producer_id in self._aborted_producer_ids:
                return True
        return is_control_batch(header)

    @staticmethod
    def _is_abort_marker(buf: bytes | memoryview, pos: int, header: BatchHeader) -> bool:
        try:
            return read_end_txn_marker(buf, pos, header).control_type is ControlRecordType.ABORT
        except CorruptRecordError:
            return False


class ControlBatchFilter:
    """read_uncommitted: drops only control batches (Kafka never hands their records out)."""

    @staticmethod
    def skip(buf: bytes | memoryview, pos: int, header: BatchHeader) -> bool:
        """True for a control batch."""
        return is_control_batch(header)
