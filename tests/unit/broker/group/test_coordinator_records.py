"""``__consumer_offsets`` records in Kafka's byte layout: exact bytes for known values, round
trips, and clear errors for unknown versions and truncated records."""

from __future__ import annotations

import struct

import pytest

from kafkette.broker.group.coordinator_records import (
    CoordinatorRecordError,
    GroupMetadataKey,
    GroupMetadataValue,
    MemberMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    decode_group_metadata_value,
    decode_key,
    decode_offset_commit_value,
    encode_key,
    encode_value,
)


def test_offset_commit_key_bytes_are_kafkas_version_1() -> None:
    data = encode_key(OffsetCommitKey("g", "t", 2))
    assert data == b"\x00\x01" + b"\x00\x01g" + b"\x00\x01t" + b"\x00\x00\x00\x02"
    assert decode_key(data) == OffsetCommitKey("g", "t", 2)


def test_offset_commit_value_bytes_are_kafkas_version_3() -> None:
    data = encode_value(OffsetCommitValue(42, 7, "m", 1700000000000))
    assert data == struct.pack(">hqih", 3, 42, 7, 1) + b"m" + struct.pack(">q", 1700000000000)
    assert decode_offset_commit_value(data) == OffsetCommitValue(42, 7, "m", 1700000000000)


def test_older_offset_commit_values_decode() -> None:
    v1 = struct.pack(">hqh", 1, 9, 0) + struct.pack(">qq", 123, 456)  # offset, metadata, commit ts, expire ts
    assert decode_offset_commit_value(v1) == OffsetCommitValue(9, -1, "", 123)
    v2 = struct.pack(">hqh", 2, 9, 2) + b"ab" + struct.pack(">q", 123)
    assert decode_offset_commit_value(v2) == OffsetCommitValue(9, -1, "ab", 123)


def test_group_metadata_round_trip_and_tombstone() -> None:
    member = MemberMetadataValue(
        "consumer-1-x", "instance-1", "consumer-1", "/127.0.0.1", 300000, 45000, b"\x00sub", b"\x00assign"
    )
    value = GroupMetadataValue("consumer", 4, "range", "consumer-1-x", 1700000000000, (member,))
    assert decode_group_metadata_value(encode_value(value)) == value
    assert decode_key(encode_key(GroupMetadataKey("orders"))) == GroupMetadataKey("orders")
    assert encode_value(None) is None
    empty = GroupMetadataValue("consumer", 0, None, None)
    assert decode_group_metadata_value(encode_value(empty)) == empty


def test_non_ascii_names_round_trip() -> None:
    key = OffsetCommitKey("gr\u00fcppe-\U0001f600", "t\u00f6pic", 0)
    assert decode_key(encode_key(key)) == key


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x09\x00\x01g", "unknown __consumer_offsets key version 9"),
        (b"\x00\x07\x00\x01g", "truncated record"),  # a consumer group key of two strings
        (b"\x00\x01\x00\x05gr", "truncated record"),
        (b"\x00\x02\x00\x01g\x00", "bytes left after the record"),
        (b"\x00", "truncated record"),
    ],
)
def test_bad_keys_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(CoordinatorRecordError, match=message):
        decode_key(data)


def test_bad_values_are_refused() -> None:
    with pytest.raises(CoordinatorRecordError, match="unknown offset commit value version 9"):
        decode_offset_commit_value(struct.pack(">hq", 9, 1))
    with pytest.raises(CoordinatorRecordError, match="not UTF-8"):
        decode_offset_commit_value(struct.pack(">hqih", 3, 1, -1, 1) + b"\xff" + struct.pack(">q", 0))
    with pytest.raises(CoordinatorRecordError, match="unsupported group metadata value version 0"):
        decode_group_metadata_value(struct.pack(">h", 0))
