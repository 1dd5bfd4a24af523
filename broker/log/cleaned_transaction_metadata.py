"""What the log cleaner knows of transactions while it walks a run of batches in offset order.

Fed the aborted transactions (``AbortedTxn``, from the ``.txnindex`` files) overlapping the run,
it answers, batch by batch, whether the batch may be discarded:

* a data batch of an aborted transaction: yes (its records are never read by a READ_COMMITTED
  consumer and a READ_UNCOMMITTED one may miss them, as in Kafka);
* any other data batch: no; a transactional one marks its producer's committed transaction as
  having data in this run;
* an ABORT marker: no while data batches of its transaction were seen in this run (they are
  being removed now: the marker and its ``.txnindex`` entry stay for one more pass), else yes;
* a COMMIT marker: no while data batches of its transaction were seen in this run, else yes.

A marker that may be discarded still goes only once its delete horizon passed (KIP-534; the
cleaner's job, ``log_cleaner``).

Kafka concept: ``CleanedTransactionMetadata`` / ``AbortedTransactionMetadata`` of
``LogCleaner`` (KIP-98).
"""

from __future__ import annotations

from kafkette.broker.log.transaction_index import AbortedTxn, TransactionIndex
from kafkette.protocol.control_record import ControlRecordType, EndTransactionMarker
from kafkette.protocol.record_batch import TRANSACTIONAL_MASK, BatchHeader


class CleanedTransactionMetadata:
    """Transaction state of one cleaning walk (see the module docstring).

    Args:
        aborted: the aborted transactions overlapping the walk, any order.
        cleaned_index: the cleaned segment's ``.txnindex``, given the ABORT markers kept
            because their data was seen; None while building the offset map.
    """

    def __init__(self, aborted: list[AbortedTxn], cleaned_index: TransactionIndex | None = None) -> None:
        self._aborted = sorted(aborted, key=lambda txn: txn.first_offset, reverse=True)  # popped from the end
        self._ongoing_aborted: dict[int, tuple[AbortedTxn, list[int]]] = {}  # pid -> (txn, [last seen])
        self._ongoing_committed: set[int] = set()
        self.cleaned_index = cleaned_index

    def _consume_aborted_up_to(self, offset: int) -> None:
        while self._aborted and self._aborted[-1].first_offset <= offset:
            txn = self._aborted.pop()
            self._ongoing_aborted.setdefault(txn.producer_id, (txn, []))

    def on_batch_read(self, header: BatchHeader) -> bool:
        """A data batch read; True when it belongs to an aborted transaction (discard it).

        Kafka concept: ``CleanedTransactionMetadata.onBatchRead``."""
        self._consume_aborted_up_to(header.last_offset)
        if not header.attributes & TRANSACTIONAL_MASK:
            return False
        ongoing = self._ongoing_aborted.get(header.producer_id)
        if ongoing is not None:
            ongoing[1][:] = [header.last_offset]
            return True
        self._ongoing_committed.add(header.producer_id)
        return False

    def on_control_batch_read(self, header: BatchHeader, marker: EndTransactionMarker) -> bool:
        """A COMMIT/ABORT marker read; True when no data batch of its transaction was seen in
        this walk (the marker may go once its delete horizon passed).  An ABORT marker kept for
        its data is appended to ``cleaned_index``.

        Raises:
            ValueError: the cleaned index refused the entry (out of order).
            OSError: the cleaned index could not be written.

        Kafka concept: ``CleanedTransactionMetadata.onControlBatchRead``."""
        self._consume_aborted_up_to(header.last_offset)
        producer_id = header.producer_id
        if marker.control_type == ControlRecordType.ABORT:
            ongoing = self._ongoing_aborted.pop(producer_id, None)
            if ongoing is not None and ongoing[1]:
                if self.cleaned_index is not None:
                    self.cleaned_index.append(ongoing[0])
                return False
            return True
        if marker.control_type == ControlRecordType.COMMIT:
            if producer_id in self._ongoing_committed:
                self._ongoing_committed.discard(producer_id)
                return False
            return True
        return False
