"""Kafka's classic field encoding: the writers and the reader that reads them back."""

from __future__ import annotations

import pytest

from kafkette.protocol.kafka_binary import (
    I16,
    I32,
    I64,
    BinaryReader,
    write_bytes,
    write_nullable_bytes,
    write_nullable_string,
    write_string,
)


class Broken(ValueError):
    pass


def test_round_trip_of_every_field() -> None:
    data = (
        I16.pack(-2)
        + I32.pack(7)
        + I64.pack(1 << 40)
        + write_string("h\u00e9")
        + write_nullable_string(None)
        + write_bytes(b"ab")
        + write_nullable_bytes(None)
    )
    reader = BinaryReader(data, Broken, "test data")
    assert (reader.i16(), reader.i32(), reader.i64()) == (-2, 7, 1 << 40)
    assert (reader.string(), reader.nullable_string(), reader.bytes_(), reader.nullable_bytes()) == (
        "h\u00e9",
        None,
        b"ab",
        None,
    )
    reader.end()
    assert reader.remaining() == 0


@pytest.mark.parametrize(
    ("data", "read", "message"),
    [
        (b"\x00", BinaryReader.i16, "truncated test data: needs 2 bytes at byte 0 of 1"),
        (write_nullable_string(None), BinaryReader.string, "null where a string is required in test data"),
        (write_nullable_bytes(None), BinaryReader.bytes_, "null where bytes are required in test data"),
        (I16.pack(1) + b"\xff", BinaryReader.string, "not UTF-8"),
        (I16.pack(1) + b"ab", lambda r: (r.i16(), r.end()), "2 bytes left after the test data"),
    ],
)
def test_bad_input_raises_the_given_error(data: bytes, read, message: str) -> None:
    with pytest.raises(Broken, match=message):
        read(BinaryReader(data, Broken, "test data"))


def test_a_nested_reader_raises_the_outer_readers_error() -> None:
    outer = BinaryReader(b"", Broken, "test data")
    assert isinstance(outer.error("a null array"), Broken)
    assert str(outer.error("a null array")) == "a null array in test data"
    with pytest.raises(Broken, match="truncated tagged field 0"):
        outer.nested(b"\x00", "tagged field 0").i32()
