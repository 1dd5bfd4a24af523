"""The aborted transactions of one segment: ``<20-digit base offset>.txnindex``.

On-disk format: 34-byte entries back to back, big-endian, in the order the ABORT markers
were appended (so ``last_offset`` increases)::

    offset  size  field
         0     2  version            (0)
         2     8  producer_id
        10     8  first_offset       (the transaction's first batch)
        18     8  last_offset        (the ABORT marker)
        26     8  last_stable_offset (the partition's LSO once the marker was appended)

The file is created at the first aborted transaction of its segment; the entries are
also kept in memory (an index holds few).  A READ_COMMITTED fetch collects the entries
overlapping its range so the consumer can drop the aborted batches.

Kafka concept: ``TransactionIndex`` and ``AbortedTxn`` (KIP-98).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import NamedTuple

from kafkette.broker.log.abstract_index import IndexFile

TXN_INDEX_SUFFIX = ".txnindex"
_ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = _ENTRY.size  # 34
CURRENT_VERSION = 0


class CorruptTransactionIndexError(ValueError):
    """The ``.txnindex`` file is not a whole number of valid entries."""


class AbortedTxn(NamedTuple):
    """One aborted transaction: its producer, first and last (marker) offsets, and the LSO
    after its marker (Kafka's ``AbortedTxn``)."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


class TxnIndexSearchResult(NamedTuple):
    """``collect_aborted_txns``' answer: the entries found, and whether the search is complete
    (an entry ends at or past the upper bound, so later segments need not be read)."""

    aborted_transactions: list[AbortedTxn]
    is_complete: bool


class TransactionIndex(IndexFile):
    """A segment's ``.txnindex`` (see the module docstring).

    Args:
        start_offset: the segment's base offset.
        path: the file; read at once when it exists.

    Raises:
        CorruptTransactionIndexError: the file's size is not a multiple of 34 bytes or an
            entry has an unknown version.
    """

    def __init__(self, start_offset: int, path: Path) -> None:
        self.start_offset = start_offset
        self.path = Path(path)
        self._fd = -1
        self.entries: list[AbortedTxn] = []
        if self.path.exists():
            data = self.path.read_bytes()
            if len(data) % ENTRY_SIZE:
                raise CorruptTransactionIndexError(
                    f"{self.path} is {len(data)} bytes, not a multiple of the {ENTRY_SIZE}-byte entry"
                )
            for version, *fields in _ENTRY.iter_unpack(data):
                if version != CURRENT_VERSION:
                    raise CorruptTransactionIndexError(f"{self.path} holds an entry of version {version}")
                self.entries.append(AbortedTxn(*fields))

    def append(self, aborted: AbortedTxn) -> None:
        """Append one aborted transaction (the file is created at the first).

        Raises:
            ValueError: its last offset is below the last entry's (Kafka: "The last offset of
                appended transactions must increase sequentially").
            OSError: the write failed.
        """
        if self.entries and aborted.last_offset < self.entries[-1].last_offset:
            raise ValueError(
                f"The last offset of appended transactions must increase sequentially, but "
                f"{aborted.last_offset} is not greater than current last offset "
                f"{self.entries[-1].last_offset} of index {self.path}"
            )
        if self._fd < 0:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.write(self._fd, _ENTRY.pack(CURRENT_VERSION, *aborted))
        self.entries.append(aborted)

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """The aborted transactions overlapping ``[fetch_offset, upper_bound_offset)``.

        Kafka concept: ``TransactionIndex.collectAbortedTxns``.

        Args:
            fetch_offset: first offset fetched.
            upper_bound_offset: exclusive end of the fetched range (the next segment's
                base offset, or the LSO).

        Returns:
            The entries whose ``last_offset >= fetch_offset`` and ``first_offset <
            upper_bound_offset``; complete when one ends at or past ``upper_bound_offset``.
        """
        found: list[AbortedTxn] = []
        for aborted in self.entries:
            if aborted.last_offset >= fetch_offset and aborted.first_offset < upper_bound_offset:
                found.append(aborted)
            if aborted.last_offset >= upper_bound_offset:
                return TxnIndexSearchResult(found, True)
        return TxnIndexSearchResult(found, False)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries whose last offset is >= ``offset`` (the log was truncated there).

        Raises:
            OSError: the truncation failed.
        """
        kept = [aborted for aborted in self.entries if aborted.last_offset < offset]
        if len(kept) == len(self.entries):
            return
        self.entries = kept
        if self._fd < 0 and self.path.exists():
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND, 0o644)
        if self._fd >= 0:
            os.ftruncate(self._fd, len(kept) * ENTRY_SIZE)

    def reset(self) -> None:
        """Drop every entry (the segment is being recovered and its index rebuilt)."""
        self.truncate_to(-1)

    def dup_fd(self) -> int | None:
        """A duplicate of the file's descriptor for an fsync off the event loop, None when the
        file was never written by this process."""
        return os.dup(self._fd) if self._fd >= 0 else None
