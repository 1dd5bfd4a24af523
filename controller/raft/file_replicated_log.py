"""FileReplicatedLog: the metadata log partition ``__cluster_metadata-0`` on disk, for the Raft core.

Owns: one segment file, ``<dir>/00000000000000000000.log``, of framed entries; opening it
(every frame read and its CRC32C checked; the first torn or corrupt frame and everything
after it are cut off with a WARNING, as a torn tail after kill -9 is), appends (written,
not yet durable), ``flush`` (fsync: the durable end), ``truncate_to`` (the file cut and
fsynced) and the epoch lookups the core needs.  The entries are also kept in memory (the
metadata log is small).  What an entry's payload is belongs to the caller: ``encode`` and
``decode`` turn it into bytes and back.  Blocking file I/O; the driver decides where it runs.

On-disk format, one frame per entry, offsets dense from 0 in file order::

    length   : uint32 big-endian  = len(body) in bytes
    crc      : uint32 big-endian  = CRC32C(body)
    body     : msgpack([offset: int, epoch: int, payload: bytes])

Kafka concept: ``KafkaMetadataLog`` (the ``ReplicatedLog`` over the ``__cluster_metadata``
partition's ``UnifiedLog``).
"""

from __future__ import annotations

import bisect
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from kafkette.controller.log_frames import FrameScan, frame
from kafkette.controller.raft.replicated_log import LogEntry

logger = logging.getLogger(__name__)

SEGMENT_FILE_NAME = "00000000000000000000.log"


class FileReplicatedLog:
    """A ``ReplicatedLog`` in one file (see the module docstring for the format).

    Args:
        directory: the partition directory (created if missing).
        encode: payload -> bytes.
        decode: bytes -> payload; raising ValueError marks the frame corrupt.

    Raises:
        OSError: the directory or file cannot be read or written.
    """

    def __init__(self, directory: str | os.PathLike[str], encode: Callable[[Any], bytes],
                 decode: Callable[[bytes], Any]) -> None:
        self.dir = Path(directory)
        self.path = self.dir / SEGMENT_FILE_NAME
        self._encode = encode
        self._decode = decode
        self._entries: list[LogEntry] = []
        self._positions: list[int] = []  # file position of each entry's frame
        self._epoch_starts: list[tuple[int, int]] = []  # (epoch, first offset), epochs increasing
        self._flushed = 0
        self.dir.mkdir(parents=True, exist_ok=True)
        valid_end = self._load()
        self._file = open(self.path, "r+b" if self.path.exists() else "w+b")  # noqa: SIM115 - owned until close()
        size = self._file.seek(0, os.SEEK_END)
        if valid_end < size:
            self._file.truncate(valid_end)
            self._file.seek(valid_end)
            os.fsync(self._file.fileno())
        self._flushed = len(self._entries)

    def _load(self) -> int:
        scan = FrameScan(self.path.read_bytes() if self.path.exists() else b"")
        for position, body in scan:
            try:
                offset, epoch, payload = msgpack.unpackb(body, raw=False)
                entry = LogEntry(offset, epoch, self._decode(payload))
                if offset != len(self._entries) or epoch < self.last_epoch():
                    raise ValueError(f"entry {offset} (epoch {epoch}) out of order")
            except (ValueError, TypeError, msgpack.UnpackException) as exc:
                scan.stop(f"undecodable entry at position {position}: {exc}")
                continue
            self._remember(entry, position)
        if scan.reason:
            logger.warning("Truncating metadata log %s at byte %d (%s); %d entries kept", self.path,
                           scan.valid_end, scan.reason, len(self._entries))
        return scan.valid_end

    def _remember(self, entry: LogEntry, position: int) -> None:
        if not self._epoch_starts or self._epoch_starts[-1][0] != entry.epoch:
            self._epoch_starts.append((entry.epoch, entry.offset))
        self._entries.append(entry)
        self._positions.append(position)

    # ------------------------------------------------------------------ ReplicatedLog

    def end_offset(self) -> int:
        return len(self._entries)

    def last_epoch(self) -> int:
        return self._entries[-1].epoch if self._entries else 0

    def append(self, entries: list[LogEntry]) -> None:
        """Write ``entries`` after the last one (not durable until ``flush``).

        Raises:
            ValueError: an offset that does not continue the log or an epoch below the last.
            OSError: the write failed.
        """
        position = self._file.seek(0, os.SEEK_END)
        frames = []
        for entry in entries:
            if entry.offset != len(self._entries) or entry.epoch < self.last_epoch():
                raise ValueError(f"entry {entry.offset} (epoch {entry.epoch}) does not continue a log ending at "
                                 f"{len(self._entries)} (epoch {self.last_epoch()})")
            framed = frame(msgpack.packb([entry.offset, entry.epoch, self._encode(entry.payload)], use_bin_type=True))
            self._remember(entry, position)
            position += len(framed)
            frames.append(framed)
        self._file.write(b"".join(frames))

    def truncate_to(self, offset: int) -> None:
        """Drop every entry at ``offset`` and above, on disk too (fsynced).

        Raises:
            OSError: the truncation failed.
        """
        offset = max(offset, 0)
        if offset >= len(self._entries):
            return
        position = self._positions[offset]
        del self._entries[offset:]
        del self._positions[offset:]
        while self._epoch_starts and self._epoch_starts[-1][1] >= offset:
            self._epoch_starts.pop()
        self._file.flush()
        self._file.truncate(position)
        self._file.seek(position)
        os.fsync(self._file.fileno())
        self._flushed = min(self._flushed, offset)

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        return self._entries[start:start + max_entries]

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._epoch_starts, (epoch, float("inf"))) - 1
        if index < 0:
            return 0, 0
        found_epoch = self._epoch_starts[index][0]
        end = self._epoch_starts[index + 1][1] if index + 1 < len(self._epoch_starts) else len(self._entries)
        return found_epoch, end

    def flush(self) -> None:
        """fsync what was appended.

        Raises:
            OSError: the fsync failed.
        """
        if self._flushed == len(self._entries):
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._flushed = len(self._entries)

    def flushed_offset(self) -> int:
        return self._flushed

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._file.closed:
            self.flush()
            self._file.close()
