"""Compression codecs: round trips, Kafka's names, corrupt payloads, unknown codec ids, and
Kafka's framings (xerial snappy, independent-block LZ4, concatenated zstd frames)."""

import os
import struct

import cramjam
import lz4.frame
import pytest
import zstandard

from kafkette.protocol.compression import (
    CODEC_BY_NAME,
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    NAME_BY_CODEC,
    XERIAL_BLOCK_BYTES,
    XERIAL_HEADER,
    CorruptRecordError,
    codec_for_name,
    compress,
    compress_kafka,
    decompress,
    decompress_kafka,
    topic_codec,
)
from kafkette.protocol.errors import Errors, UnsupportedCompressionTypeError

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


# ----- Kafka's framings ---------------------------------------------------------------------


@pytest.mark.parametrize("codec", [COMPRESSION_NONE, *CODECS], ids=lambda c: NAME_BY_CODEC[c])
@pytest.mark.parametrize("name", list(PAYLOADS))
def test_every_codec_round_trips_in_kafkas_framing(codec, name):
    data = PAYLOADS[name]
    packed = compress_kafka(codec, data)
    assert decompress_kafka(codec, packed) == data
    assert decompress_kafka(codec, memoryview(packed)) == data


def test_kafka_snappy_is_xerials_stream_of_32_kib_raw_blocks():
    data = PAYLOADS["binary"] * 7  # 70,000 bytes: three blocks
    packed = compress_kafka(COMPRESSION_SNAPPY, data)
    assert packed[:16] == XERIAL_HEADER == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    blocks, pos = [], 16
    while pos < len(packed):
        (length,) = struct.unpack_from(">i", packed, pos)
        blocks.append(bytes(cramjam.snappy.decompress_raw(packed[pos + 4 : pos + 4 + length])))
        pos += 4 + length
    assert [len(b) for b in blocks] == [
        XERIAL_BLOCK_BYTES,
        XERIAL_BLOCK_BYTES,
        70_000 - 2 * XERIAL_BLOCK_BYTES,
    ]
    assert b"".join(blocks) == data


def test_kafka_snappy_also_reads_one_raw_block_as_librdkafka_may_send():
    data = b"raw snappy from librdkafka " * 100
    assert decompress_kafka(COMPRESSION_SNAPPY, bytes(cramjam.snappy.compress_raw(data))) == data


def test_kafka_lz4_is_one_frame_of_independent_blocks_without_content_size_or_checksum():
    packed = compress_kafka(COMPRESSION_LZ4, PAYLOADS["large-repetitive"])
    flags = packed[4]
    assert packed[:4] == b"\x04\x22\x4d\x18" and flags >> 6 == 1  # LZ4 frame magic, version 1
    assert flags & 0x20 and not flags & 0x08 and not flags & 0x04  # independent, no size, no checksum
    linked = lz4.frame.compress(b"linked blocks " * 10_000, block_linked=True)
    assert decompress_kafka(COMPRESSION_LZ4, linked) == b"linked blocks " * 10_000


def test_kafka_zstd_reads_concatenated_frames_and_kafka_gzip_concatenated_members():
    zstd = zstandard.ZstdCompressor()
    assert decompress_kafka(COMPRESSION_ZSTD, zstd.compress(b"one ") + zstd.compress(b"two")) == b"one two"
    assert (
        decompress_kafka(
            COMPRESSION_GZIP, compress(COMPRESSION_GZIP, b"one ") + compress(COMPRESSION_GZIP, b"two")
        )
        == b"one two"
    )


@pytest.mark.parametrize(
    "bad, match",
    [
        (XERIAL_HEADER[:12], "truncated xerial header"),
        (XERIAL_HEADER + b"\x00\x00", "inside a block length"),
        (XERIAL_HEADER + struct.pack(">i", 100) + b"short", "overruns"),
        (XERIAL_HEADER + struct.pack(">i", -1), "overruns"),
        (XERIAL_HEADER[:8] + struct.pack(">ii", 2, 2) + struct.pack(">i", 1) + b"\x00", "version 2"),
        (XERIAL_HEADER + struct.pack(">i", 4) + b"junk", "does not decompress"),
        (b"not snappy at all", "does not decompress"),
    ],
)
def test_corrupt_kafka_snappy_is_corrupt_record_error(bad, match):
    with pytest.raises(CorruptRecordError, match=match):
        decompress_kafka(COMPRESSION_SNAPPY, bad)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
@pytest.mark.parametrize("damage", ["truncated", "garbage", "trailing-bytes"])
def test_corrupt_kafka_framed_payload_raises_corrupt_record_error_naming_the_codec(codec, damage):
    packed = compress_kafka(codec, b"hello kafka " * 400)
    bad = {
        "truncated": packed[: len(packed) // 2],
        "garbage": b"this is not compressed at all",
        "trailing-bytes": packed + b"\x01\x02\x03",
    }[damage]
    with pytest.raises(CorruptRecordError, match=NAME_BY_CODEC[codec]):
        decompress_kafka(codec, bad)


def test_kafka_framing_refuses_unknown_codec_ids():
    with pytest.raises(UnsupportedCompressionTypeError):
        compress_kafka(5, b"x")
    with pytest.raises(UnsupportedCompressionTypeError):
        decompress_kafka(6, b"x")
