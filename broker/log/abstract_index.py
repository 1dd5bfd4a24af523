"""What the offset index and the time index of a segment share: the file, the relative
offset column, truncation by offset, fsync and the close/delete lifecycle.

Owns the index file descriptor and the generic column bookkeeping.  Does not own the
entry layout, loading, lookup or append rules (``OffsetIndex``, ``TimeIndex``).

Kafka concept: ``AbstractIndex`` (``storage/.../log/AbstractIndex.java``).
"""

from __future__ import annotations

import os
import struct
from array import array
from bisect import bisect_left
from pathlib import Path

INT32_MAX = 2**31 - 1


class CorruptIndexError(Exception):
    """An index file is unusable (torn entry, entries not increasing, pointing past the log).

    The owning segment deletes the file and rebuilds it from the log.
    """


class IndexFile:
    """The file side of a segment index: ``path`` and its descriptor ``_fd`` (-1 while closed or
    not yet opened), fsynced, closed and removed the same way by every index."""

    path: Path
    _fd: int

    def flush(self) -> None:
        """fsync the index file when it is open (blocking)."""
        if self._fd >= 0:
            os.fsync(self._fd)

    def close(self) -> None:
        """Close the file; idempotent."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def delete(self) -> None:
        """Close and remove the file (missing is fine)."""
        self.close()
        self.path.unlink(missing_ok=True)


class AbstractIndex(IndexFile):
    """A sparse index file of fixed-size entries kept in memory as ``array`` columns.

    Subclasses set ``ENTRY`` (the on-disk entry ``struct``), keep their columns (one of
    them ``_relative_offsets``: offset - base offset, non-decreasing) and implement
    ``_columns`` and ``_load``.  Unlike Kafka the file is not preallocated or
    memory-mapped: each entry is written at the end of the file, so its size is always
    ``entries * ENTRY.size``.

    Args:
        path: the index file; created when missing.
        base_offset: the segment's base offset.
        max_entries: how many entries fit (from ``segment.index.bytes``).

    Raises:
        ValueError: ``max_entries`` < 1.
        CorruptIndexError: from the subclass's ``_load`` (the file is left in place).
        OSError: the file cannot be opened or read.
    """

    ENTRY: struct.Struct

    def __init__(self, path: Path, base_offset: int, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"an index needs room for at least one entry, got {max_entries}")
        self.path = Path(path)
        self.base_offset = base_offset
        self.max_entries = max_entries
        self._relative_offsets = array("i")
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._load()
        except BaseException:
            os.close(self._fd)
            self._fd = -1
            raise

    @classmethod
    def entries_fitting(cls, max_index_size_bytes: int, minimum_entries: int) -> int:
        """How many ``ENTRY``-sized entries the index may hold (Kafka's ``maxIndexSize / entrySize``).

        Args:
            max_index_size_bytes: the segment's ``segment.index.bytes`` (bytes).
            minimum_entries: the floor, whatever the size (1 for the offset index, 2 for the time index).

        Returns:
            ``max(minimum_entries, max_index_size_bytes // ENTRY.size)``.

        Raises:
            ValueError: ``max_index_size_bytes`` < 0.
        """
        if max_index_size_bytes < 0:
            raise ValueError(f"max_index_size_bytes must be >= 0, got {max_index_size_bytes}")
        return max(minimum_entries, max_index_size_bytes // cls.ENTRY.size)

    def _columns(self) -> tuple[array, ...]:
        """Every in-memory column (truncated together)."""
        raise NotImplementedError

    def _load(self) -> None:
        """Fill the columns from the file; raise CorruptIndexError when it is unusable."""
        raise NotImplementedError

    def _read_entries(self, kind: str) -> bytes:
        """The whole file, checked to be a whole number of entries (for ``_load``)."""
        size = os.fstat(self._fd).st_size
        if size % self.ENTRY.size:
            raise CorruptIndexError(
                f"{kind} file {self.path} has size {size}, not a multiple of {self.ENTRY.size}"
            )
        return os.pread(self._fd, size, 0) if size else b""

    def _write_entry(self, *fields: int) -> None:
        """Write one entry at the end of the file (the caller then appends to the columns)."""
        os.pwrite(self._fd, self.ENTRY.pack(*fields), len(self._relative_offsets) * self.ENTRY.size)

    @property
    def entries(self) -> int:
        """Number of entries."""
        return len(self._relative_offsets)

    @property
    def size_in_bytes(self) -> int:
        """File size in bytes (entries * entry size)."""
        return len(self._relative_offsets) * self.ENTRY.size

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is >= ``offset`` (memory and file)."""
        rel = offset - self.base_offset
        keep = 0 if rel <= 0 else bisect_left(self._relative_offsets, min(rel, INT32_MAX + 1))
        if keep < len(self._relative_offsets):
            for column in self._columns():
                del column[keep:]
        os.ftruncate(self._fd, keep * self.ENTRY.size)

    def reset(self) -> None:
        """Drop every entry (before a rebuild)."""
        self.truncate_to(self.base_offset)

    def dup_fd(self) -> int:
        """A duplicate of the file descriptor, for an fsync in an executor; the caller closes it."""
        return os.dup(self._fd)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(path={self.path}, base_offset={self.base_offset}, entries={self.entries})"
        )
