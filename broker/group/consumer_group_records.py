"""The records of KIP-848 consumer groups in ``__consumer_offsets``: their keys and values.

Owns: the keys and values of record types 3 to 8 and 16 as frozen dataclasses, field for field
Kafka's (snake_case names, tuples for arrays, 16-byte ``bytes`` for topic ids, None for null).
Their bytes are ``consumer_group_record_codec``'s; the framing (the key's int16 record type, the
value's int16 version, a null value for a tombstone) is ``coordinator_records``'s, the one
entry point for every record of the topic.  Does not own what the records mean (the consumer
group's state and its replay) or where they are written.

Two tagged fields have three states, as in Kafka 4.3.1's generated classes: a member's
``classic_member_metadata`` is None for a member of the consumer protocol (Kafka writes that
null), and a record without the tag reads as the empty ``ClassicMemberMetadata()``; a
``CurrentTopicPartitions.assignment_epochs`` of None is written as null, the empty tuple is left
out and absent reads as empty.

Kafka concept: ``ConsumerGroupMetadataKey/Value`` (3), ``ConsumerGroupPartitionMetadataKey/Value``
(4, read only: Kafka 4.3 never writes it), ``ConsumerGroupMemberMetadataKey/Value`` (5),
``ConsumerGroupTargetAssignmentMetadataKey/Value`` (6), ``ConsumerGroupTargetAssignmentMemberKey/Value``
(7), ``ConsumerGroupCurrentMemberAssignmentKey/Value`` (8) and ``ConsumerGroupRegularExpressionKey/Value``
(16) of group-coordinator's message schemas, ``CoordinatorRecordType``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

CONSUMER_GROUP_VALUE_VERSION = 0
"""The only version of every consumer group value (Kafka's ``validVersions`` "0")."""

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

CONSUMER_GROUP_KEYS: dict[int, type[ConsumerGroupKey]] = {
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
"""The key class of each record type."""
CONSUMER_GROUP_RECORD_TYPES = frozenset(CONSUMER_GROUP_KEYS)
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
