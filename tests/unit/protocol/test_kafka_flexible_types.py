"""KIP-482's flexible field types and the zig-zag varints: the writers against bytes worked out
from Kafka's definitions by hand, round trips over the whole ranges' edges, and the reader's
errors (too long, out of range, truncated, out-of-order tags); a nullable struct's marker."""

from __future__ import annotations

import pytest

from kafkette.protocol.apis.describe_topic_partitions import Cursor, DescribeTopicPartitionsRequest
from kafkette.protocol.kafka_binary import (
    BinaryReader,
    write_compact_array_length,
    write_compact_nullable_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
    write_unsigned_varint,
    write_uuid,
    write_varint,
    write_varlong,
)


class Broken(ValueError):
    pass


def reader(data: bytes) -> BinaryReader:
    return BinaryReader(data, Broken, "test data")


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (16384, b"\x80\x80\x01"),
        (0xFFFFFFFF, b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_unsigned_varints_are_7_bit_groups_low_first(value, encoded):
    assert write_unsigned_varint(value) == encoded
    assert reader(encoded).unsigned_varint() == value


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (-2, b"\x03"),
        (63, b"\x7e"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
    ],
)
def test_varints_are_zig_zag(value, encoded):
    assert write_varint(value) == encoded and reader(encoded).varint() == value
    assert write_varlong(value) == encoded and reader(encoded).varlong() == value


@pytest.mark.parametrize("value", [-(1 << 31), (1 << 31) - 1, 12345, -987654])
def test_varint_edges_round_trip(value):
    assert reader(write_varint(value)).varint() == value


@pytest.mark.parametrize("value", [-(1 << 63), (1 << 63) - 1, 1 << 40, -(1 << 40)])
def test_varlong_edges_round_trip(value):
    assert len(write_varlong(value)) <= 10
    assert reader(write_varlong(value)).varlong() == value


def test_out_of_range_values_are_refused_by_the_writers():
    for write, value in [
        (write_unsigned_varint, -1),
        (write_unsigned_varint, 1 << 32),
        (write_varint, 1 << 31),
        (write_varlong, 1 << 63),
    ]:
        with pytest.raises(ValueError):
            write(value)
    with pytest.raises(ValueError, match="16 bytes"):
        write_uuid(b"short")


def test_compact_strings_bytes_and_arrays_count_length_plus_one_and_zero_for_null():
    assert write_compact_string("ab") == b"\x03ab"
    assert write_compact_nullable_string(None) == b"\x00"
    assert write_compact_nullable_bytes(b"") == b"\x01"
    assert write_compact_array_length(2) == b"\x03" and write_compact_array_length(None) == b"\x00"
    data = (
        write_compact_string("h\u00e9")
        + write_compact_nullable_string(None)
        + write_compact_nullable_bytes(b"xy")
        + write_compact_nullable_bytes(None)
        + write_compact_array_length(0)
        + write_compact_array_length(None)
        + write_uuid(bytes(range(16)))
    )
    r = reader(data)
    assert r.compact_string() == "h\u00e9" and r.compact_nullable_string() is None
    assert r.compact_bytes() == b"xy" and r.compact_nullable_bytes() is None
    assert r.compact_array_length() == 0 and r.compact_array_length() is None
    assert r.uuid() == bytes(range(16))
    r.end()


def test_tagged_fields_are_written_in_tag_order_and_read_back_raw():
    assert write_tagged_fields() == b"\x00" and write_tagged_fields({}) == b"\x00"
    data = write_tagged_fields({5: b"\x01\x02", 0: b""})
    assert data == b"\x02" + b"\x00\x00" + b"\x05\x02\x01\x02"
    assert reader(data).tagged_fields() == {0: b"", 5: b"\x01\x02"}


@pytest.mark.parametrize(
    ("data", "read", "message"),
    [
        (b"\x80\x80\x80\x80\x80\x01", BinaryReader.unsigned_varint, "longer than 5 bytes"),
        (b"\xff\xff\xff\xff\x1f", BinaryReader.unsigned_varint, "over 32 bits"),
        (b"\x80" * 10 + b"\x01", BinaryReader.varlong, "longer than 10 bytes"),
        (b"\x80", BinaryReader.unsigned_varint, "truncated"),
        (b"\x00", BinaryReader.compact_string, "null where a string is required"),
        (b"\x00", BinaryReader.compact_bytes, "null where bytes are required"),
        (b"\x02\xff", BinaryReader.compact_string, "not UTF-8"),
        (b"\x05ab", BinaryReader.compact_bytes, "truncated"),
        (b"\x64\x00", BinaryReader.compact_array_length, "an array of 99 elements in 1 bytes"),
        (b"\x02\x05\x00\x01\x00", BinaryReader.tagged_fields, "tagged field 1 out of order"),
    ],
)
def test_malformed_flexible_input_raises_the_given_error(data, read, message):
    with pytest.raises(Broken, match=message):
        read(reader(data))


def test_a_nullable_struct_is_an_int8_marker_minus_one_for_null_and_one_before_the_struct():
    def body(request: DescribeTopicPartitionsRequest) -> bytes:
        return b"".join(bytes(p) for p in request.encode(0, True))

    # topics (compact array of none), response_partition_limit 2000, then the cursor, then no tags
    without = DescribeTopicPartitionsRequest(cursor=None)
    assert body(without) == b"\x01" + b"\x00\x00\x07\xd0" + b"\xff" + b"\x00"
    with_cursor = DescribeTopicPartitionsRequest(cursor=Cursor(topic_name="t", partition_index=3))
    assert (
        body(with_cursor) == b"\x01\x00\x00\x07\xd0" + b"\x01" + b"\x02t" + b"\x00\x00\x00\x03\x00" + b"\x00"
    )
    for request in (without, with_cursor):
        assert DescribeTopicPartitionsRequest.decode(body(request), 0, True) == request
