"""Compressed record batches: build_batch(compression=...) and transparent decode_records."""

import struct

import msgpack
import pytest

from kafkette.protocol.compression import NAME_BY_CODEC, compress
from kafkette.protocol.errors import UnsupportedCompressionTypeError
from kafkette.protocol.record_batch import (
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    HEADER_SIZE,
    RECORDS_MSGPACK_MASK,
    CorruptRecordError,
    assign_offsets,
    build_batch,
    build_batch_from_payload,
    decode_records,
    read_header,
    validate_batches,
)

CODECS = [COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_SNAPPY, COMPRESSION_LZ4, COMPRESSION_ZSTD]
ROWS = [
    (b"k%d" % i, b"value-%d " % i * 20, [("trace", b"t%d" % i), ("null", None)], 5_000 + i) for i in range(50)
]
ROWS.append((None, None, None, 4_000))  # a tombstone without key, headers or a later timestamp


def _expected(base_offset=0):
    return [(base_offset + i, ts, k, v, list(h or [])) for i, (k, v, h, ts) in enumerate(ROWS)]


def _decoded(batch):
    return [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in decode_records(batch)]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_each_codec_builds_a_crc_valid_batch_that_decodes_to_the_same_records(codec):
    batch = build_batch(ROWS, compression=codec)
    header = read_header(batch)
    assert header.compression == codec
    assert (header.records_count, header.base_timestamp, header.max_timestamp) == (51, 5_000, 5_049)
    assert validate_batches(batch)[0][1].size_in_bytes == len(batch)
    assert _decoded(batch) == _expected()


@pytest.mark.parametrize("codec", CODECS[1:], ids=lambda c: NAME_BY_CODEC[c])
def test_compressed_batch_is_smaller_and_keeps_offsets_assigned_in_place(codec):
    plain = build_batch(ROWS)
    buf = bytearray(build_batch(ROWS, compression=codec))
    assert len(buf) < len(plain)
    assign_offsets(buf, validate_batches(buf), 1_000, 4)
    validate_batches(buf)  # the CRC does not cover base offset and epoch
    assert _decoded(buf) == _expected(1_000)


def test_batch_with_a_crc_valid_but_undecompressable_payload_is_corrupt():
    batch = build_batch_from_payload(
        b"not gzip at all",
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=COMPRESSION_GZIP | RECORDS_MSGPACK_MASK,
    )
    validate_batches(batch)
    with pytest.raises(CorruptRecordError, match="gzip"):
        decode_records(batch)


def test_batch_whose_compressed_records_disagree_with_its_record_count_is_corrupt():
    payload = compress(COMPRESSION_ZSTD, msgpack.packb([[0, 0, None, b"v", []]], use_bin_type=True))
    batch = build_batch_from_payload(
        payload,
        record_count=2,
        base_timestamp=1,
        max_timestamp=1,
        attributes=COMPRESSION_ZSTD | RECORDS_MSGPACK_MASK,
    )
    with pytest.raises(CorruptRecordError, match="declares 2 records but holds 1"):
        decode_records(batch)


def test_decoding_a_batch_with_an_unknown_codec_id_is_corrupt():
    batch = bytearray(build_batch(ROWS[:2]))
    struct.pack_into(">h", batch, 21, 6 | RECORDS_MSGPACK_MASK)
    with pytest.raises(CorruptRecordError, match="unknown codec id 6"):
        decode_records(batch)


def test_building_with_an_unknown_codec_is_refused():
    with pytest.raises(UnsupportedCompressionTypeError):
        build_batch(ROWS[:1], compression=5)


def test_payload_starts_after_the_61_byte_header_and_is_the_compressed_array():
    batch = build_batch(ROWS, compression=COMPRESSION_LZ4)
    import lz4.frame

    rows = msgpack.unpackb(lz4.frame.decompress(batch[HEADER_SIZE:]), raw=False)
    assert len(rows) == len(ROWS) and rows[3][:2] == [3, 3]
