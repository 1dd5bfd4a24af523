"""Kafka's varint records (DefaultRecord): round trips of record rows, and malformed sections."""

import pytest

from kafkette.protocol.compression import CorruptRecordError
from kafkette.protocol.kafka_binary import write_varint, write_varlong
from kafkette.protocol.kafka_records import decode_default_records, encode_default_records

ROWS = [
    [0, 0, b"key", b"value", [["trace", b"t-1"], ["null", None]]],
    [1, -5, None, None, []],  # a tombstone without key, earlier than the first record
    [2, 0, b"", b"", [["", b""]]],  # empty, not null
    [3, 70_000, b"k" * 9_000, b"v" * 300_000, []],  # multi-byte lengths and delta
    [4, (1 << 63) - 1, b"\x00\xff", b"\x80" * 64, [["h\u00e9\u65e5\U0001f600", None]] * 3],
    [(1 << 31) - 1, -(1 << 63), b"max", None, []],
]


def _record(*fields: bytes) -> bytes:
    body = b"".join(fields)
    return write_varint(len(body)) + body


def _simple(key=b"k", value=b"v", headers=b"\x00", offset_delta=0) -> bytes:
    """One record's fields: attributes, timestamp delta 0, the offset delta, key, value, headers."""
    return (
        b"\x00"
        + write_varlong(0)
        + write_varint(offset_delta)
        + write_varint(len(key))
        + key
        + write_varint(len(value))
        + value
        + headers
    )


def test_rows_round_trip_with_nulls_empties_large_lengths_and_extreme_deltas():
    data = encode_default_records(ROWS)
    assert decode_default_records(data, len(ROWS)) == ROWS
    assert decode_default_records(memoryview(data), len(ROWS)) == ROWS
    assert decode_default_records(bytearray(data), len(ROWS)) == ROWS


def test_one_record_has_kafkas_exact_layout():
    data = encode_default_records([[1, 2, b"k", None, [["h", b"v"]]]])
    body = (
        b"\x00"
        + write_varlong(2)
        + write_varint(1)
        + write_varint(1)
        + b"k"
        + write_varint(-1)
        + write_varint(1)
        + write_varint(1)
        + b"h"
        + write_varint(1)
        + b"v"
    )
    assert data == write_varint(len(body)) + body


def test_tuples_and_none_headers_encode_like_lists():
    assert encode_default_records([(0, 0, b"k", b"v", (("h", b"x"),))]) == encode_default_records(
        [[0, 0, b"k", b"v", [["h", b"x"]]]]
    )
    assert encode_default_records([(0, 0, b"k", b"v", None)]) == encode_default_records(
        [[0, 0, b"k", b"v", []]]
    )


def test_an_empty_section_holds_zero_records():
    assert decode_default_records(b"", 0) == []


@pytest.mark.parametrize(
    "row, error",
    [
        ([0, 0, "a str key", b"v", []], TypeError),
        ([0, 0, b"k", 12, []], TypeError),
        ([0, 0, b"k", b"v", [[b"bytes key", b"v"]]], TypeError),
        ([0, 0, b"k", b"v", [["h", "str value"]]], TypeError),
        ([1 << 31, 0, b"k", b"v", []], ValueError),
        ([0, 1 << 63, b"k", b"v", []], ValueError),
        ([0, 0, b"k"], ValueError),
    ],
)
def test_rows_kafkas_encoding_cannot_hold_are_refused(row, error):
    with pytest.raises(error):
        encode_default_records([row])


def test_every_truncation_of_a_valid_section_is_corrupt():
    data = encode_default_records(ROWS[:3] + ROWS[4:5])
    for cut in range(len(data)):
        with pytest.raises(CorruptRecordError):
            decode_default_records(data[:cut], 4)


def test_a_count_above_or_below_the_records_held_is_corrupt():
    data = encode_default_records(ROWS[:3])
    with pytest.raises(CorruptRecordError, match="ends inside record 3 of 4"):
        decode_default_records(data, 4)
    with pytest.raises(CorruptRecordError, match="bytes after the 2 records"):
        decode_default_records(data, 2)


@pytest.mark.parametrize(
    "data, match",
    [
        (b"\xff\xff\xff\xff\xff\x01" + _simple(), "longer than 5 bytes"),  # the length varint
        (b"\xff\xff\xff\xff\x7f" + _simple(), "over 32 bits"),
        (
            _record(b"\x00" + b"\xff" * 10 + b"\x01", _simple()[2:]),
            "longer than 10 bytes",
        ),  # timestamp varlong
        (_record(b"\x00\x00" + b"\xff" * 5 + b"\x01", _simple()[3:]), "longer than 5 bytes"),  # offset varint
    ],
)
def test_varints_longer_than_kafka_allows_are_corrupt(data, match):
    with pytest.raises(CorruptRecordError, match=match):
        decode_default_records(data, 1)


@pytest.mark.parametrize(
    "fields, match",
    [
        (b"\x00\x00\x00" + write_varint(-2) + b"\x02v\x00", "key length -2"),
        (b"\x00\x00\x00\x02k" + write_varint(-3) + b"\x00", "value length -3"),
        (_simple(headers=write_varint(-1)), "-1 headers"),
        (_simple(headers=write_varint(1_000)), "1000 headers"),
        (_simple(headers=write_varint(1) + write_varint(-1) + write_varint(-1)), "header key length -1"),
        (_simple(headers=write_varint(1) + write_varint(2) + b"\xc3\x28" + write_varint(-1)), "not UTF-8"),
        (
            _simple(headers=write_varint(1) + write_varint(1) + b"h" + write_varint(-2)),
            "header value length -2",
        ),
    ],
)
def test_negative_lengths_impossible_header_counts_and_bad_utf8_keys_are_corrupt(fields, match):
    with pytest.raises(CorruptRecordError, match=match):
        decode_default_records(_record(fields), 1)


def test_a_record_whose_fields_do_not_fill_its_declared_length_is_corrupt():
    fields = _simple()
    longer = write_varint(len(fields) + 1) + fields + b"\x00"
    shorter = write_varint(len(fields) - 1) + fields
    with pytest.raises(CorruptRecordError, match=r"declares \d+ bytes but its fields take"):
        decode_default_records(longer, 1)
    with pytest.raises(CorruptRecordError):
        decode_default_records(shorter, 1)
    with pytest.raises(CorruptRecordError, match="declares 0 bytes"):
        decode_default_records(write_varint(0) + fields, 1)


def test_a_key_running_past_its_record_is_corrupt_not_read_from_the_next():
    first = _record(b"\x00\x00\x00" + write_varint(40) + b"k" + write_varint(1) + b"v\x00")
    with pytest.raises(CorruptRecordError):
        decode_default_records(first + _record(_simple(offset_delta=1)) * 5, 6)
