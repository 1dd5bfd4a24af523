"""What the log cleaner keeps of each batch: the record rules of compaction, transactions and
the delete horizon (KIP-534), and the rewritten batches (compacted, emptied, given a horizon).

Kafka concept: the ``RecordFilter`` of ``Cleaner.cleanInto`` (``checkBatchRetention``,
``shouldRetainRecord``) and ``MemoryRecords.filterTo``'s batch rewriting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafkette.broker.log.cleaned_transaction_metadata import CleanedTransactionMetadata
from kafkette.broker.log.offset_map import OffsetMap
from kafkette.protocol.control_record import read_end_txn_marker
from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    DELETE_HORIZON_MASK,
    LOG_APPEND_TIME,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    CorruptRecordError,
    build_batch_from_payload,
    decode_rows,
    rebuild_batch,
)


def rebuild_compacted_batch(header: BatchHeader, rows: list[list[Any]]) -> bytes:
    """A batch holding the kept ``rows`` with ``header``'s offsets range, producer fields, codec and
    record encoding (``record_batch.rebuild_batch``; CRC recomputed).

    The base offset and last offset delta are kept, so the batch covers the same offsets
    (Kafka keeps a batch's last offset for producer state); the max timestamp is that
    of the kept records for CreateTime, unchanged for LogAppendTime.

    Raises:
        CorruptRecordError: a row the batch's encoding cannot hold.
    """
    max_timestamp = header.max_timestamp
    if header.timestamp_type != LOG_APPEND_TIME:
        max_timestamp = header.base_timestamp + max(row[1] for row in rows)
    try:
        return rebuild_batch(header, rows, max_timestamp=max_timestamp)
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(
            f"records of the batch at offset {header.base_offset} cannot be re-encoded: {exc}"
        ) from exc


def empty_batch(header: BatchHeader) -> bytes:
    """A batch of no records covering ``header``'s offsets with its producer fields: what the
    cleaner keeps of a producer's last data batch once every record of it is removed, so the
    producer state rebuilt from the log still knows the producer's last sequence and offset
    (Kafka's ``DefaultRecordBatch.writeEmptyHeader``, ``BatchRetention.RETAIN_EMPTY``).  No codec,
    Kafka's record encoding; both timestamps are the batch's max timestamp."""
    return build_batch_from_payload(
        b"",
        record_count=0,
        base_timestamp=header.max_timestamp,
        max_timestamp=header.max_timestamp,
        base_offset=header.base_offset,
        partition_leader_epoch=header.partition_leader_epoch,
        attributes=header.attributes & (TIMESTAMP_TYPE_MASK | TRANSACTIONAL_MASK | CONTROL_MASK),
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        last_offset_delta=header.last_offset_delta,
    )


def with_delete_horizon(header: BatchHeader, rows: list[list[Any]], delete_horizon_ms: int) -> bytes:
    """A batch of ``rows`` (``header``'s) with its delete horizon (ms): the ``DELETE_HORIZON_MASK``
    attribute set and the base timestamp the horizon, each record's timestamp delta moved so its
    timestamp stays (KIP-534, Kafka's ``MemoryRecordsBuilder`` with ``deleteHorizonMs``).

    Raises:
        CorruptRecordError: a row the batch's encoding cannot hold.
    """
    shift = header.base_timestamp - delete_horizon_ms
    for row in rows:
        row[1] += shift
    return rebuild_compacted_batch(
        header._replace(base_timestamp=delete_horizon_ms, attributes=header.attributes | DELETE_HORIZON_MASK),
        rows,
    )


@dataclass(slots=True)
class CleanerBatchFilter:
    """What the cleaner keeps of each batch of one cleaned segment (Kafka's ``RecordFilter`` of
    ``Cleaner.cleanInto``: ``checkBatchRetention`` then ``shouldRetainRecord``).

    A batch of an aborted transaction goes whole; a marker goes once no data of its
    transaction is left (``CleanedTransactionMetadata``) and its delete horizon passed: the first
    pass finding it removable writes the horizon (now + ``delete.retention.ms``) into it (KIP-534),
    a pass after the horizon drops it.  A producer's last data batch is kept, emptied if none of
    its records is (``empty_batch``).  Other records follow ``should_retain``, a
    tombstone kept until its batch's delete horizon, written at the first pass keeping it.

    Attributes:
        offset_map: key -> latest offset of the cleaned range.
        txns: the transaction state of the walk over the cleaned segment's batches.
        last_data_offsets: producer id -> last offset of its last data batch.
        end: the offset map's end (records at or past it are kept).
        now_ms: the cleaning's wall-clock time (ms).
        delete_retention_ms: the log's ``delete.retention.ms``.
        counts: ``[records read, records kept]``, added to.
    """

    offset_map: OffsetMap
    txns: CleanedTransactionMetadata
    last_data_offsets: dict[int, int]
    end: int
    now_ms: int
    delete_retention_ms: int
    counts: list[int]

    def filter(self, header: BatchHeader, batch: bytes) -> bytes | None:
        """The batch as it is kept (itself, rewritten, emptied) or None when it goes.

        Raises:
            CorruptRecordError: a record or marker does not decode.
        """
        counts = self.counts
        is_control = header.attributes & CONTROL_MASK
        if is_control:
            can_discard = self.txns.on_control_batch_read(header, read_end_txn_marker(batch, 0, header))
            has_horizon = bool(header.attributes & DELETE_HORIZON_MASK)
            discard = can_discard and has_horizon and header.base_timestamp <= self.now_ms
        else:
            can_discard = discard = self.txns.on_batch_read(header)
        last_of_producer = (
            header.producer_id >= 0 and self.last_data_offsets.get(header.producer_id) == header.last_offset
        )
        counts[0] += header.records_count
        if discard:
            return empty_batch(header) if last_of_producer else None
        if is_control:
            counts[1] += header.records_count
            if can_discard and not has_horizon:
                rows = decode_rows(batch, 0, header)
                return with_delete_horizon(header, rows, self.now_ms + self.delete_retention_ms)
            return batch
        if header.base_offset >= self.end:
            counts[1] += header.records_count
            return batch
        rows = decode_rows(batch, 0, header)
        end = self.end
        has_horizon = bool(header.attributes & DELETE_HORIZON_MASK)
        retain_deletes = not has_horizon or self.now_ms < header.base_timestamp
        should_retain = self.should_retain
        kept = [row for row in rows if should_retain(header.base_offset + row[0], row, end, retain_deletes)]
        counts[1] += len(kept)
        if not kept:
            return empty_batch(header) if last_of_producer else None
        if not has_horizon and any(row[3] is None for row in kept):
            return with_delete_horizon(header, kept, self.now_ms + self.delete_retention_ms)
        if len(kept) == len(rows):
            return batch
        return rebuild_compacted_batch(header, kept)

    def should_retain(self, offset: int, row: list[Any], end: int, retain_deletes: bool) -> bool:
        """Whether the record ``row`` at ``offset`` is kept: past the offset map's ``end`` always;
        else when it has a key whose latest offset is its own and a value, or is a tombstone
        while ``retain_deletes`` (Kafka's ``Cleaner.shouldRetainRecord``)."""
        if offset >= end:
            return True
        key = row[2]
        if key is None:
            return False  # Kafka drops keyless records from compacted logs
        latest = self.offset_map.get(key)
        if latest > offset:
            return False  # a later record has this key
        return row[3] is not None or retain_deletes
