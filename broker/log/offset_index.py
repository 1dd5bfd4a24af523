"""The sparse offset index of one log segment (``<base offset>.index``).

Owns the index file and its in-memory copy: append, binary-search lookup, truncation
and corruption detection.  Does not own the log file it points into (``LogSegment``)
nor the choice of when to add an entry (every ``index.interval.bytes``).

Kafka concept: ``OffsetIndex`` (``storage/.../log/OffsetIndex.java``).
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from pathlib import Path

from kafkette.broker.log.abstract_index import INT32_MAX, AbstractIndex, CorruptIndexError

ENTRY = struct.Struct(">ii")


class OffsetIndex(AbstractIndex):
    """Maps offsets to byte positions in the segment's ``.log`` file, sparsely.

    On-disk format: a flat array of 8-byte big-endian entries, no header::

        relative_offset int32   (offset - base_offset; strictly increasing)
        position        int32   (byte position in the .log file; increasing)

    An entry ``(offset, position)`` says: the batch starting at ``position`` is the
    first batch of an append whose last offset is ``offset``.  So for any target, the
    largest entry with ``offset <= target`` gives a position at or before the batch
    that holds ``target``; a short forward scan of batch headers finds it.

    Unlike Kafka the file is not preallocated or memory-mapped: entries live in two
    ``array('i')`` columns in memory and each new entry is written at the end of the
    file, so the file size is always ``entries * 8``.

    Invariants: relative offsets strictly increase, positions increase, and there are
    at most ``max(1, max_index_size_bytes // 8)`` entries before ``is_full``.

    Args:
        path: the ``.index`` file; created when missing.
        base_offset: the segment's base offset.
        max_index_size_bytes: ``segment.index.bytes``.

    Raises:
        CorruptIndexError: the existing file's size is not a multiple of 8 or its entries
            are not increasing (the file is left in place for the caller to delete).
    """

    ENTRY = ENTRY

    def __init__(self, path: Path, base_offset: int, max_index_size_bytes: int) -> None:
        self._positions = array("i")
        super().__init__(path, base_offset, self.entries_fitting(max_index_size_bytes, 1))

    def _columns(self) -> tuple[array, ...]:
        return self._relative_offsets, self._positions

    def _load(self) -> None:
        data = self._read_entries("index")
        last_rel = last_pos = -1
        for rel, pos in ENTRY.iter_unpack(data):
            if rel <= last_rel or pos < last_pos or pos < 0:
                raise CorruptIndexError(
                    f"index file {self.path} entry #{len(self._positions)} ({rel}, {pos}) is not increasing"
                )
            self._relative_offsets.append(rel)
            self._positions.append(pos)
            last_rel, last_pos = rel, pos

    def sanity_check(self, log_size_bytes: int) -> None:
        """Check that every entry points inside a log file of ``log_size_bytes``.

        Raises:
            CorruptIndexError: the last entry points at or past the end of the log.
        """
        if self._positions and self._positions[-1] >= log_size_bytes:
            raise CorruptIndexError(
                f"index file {self.path} points to position {self._positions[-1]} "
                f"but the log has {log_size_bytes} bytes"
            )

    @property
    def is_full(self) -> bool:
        """True when no entry can be added (``segment.index.bytes`` reached): the log rolls."""
        return len(self._positions) >= self.max_entries

    def entry(self, n: int) -> tuple[int, int]:
        """Return entry ``n`` as ``(absolute offset, position)``."""
        return self.base_offset + self._relative_offsets[n], self._positions[n]

    @property
    def last_entry(self) -> tuple[int, int]:
        """The last entry, or ``(base_offset, 0)`` when empty."""
        if not self._positions:
            return self.base_offset, 0
        return self.entry(len(self._positions) - 1)

    def append(self, offset: int, position: int) -> None:
        """Add an entry at the end of the index (memory and file).

        Args:
            offset: absolute offset (last offset of the append at ``position``).
            position: byte position in the ``.log`` file.

        Raises:
            ValueError: the index is full, the offset is not larger than the last entry's,
                the relative offset or the position does not fit an int32.
        """
        rel = offset - self.base_offset
        if self.is_full:
            raise ValueError(f"index {self.path} is full ({self.max_entries} entries)")
        if not 0 <= rel <= INT32_MAX or not 0 <= position <= INT32_MAX:
            raise ValueError(f"entry ({offset}, {position}) out of range for index {self.path}")
        if self._relative_offsets and rel <= self._relative_offsets[-1]:
            raise ValueError(
                f"offset {offset} is not larger than the last entry "
                f"{self.base_offset + self._relative_offsets[-1]} of index {self.path}"
            )
        if self._positions and position < self._positions[-1]:
            raise ValueError(f"position {position} is before the last entry's in index {self.path}")
        self._write_entry(rel, position)
        self._relative_offsets.append(rel)
        self._positions.append(position)

    def lookup(self, target_offset: int) -> tuple[int, int]:
        """Find the largest entry whose offset is <= ``target_offset`` (binary search).

        Returns:
            ``(offset, position)`` of that entry, or ``(base_offset, 0)`` when there is none.
        """
        rel = target_offset - self.base_offset
        if rel < 0:
            return self.base_offset, 0
        slot = bisect_right(self._relative_offsets, min(rel, INT32_MAX)) - 1
        if slot < 0:
            return self.base_offset, 0
        return self.base_offset + self._relative_offsets[slot], self._positions[slot]
