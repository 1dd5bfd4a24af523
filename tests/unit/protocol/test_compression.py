"""Compression codecs: round trips, Kafka's names, corrupt payloads, unknown codec ids."""

import os

import pytest

from kafkette.protocol.compression import (
    CODEC_BY_NAME,
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    NAME_BY_CODEC,
    CorruptRecordError,
    codec_for_name,
    compress,
    decompress,
    topic_codec,
)
from kafkette.protocol.errors import Errors, UnsupportedCompressionTypeError  # type: ignore[attr-defined]

CODECS = [COMPRESSION_GZIP, COMPRESSION_SNAPPY, COMPRESSION_LZ4, COMPRESSION_ZSTD]
PAYLOADS = {
    "empty": b"",
    "one-byte": b"\x00",
    "binary": os.urandom(10_000),
    "large-repetitive": b"departure delayed by 12 minutes;" * 200_000,
}


@pytest.mark.parametrize("codec", [COMPRESSION_NONE, *CODECS], ids=lambda c: NAME_BY_CODEC[c])
@pytest.mark.parametrize("name", list(PAYLOADS))
def test_every_codec_round_trips_empty_binary_and_large_payloads(codec, name):
    data = PAYLOADS[name]
    packed = compress(codec, data)
    assert decompress(codec, packed) == data
    assert decompress(codec, memoryview(packed)) == data


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_compressed_output_is_smaller_for_repetitive_data(codec):
    data = PAYLOADS["large-repetitive"]
    packed = compress(codec, data)
    assert len(packed) < len(data) // 20
    assert packed != data


def test_none_codec_leaves_the_bytes_as_they_are():
    assert compress(COMPRESSION_NONE, bytearray(b"abc")) == b"abc"


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
@pytest.mark.parametrize("damage", ["truncated", "garbage", "trailing-bytes", "flipped-middle"])
def test_corrupt_compressed_payload_raises_corrupt_record_error_naming_the_codec(codec, damage):
    packed = compress(codec, b"hello kafkette " * 400)
    bad = {
        "truncated": packed[: len(packed) // 2],
        "garbage": b"this is not compressed at all",
        "trailing-bytes": packed + b"\x01\x02\x03",
        "flipped-middle": packed[:8] + bytes(b ^ 0xFF for b in packed[8:16]) + packed[16:],
    }[damage]
    with pytest.raises(CorruptRecordError, match=NAME_BY_CODEC[codec]):
        decompress(codec, bad)


@pytest.mark.parametrize("codec", [5, 6, 7, -1])
def test_unknown_codec_id_is_unsupported_compression_type(codec):
    with pytest.raises(UnsupportedCompressionTypeError) as info:
        compress(codec, b"x")
    assert info.value.errno == Errors.UNSUPPORTED_COMPRESSION_TYPE == 76
    with pytest.raises(UnsupportedCompressionTypeError):
        decompress(codec, b"x")


def test_kafka_codec_names_map_to_attribute_ids():
    assert CODEC_BY_NAME == {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
    assert [codec_for_name(n) for n in ("GZIP", "lz4", "zstd")] == [1, 3, 4]
    with pytest.raises(ValueError, match="brotli.*none, gzip, snappy, lz4, zstd"):
        codec_for_name("brotli")


def test_topic_compression_type_producer_keeps_the_batch_codec_and_uncompressed_is_none():
    assert topic_codec("producer") is None
    assert topic_codec("uncompressed") == COMPRESSION_NONE
    assert topic_codec("zstd") == COMPRESSION_ZSTD
    with pytest.raises(ValueError):
        topic_codec("none-such")
