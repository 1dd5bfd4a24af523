"""The consumer's group protocol data: a member's subscription and its assignment, as bytes in
Kafka's layout (so that the metadata of a JoinGroup and SyncGroup reads as Kafka's).

Owns: ``Subscription`` and ``Assignment`` and their version-0 encoding (big-endian): int16
version, then the topics (int32 count, each an int16-length UTF-8 string) or the assigned
partitions (int32 count of topics, each a string and an int32 count of int32 partitions), then
user data (int32 length, -1 for null).  Pure code, no I/O; used by the consumer and by the
group coordinator (which reads subscriptions for OffsetDelete).  Does not own how partitions
are assigned (the consumer's ``assignors``).

Kafka concept: ``ConsumerProtocolSubscription`` / ``ConsumerProtocolAssignment``
(``ConsumerProtocol``), protocol type "consumer".
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.protocol.kafka_binary import I16, I32, BinaryReader, write_nullable_bytes, write_string
from kafkette.protocol.topic_partition import TopicPartition

PROTOCOL_TYPE = "consumer"
VERSION = 0


@dataclass(frozen=True)
class Subscription:
    """The topics a member subscribes to (sorted), its user data and, from version 1, the
    partitions it owns now (KIP-429: the cooperative protocol keeps them where it can); from
    version 3 the member's rack (``client.rack``, KIP-881), read only (None: none, or an older
    version)."""

    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: tuple[TopicPartition, ...] = ()
    rack_id: str | None = None


@dataclass(frozen=True)
class Assignment:
    """The partitions a member was given (sorted) and the assignor's user data."""

    partitions: tuple[TopicPartition, ...]
    user_data: bytes | None = None


def _topic_partitions(partitions: tuple[TopicPartition, ...]) -> list[bytes]:
    by_topic: dict[str, list[int]] = {}
    for tp in sorted(partitions):
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    parts = [I32.pack(len(by_topic))]
    for topic, numbers in by_topic.items():
        parts += [write_string(topic), I32.pack(len(numbers)), *(I32.pack(p) for p in numbers)]
    return parts


def encode_subscription(subscription: Subscription, version: int = VERSION) -> bytes:
    """The subscription's bytes: version 0, or 1 with the owned partitions (KIP-429)."""
    parts = [
        I16.pack(version),
        I32.pack(len(subscription.topics)),
        *(write_string(t) for t in subscription.topics),
        write_nullable_bytes(subscription.user_data),
    ]
    if version >= 1:
        parts += _topic_partitions(subscription.owned_partitions)
    return b"".join(parts)


def encode_assignment(assignment: Assignment) -> bytes:
    """The assignment's bytes (partitions grouped by topic, in order)."""
    return b"".join(
        [
            I16.pack(VERSION),
            *_topic_partitions(assignment.partitions),
            write_nullable_bytes(assignment.user_data),
        ]
    )


def _read_topic_partitions(reader: BinaryReader) -> list[TopicPartition]:
    out = []
    for _ in range(reader.i32()):
        topic = reader.string()
        out += [TopicPartition(topic, reader.i32()) for _ in range(reader.i32())]
    return out


def decode_subscription(data: bytes) -> Subscription:
    """A subscription from its bytes (any version: the owned partitions of version 1 and later
    and the rack of version 3 are read, version 2's generation skipped, later fields ignored).

    Raises:
        ValueError: malformed bytes.
    """
    reader = BinaryReader(data, ValueError, "consumer protocol data")
    version = reader.i16()
    topics = tuple(sorted(reader.string() for _ in range(reader.i32())))
    user_data = reader.nullable_bytes() if reader.remaining() else None
    owned = tuple(sorted(_read_topic_partitions(reader))) if version >= 1 and reader.remaining() else ()
    if version >= 2 and reader.remaining():
        reader.i32()  # the generation (KIP-792)
    rack_id = reader.nullable_string() if version >= 3 and reader.remaining() else None
    return Subscription(topics, user_data, owned, rack_id)


def decode_assignment(data: bytes) -> Assignment:
    """An assignment from its bytes; empty bytes are an empty assignment.

    Raises:
        ValueError: malformed bytes.
    """
    if not data:
        return Assignment(())
    reader = BinaryReader(data, ValueError, "consumer protocol data")
    reader.i16()
    partitions = _read_topic_partitions(reader)
    user_data = reader.nullable_bytes() if reader.remaining() else None
    return Assignment(tuple(sorted(partitions)), user_data)
