"""The records of ``__transaction_state``: their keys and values as bytes, in Kafka's layout.

Owns: encoding a transactional id's key and a ``TxnTransitMetadata`` as a value, and reading a
key and value back into a ``TransactionMetadata`` (or a tombstone: a null value, written when a
transactional id expires; compaction drops it later).  Does not own where the records go.

Layout (big-endian).  Key: int16 record type 0 (``CoordinatorRecordType.TRANSACTION_LOG``), then
``TransactionLogKey`` version 0: ``transactional_id`` string (int16 length + UTF-8).  Value: int16
version, then ``TransactionLogValue``:

- version 0 (``transaction.version`` 0): producer_id int64, producer_epoch int16,
  transaction_timeout_ms int32, transaction_status int8 (``TransactionState.id``),
  transaction_partitions nullable array (int32 count, -1 null) of {topic string, partition_ids
  int32 array}, transaction_last_update_timestamp_ms int64, transaction_start_timestamp_ms int64;
- version 1 (levels 1 and 2, KIP-890, flexible): the same fields with compact strings and
  arrays (unsigned varint ``length + 1``, 0 null) and an empty tagged-field section after each
  partitions entry, then the value's tagged fields, each written only when not at its default:
  0 previous_producer_id (-1), 1 next_producer_id (-1), 2 client_transaction_version (0),
  3 next_producer_epoch (-1, read, never written).

The partitions are null in the EMPTY state (and ignored when read there), grouped by topic
otherwise, in the order Kafka's ``HashSet``/``HashMap`` iterate them, so the bytes are Kafka's.

Kafka concept: ``org.apache.kafka.coordinator.transaction.TransactionLog`` (``keyToBytes``,
``valueToBytes``, ``read``) over the generated ``TransactionLogKey``/``TransactionLogValue``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafkette.broker.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TransactionMetadata,
    TxnTransitMetadata,
)
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.common.java_hash_order import java_hash_map_order, java_string_hash
from kafkette.protocol.kafka_binary import (
    I8,
    I16,
    I32,
    I64,
    BinaryReader,
    write_compact_array_length,
    write_compact_string,
    write_string,
    write_tagged_fields,
)
from kafkette.protocol.topic_partition import TopicPartition

TRANSACTION_LOG_RECORD_TYPE = 0
"""The key's int16 prefix (Kafka's ``CoordinatorRecordType.TRANSACTION_LOG``)."""
LOWEST_VALUE_VERSION = 0
HIGHEST_VALUE_VERSION = 1

_TAG_PREVIOUS_PRODUCER_ID = 0
_TAG_NEXT_PRODUCER_ID = 1
_TAG_CLIENT_TRANSACTION_VERSION = 2
_TAG_NEXT_PRODUCER_EPOCH = 3
_INT_MASK = 0xFFFFFFFF


class TransactionLogError(ValueError):
    """A ``__transaction_state`` record that cannot be read (truncated, a bad state id, or a
    transition that cannot be written: partitions in the EMPTY state)."""


@dataclass(frozen=True)
class TxnRecord:
    """A value read back: the transactional id's metadata (``last_producer_epoch`` -1, as Kafka's
    log does not hold it)."""

    transactional_id: str
    metadata: TransactionMetadata


@dataclass(frozen=True)
class TxnTombstone:
    """A null value: the transactional id expired."""

    transactional_id: str


@dataclass(frozen=True)
class UnknownKeyVersion:
    """A key of another record type (skipped when loading, as Kafka skips it)."""

    version: int


@dataclass(frozen=True)
class UnknownValueVersion:
    """A value of a version this build cannot read (skipped when loading)."""

    version: int


ReadResult = TxnRecord | TxnTombstone | UnknownKeyVersion | UnknownValueVersion


def key_to_bytes(transactional_id: str) -> bytes:
    """The record key of ``transactional_id`` (record type 0, then its ``TransactionLogKey``)."""
    return I16.pack(TRANSACTION_LOG_RECORD_TYPE) + write_string(transactional_id)


def _java_topic_partition_hash(tp: TopicPartition) -> int:
    """Java's ``TopicPartition.hashCode`` (``31 * (31 + partition) + topic.hashCode()``, int32)."""
    h = (31 * (31 + tp.partition) + java_string_hash(tp.topic)) & _INT_MASK
    return h - (1 << 32) if h >= 1 << 31 else h


def _partitions_by_topic(partitions: frozenset[TopicPartition]) -> list[tuple[str, list[int]]]:
    """The partitions grouped by topic in the order Kafka writes them: a ``HashSet`` copied from
    the set (capacity for its size, at least 16) iterated into ``groupingBy``'s ``HashMap``."""
    in_set_order = java_hash_map_order(
        sorted(partitions), _java_topic_partition_hash, max(int(len(partitions) / 0.75) + 1, 16)
    )
    grouped: dict[str, list[int]] = {}
    for tp in in_set_order:
        grouped.setdefault(tp.topic, []).append(tp.partition)
    return [(topic, grouped[topic]) for topic in java_hash_map_order(grouped, java_string_hash, 16)]


