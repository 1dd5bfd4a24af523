"""MetadataLog: one node's append-only, fsynced file of metadata records, on which the
controller's unit tests run a ``KafkaController`` without a Raft quorum.

Owns: the file ``<dir>/__cluster_metadata-0/00000000000000000000.log``, its framing,
appends (written and fsynced on a dedicated single-thread executor so the event loop
never blocks on disk), and recovery on start (a torn or corrupt tail, or an
unfinished transaction at the tail, is truncated with a WARNING).  Does not own what
records mean (``metadata_records.py``, ``ControllerContext``).

On-disk format, one frame per record, offsets counted from 0 in file order::

    length   : uint32 big-endian  = len(payload) in bytes
    crc      : uint32 big-endian  = CRC32C(payload)
    payload  : msgpack([record_type: str, fields: map])

A write of several records is bracketed by ``BeginTransactionRecord`` /
``EndTransactionRecord`` by the caller; ``replay`` drops an unclosed transaction at
the tail (it was never acknowledged) and returns data records only.

Kafka concept: the ``__cluster_metadata`` topic partition of KRaft on one node's disk; the
servers write it through the Raft quorum instead (``RaftMetadataLog`` over ``RaftManager``),
so this log lives beside the tests that use it (as Kafka's ``MockRaftClient``/``LocalLogManager``
of its controller tests).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

import msgpack

from kafkette.common.topic_names import METADATA_TOPIC_PARTITION_DIR
from kafkette.controller.metadata_records import (
    BeginTransactionRecord,
    EndTransactionRecord,
    MetadataRecord,
    record_from_wire,
)
from kafkette.controller.raft.log_frames import FRAME_HEADER, FrameScan, frame

logger = logging.getLogger(__name__)

SEGMENT_FILE_NAME = "00000000000000000000.log"


class MetadataLogError(RuntimeError):
    """The metadata log cannot be used (not replayed yet, closed, or a write failed)."""


class MetadataLog:
    """Append-only metadata log in ``metadata_log_dir``.

    Call ``replay()`` once (it opens the file for appending), then ``append`` as often
    as needed, then ``close()``.

    Args:
        metadata_log_dir: directory holding ``__cluster_metadata-0/``; created if missing.
    """

    def __init__(self, metadata_log_dir: str | os.PathLike[str]) -> None:
        self.dir = Path(metadata_log_dir) / METADATA_TOPIC_PARTITION_DIR
        self.path = self.dir / SEGMENT_FILE_NAME
        self._file: BinaryIO | None = None
        self._next_offset = 0
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metadata-log")

    @property
    def next_offset(self) -> int:
        """Offset the next appended record will get (= number of records in the log)."""
        return self._next_offset

    def replay(self) -> list[MetadataRecord]:
        """Read every valid record, truncate a bad tail, and open the file for appends.

        Blocking (file I/O): call it from an executor on a running event loop.

        Returns:
            The data records in log order (transaction markers removed).

        Raises:
            OSError: the directory or file cannot be read or written.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        data = self.path.read_bytes() if self.path.exists() else b""
        scan = FrameScan(data)
        records: list[MetadataRecord] = []
        offset = 0
        open_transaction: tuple[int, int, int] | None = None  # (file position, offset, len(records))
        valid_end = 0
        for position, payload in scan:
            try:
                record = record_from_wire(msgpack.unpackb(payload, raw=False))
            except (ValueError, msgpack.UnpackException) as exc:
                scan.stop(f"undecodable record at position {position}: {exc}")
                continue
            if isinstance(record, BeginTransactionRecord):
                open_transaction = (position, offset, len(records))
            elif isinstance(record, EndTransactionRecord):
                open_transaction = None
            else:
                records.append(record)
            offset += 1
            if open_transaction is None:
                valid_end, self._next_offset = position + FRAME_HEADER.size + len(payload), offset
        reason = scan.reason
        if open_transaction is not None and not reason:
            reason = f"unfinished transaction starting at position {open_transaction[0]}"
        if open_transaction is not None:
            del records[open_transaction[2] :]
        if valid_end < len(data):
            logger.warning(
                "Truncating metadata log %s from %d to %d bytes (%s); %d records kept",
                self.path,
                len(data),
                valid_end,
                reason,
                self._next_offset,
            )
        self._file = open(self.path, "ab")  # noqa: SIM115 - owned until close()
        if valid_end < len(data):
            self._file.truncate(valid_end)
            self._file.seek(0, os.SEEK_END)
            self._file.flush()
            os.fsync(self._file.fileno())
        return records

    async def load(self) -> list[MetadataRecord]:
        """``replay`` on the log's own executor thread (the event loop never blocks on disk)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, self.replay)

    def next_controller_epoch(self, replayed_epoch: int) -> int:
        """The epoch of a controller starting on this log: one above the last it holds."""
        return replayed_epoch + 1

    async def append(self, records: Sequence[MetadataRecord]) -> int:
        """Write ``records`` and fsync them before returning.

        Args:
            records: records in order (the caller brackets multi-record writes).

        Returns:
            The offset of the first record.

        Raises:
            MetadataLogError: the log is not open.
            OSError: the write or fsync failed (the file is cut back to its old size).

        Cancellation: the write may still complete on the executor thread; the records
        are then durable although the caller saw no result (replay will apply them).
        """
        if self._file is None:
            raise MetadataLogError(f"metadata log {self.path} is not open")
        data = b"".join(encode_frame(r) for r in records)
        base_offset = self._next_offset
        await asyncio.get_running_loop().run_in_executor(self._executor, self._write_and_sync, data)
        self._next_offset += len(records)
        return base_offset

    def _write_and_sync(self, data: bytes) -> None:
        file = self._file
        if file is None:
            raise MetadataLogError(f"metadata log {self.path} is closed")
        size_before = file.tell()
        try:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        except OSError:
            try:
                file.truncate(size_before)
                file.flush()
            except OSError:
                logger.exception("Could not cut metadata log %s back to %d bytes", self.path, size_before)
            raise

    async def close(self) -> None:
        """Close the file after pending writes finish, and stop the executor thread."""
        if self._file is not None:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._close_file)
        self._executor.shutdown(wait=False)

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def encode_frame(record: MetadataRecord) -> bytes:
    """Frame one record: length, CRC32C, msgpack payload (see module docstring)."""
    return frame(msgpack.packb(record.to_wire(), use_bin_type=True))
