"""Transaction markers: the one record of a control batch that ends a transaction.

A control batch (attributes bits 4 transactional and 5 control set, Kafka's varint records,
uncompressed, base sequence -1) holds one record::

    key   = version int16 (0) + type int16 (0 ABORT, 1 COMMIT)
    value = version int16 (0) + coordinator_epoch int32

Pure code, no I/O.

Kafka concept: ``ControlRecordType``, ``EndTransactionMarker`` and
``MemoryRecords.withEndTransactionMarker`` (KIP-98).
"""

from __future__ import annotations

import enum
import struct
from typing import NamedTuple

from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    CorruptRecordError,
    build_batch_from_payload,
    decode_rows,
    encode_payload,
)

_KEY = struct.Struct(">hh")
_VALUE = struct.Struct(">hi")
CONTROL_BATCH_ATTRIBUTES = TRANSACTIONAL_MASK | CONTROL_MASK


class ControlRecordType(enum.IntEnum):
    """Kafka's ``ControlRecordType`` ids of the transaction markers."""

    ABORT = 0
    COMMIT = 1


class EndTransactionMarker(NamedTuple):
    """A decoded COMMIT/ABORT marker (Kafka's ``EndTransactionMarker``)."""

    control_type: ControlRecordType
    coordinator_epoch: int


def build_end_txn_marker_batch(
    producer_id: int, producer_epoch: int, marker: EndTransactionMarker, timestamp_ms: int
) -> bytes:
    """One control batch holding ``marker`` (offset 0, to be assigned by the leader).

    Args:
        producer_id, producer_epoch: the transaction's producer.
        marker: COMMIT or ABORT and the coordinator epoch.
        timestamp_ms: the marker's timestamp (ms).

    Returns:
        The batch bytes, CRC set.
    """
    key = _KEY.pack(0, marker.control_type)
    value = _VALUE.pack(0, marker.coordinator_epoch)
    return build_batch_from_payload(
        encode_payload([[0, 0, key, value, []]], CONTROL_BATCH_ATTRIBUTES),
        record_count=1,
        base_timestamp=timestamp_ms,
        max_timestamp=timestamp_ms,
        attributes=CONTROL_BATCH_ATTRIBUTES,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
    )


def is_control_batch(header: BatchHeader) -> bool:
    """True when ``header`` has the control bit (5) set."""
    return bool(header.attributes & CONTROL_MASK)


def is_transactional_batch(header: BatchHeader) -> bool:
    """True when ``header`` has the transactional bit (4) set."""
    return bool(header.attributes & TRANSACTIONAL_MASK)


def read_end_txn_marker(
    batch: bytes | bytearray | memoryview, pos: int, header: BatchHeader
) -> EndTransactionMarker:
    """Decode the marker of the control batch at ``pos``.

    Raises:
        CorruptRecordError: not exactly one record, or a key/value that is not a COMMIT or
            ABORT marker of version 0 (Kafka answers CORRUPT_MESSAGE).
    """
    rows = decode_rows(batch, pos, header)
    if len(rows) != 1:
        raise CorruptRecordError(f"control batch at offset {header.base_offset} holds {len(rows)} records")
    key, value = rows[0][2], rows[0][3]
    if not isinstance(key, bytes | bytearray) or len(key) < _KEY.size:
        raise CorruptRecordError(f"control record at offset {header.base_offset} has an invalid key")
    _, control_type = _KEY.unpack_from(key)
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        raise CorruptRecordError(f"control record at offset {header.base_offset} has type {control_type}")
    if not isinstance(value, bytes | bytearray) or len(value) < _VALUE.size:
        raise CorruptRecordError(
            f"end transaction marker at offset {header.base_offset} has an invalid value"
        )
    version, coordinator_epoch = _VALUE.unpack_from(value)
    if version < 0:
        raise CorruptRecordError(
            f"end transaction marker at offset {header.base_offset} has version {version}"
        )
    return EndTransactionMarker(ControlRecordType(control_type), coordinator_epoch)
