"""One log segment: ``<20-digit base offset>.log`` plus its ``.index``, ``.timeindex`` and ``.txnindex``.

Owns the segment's files: append, read of whole batches, offset-to-position and
timestamp-to-offset translation, the segment's max timestamp, recovery (validate and
truncate a torn or corrupt tail, rebuild both indexes) and truncation.  Does not own
rolling (it answers ``time_waited_for_roll``), offsets assignment or the flush policy
(``LocalLog``).  Appends and reads use ``os.pwrite``/``os.pread`` directly on the event
loop (page cache); ``flush()`` blocks and is meant for an executor.

Kafka concept: ``LogSegment``.
"""

from __future__ import annotations

import logging
import os
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kafkette.broker.log.abstract_index import INT32_MAX, CorruptIndexError
from kafkette.broker.log.offset_index import OffsetIndex
from kafkette.broker.log.time_index import NO_TIMESTAMP, TimeIndex
from kafkette.broker.log.transaction_index import (
    TXN_INDEX_SUFFIX,
    CorruptTransactionIndexError,
    TransactionIndex,
)
from kafkette.protocol.record_batch import (
    BASE_OFFSET_AND_LENGTH,
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    BatchHeader,
    compute_crc,
    decode_records,
    read_header,
)

logger = logging.getLogger(__name__)

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
_SCAN_CHUNK_BYTES = 16 * 1024


def segment_file_name(base_offset: int, suffix: str) -> str:
    """File name of a segment file: 20-digit zero-padded base offset plus suffix."""
    return f"{base_offset:020d}{suffix}"


@dataclass(frozen=True, slots=True)
class TimestampAndOffset:
    """A record found by timestamp (Kafka's ``FileRecords.TimestampAndOffset``).

    Attributes:
        timestamp: the record's timestamp (ms).
        offset: the record's offset.
        leader_epoch: partition leader epoch of its batch (-1 when unknown).
    """

    timestamp: int
    offset: int
    leader_epoch: int = -1


def monotonic_ms() -> int:
    """The log's default clock: ``time.monotonic()`` in ms (Kafka's ``Time.SYSTEM.milliseconds()`` role).

    Segment ages (``segment.ms`` rolls) and the log manager's schedules compare readings of
    this clock; tests inject their own ``time_ms`` instead.

    Returns:
        Monotonic time in ms (only differences are meaningful).
    """
    return int(time.monotonic() * 1000)


# base offset, batch length, (leader epoch, magic, crc, attributes skipped), last offset delta,
# base timestamp, max timestamp: the header fields the max-timestamp scan needs.
_TIMESTAMP_FIELDS = struct.Struct(">qi11xiqq")


def max_timestamp_and_offset(records: bytes | bytearray | memoryview) -> tuple[int, int]:
    """Largest batch max timestamp in ``records`` and the last offset of the first batch carrying it.

    Reads only batch headers (one small unpack per batch: this is on the append path).

    Returns:
        ``(max timestamp ms, offset)``; ``(-1, -1)`` when ``records`` holds no whole header.
    """
    max_timestamp = offset = NO_TIMESTAMP
    position = 0
    end = len(records)
    while end - position >= HEADER_SIZE:
        base_offset, batch_length, last_offset_delta, _, batch_max = _TIMESTAMP_FIELDS.unpack_from(
            records, position
        )
        if batch_max > max_timestamp:
            max_timestamp, offset = batch_max, base_offset + last_offset_delta
        position += batch_length + LOG_OVERHEAD
    return max_timestamp, offset


