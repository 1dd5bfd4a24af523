"""The time index of one log segment (``<base offset>.timeindex``).

Owns the index file and its in-memory copy: conditional append (only when the
timestamp grows), binary-search lookup by timestamp, truncation by offset and
corruption detection.  Does not own the log file, the offset index it is used with,
nor the choice of when to add an entry (``LogSegment``: on the offset index cadence,
every ``index.interval.bytes``, and once more when the segment is rolled).

Kafka concept: ``TimeIndex`` (``storage/.../log/TimeIndex.java``).
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from pathlib import Path

from kafkette.broker.log.abstract_index import INT32_MAX, AbstractIndex, CorruptIndexError

ENTRY = struct.Struct(">qi")
NO_TIMESTAMP = -1


class TimeIndex(AbstractIndex):
    """Maps timestamps to offsets in one segment, sparsely.

    On-disk format: a flat array of 12-byte big-endian entries, no header::

        timestamp        int64   (ms; strictly increasing from entry to entry)
        relative_offset  int32   (offset - base_offset; non-decreasing)

    An entry ``(T, O)`` says: the largest timestamp of every batch up to and including
    offset ``O`` is ``T``, and ``O`` is the last offset of the first batch that reached
    ``T`` (Kafka's ``shallowOffsetOfMaxTimestampSoFar``).  So every record below the
    batch holding ``O`` has a timestamp below ``T``: for a target timestamp, the largest
    entry with ``T <= target`` gives an offset at or before the first record whose
    timestamp is >= target; a forward scan of batch headers (then of that batch's
    records) finds it.

    Entries are added on the offset index's cadence and only when the segment's max
    timestamp grew since the last entry (``maybe_append``).  As in Kafka the last slot
    is kept for the entry added when the segment is rolled, so ``is_full`` is true one
    entry early.  Like ``OffsetIndex`` the file is not preallocated or memory-mapped:
    entries live in two arrays and each new one is written at the end of the file
    (file size = ``entries * 12``).

    Args:
        path: the ``.timeindex`` file; created when missing.
        base_offset: the segment's base offset.
        max_index_size_bytes: ``segment.index.bytes`` (Kafka sizes both indexes by it):
            ``max_index_size_bytes // 12`` slots, at least 2 (one usable, one kept).

    Raises:
        CorruptIndexError: the existing file's size is not a multiple of 12, its
            timestamps decrease or its offsets decrease or fall below the base offset
            (the file is left in place for the caller to delete).
    """

    ENTRY = ENTRY

    def __init__(self, path: Path, base_offset: int, max_index_size_bytes: int) -> None:
        self._timestamps = array("q")
        super().__init__(path, base_offset, self.entries_fitting(max_index_size_bytes, 2))

    def _columns(self) -> tuple[array, ...]:
        return self._timestamps, self._relative_offsets

    def _load(self) -> None:
        data = self._read_entries("time index")
        last_ts = NO_TIMESTAMP
        last_rel = 0
        for timestamp, rel in ENTRY.iter_unpack(data):
            if timestamp <= last_ts or rel < last_rel:
                raise CorruptIndexError(
                    f"time index file {self.path} entry #{len(self._timestamps)} ({timestamp}, {rel}) "
                    f"does not follow ({last_ts}, {last_rel})"
                )
            self._timestamps.append(timestamp)
            self._relative_offsets.append(rel)
            last_ts, last_rel = timestamp, rel

    def sanity_check(self, next_offset: int) -> None:
        """Check that every entry points inside a segment whose next offset is ``next_offset``.

        Raises:
            CorruptIndexError: the last entry's offset is at or past ``next_offset``.
        """
        if self._relative_offsets and self.base_offset + self._relative_offsets[-1] >= next_offset:
            raise CorruptIndexError(
                f"time index file {self.path} points to offset "
                f"{self.base_offset + self._relative_offsets[-1]} "
                f"but the segment ends before offset {next_offset}"
            )

    @property
    def is_full(self) -> bool:
        """True when only the slot kept for the roll entry is left: the log rolls."""
        return len(self._timestamps) >= self.max_entries - 1

    def entry(self, n: int) -> tuple[int, int]:
        """Return entry ``n`` as ``(timestamp ms, absolute offset)``."""
        return self._timestamps[n], self.base_offset + self._relative_offsets[n]

    @property
    def last_entry(self) -> tuple[int, int]:
        """The last entry, or ``(-1, base_offset)`` when empty (Kafka's NO_TIMESTAMP)."""
        if not self._timestamps:
            return NO_TIMESTAMP, self.base_offset
        return self.entry(len(self._timestamps) - 1)

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> bool:
        """Add ``(timestamp, offset)`` if ``timestamp`` is larger than the last entry's.

        Args:
            timestamp: the segment's max timestamp so far (ms).
            offset: last offset of the first batch that carried it.
            skip_full_check: allow the kept last slot (the entry added on roll).

        Returns:
            True when an entry was written.

        Raises:
            ValueError: the index is full, ``offset`` is below the last entry's offset or
                the base offset (or does not fit an int32), or ``timestamp`` is below the
                last entry's.
        """
        rel = offset - self.base_offset
        if not skip_full_check and self.is_full:
            raise ValueError(f"time index {self.path} is full ({self.entries} entries)")
        if not 0 <= rel <= INT32_MAX:
            raise ValueError(f"offset {offset} out of range for time index {self.path}")
        last_ts, last_offset = self.last_entry
        if self._timestamps and offset < last_offset:
            raise ValueError(
                f"offset {offset} is below the last entry {last_offset} of time index {self.path}"
            )
        if self._timestamps and timestamp < last_ts:
            raise ValueError(
                f"timestamp {timestamp} is below the last entry {last_ts} of time index {self.path}"
            )
        if timestamp <= last_ts:
            return False
        self._write_entry(timestamp, rel)
        self._timestamps.append(timestamp)
        self._relative_offsets.append(rel)
        return True

    def lookup(self, target_timestamp: int) -> tuple[int, int]:
        """Find the largest entry whose timestamp is <= ``target_timestamp`` (binary search).

        Returns:
            ``(timestamp, offset)`` of that entry, or ``(-1, base_offset)`` when there is none.
        """
        slot = bisect_right(self._timestamps, target_timestamp) - 1
        if slot < 0:
            return NO_TIMESTAMP, self.base_offset
        return self.entry(slot)