def value_to_bytes(transit: TxnTransitMetadata, transaction_version_level: TransactionVersion) -> bytes:
    """The record value of a transition, in the ``TransactionLogValue`` version of
    ``transaction_version_level`` (the cluster's finalized ``transaction.version``).

    Raises:
        TransactionLogError: partitions in the EMPTY state.
    """
    if transit.txn_state is TransactionState.EMPTY and transit.topic_partitions:
        raise TransactionLogError(
            f"Transaction is not expected to have any partitions since its state is "
            f"{transit.txn_state.name}: {transit}"
        )
    version = transaction_version_level.transaction_log_value_version
    groups = (
        None
        if transit.txn_state is TransactionState.EMPTY
        else _partitions_by_topic(transit.topic_partitions)
    )
    head = (
        I64.pack(transit.producer_id)
        + I16.pack(transit.producer_epoch)
        + I32.pack(transit.txn_timeout_ms)
        + I8.pack(transit.txn_state.id)
    )
    times = I64.pack(transit.txn_last_update_timestamp) + I64.pack(transit.txn_start_timestamp)
    if version == 0:
        parts = I32.pack(-1) if groups is None else I32.pack(len(groups))
        for topic, ids in groups or ():
            parts += write_string(topic) + I32.pack(len(ids)) + b"".join(I32.pack(p) for p in ids)
        return I16.pack(0) + head + parts + times
    parts = write_compact_array_length(None if groups is None else len(groups))
    for topic, ids in groups or ():
        parts += (
            write_compact_string(topic)
            + write_compact_array_length(len(ids))
            + b"".join(I32.pack(p) for p in ids)
            + write_tagged_fields()
        )
    tags: dict[int, bytes] = {}
    if transit.prev_producer_id != NO_PRODUCER_ID:
        tags[_TAG_PREVIOUS_PRODUCER_ID] = I64.pack(transit.prev_producer_id)
    if transit.next_producer_id != NO_PRODUCER_ID:
        tags[_TAG_NEXT_PRODUCER_ID] = I64.pack(transit.next_producer_id)
    if transit.client_transaction_version != TransactionVersion.TV_0:
        tags[_TAG_CLIENT_TRANSACTION_VERSION] = I16.pack(transit.client_transaction_version)
    return I16.pack(version) + head + parts + times + write_tagged_fields(tags)


def read_txn_record_key(key: bytes) -> str:
    """The transactional id of a record key.

    Raises:
        TransactionLogError: a key of another record type, or truncated.
    """
    reader = BinaryReader(key, TransactionLogError, "transaction log key")
    record_type = reader.i16()
    if record_type != TRANSACTION_LOG_RECORD_TYPE:
        raise TransactionLogError(f"Unknown version {record_type} from the transaction log message key")
    transactional_id = reader.string()
    reader.end()
    return transactional_id


def _read_partitions(reader: BinaryReader, flexible: bool) -> list[TopicPartition] | None:
    count = reader.compact_array_length() if flexible else reader.i32()
    if count is None or count < 0:
        return None
    out: list[TopicPartition] = []
    for _ in range(count):
        topic = reader.compact_string() if flexible else reader.string()
        n = reader.compact_array_length() if flexible else reader.i32()
        out += [TopicPartition(topic, reader.i32()) for _ in range(n or 0)]
        if flexible:
            reader.tagged_fields()
    return out


def _tag_int(tags: dict[int, bytes], tag: int, fmt: struct.Struct, default: int) -> int:
    """A tagged integer field's value, ``default`` when absent."""
    data = tags.get(tag)
    if data is None:
        return default
    if len(data) != fmt.size:
        raise TransactionLogError(f"tagged field {tag} of {len(data)} bytes in a transaction log value")
    return int(fmt.unpack(data)[0])


def read(key: bytes, value: bytes | None) -> ReadResult:
    """Read one record of ``__transaction_state``.

    Args:
        key: the record key.
        value: the record value, None for a tombstone.

    Returns:
        ``TxnRecord`` (the metadata, with no pending state), ``TxnTombstone``, or
        ``UnknownKeyVersion``/``UnknownValueVersion`` for records this build does not read.

    Raises:
        TransactionLogError: truncated or malformed bytes, or an unknown state id.
    """
    reader = BinaryReader(key, TransactionLogError, "transaction log key")
    record_type = reader.i16()
    if record_type != TRANSACTION_LOG_RECORD_TYPE:
        return UnknownKeyVersion(record_type)
    transactional_id = reader.string()
    if value is None:
        return TxnTombstone(transactional_id)
    reader = BinaryReader(value, TransactionLogError, "transaction log value")
    version = reader.i16()
    if not LOWEST_VALUE_VERSION <= version <= HIGHEST_VALUE_VERSION:
        return UnknownValueVersion(version)
    flexible = version >= 1
    producer_id = reader.i64()
    producer_epoch = reader.i16()
    txn_timeout_ms = reader.i32()
    status = reader.i8()
    partitions = _read_partitions(reader, flexible)
    last_update = reader.i64()
    start = reader.i64()
    tags = reader.tagged_fields() if flexible else {}
    reader.end()
    level = _tag_int(tags, _TAG_CLIENT_TRANSACTION_VERSION, I16, 0)
    try:
        state = TransactionState.from_id(status)
        client_transaction_version = TransactionVersion(level)
    except ValueError as exc:
        raise TransactionLogError(f"{exc} (transactional id {transactional_id!r})") from None
    metadata = TransactionMetadata(
        transactional_id,
        producer_id,
        _tag_int(tags, _TAG_PREVIOUS_PRODUCER_ID, I64, NO_PRODUCER_ID),
        _tag_int(tags, _TAG_NEXT_PRODUCER_ID, I64, NO_PRODUCER_ID),
        producer_epoch,
        NO_PRODUCER_EPOCH,
        txn_timeout_ms,
        state,
        [] if state is TransactionState.EMPTY else (partitions or []),
        start,
        last_update,
        client_transaction_version,
    )
    _tag_int(tags, _TAG_NEXT_PRODUCER_EPOCH, I16, NO_PRODUCER_EPOCH)  # checked, not kept (as Kafka)
    return TxnRecord(transactional_id, metadata)
