"""The bytes of KIP-848 consumer group records' fields, in Kafka's layout.

Owns: writing and reading the fields of the keys and values of ``consumer_group_records``
(record types 3 to 8 and 16): a key's fields in the classic encoding (int16-length strings), a
value's in KIP-482's flexible encoding (compact strings, bytes and arrays, UUIDs, a tagged-field
section after every struct).  Does not own the framing (``coordinator_records``: the key's int16
record type, the value's int16 version, a null value for a tombstone).

Tagged fields, as Kafka 4.3.1's generated classes write and read them:

- ``MetadataHash`` (type 3) and ``AssignmentTimestamp`` (type 6), tag 0: an int64 written only
  when not 0; absent reads as 0.
- ``ClassicMemberMetadata`` (type 5), tag 0: null (a member of the consumer protocol) is
  *written*, as an unsigned-varint marker 0; a struct other than the empty one is written after a
  marker 1; the empty struct (session timeout 0, no protocols) is left out, and an absent
  tag reads as that empty struct, not as null.
- ``AssignmentEpochs`` (type 8, in each ``TopicPartitions``), tag 0: null is written (a compact
  array length 0); a non-empty list is written; the empty list is left out and absent reads as empty.

Tags this module does not know are skipped on reading (Kafka keeps them as unknown tagged
fields and writes them back; Kafkette drops them).

Kafka concept: the ``write``/``read`` methods Kafka generates for the messages of
``consumer_group_records`` (``ConsumerGroup*Key``, ``ConsumerGroup*Value``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from kafkette.broker.group.consumer_group_records import (
    CONSUMER_GROUP_KEYS,
    ClassicMemberMetadata,
    ClassicProtocol,
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupKey,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupPartitionMetadataKey,
    ConsumerGroupPartitionMetadataValue,
    ConsumerGroupRegularExpressionKey,
    ConsumerGroupRegularExpressionValue,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerGroupValue,
    CurrentTopicPartitions,
    PartitionMetadata,
    TargetTopicPartitions,
    TopicMetadata,
)
from kafkette.protocol.kafka_binary import (
    I8,
    I32,
    I64,
    BinaryReader,
    write_compact_array_length,
    write_compact_nullable_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_unsigned_varint,
    write_uuid,
)

_T = TypeVar("_T")

# ------------------------------------------------------------------ writing


def write_key_fields(key: ConsumerGroupKey) -> bytes:
    """The key's fields (classic encoding), without the record type before them."""
    parts = [write_string(key.group_id)]
    if isinstance(
        key,
        ConsumerGroupMemberMetadataKey
        | ConsumerGroupTargetAssignmentMemberKey
        | ConsumerGroupCurrentMemberAssignmentKey,
    ):
        parts.append(write_string(key.member_id))
    elif isinstance(key, ConsumerGroupRegularExpressionKey):
        parts.append(write_string(key.regular_expression))
    return b"".join(parts)


def _array(items: Sequence[_T], write: Callable[[_T], bytes]) -> bytes:
    return write_compact_array_length(len(items)) + b"".join(write(item) for item in items)


def _int32s(items: Sequence[int]) -> bytes:
    return _array(items, I32.pack)


def _strings(items: Sequence[str]) -> bytes:
    return _array(items, write_compact_string)


def _classic(metadata: ClassicMemberMetadata) -> bytes:
    protocols = _array(
        metadata.supported_protocols,
        lambda p: write_compact_string(p.name) + write_compact_nullable_bytes(p.metadata) + b"\x00",
    )
    return I32.pack(metadata.session_timeout_ms) + protocols + b"\x00"


def _current(tp: CurrentTopicPartitions) -> bytes:
    tags = {}
    if tp.assignment_epochs is None:
        tags[0] = write_compact_array_length(None)
    elif tp.assignment_epochs:
        tags[0] = _int32s(tp.assignment_epochs)
    return write_uuid(tp.topic_id) + _int32s(tp.partitions) + write_tagged_fields(tags)


def _int64_tag(value: int) -> dict[int, bytes]:
    return {0: I64.pack(value)} if value else {}


