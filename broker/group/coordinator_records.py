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

Kafka concept: ``GroupCoordinatorRecordSerde`` over ``OffsetCommitKey``/``OffsetCommitValue``
and ``GroupMetadataKey``/``GroupMetadataValue`` (group-coordinator's message schemas).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from kafkette.protocol.topic_partition import TopicPartition

OFFSET_COMMIT_KEY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2
OFFSET_COMMIT_VALUE_VERSION = 3
GROUP_METADATA_VALUE_VERSION = 3

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


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


Key = OffsetCommitKey | GroupMetadataKey
Value = OffsetCommitValue | GroupMetadataValue


# ------------------------------------------------------------------ writing

def _string(value: str) -> bytes:
    data = value.encode("utf-8")
    return _I16.pack(len(data)) + data


def _nullable_string(value: str | None) -> bytes:
    return _I16.pack(-1) if value is None else _string(value)


def _bytes(value: bytes) -> bytes:
    return _I32.pack(len(value)) + value


def encode_key(key: Key) -> bytes:
    """The record key's bytes (version prefix included)."""
    if isinstance(key, OffsetCommitKey):
        return (_I16.pack(OFFSET_COMMIT_KEY_VERSION) + _string(key.group) + _string(key.topic)
                + _I32.pack(key.partition))
    return _I16.pack(GROUP_METADATA_KEY_VERSION) + _string(key.group)


def encode_value(value: Value | None) -> bytes | None:
    """The record value's bytes (version prefix included); None (a tombstone) stays None."""
    if value is None:
        return None
    if isinstance(value, OffsetCommitValue):
        return (_I16.pack(OFFSET_COMMIT_VALUE_VERSION) + _I64.pack(value.offset) + _I32.pack(value.leader_epoch)
                + _string(value.metadata) + _I64.pack(value.commit_timestamp))
    parts = [_I16.pack(GROUP_METADATA_VALUE_VERSION), _string(value.protocol_type), _I32.pack(value.generation),
             _nullable_string(value.protocol), _nullable_string(value.leader), _I64.pack(value.current_state_timestamp),
             _I32.pack(len(value.members))]
    for m in value.members:
        parts += [_string(m.member_id), _nullable_string(m.group_instance_id), _string(m.client_id),
                  _string(m.client_host), _I32.pack(m.rebalance_timeout_ms), _I32.pack(m.session_timeout_ms),
                  _bytes(m.subscription), _bytes(m.assignment)]
    return b"".join(parts)


# ------------------------------------------------------------------ reading

class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def _take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise CoordinatorRecordError(f"truncated record: needs {n} bytes at {self.pos} of {len(self.data)}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def i16(self) -> int:
        return int(_I16.unpack(self._take(2))[0])

    def i32(self) -> int:
        return int(_I32.unpack(self._take(4))[0])

    def i64(self) -> int:
        return int(_I64.unpack(self._take(8))[0])

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise CoordinatorRecordError("null where a string is required")
        return value

    def nullable_string(self) -> str | None:
        n = self.i16()
        if n == -1:
            return None
        try:
            return bytes(self._take(n)).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CoordinatorRecordError(f"a string that is not UTF-8: {exc}") from None

    def bytes_(self) -> bytes:
        return bytes(self._take(self.i32()))

    def end(self) -> None:
        if self.pos != len(self.data):
            raise CoordinatorRecordError(f"{len(self.data) - self.pos} bytes left after the record")


def decode_key(data: bytes) -> Key:
    """The record key from its bytes.

    Raises:
        CoordinatorRecordError: an unknown version or malformed bytes.
    """
    reader = _Reader(data)
    version = reader.i16()
    if version in (0, OFFSET_COMMIT_KEY_VERSION):
        key: Key = OffsetCommitKey(reader.string(), reader.string(), reader.i32())
    elif version == GROUP_METADATA_KEY_VERSION:
        key = GroupMetadataKey(reader.string())
    else:
        raise CoordinatorRecordError(f"unknown __consumer_offsets key version {version}")
    reader.end()
    return key


def decode_offset_commit_value(data: bytes) -> OffsetCommitValue:
    """A committed offset from its bytes (versions 0 to 3).

    Raises:
        CoordinatorRecordError: an unknown version or malformed bytes.
    """
    reader = _Reader(data)
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
    reader = _Reader(data)
    version = reader.i16()
    if version != GROUP_METADATA_VALUE_VERSION:
        raise CoordinatorRecordError(f"unsupported group metadata value version {version}")
    protocol_type, generation = reader.string(), reader.i32()
    protocol, leader, timestamp = reader.nullable_string(), reader.nullable_string(), reader.i64()
    count = reader.i32()
    if count < 0:
        raise CoordinatorRecordError(f"negative member count {count}")
    members = tuple(MemberMetadataValue(reader.string(), reader.nullable_string(), reader.string(), reader.string(),
                                        reader.i32(), reader.i32(), reader.bytes_(), reader.bytes_())
                    for _ in range(count))
    reader.end()
    return GroupMetadataValue(protocol_type, generation, protocol, leader, timestamp, members)
