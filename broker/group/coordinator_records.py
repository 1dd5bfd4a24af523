"""The records of ``__consumer_offsets``: their keys and values as bytes, in Kafka's layout.

Owns: encoding and decoding the key and value of a committed offset (``OffsetCommitKey``
version 1, ``OffsetCommitValue`` version 3) and of a group's metadata (``GroupMetadataKey``
version 2, ``GroupMetadataValue`` version 3), each prefixed with its int16 schema version as
Kafka writes them, so that the topic reads the same as a Kafka broker's.  A record with a
null value is a tombstone (the offset or group was deleted; compaction drops it later).
Does not own where the records go or what the coordinator does with them.

Layout (big-endian, Kafka's non-flexible encoding): string = int16 length + UTF-8,
nullable string = int16 length (-1 for null) + UTF-8, bytes = int32 length + bytes,
array = int32 count + elements.

The key's first int16 is Kafka's record type (``CoordinatorRecordType``: 0 and 1 offset
commits, 2 group metadata, 3 to 8 and 16 the records of KIP-848 consumer groups, whose fields
``consumer_group_record_codec`` reads and writes; their values are all of version 0).  ``decode_key``
then ``decode_value`` is the one way to read any record of the topic.

Kafka concept: ``GroupCoordinatorRecordSerde`` over ``OffsetCommitKey``/``OffsetCommitValue``
and ``GroupMetadataKey``/``GroupMetadataValue`` (group-coordinator's message schemas).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.broker.group.consumer_group_record_codec import (
    read_key_fields,
    read_value_fields,
    write_key_fields,
    write_value_fields,
)
from kafkette.broker.group.consumer_group_records import (
    CONSUMER_GROUP_RECORD_TYPES,
    CONSUMER_GROUP_VALUE_VERSION,
    ConsumerGroupKey,
    ConsumerGroupValue,
)
from kafkette.protocol.kafka_binary import (
    I16,
    I32,
    I64,
    BinaryReader,
    write_bytes,
    write_nullable_string,
    write_string,
)
from kafkette.protocol.topic_partition import TopicPartition

OFFSET_COMMIT_KEY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2
OFFSET_COMMIT_VALUE_VERSION = 3
GROUP_METADATA_VALUE_VERSION = 3


class CoordinatorRecordError(ValueError):
    """A ``__consumer_offsets`` record that cannot be decoded (unknown version, truncated)."""


@dataclass(frozen=True)
class OffsetCommitKey:
    """Key of a committed offset: the group and the partition it is for."""

    group: str
    topic: str
    partition: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class OffsetCommitValue:
    """A committed offset (Kafka's ``OffsetAndMetadata``).

    Attributes:
        offset: the next offset the group will consume.
        leader_epoch: the epoch of the last consumed record, -1 when unknown.
        metadata: the client's string.
        commit_timestamp: when it was committed (ms since the epoch).
    """

    offset: int
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp: int = 0


@dataclass(frozen=True)
class GroupMetadataKey:
    """Key of a group's metadata."""

    group: str


@dataclass(frozen=True)
class MemberMetadataValue:
    """A member as stored with its group's metadata."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    subscription: bytes
    assignment: bytes


@dataclass(frozen=True)
class GroupMetadataValue:
    """A group's metadata after a rebalance (generation, protocol, leader, members)."""

    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int = -1
    members: tuple[MemberMetadataValue, ...] = field(default_factory=tuple)


Key = OffsetCommitKey | GroupMetadataKey | ConsumerGroupKey
Value = OffsetCommitValue | GroupMetadataValue | ConsumerGroupValue


# ------------------------------------------------------------------ writing


def encode_key(key: Key) -> bytes:
    """The record key's bytes (version prefix included)."""
    if isinstance(key, OffsetCommitKey):
        return (
            I16.pack(OFFSET_COMMIT_KEY_VERSION)
            + write_string(key.group)
            + write_string(key.topic)
            + I32.pack(key.partition)
        )
    if isinstance(key, GroupMetadataKey):
        return I16.pack(GROUP_METADATA_KEY_VERSION) + write_string(key.group)
    return I16.pack(key.RECORD_TYPE) + write_key_fields(key)


def encode_value(value: Value | None) -> bytes | None:
    """The record value's bytes (version prefix included); None (a tombstone) stays None."""
    if value is None:
        return None
    if isinstance(value, OffsetCommitValue):
        return (
            I16.pack(OFFSET_COMMIT_VALUE_VERSION)
            + I64.pack(value.offset)
            + I32.pack(value.leader_epoch)
            + write_string(value.metadata)
            + I64.pack(value.commit_timestamp)
        )
    if not isinstance(value, GroupMetadataValue):
        return I16.pack(CONSUMER_GROUP_VALUE_VERSION) + write_value_fields(value)
    parts = [
        I16.pack(GROUP_METADATA_VALUE_VERSION),
        write_string(value.protocol_type),
        I32.pack(value.generation),
        write_nullable_string(value.protocol),
        write_nullable_string(value.leader),
        I64.pack(value.current_state_timestamp),
        I32.pack(len(value.members)),
    ]
    for m in value.members:
        parts += [
            write_string(m.member_id),
            write_nullable_string(m.group_instance_id),
            write_string(m.client_id),
            write_string(m.client_host),
            I32.pack(m.rebalance_timeout_ms),
            I32.pack(m.session_timeout_ms),
            write_bytes(m.subscription),
            write_bytes(m.assignment),
        ]
    return b"".join(parts)


# ------------------------------------------------------------------ reading


def decode_key(data: bytes) -> Key:
    """The record key from its bytes (its first int16 is the record type).

    Raises:
        CoordinatorRecordError: an unknown version or malformed bytes.
    """
    reader = BinaryReader(data, CoordinatorRecordError, "record")
    version = reader.i16()
    if version in (0, OFFSET_COMMIT_KEY_VERSION):
        key: Key = OffsetCommitKey(reader.string(), reader.string(), reader.i32())
    elif version == GROUP_METADATA_KEY_VERSION:
        key = GroupMetadataKey(reader.string())
    elif version in CONSUMER_GROUP_RECORD_TYPES:
        key = read_key_fields(version, reader)
    else:
        raise CoordinatorRecordError(f"unknown __consumer_offsets key version {version}")
    reader.end()
    return key


def decode_offset_commit_value(data: bytes) -> OffsetCommitValue:
    """A committed offset from its bytes (versions 0 to 3).

    Raises:
        CoordinatorRecordError: an unknown version or malformed bytes.
    """
    reader = BinaryReader(data, CoordinatorRecordError, "record")
    version = reader.i16()
    if not 0 <= version <= OFFSET_COMMIT_VALUE_VERSION:
        raise CoordinatorRecordError(f"unknown offset commit value version {version}")
    offset = reader.i64()
    leader_epoch = reader.i32() if version >= 3 else -1
    metadata = reader.string()
    commit_timestamp = reader.i64()
    if version == 1:
        reader.i64()  # expire timestamp, no longer used
    reader.end()
    return OffsetCommitValue(offset, leader_epoch, metadata, commit_timestamp)


def decode_group_metadata_value(data: bytes) -> GroupMetadataValue:
    """A group's metadata from its bytes (version 3).

    Raises:
        CoordinatorRecordError: another version or malformed bytes.
    """
    reader = BinaryReader(data, CoordinatorRecordError, "record")
    version = reader.i16()
    if version != GROUP_METADATA_VALUE_VERSION:
        raise CoordinatorRecordError(f"unsupported group metadata value version {version}")
    protocol_type, generation = reader.string(), reader.i32()
    protocol, leader, timestamp = reader.nullable_string(), reader.nullable_string(), reader.i64()
    count = reader.i32()
    if count < 0:
        raise CoordinatorRecordError(f"negative member count {count}")
    members = tuple(
        MemberMetadataValue(
            reader.string(),
            reader.nullable_string(),
            reader.string(),
            reader.string(),
            reader.i32(),
            reader.i32(),
            reader.bytes_(),
            reader.bytes_(),
        )
        for _ in range(count)
    )
    reader.end()
    return GroupMetadataValue(protocol_type, generation, protocol, leader, timestamp, members)


def decode_consumer_group_value(record_type: int, data: bytes) -> ConsumerGroupValue:
    """A KIP-848 consumer group record's value (record type 3 to 8 or 16, version 0).

    Raises:
        CoordinatorRecordError: another record type or version, or malformed bytes.
    """
    if record_type not in CONSUMER_GROUP_RECORD_TYPES:
        raise CoordinatorRecordError(f"record type {record_type} is not a consumer group record")
    reader = BinaryReader(data, CoordinatorRecordError, f"record of type {record_type}")
    version = reader.i16()
    if version != CONSUMER_GROUP_VALUE_VERSION:
        raise CoordinatorRecordError(f"unsupported version {version} of record type {record_type}")
    value = read_value_fields(record_type, reader)
    reader.end()
    return value


def decode_value(key: Key, data: bytes) -> Value:
    """The value of the record whose decoded key is ``key`` (not None: a tombstone has no value
    to decode).

    Raises:
        CoordinatorRecordError: an unknown version or malformed bytes.
    """
    if isinstance(key, OffsetCommitKey):
        return decode_offset_commit_value(data)
    if isinstance(key, GroupMetadataKey):
        return decode_group_metadata_value(data)
    return decode_consumer_group_value(key.RECORD_TYPE, data)