def write_value_fields(value: ConsumerGroupValue) -> bytes:
    """The value's fields (flexible encoding), without the version before them.

    Raises:
        ValueError: a topic id that is not 16 bytes.
        struct.error: a number out of its type's range.
    """
    if isinstance(value, ConsumerGroupMetadataValue):
        return I32.pack(value.epoch) + write_tagged_fields(_int64_tag(value.metadata_hash))
    if isinstance(value, ConsumerGroupPartitionMetadataValue):
        return (
            _array(
                value.topics,
                lambda t: (
                    write_uuid(t.topic_id)
                    + write_compact_string(t.topic_name)
                    + I32.pack(t.num_partitions)
                    + _array(
                        t.partition_metadata, lambda p: I32.pack(p.partition) + _strings(p.racks) + b"\x00"
                    )
                    + b"\x00"
                ),
            )
            + b"\x00"
        )
    if isinstance(value, ConsumerGroupMemberMetadataValue):
        classic = value.classic_member_metadata
        tags = {}
        if classic is None:
            tags[0] = write_unsigned_varint(0)
        elif classic != ClassicMemberMetadata():
            tags[0] = write_unsigned_varint(1) + _classic(classic)
        return b"".join(
            [
                write_compact_nullable_string(value.instance_id),
                write_compact_nullable_string(value.rack_id),
                write_compact_string(value.client_id),
                write_compact_string(value.client_host),
                _strings(value.subscribed_topic_names),
                write_compact_nullable_string(value.subscribed_topic_regex),
                I32.pack(value.rebalance_timeout_ms),
                write_compact_nullable_string(value.server_assignor),
                write_tagged_fields(tags),
            ]
        )
    if isinstance(value, ConsumerGroupTargetAssignmentMetadataValue):
        return I32.pack(value.assignment_epoch) + write_tagged_fields(_int64_tag(value.assignment_timestamp))
    if isinstance(value, ConsumerGroupTargetAssignmentMemberValue):
        return (
            _array(
                value.topic_partitions, lambda tp: write_uuid(tp.topic_id) + _int32s(tp.partitions) + b"\x00"
            )
            + b"\x00"
        )
    if isinstance(value, ConsumerGroupCurrentMemberAssignmentValue):
        return b"".join(
            [
                I32.pack(value.member_epoch),
                I32.pack(value.previous_member_epoch),
                I8.pack(value.state),
                _array(value.assigned_partitions, _current),
                _array(value.partitions_pending_revocation, _current),
                b"\x00",
            ]
        )
    return _strings(value.topics) + I64.pack(value.version) + I64.pack(value.timestamp) + b"\x00"


# ------------------------------------------------------------------ reading


def read_key_fields(record_type: int, reader: BinaryReader) -> ConsumerGroupKey:
    """The key of ``record_type`` (one of ``CONSUMER_GROUP_RECORD_TYPES``) from its fields.

    Raises:
        KeyError: another record type.
        ValueError (the reader's error): truncated or malformed bytes.
    """
    cls = CONSUMER_GROUP_KEYS[record_type]
    if cls in (
        ConsumerGroupMetadataKey,
        ConsumerGroupPartitionMetadataKey,
        ConsumerGroupTargetAssignmentMetadataKey,
    ):
        return cls(reader.string())  # type: ignore[call-arg]
    return cls(reader.string(), reader.string())  # type: ignore[call-arg]


def _read_array(reader: BinaryReader, read: Callable[[], _T]) -> tuple[_T, ...]:
    count = reader.compact_array_length()
    if count is None:
        raise reader.error("a null array")
    return tuple(read() for _ in range(count))


def _read_int32s(reader: BinaryReader) -> tuple[int, ...]:
    return _read_array(reader, reader.i32)


def _read_strings(reader: BinaryReader) -> tuple[str, ...]:
    return _read_array(reader, reader.compact_string)


def _tags(reader: BinaryReader) -> dict[int, BinaryReader]:
    """The tagged-field section, each field's bytes as a reader of its own (Kafka's error)."""
    return {tag: reader.nested(raw, f"tagged field {tag}") for tag, raw in reader.tagged_fields().items()}


def _read_int64_tag(reader: BinaryReader) -> int:
    tag = _tags(reader).get(0)
    if tag is None:
        return 0
    value = tag.i64()
    tag.end()
    return value


