"""A consumer's subscription and assignment as bytes in Kafka's ConsumerProtocol layout."""

from __future__ import annotations

import struct

import pytest

from kafkette.protocol.consumer_protocol import (
    Assignment,
    Subscription,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from kafkette.protocol.topic_partition import TopicPartition


def test_subscription_bytes_are_kafkas_version_0() -> None:
    data = encode_subscription(Subscription(("a", "bc")))
    assert data == struct.pack(">hi", 0, 2) + b"\x00\x01a" + b"\x00\x02bc" + struct.pack(">i", -1)
    assert decode_subscription(data) == Subscription(("a", "bc"))


def test_assignment_round_trip_groups_partitions_by_topic() -> None:
    assignment = Assignment((TopicPartition("t", 2), TopicPartition("s", 0), TopicPartition("t", 0)), b"ud")
    data = encode_assignment(assignment)
    assert data == (
        struct.pack(">hi", 0, 2)
        + b"\x00\x01s"
        + struct.pack(">ii", 1, 0)
        + b"\x00\x01t"
        + struct.pack(">iii", 2, 0, 2)
        + struct.pack(">i", 2)
        + b"ud"
    )
    decoded = decode_assignment(data)
    assert decoded.partitions == (TopicPartition("s", 0), TopicPartition("t", 0), TopicPartition("t", 2))
    assert decoded.user_data == b"ud"


def test_an_empty_assignment_is_empty_bytes_or_no_partitions() -> None:
    assert decode_assignment(b"").partitions == ()
    assert decode_assignment(encode_assignment(Assignment(()))).partitions == ()


def test_truncated_data_is_refused() -> None:
    with pytest.raises(ValueError, match="truncated"):
        decode_subscription(struct.pack(">hi", 0, 3) + b"\x00\x01a")


def test_subscription_version_1_carries_the_owned_partitions() -> None:
    owned = (TopicPartition("a", 1), TopicPartition("a", 0))
    data = encode_subscription(Subscription(("a",), owned_partitions=owned), version=1)
    assert data.startswith(struct.pack(">h", 1))
    assert decode_subscription(data) == Subscription(
        ("a",), None, (TopicPartition("a", 0), TopicPartition("a", 1))
    )
    assert decode_subscription(encode_subscription(Subscription(("a",)), version=0)).owned_partitions == ()


def test_subscription_version_3_carries_the_rack_after_the_generation() -> None:
    body = encode_subscription(Subscription(("a",)), version=1)[2:]
    rack = struct.pack(">h", 2) + b"r1"
    data = struct.pack(">h", 3) + body + struct.pack(">i", 7) + rack
    assert decode_subscription(data) == Subscription(("a",), None, (), "r1")
    null_rack = struct.pack(">h", 3) + body + struct.pack(">i", 7) + struct.pack(">h", -1)
    assert decode_subscription(null_rack).rack_id is None
    assert decode_subscription(struct.pack(">h", 2) + body + struct.pack(">i", 7)).rack_id is None