class LogSegment:
    """A contiguous run of batches in one file, with a sparse offset index and a time index.

    Files: ``<dir>/<base:020d>.log`` (batches back to back, exactly as received; see
    ``kafkette.protocol.record_batch`` for the 61-byte header), ``<dir>/<base:020d>.index``
    (see ``OffsetIndex``), ``<dir>/<base:020d>.timeindex`` (see ``TimeIndex``) and, once a
    transaction aborted in it, ``<dir>/<base:020d>.txnindex`` (see ``TransactionIndex``).
    Every batch's offsets lie in ``[base_offset, base_offset + 2**31 - 1]`` and
    increase through the file.

    An offset index entry is added when more than ``index_interval_bytes`` were
    appended since the previous one; at the same moment the time index gets the
    segment's max timestamp so far if it grew (Kafka's ``maxTimestampAndOffsetSoFar``,
    tracked from batch headers on append, load, recovery and truncation), and once
    more when the segment stops being the active one (``on_become_inactive_segment``).
    ``needs_recovery`` is set on open when an index was missing or corrupt, or the tail
    of the log is not a whole batch; the log loader then calls ``recover()``.

    Preallocation (``preallocate``, Kafka's ``FileRecords`` with ``initFileSize``): a
    ``.log`` file this constructor creates is extended to ``init_file_size`` bytes at once
    (``ftruncate``, as Java's ``RandomAccessFile.setLength``: the file system allocates the
    blocks, or leaves the file sparse); ``size`` counts the batches only, and ``trim()``
    cuts the file back to them when the segment stops being active and when it is closed.
    A file left long by a crash ends in zeros, which recovery truncates as a torn tail.

    Args:
        dir: the partition directory.
        base_offset: first offset this segment may hold.
        index_interval_bytes: ``index.interval.bytes``.
        max_index_size_bytes: ``segment.index.bytes`` (sizes both indexes, as in Kafka).
        roll_jitter_ms: this segment's random share of ``segment.jitter.ms`` (ms).
        created_ms: creation time on the owning log's clock (ms); default: monotonic now.
        init_file_size: length in bytes a new ``.log`` file is given (``segment.bytes`` with
            ``preallocate``, else 0); an existing file is opened as it is.
    """

    def __init__(
        self,
        dir: Path,
        base_offset: int,
        *,
        index_interval_bytes: int,
        max_index_size_bytes: int,
        roll_jitter_ms: int = 0,
        created_ms: int | None = None,
        init_file_size: int = 0,
    ) -> None:
        if base_offset < 0:
            raise ValueError(f"base_offset must be >= 0, got {base_offset}")
        self.dir = Path(dir)
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.log_path = self.dir / segment_file_name(base_offset, LOG_SUFFIX)
        self.index_path = self.dir / segment_file_name(base_offset, INDEX_SUFFIX)
        self.time_index_path = self.dir / segment_file_name(base_offset, TIME_INDEX_SUFFIX)
        self.txn_index_path = self.dir / segment_file_name(base_offset, TXN_INDEX_SUFFIX)
        self.roll_jitter_ms = roll_jitter_ms
        self.created_ms = monotonic_ms() if created_ms is None else created_ms
        self._first_batch_timestamp: int | None = None
        self.needs_recovery = False
        self.last_recovery_error: str | None = None
        self.last_recovery_position = 0
        index_existed = self.index_path.exists()
        log_existed = self.log_path.exists()
        self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT, 0o644)
        self._size = os.fstat(self._fd).st_size
        self._preallocated = False  # the file is longer than its batches until trim()
        if not log_existed and init_file_size > 0:
            try:
                os.ftruncate(self._fd, init_file_size)
            except OSError:
                os.close(self._fd)
                raise
            self._preallocated = True
        try:
            self.index = OffsetIndex(self.index_path, base_offset, max_index_size_bytes)
            self.index.sanity_check(self._size)
        except CorruptIndexError as exc:
            logger.warning("Found a corrupt index %s (%s); it will be rebuilt", self.index_path, exc)
            if hasattr(self, "index"):
                self.index.close()
            self.index_path.unlink(missing_ok=True)
            self.index = OffsetIndex(self.index_path, base_offset, max_index_size_bytes)
            self.needs_recovery = True
        if not index_existed and self._size > 0:
            self.needs_recovery = True
        self.time_index = self._open_time_index(max_index_size_bytes)
        self._bytes_since_last_index_entry = 0
        self._next_offset = self._load_next_offset()
        try:
            self.time_index.sanity_check(self._next_offset)
        except CorruptIndexError as exc:
            logger.warning(
                "Found a corrupt time index %s (%s); it will be rebuilt", self.time_index_path, exc
            )
            self.time_index.delete()
            self.time_index = TimeIndex(self.time_index_path, self.base_offset, max_index_size_bytes)
            self.needs_recovery = True
        try:
            self.txn_index = TransactionIndex(base_offset, self.txn_index_path)
        except CorruptTransactionIndexError as exc:
            logger.warning("Found a corrupt transaction index (%s); it will be rebuilt", exc)
            self.txn_index_path.unlink(missing_ok=True)
            self.txn_index = TransactionIndex(base_offset, self.txn_index_path)

    def _open_time_index(self, max_index_size_bytes: int) -> TimeIndex:
        """Open the ``.timeindex``; a missing (with data) or corrupt one flags recovery."""
        if not self.time_index_path.exists() and self._size > 0:
            self.needs_recovery = True
        try:
            return TimeIndex(self.time_index_path, self.base_offset, max_index_size_bytes)
        except CorruptIndexError as exc:
            logger.warning(
                "Found a corrupt time index %s (%s); it will be rebuilt", self.time_index_path, exc
            )
            self.time_index_path.unlink(missing_ok=True)
            self.needs_recovery = True
            return TimeIndex(self.time_index_path, self.base_offset, max_index_size_bytes)

    def _load_next_offset(self) -> int:
        """Scan from the last index entry to the end; flag a torn tail for recovery.

        Also sets the max timestamp so far: the time index's last entry, raised by the
        batches scanned (the time index covers every batch before that position).
        """
        _, position = self.index.last_entry
        next_offset = self.base_offset
        end = position
        self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = self.time_index.last_entry
        self._first_batch_timestamp = None
        try:
            for pos, header in self._iter_headers(position):
                if pos + header.size_in_bytes > self._size:
                    break
                next_offset = header.next_offset
                end = pos + header.size_in_bytes
                self._track_max_timestamp(header)
        except ValueError:
            pass
        if end != self._size:
            self.needs_recovery = True
        if self.index.entries and next_offset == self.base_offset:
            self.needs_recovery = True
        return next_offset

    @property
    def size(self) -> int:
        """Size of the ``.log`` file in bytes."""
        return self._size

    def _track_max_timestamp(self, header: BatchHeader) -> None:
        if header.max_timestamp > self._max_timestamp_so_far:
            self._max_timestamp_so_far = header.max_timestamp
            self._offset_of_max_timestamp_so_far = header.last_offset

    @property
    def max_timestamp_so_far(self) -> int:
        """Largest batch max timestamp in the segment (ms), -1 when empty (Kafka's maxTimestampSoFar)."""
        return self._max_timestamp_so_far

    @property
    def offset_of_max_timestamp_so_far(self) -> int:
        """Last offset of the first batch that carries ``max_timestamp_so_far`` (base offset when empty)."""
        return self._offset_of_max_timestamp_so_far

    @property
    def largest_timestamp(self) -> int:
        """The segment's largest timestamp (ms) as retention sees it (Kafka's ``largestTimestamp``).

        The largest batch max timestamp, or, when the segment has no timestamped batch,
        the ``.log`` file's modification time in ms.
        """
        if self._max_timestamp_so_far >= 0:
            return self._max_timestamp_so_far
        stat = os.fstat(self._fd) if self._fd >= 0 else self.log_path.stat()
        return stat.st_mtime_ns // 1_000_000

    def first_batch_timestamp(self) -> int:
        """Max timestamp of the first batch (ms), -1 when empty (Kafka's ``rollingBasedTimestamp``)."""
        if self._first_batch_timestamp is None:
            if self._size < HEADER_SIZE:
                return NO_TIMESTAMP
            self._first_batch_timestamp = read_header(os.pread(self._fd, HEADER_SIZE, 0)).max_timestamp
        return self._first_batch_timestamp

    def time_waited_for_roll(self, now_ms: int, max_timestamp_in_messages: int) -> int:
        """How long the segment has been open, as ``segment.ms`` counts it (ms).

        Kafka's ``timeWaitedForRoll``: the appending batch's max timestamp minus the first
        batch's max timestamp; when the first batch carries no timestamp, the time since
        the segment was created on the log's clock.

        Args:
            now_ms: the log's clock (ms, same clock as ``created_ms``).
            max_timestamp_in_messages: max timestamp of the batches being appended (ms).
        """
        first = self.first_batch_timestamp()
        if first >= 0:
            return max_timestamp_in_messages - first
        return now_ms - self.created_ms

    def on_become_inactive_segment(self) -> None:
        """Add the max timestamp so far to the time index (into its kept slot) when the log
        rolls past this segment, so the last entry holds the segment's max (Kafka's
        ``onBecomeInactiveSegment``)."""
        if self._max_timestamp_so_far >= 0:
            self.time_index.maybe_append(
                self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far, skip_full_check=True
            )
        self.trim()

    def trim(self) -> None:
        """Cut a preallocated ``.log`` file back to its batches (Kafka's ``FileRecords.trim``); a
        no-op for a file that was not preallocated.

        Raises:
            OSError: the truncation failed.
        """
        if self._preallocated and self._fd >= 0:
            os.ftruncate(self._fd, self._size)
            self._preallocated = False

    def next_offset(self) -> int:
        """Offset after the last batch, or ``base_offset`` when empty."""
        return self._next_offset

    def _iter_headers(self, start_position: int) -> Iterator[tuple[int, BatchHeader]]:
        """Yield ``(position, header)`` of each batch from ``start_position`` (no CRC check).

        Reads 16 KiB chunks and skips payloads by position, so a scan costs one pread per
        chunk of headers.  Stops when fewer than HEADER_SIZE bytes remain.

        Raises:
            ValueError: a header has a bad magic or an impossible length.
        """
        pos = start_position
        chunk = b""
        chunk_start = pos
        while self._size - pos >= HEADER_SIZE:
            offset_in_chunk = pos - chunk_start
            if offset_in_chunk < 0 or offset_in_chunk + HEADER_SIZE > len(chunk):
                chunk = os.pread(self._fd, min(_SCAN_CHUNK_BYTES, self._size - pos), pos)
                chunk_start, offset_in_chunk = pos, 0
                if len(chunk) < HEADER_SIZE:
                    return
            header = read_header(chunk, offset_in_chunk)
            if header.magic != MAGIC or header.size_in_bytes < HEADER_SIZE or header.last_offset_delta < 0:
                raise ValueError(f"invalid batch header at position {pos} of {self.log_path}")
            yield pos, header
            pos += header.size_in_bytes

    def iter_headers(self, start_position: int = 0) -> Iterator[tuple[int, BatchHeader]]:
        """Yield ``(position, header)`` of each batch from ``start_position`` (headers only,
        no CRC check; blocking, one pread per 16 KiB of headers).

        Raises:
            ValueError: a header has a bad magic or an impossible length.
        """
        return self._iter_headers(start_position)

    def read_batch_at(self, position: int, size: int) -> bytes:
        """The ``size`` bytes at ``position`` of the ``.log`` file (one batch found by
        ``iter_headers``; blocking)."""
        return os.pread(self._fd, size, position)

    def append(
        self,
        records: bytes | bytearray | memoryview,
        largest_offset: int,
        max_timestamp: tuple[int, int] | None = None,
    ) -> None:
        """Append whole batches at the end of the file; maybe add an index and a time index entry.

        Args:
            records: one or more batches with offsets already assigned.
            largest_offset: last offset of the last batch in ``records``.
            max_timestamp: ``max_timestamp_and_offset(records)`` when the caller has it
                (Kafka's largestTimestampMs and shallowOffsetOfMaxTimestamp); computed when None.

        Raises:
            ValueError: ``largest_offset`` is below the segment's next offset or does not fit
                the segment's int32 relative offsets.
            OSError: the write failed.
        """
        if not records:
            return
        if largest_offset < self._next_offset or largest_offset - self.base_offset > INT32_MAX:
            raise ValueError(
                f"largest offset {largest_offset} cannot be appended to segment {self.log_path} "
                f"(next offset {self._next_offset})"
            )
        position = self._size
        view = memoryview(records)
        size = len(view)
        written = os.pwrite(self._fd, view, position)
        while written < size:  # a short write (rare): the rest from where it stopped
            written += os.pwrite(self._fd, view[written:], position + written)
        largest_timestamp, offset_of_largest = max_timestamp or max_timestamp_and_offset(view)
        if largest_timestamp > self._max_timestamp_so_far:
            self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = (
                largest_timestamp,
                offset_of_largest,
            )
        if self._bytes_since_last_index_entry >= self.index_interval_bytes and not self.time_index.is_full:
            self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far)
        if self._bytes_since_last_index_entry >= self.index_interval_bytes and not self.index.is_full:
            self.index.append(largest_offset, position)
            self._bytes_since_last_index_entry = 0
        self._bytes_since_last_index_entry += size
        self._size += size
        self._next_offset = largest_offset + 1

    def translate_offset(self, offset: int) -> tuple[int, BatchHeader] | None:
        """Find the first batch whose last offset is >= ``offset`` (index lookup + scan).

        Returns:
            ``(position, header)`` of that batch, or None when every batch ends before
            ``offset``.
        """
        if offset >= self._next_offset:
            return None
        _, position = self.index.lookup(offset)
        for pos, header in self._iter_headers(position):
            if header.last_offset >= offset:
                return pos, header
        return None

    def read(
        self,
        start_offset: int,
        max_bytes: int,
        max_offset_exclusive: int | None = None,
        min_one_message: bool = True,
    ) -> bytes:
        """Read whole batches starting with the batch that holds (or follows) ``start_offset``.

        Args:
            start_offset: the first batch returned is the first whose last offset is >= this.
            max_bytes: at most this many bytes, in whole batches.
            max_offset_exclusive: stop before a batch whose base offset is >= this
                (the high watermark for consumers); None for no limit.
            min_one_message: return the first batch even when it exceeds ``max_bytes``.

        Returns:
            The batches, byte-for-byte; empty when none qualifies.
        """
        found = self.translate_offset(start_offset)
        if found is None:
            return b""
        position, header = found
        if max_offset_exclusive is not None and header.base_offset >= max_offset_exclusive:
            return b""
        want = max_bytes
        if header.size_in_bytes > max_bytes:
            if not min_one_message:
                return b""
            want = header.size_in_bytes
        data = os.pread(self._fd, min(want, self._size - position), position)
        end = 0
        while len(data) - end >= LOG_OVERHEAD:
            base_offset, batch_length = BASE_OFFSET_AND_LENGTH.unpack_from(data, end)
            if end + batch_length + LOG_OVERHEAD > len(data):
                break
            if max_offset_exclusive is not None and base_offset >= max_offset_exclusive:
                break
            end += batch_length + LOG_OVERHEAD
        return data if end == len(data) else data[:end]

    def find_offset_by_timestamp(
        self, timestamp_ms: int, starting_offset: int = 0
    ) -> TimestampAndOffset | None:
        """Find the first record at or after ``starting_offset`` whose timestamp is >= ``timestamp_ms``.

        Time index lookup (largest entry not above the target), offset index lookup of its
        offset, a scan of batch headers to the first batch whose max timestamp reaches the
        target, then a decode of that one batch's records.  Kafka's
        ``LogSegment.findOffsetByTimestamp`` / ``FileRecords.searchForTimestamp``.

        Args:
            timestamp_ms: target timestamp (ms).
            starting_offset: ignore records below this offset (the log start offset).

        Returns:
            The record's timestamp, offset and batch leader epoch; None when no record qualifies.

        Raises:
            CorruptRecordError: the batch's records cannot be decoded.
        """
        _, offset = self.time_index.lookup(timestamp_ms)
        _, position = self.index.lookup(max(offset, starting_offset))
        for pos, header in self._iter_headers(position):
            if header.max_timestamp < timestamp_ms or header.last_offset < starting_offset:
                continue
            for record in decode_records(os.pread(self._fd, header.size_in_bytes, pos), 0, header):
                if record.timestamp >= timestamp_ms and record.offset >= starting_offset:
                    return TimestampAndOffset(record.timestamp, record.offset, header.partition_leader_epoch)
        return None

    def read_max_timestamp_and_offset(self) -> TimestampAndOffset | None:
        """The first record carrying the segment's max timestamp (ListOffsets MAX_TIMESTAMP, -3).

        Finds the batch holding ``offset_of_max_timestamp_so_far`` and decodes it.

        Returns:
            Its timestamp, offset and batch leader epoch; None when the segment has no
            timestamped record.

        Raises:
            CorruptRecordError: the batch's records cannot be decoded.
        """
        if self._max_timestamp_so_far < 0:
            return None
        found = self.translate_offset(self._offset_of_max_timestamp_so_far)
        if found is None:
            return None
        position, header = found
        best: TimestampAndOffset | None = None
        for record in decode_records(os.pread(self._fd, header.size_in_bytes, position), 0, header):
            if best is None or record.timestamp > best.timestamp:
                best = TimestampAndOffset(record.timestamp, record.offset, header.partition_leader_epoch)
        return best

    def recover(self, max_message_bytes: int, *, truncate: bool = True) -> int:
        """Validate every batch, truncate at the first invalid one, rebuild both indexes.

        A batch is valid when its header is whole, its magic is 2, its length is at least
        a header and at most ``max_message_bytes``, it ends inside the file, its CRC32C
        matches, its base offset is not below the previous batch's next offset (nor the
        segment's base offset) and its last offset fits the segment.

        Args:
            max_message_bytes: largest acceptable batch size in bytes.
            truncate: False to only validate: the file keeps its invalid bytes (the caller
                takes the log offline instead; ``last_recovery_position`` says where).

        Returns:
            Bytes invalid at the end of the file, truncated when ``truncate`` (0 when the
            whole file was valid).
        """
        self.index.reset()
        self.time_index.reset()
        self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = NO_TIMESTAMP, self.base_offset
        self._first_batch_timestamp = None
        self._bytes_since_last_index_entry = 0
        position = 0
        next_offset = self.base_offset
        self.last_recovery_error = None
        while position < self._size:
            reason = None
            if self._size - position < HEADER_SIZE:
                self.last_recovery_error = f"torn batch header at position {position}"
                break
            header = read_header(os.pread(self._fd, HEADER_SIZE, position))
            size = header.size_in_bytes
            if header.magic != MAGIC:
                reason = f"magic {header.magic}"
            elif size < HEADER_SIZE or header.last_offset_delta < 0 or header.records_count < 0:
                reason = f"invalid batch length {header.batch_length}"
            elif size > max_message_bytes:
                reason = f"batch of {size} bytes exceeds max.message.bytes {max_message_bytes}"
            elif position + size > self._size:
                reason = f"torn batch ({self._size - position} of {size} bytes present)"
            elif header.base_offset < next_offset or header.last_offset - self.base_offset > INT32_MAX:
                reason = f"offset {header.base_offset} out of order (expected >= {next_offset})"
            elif compute_crc(os.pread(self._fd, size, position), 0, size) != header.crc:
                reason = f"CRC mismatch in batch at offset {header.base_offset}"
            if reason is not None:
                self.last_recovery_error = f"{reason} at position {position}"
                break
            self._track_max_timestamp(header)
            if (
                self._bytes_since_last_index_entry >= self.index_interval_bytes
                and not self.time_index.is_full
            ):
                self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far)
            if self._bytes_since_last_index_entry >= self.index_interval_bytes and not self.index.is_full:
                self.index.append(header.last_offset, position)
                self._bytes_since_last_index_entry = 0
            self._bytes_since_last_index_entry += size
            next_offset = header.next_offset
            position += size
        truncated = self._size - position
        self.last_recovery_position = position
        if truncate:  # entries past the valid batches go; the producer state replay re-adds missing ones
            self.txn_index.truncate_to(next_offset)
        if truncated and truncate:
            os.ftruncate(self._fd, position)
            self._size = position
            self._preallocated = False
        self._next_offset = next_offset
        self.needs_recovery = False
        return truncated

    def truncate_to(self, offset: int) -> int:
        """Drop every batch whose last offset is >= ``offset``.

        That is every batch with base offset >= ``offset`` plus a batch that straddles it
        (base < offset <= last): offsets in a batch are never split.

        Returns:
            Bytes removed from the ``.log`` file.
        """
        found = self.translate_offset(offset)
        if found is None:
            return 0
        position, _ = found
        removed = self._size - position
        self.index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        os.ftruncate(self._fd, position)
        self._size = position
        self._preallocated = False
        self._bytes_since_last_index_entry = 0
        self._next_offset = self._load_next_offset()
        return removed

    def dup_fds(self) -> list[int]:
        """Duplicates of the log and both index file descriptors for an fsync off the event loop.

        The caller fsyncs and closes them; a duplicate stays valid if the segment is closed
        or deleted meanwhile.
        """
        fds = [os.dup(self._fd), self.index.dup_fd(), self.time_index.dup_fd()]
        txn_fd = self.txn_index.dup_fd()
        return fds if txn_fd is None else [*fds, txn_fd]

    def flush(self) -> None:
        """fsync the log and both index files (blocking)."""
        if self._fd >= 0:
            os.fsync(self._fd)
        self.index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def close(self) -> None:
        """Trim a preallocated ``.log`` file, close the three files; idempotent."""
        if self._fd >= 0:
            try:
                self.trim()
            except OSError as exc:  # the file keeps its zeros: the next load truncates them
                logger.warning(
                    "Could not trim preallocated %s to %d bytes: %s", self.log_path, self._size, exc
                )
            os.close(self._fd)
            self._fd = -1
        self.index.close()
        self.time_index.close()
        self.txn_index.close()

    def delete(self) -> None:
        """Close and remove the three files."""
        self._preallocated = False  # no trim of a file about to go
        self.close()
        self.log_path.unlink(missing_ok=True)
        self.index.delete()
        self.time_index.delete()
        self.txn_index.delete()

    def __repr__(self) -> str:
        return (
            f"LogSegment(base_offset={self.base_offset}, size={self._size}, next_offset={self._next_offset})"
        )
