"""The producer state snapshot file: ``<20-digit offset>.snapshot`` in the partition directory.

Written when the log closes cleanly, at the log end offset, so the next start-up loads the
producers (and their open transactions) from it and replays only the batches after that offset.
Kafka's format, version 1, big-endian::

    version int16 (1)
    crc     uint32 (CRC32C of everything after this field)
    entries int32 count, then per producer:
        producer_id int64, producer_epoch int16, last_sequence int32, last_offset int64,
        offset_delta int32, timestamp int64, coordinator_epoch int32,
        current_txn_first_offset int64

Only the producer's last batch is kept, as in Kafka's snapshot.

Kafka concept: ``ProducerStateManager.writeSnapshot``/``readSnapshot`` (``PRODUCER_SNAPSHOT_SCHEMA_V1``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import crc32c

from kafkette.common.durable_files import write_file_atomically

SNAPSHOT_SUFFIX = ".snapshot"
VERSION = 1
_HEAD = struct.Struct(">hI")
_COUNT = struct.Struct(">i")
_ENTRY = struct.Struct(">qhiqiqiq")


class CorruptSnapshotError(ValueError):
    """A snapshot file has a bad version, CRC or length."""


class SnapshotEntry(NamedTuple):
    """One producer in a snapshot (offsets and sequences -1 when it wrote no data batch; the
    timestamp in ms; ``current_txn_first_offset`` -1 outside a transaction)."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int


def snapshot_path(dir: Path, offset: int) -> Path:
    """``<dir>/<offset:020d>.snapshot``."""
    return Path(dir) / f"{offset:020d}{SNAPSHOT_SUFFIX}"


def snapshot_offsets(dir: Path) -> list[int]:
    """The offsets of the snapshot files in ``dir``, ascending."""
    return sorted(
        int(path.name.removesuffix(SNAPSHOT_SUFFIX))
        for path in Path(dir).glob(f"*{SNAPSHOT_SUFFIX}")
        if path.name.removesuffix(SNAPSHOT_SUFFIX).isdigit()
    )


def write_snapshot(dir: Path, offset: int, entries: list[SnapshotEntry], *, sync: bool = True) -> Path:
    """Write the snapshot at ``offset`` atomically (blocking).  Older ones are kept (a recovery
    after an unclean shutdown loads the latest at or below its recovery point); they go with their
    segments (``UnifiedLog`` retention), as Kafka's ``deleteProducerSnapshots``.  ``sync`` False:
    renamed into place without the fsyncs (``write_file_atomically``'s ``durable``).

    Raises:
        OSError: the write failed.
    """
    body = _COUNT.pack(len(entries)) + b"".join(_ENTRY.pack(*entry) for entry in entries)
    path = snapshot_path(dir, offset)
    write_file_atomically(path, _HEAD.pack(VERSION, crc32c.crc32c(body)) + body, durable=sync)
    return path


def read_snapshot(path: Path) -> list[SnapshotEntry]:
    """The entries of a snapshot file.

    Raises:
        CorruptSnapshotError: bad version, CRC or length.
        OSError: the read failed.
    """
    data = Path(path).read_bytes()
    if len(data) < _HEAD.size + _COUNT.size:
        raise CorruptSnapshotError(f"{path} is {len(data)} bytes, too short for a snapshot")
    version, crc = _HEAD.unpack_from(data)
    if version != VERSION:
        raise CorruptSnapshotError(f"{path} has snapshot version {version}, expected {VERSION}")
    body = data[_HEAD.size :]
    if crc32c.crc32c(body) != crc:
        raise CorruptSnapshotError(f"{path} fails its CRC")
    (count,) = _COUNT.unpack_from(body)
    if count < 0 or len(body) != _COUNT.size + count * _ENTRY.size:
        raise CorruptSnapshotError(f"{path} declares {count} entries in {len(body)} bytes")
    return [SnapshotEntry(*fields) for fields in _ENTRY.iter_unpack(body[_COUNT.size :])]


def delete_snapshots(dir: Path, predicate: Callable[[int], bool]) -> None:
    """Remove the snapshot files of ``dir`` whose offset satisfies ``predicate`` (blocking)."""
    for offset in snapshot_offsets(dir):
        if predicate(offset):
            snapshot_path(dir, offset).unlink(missing_ok=True)
