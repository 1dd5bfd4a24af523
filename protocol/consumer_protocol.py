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

import struct
from dataclasses import dataclass

from kafkette.protocol.topic_partition import TopicPartition

PROTOCOL_TYPE = "consumer"
VERSION = 0

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


@dataclass(frozen=True)
class Subscription:
    """The topics a member subscribes to (sorted), its user data and, from version 1, the
    partitions it owns now (KIP-429: the cooperative protocol keeps them where it can)."""

    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: tuple[TopicPartition, ...] = ()


@dataclass(frozen=True)
class Assignment:
    """The partitions a member was given (sorted) and the assignor's user data."""

    partitions: tuple[TopicPartition, ...]
    user_data: bytes | None = None


def _string(value: str) -> bytes:
    data = value.encode("utf-8")
    return _I16.pack(len(data)) + data


def _user_data(value: bytes | None) -> bytes:
    return _I32.pack(-1) if value is None else _I32.pack(len(value)) + value


def _topic_partitions(partitions: tuple[TopicPartition, ...]) -> list[bytes]:
    by_topic: dict[str, list[int]] = {}
    for tp in sorted(partitions):
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    parts = [_I32.pack(len(by_topic))]
    for topic, numbers in by_topic.items():
        parts += [_string(topic), _I32.pack(len(numbers)), *(_I32.pack(p) for p in numbers)]
    return parts


def encode_subscription(subscription: Subscription, version: int = VERSION) -> bytes:
    """The subscription's bytes: version 0, or 1 with the owned partitions (KIP-429)."""
    parts = [_I16.pack(version), _I32.pack(len(subscription.topics)),
             *(_string(t) for t in subscription.topics), _user_data(subscription.user_data)]
    if version >= 1:
        parts += _topic_partitions(subscription.owned_partitions)
    return b"".join(parts)


def encode_assignment(assignment: Assignment) -> bytes:
    """The assignment's bytes (partitions grouped by topic, in order)."""
    return b"".join([_I16.pack(VERSION), *_topic_partitions(assignment.partitions), _user_data(assignment.user_data)])


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"consumer protocol data truncated at byte {self.pos} of {len(self.data)}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def i16(self) -> int:
        return int(_I16.unpack(self.take(2))[0])

    def i32(self) -> int:
        return int(_I32.unpack(self.take(4))[0])

    def string(self) -> str:
        return self.take(self.i16()).decode("utf-8")

    def user_data(self) -> bytes | None:
        n = self.i32()
        return None if n == -1 else self.take(n)

    def topic_partitions(self) -> list[TopicPartition]:
        out = []
        for _ in range(self.i32()):
            topic = self.string()
            out += [TopicPartition(topic, self.i32()) for _ in range(self.i32())]
        return out


def decode_subscription(data: bytes) -> Subscription:
    """A subscription from its bytes (any version: the owned partitions of version 1 and later
    are read, later fields ignored).

    Raises:
        ValueError: malformed bytes.
    """
    reader = _Reader(data)
    version = reader.i16()
    topics = tuple(sorted(reader.string() for _ in range(reader.i32())))
    user_data = reader.user_data() if reader.pos < len(data) else None
    owned = tuple(sorted(reader.topic_partitions())) if version >= 1 and reader.pos < len(data) else ()
    return Subscription(topics, user_data, owned)


def decode_assignment(data: bytes) -> Assignment:
    """An assignment from its bytes; empty bytes are an empty assignment.

    Raises:
        ValueError: malformed bytes.
    """
    if not data:
        return Assignment(())
    reader = _Reader(data)
    reader.i16()
    partitions = reader.topic_partitions()
    user_data = reader.user_data() if reader.pos < len(data) else None
    return Assignment(tuple(sorted(partitions)), user_data)
