"""Batches of the transactional log tests: a producer's (transactional) data batch and a
COMMIT/ABORT marker appended with the coordinator's origin, as the KIP-98 write path makes them."""

from __future__ import annotations

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.unified_log import LogAppendInfo, UnifiedLog
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.record_batch import build_kafka_batch

NOW_MS = 1_700_000_000_000


def txn_batch(
    producer_id: int,
    sequence: int,
    records: int = 2,
    transactional: bool = True,
    keys: list[bytes] | None = None,
    value: bytes | None = b"v",
) -> bytes:
    """A batch of ``records`` records (key ``b"k"`` each, or ``keys``; ``value`` each, None: a
    tombstone) from ``producer_id`` at epoch 0 starting at ``sequence`` (-1/-1: no producer)."""
    keys = keys or [b"k"] * records
    return build_kafka_batch(
        [(key, value, None, NOW_MS) for key in keys],
        producer_id=producer_id,
        producer_epoch=0,
        base_sequence=sequence,
        transactional=transactional,
    )


def append_marker(
    log: UnifiedLog, producer_id: int, control_type: ControlRecordType, coordinator_epoch: int = 0
) -> LogAppendInfo:
    """Append a COMMIT/ABORT marker for ``producer_id`` (epoch 0) as the transaction coordinator."""
    batch = build_end_txn_marker_batch(
        producer_id, 0, EndTransactionMarker(control_type, coordinator_epoch), NOW_MS
    )
    return log.append_as_leader(batch, 0, AppendOrigin.COORDINATOR)
