"""The records of KIP-848 consumer groups in ``__consumer_offsets``: their keys and values.

Owns: the keys and values of record types 3 to 8 and 16 as frozen dataclasses, and their
fields' bytes in Kafka's layout: a key's fields in the classic encoding (int16-length strings),
a value's in KIP-482's flexible encoding (compact strings, bytes and arrays, UUIDs, a
tagged-field section after every struct).  The framing (the key's int16 record type, the
value's int16 version, a null value for a tombstone) is ``coordinator_records``'s, the one
entry point for every record of the topic.

Tagged fields, as Kafka 4.3.1's generated classes write and read them:

- ``MetadataHash`` (type 3) and ``AssignmentTimestamp`` (type 6), tag 0: an int64 written only
  when not 0; absent reads as 0.
- ``ClassicMemberMetadata`` (type 5), tag 0: null (a member of the consumer protocol) is
  *written*, as a one-byte marker 0; a struct other than the empty one is written after a
  marker 1; the empty struct (session timeout 0, no protocols) is left out, and an absent
  tag reads as that empty struct, not as null.
- ``AssignmentEpochs`` (type 8, in each ``TopicPartitions``), tag 0: null is written (an array
  length 0); a non-empty list is written; the empty list is left out and absent reads as empty.

Tags this module does not know are skipped on reading (Kafka keeps them as unknown tagged
fields and writes them back; Kafkette drops them).  Does not own what the records mean (the
consumer group's state and its replay) or where they are written.

Kafka concept: ``ConsumerGroupMetadataKey/Value`` (3), ``ConsumerGroupPartitionMetadataKey/Value``
(4, read only: Kafka 4.3 never writes it), ``ConsumerGroupMemberMetadataKey/Value`` (5),
``ConsumerGroupTargetAssignmentMetadataKey/Value`` (6), ``ConsumerGroupTargetAssignmentMemberKey/Value``
(7), ``ConsumerGroupCurrentMemberAssignmentKey/Value`` (8) and ``ConsumerGroupRegularExpressionKey/Value``
(16) of group-coordinator's message schemas, ``CoordinatorRecordType``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

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

CONSUMER_GROUP_VALUE_VERSION = 0
"""The only version of every consumer group value (Kafka's ``validVersions`` "0")."""

_T = TypeVar("_T")

# ------------------------------------------------------------------ keys


@dataclass(frozen=True)
class ConsumerGroupMetadataKey:
    """Key of a consumer group's epoch and metadata hash (record type 3)."""

    RECORD_TYPE: ClassVar[int] = 3
    group_id: str


@dataclass(frozen=True)
class ConsumerGroupPartitionMetadataKey:
    """Key of a consumer group's legacy subscription metadata (record type 4)."""

    RECORD_TYPE: ClassVar[int] = 4
    group_id: str


@dataclass(frozen=True)
class ConsumerGroupMemberMetadataKey:
    """Key of a consumer group member's metadata (record type 5)."""

    RECORD_TYPE: ClassVar[int] = 5
    group_id: str
    member_id: str


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMetadataKey:
    """Key of a consumer group's target assignment epoch (record type 6)."""

    RECORD_TYPE: ClassVar[int] = 6
    group_id: str


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMemberKey:
    """Key of a member's target assignment (record type 7)."""

    RECORD_TYPE: ClassVar[int] = 7
    group_id: str
    member_id: str


@dataclass(frozen=True)
class ConsumerGroupCurrentMemberAssignmentKey:
    """Key of a member's current assignment and epochs (record type 8)."""

    RECORD_TYPE: ClassVar[int] = 8
    group_id: str
    member_id: str


@dataclass(frozen=True)
class ConsumerGroupRegularExpressionKey:
    """Key of a resolved regular expression of a consumer group (record type 16)."""

    RECORD_TYPE: ClassVar[int] = 16
    group_id: str
    regular_expression: str


ConsumerGroupKey = (
    ConsumerGroupMetadataKey
    | ConsumerGroupPartitionMetadataKey
    | ConsumerGroupMemberMetadataKey
    | ConsumerGroupTargetAssignmentMetadataKey
    | ConsumerGroupTargetAssignmentMemberKey
    | ConsumerGroupCurrentMemberAssignmentKey
    | ConsumerGroupRegularExpressionKey
)

_KEYS: dict[int, type[ConsumerGroupKey]] = {
    cls.RECORD_TYPE: cls
    for cls in (
        ConsumerGroupMetadataKey,
        ConsumerGroupPartitionMetadataKey,
        ConsumerGroupMemberMetadataKey,
        ConsumerGroupTargetAssignmentMetadataKey,
        ConsumerGroupTargetAssignmentMemberKey,
        ConsumerGroupCurrentMemberAssignmentKey,
        ConsumerGroupRegularExpressionKey,
    )
}
CONSUMER_GROUP_RECORD_TYPES = frozenset(_KEYS)
"""The record types of this module: 3 to 8 and 16."""

# ------------------------------------------------------------------ values


@dataclass(frozen=True)
class ConsumerGroupMetadataValue:
    """A consumer group's epoch (type 3).

    Attributes:
        epoch: the group epoch.
        metadata_hash: the hash of the subscribed topics' metadata (tagged, 0 when not set).
    """

    epoch: int
    metadata_hash: int = 0


@dataclass(frozen=True)
class PartitionMetadata:
    """Kafka's ``ConsumerGroupPartitionMetadataValue.PartitionMetadata`` (deprecated racks)."""

    partition: int
    racks: tuple[str, ...] = ()


@dataclass(frozen=True)
class TopicMetadata:
    """Kafka's ``ConsumerGroupPartitionMetadataValue.TopicMetadata``; ``topic_id`` is 16 bytes."""

    topic_id: bytes
    topic_name: str
    num_partitions: int
    partition_metadata: tuple[PartitionMetadata, ...] = ()


@dataclass(frozen=True)
class ConsumerGroupPartitionMetadataValue:
    """A consumer group's legacy subscription metadata (type 4): read, never written by Kafka 4.3."""

    topics: tuple[TopicMetadata, ...] = ()


@dataclass(frozen=True)
class ClassicProtocol:
    """A protocol a classic member supports: its name and its subscription bytes."""

    name: str
    metadata: bytes


@dataclass(frozen=True)
class ClassicMemberMetadata:
    """What a member of the classic protocol in a consumer group joined with."""

    session_timeout_ms: int = 0
    supported_protocols: tuple[ClassicProtocol, ...] = ()


@dataclass(frozen=True)
class ConsumerGroupMemberMetadataValue:
    """A consumer group member (type 5).

    Attributes:
        classic_member_metadata: None for a member of the consumer protocol (Kafka writes the
            null); an empty ``ClassicMemberMetadata()`` is what a record without the tag reads as.
    """

    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    classic_member_metadata: ClassicMemberMetadata | None = None


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMetadataValue:
    """A consumer group's target assignment epoch (type 6).

    Attributes:
        assignment_epoch: the group epoch the target assignment was computed for.
        assignment_timestamp: when that computation finished, ms since the epoch (tagged, 0
            when not set).
    """

    assignment_epoch: int
    assignment_timestamp: int = 0


@dataclass(frozen=True)
class TargetTopicPartitions:
    """Kafka's ``ConsumerGroupTargetAssignmentMemberValue.TopicPartition``: a topic id (16 bytes)
    and partition indexes."""

    topic_id: bytes
    partitions: tuple[int, ...] = ()


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMemberValue:
    """A member's target assignment (type 7)."""

    topic_partitions: tuple[TargetTopicPartitions, ...] = ()


@dataclass(frozen=True)
class CurrentTopicPartitions:
    """Kafka's ``ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions``.

    Attributes:
        topic_id: 16 bytes.
        partitions: the partition indexes.
        assignment_epochs: the epoch each partition was assigned at, as long as ``partitions``
            (tagged; None is written as null, the empty tuple is left out).
    """

    topic_id: bytes
    partitions: tuple[int, ...] = ()
    assignment_epochs: tuple[int, ...] | None = ()


@dataclass(frozen=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    """A member's epochs, state (Kafka's ``MemberState`` value) and partitions (type 8)."""

    member_epoch: int
    previous_member_epoch: int
    state: int
    assigned_partitions: tuple[CurrentTopicPartitions, ...] = ()
    partitions_pending_revocation: tuple[CurrentTopicPartitions, ...] = ()


@dataclass(frozen=True)
class ConsumerGroupRegularExpressionValue:
    """The topics a regular expression resolved to (type 16), the metadata version it was
    resolved at and when (ms since the epoch)."""

    topics: tuple[str, ...]
    version: int
    timestamp: int


ConsumerGroupValue = (
    ConsumerGroupMetadataValue
    | ConsumerGroupPartitionMetadataValue
    | ConsumerGroupMemberMetadataValue
    | ConsumerGroupTargetAssignmentMetadataValue
    | ConsumerGroupTargetAssignmentMemberValue
    | ConsumerGroupCurrentMemberAssignmentValue
    | ConsumerGroupRegularExpressionValue
)

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
    cls = _KEYS[record_type]
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
