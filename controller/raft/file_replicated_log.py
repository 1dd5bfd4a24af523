"""FileReplicatedLog: the metadata log partition ``__cluster_metadata-0`` on disk, for the Raft core.

Owns: one segment file, ``<dir>/00000000000000000000.log``, of framed entries; opening it
(every frame read and its CRC32C checked; the first torn or corrupt frame and everything
after it are cut off with a WARNING, as a torn tail after kill -9 is), appends (written,
not yet durable), ``flush`` (fsync: the durable end), ``truncate_to`` (the file cut and
fsynced) and the epoch lookups the core needs.  It keeps no snapshots yet (KIP-630's
snapshot files are still to come): the log starts at offset 0 and snapshot creation is
refused.  The entries are also kept in memory (the
metadata log is small).  What an entry's payload is belongs to the caller: ``encode`` and
``decode`` turn it into bytes and back.  Blocking file I/O; the driver decides where it runs.

On-disk format, one frame per entry, offsets dense from 0 in file order::

    length   : uint32 big-endian  = len(body) in bytes
    crc      : uint32 big-endian  = CRC32C(body)
    body     : msgpack([offset: int, epoch: int, payload: bytes, batch_end_offset: int])

``batch_end_offset`` is the offset after the last entry of the entry's batch (absent in
files written before batches: a batch of one).  A batch cut short by a torn tail is
dropped whole on open, as the torn frame is: it was never acknowledged.

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
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch

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
                offset, epoch, payload, *batch_end = msgpack.unpackb(body, raw=False)
                entry = LogEntry(offset, epoch, self._decode(payload), *batch_end)
                if offset != len(self._entries) or epoch < self.last_epoch():
                    raise ValueError(f"entry {offset} (epoch {epoch}) out of order")
            except (ValueError, TypeError, msgpack.UnpackException) as exc:
                scan.stop(f"undecodable entry at position {position}: {exc}")
                continue
            self._remember(entry, position)
        valid_end, reason = scan.valid_end, scan.reason
        if self._entries and self._entries[-1].batch_end_offset > len(self._entries):
            first, batch_end = len(self._entries) - 1, self._entries[-1].batch_end_offset
            while first > 0 and self._entries[first - 1].batch_end_offset == batch_end:
                first -= 1
            valid_end = self._positions[first]
            self._forget_from(first)
            reason = reason or f"the batch from offset {first} is incomplete"
        if reason:
            logger.warning("Truncating metadata log %s at byte %d (%s); %d entries kept", self.path,
                           valid_end, reason, len(self._entries))
        return valid_end

    def _remember(self, entry: LogEntry, position: int) -> None:
        if not self._epoch_starts or self._epoch_starts[-1][0] != entry.epoch:
            self._epoch_starts.append((entry.epoch, entry.offset))
        self._entries.append(entry)
        self._positions.append(position)

    def _forget_from(self, offset: int) -> None:
        del self._entries[offset:]
        del self._positions[offset:]
        while self._epoch_starts and self._epoch_starts[-1][1] >= offset:
            self._epoch_starts.pop()

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
            framed = frame(msgpack.packb([entry.offset, entry.epoch, self._encode(entry.payload),
                                          entry.batch_end_offset], use_bin_type=True))
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
        self._forget_from(offset)
        self._file.flush()
        self._file.truncate(position)
        self._file.seek(position)
        os.fsync(self._file.fileno())
        self._flushed = min(self._flushed, offset)

    def read(self, start: int, max_entries: int) -> list[LogEntry]:
        return self._entries[start:start + max_entries]

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        index = bisect.bisect_right(self._epoch_starts, (epoch, float("inf"))) - 1
        if index < 0:
            return OffsetAndEpoch(0, 0)
        found_epoch = self._epoch_starts[index][0]
        end = self._epoch_starts[index + 1][1] if index + 1 < len(self._epoch_starts) else len(self._entries)
        return OffsetAndEpoch(end, found_epoch)

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

    # Snapshots are not kept on disk yet: the log always starts at 0, and a leader on this log
    # never answers a fetch with a snapshot id, so a follower never has one to install.

    def log_start_offset(self) -> int:
        return 0

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return None

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> bytes | None:
        return None

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Refused: snapshot files are not written yet.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError(f"{self.dir}: FileReplicatedLog keeps no snapshots yet")

    def install_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Refused: snapshot files are not written yet.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError(f"{self.dir}: FileReplicatedLog keeps no snapshots yet")

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._file.closed:
            self.flush()
            self._file.close()