def _read_classic(reader: BinaryReader) -> ClassicMemberMetadata:
    session_timeout_ms = reader.i32()

    def protocol() -> ClassicProtocol:
        out = ClassicProtocol(reader.compact_string(), reader.compact_bytes())
        reader.tagged_fields()
        return out

    protocols = _read_array(reader, protocol)
    reader.tagged_fields()
    return ClassicMemberMetadata(session_timeout_ms, protocols)


def _read_current(reader: BinaryReader) -> CurrentTopicPartitions:
    topic_id, partitions = reader.uuid(), _read_int32s(reader)
    tag = _tags(reader).get(0)
    epochs: tuple[int, ...] | None = ()
    if tag is not None:
        count = tag.compact_array_length()
        epochs = None if count is None else tuple(tag.i32() for _ in range(count))
        tag.end()
    return CurrentTopicPartitions(topic_id, partitions, epochs)


def _read_topic_metadata(reader: BinaryReader) -> TopicMetadata:
    topic_id, name, num_partitions = reader.uuid(), reader.compact_string(), reader.i32()

    def partition() -> PartitionMetadata:
        out = PartitionMetadata(reader.i32(), _read_strings(reader))
        reader.tagged_fields()
        return out

    partitions = _read_array(reader, partition)
    reader.tagged_fields()
    return TopicMetadata(topic_id, name, num_partitions, partitions)


def _read_member(reader: BinaryReader) -> ConsumerGroupMemberMetadataValue:
    fields = (
        reader.compact_nullable_string(),
        reader.compact_nullable_string(),
        reader.compact_string(),
        reader.compact_string(),
        _read_strings(reader),
        reader.compact_nullable_string(),
        reader.i32(),
        reader.compact_nullable_string(),
    )
    tag = _tags(reader).get(0)
    classic: ClassicMemberMetadata | None = ClassicMemberMetadata()
    if tag is not None:
        classic = _read_classic(tag) if tag.unsigned_varint() > 0 else None
        tag.end()
    return ConsumerGroupMemberMetadataValue(*fields, classic_member_metadata=classic)


def _read_target_member(reader: BinaryReader) -> ConsumerGroupTargetAssignmentMemberValue:
    def topic() -> TargetTopicPartitions:
        out = TargetTopicPartitions(reader.uuid(), _read_int32s(reader))
        reader.tagged_fields()
        return out

    value = ConsumerGroupTargetAssignmentMemberValue(_read_array(reader, topic))
    reader.tagged_fields()
    return value


def _read_current_assignment(reader: BinaryReader) -> ConsumerGroupCurrentMemberAssignmentValue:
    epoch, previous, state = reader.i32(), reader.i32(), reader.i8()
    assigned = _read_array(reader, lambda: _read_current(reader))
    pending = _read_array(reader, lambda: _read_current(reader))
    reader.tagged_fields()
    return ConsumerGroupCurrentMemberAssignmentValue(epoch, previous, state, assigned, pending)


def _read_regex(reader: BinaryReader) -> ConsumerGroupRegularExpressionValue:
    value = ConsumerGroupRegularExpressionValue(_read_strings(reader), reader.i64(), reader.i64())
    reader.tagged_fields()
    return value


def _read_partition_metadata(reader: BinaryReader) -> ConsumerGroupPartitionMetadataValue:
    value = ConsumerGroupPartitionMetadataValue(_read_array(reader, lambda: _read_topic_metadata(reader)))
    reader.tagged_fields()
    return value


_VALUE_READERS: dict[int, Callable[[BinaryReader], ConsumerGroupValue]] = {
    3: lambda r: ConsumerGroupMetadataValue(r.i32(), _read_int64_tag(r)),
    4: _read_partition_metadata,
    5: _read_member,
    6: lambda r: ConsumerGroupTargetAssignmentMetadataValue(r.i32(), _read_int64_tag(r)),
    7: _read_target_member,
    8: _read_current_assignment,
    16: _read_regex,
}


def read_value_fields(record_type: int, reader: BinaryReader) -> ConsumerGroupValue:
    """The value of ``record_type`` (one of ``CONSUMER_GROUP_RECORD_TYPES``) from its fields
    (flexible encoding, version 0); the reader is left at its end (the caller checks ``end``).

    Raises:
        KeyError: another record type.
        ValueError (the reader's error): truncated or malformed bytes, a tagged field not
            filling its size exactly, a null where the schema allows none.
    """
    return _VALUE_READERS[record_type](reader)
