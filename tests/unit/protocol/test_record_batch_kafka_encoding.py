"""Batches in both record encodings: the msgpack bit, Kafka-encoded batches, decoding that
dispatches on the bit, re-encoding that keeps it, and the conversion for Kafka's fetch path."""

import struct

import msgpack
import pytest

from kafkette.protocol.compression import compress, compress_kafka
from kafkette.protocol.kafka_records import encode_default_records
from kafkette.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    LOG_APPEND_TIME,
    NAME_BY_CODEC,
    RECORDS_MSGPACK_MASK,
    TRANSACTIONAL_MASK,
    CorruptRecordError,
    assign_offsets,
    build_batch,
    build_batch_from_payload,
    build_kafka_batch,
    decode_records,
    decode_rows,
    iter_batches,
    read_header,
    rebuild_batch,
    set_timestamps_log_append_time,
    to_kafka_encoding,
    validate_batches,
)

CODECS = [COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_SNAPPY, COMPRESSION_LZ4, COMPRESSION_ZSTD]
RECORDS = [
    (b"k%d" % i, b"value-%d " % i * 20, [("trace", b"t%d" % i), ("null", None)], 5_000 + i) for i in range(30)
]
RECORDS.append((None, None, None, 4_000))
PRODUCER = dict(producer_id=42, producer_epoch=3, base_sequence=17)


def _records(batch):
    return [
        (r.offset, r.timestamp, r.key, r.value, r.headers)
        for pos, header in iter_batches(batch)
        for r in decode_records(batch, pos, header)
    ]


def _header_fields(header):
    return (
        header.base_offset,
        header.partition_leader_epoch,
        header.last_offset_delta,
        header.base_timestamp,
        header.max_timestamp,
        header.producer_id,
        header.producer_epoch,
        header.base_sequence,
        header.records_count,
    )


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_both_encodings_decode_to_the_same_records_and_only_msgpack_sets_bit_7(codec):
    ours = build_batch(RECORDS, compression=codec, base_offset=100, **PRODUCER)
    kafkas = build_kafka_batch(RECORDS, compression=codec, base_offset=100, **PRODUCER)
    h_ours, h_kafka = validate_batches(ours)[0][1], validate_batches(kafkas)[0][1]
    assert h_ours.attributes == codec | RECORDS_MSGPACK_MASK and h_ours.msgpack_records
    assert h_kafka.attributes == codec and not h_kafka.msgpack_records
    assert h_ours.compression == h_kafka.compression == codec
    assert _header_fields(h_ours) == _header_fields(h_kafka)
    assert _records(ours) == _records(kafkas)
    assert decode_rows(ours, 0, h_ours) == decode_rows(kafkas, 0, h_kafka)
    assert _records(kafkas)[-1] == (130, 4_000, None, None, [])


def test_a_kafka_batch_holds_kafkas_records_section_compressed_in_kafkas_framing():
    batch = build_kafka_batch(RECORDS, compression=COMPRESSION_SNAPPY)
    rows = [[i, ts - 5_000, k, v, [list(h) for h in hs or []]] for i, (k, v, hs, ts) in enumerate(RECORDS)]
    assert batch[61:] == compress_kafka(COMPRESSION_SNAPPY, encode_default_records(rows))
    assert batch[61:69] == b"\x82SNAPPY\x00"


def test_a_transactional_kafka_batch_sets_kafkas_bit_4():
    header = read_header(build_kafka_batch(RECORDS[:1], transactional=True, **PRODUCER))
    assert header.attributes == TRANSACTIONAL_MASK


def test_msgpack_records_without_the_bit_are_read_as_kafkas_and_refused_as_corrupt():
    payload = msgpack.packb([[0, 0, None, b"v", []]], use_bin_type=True)
    batch = build_batch_from_payload(payload, record_count=1, base_timestamp=1, max_timestamp=1)
    with pytest.raises(CorruptRecordError, match="batch at offset 0"):
        decode_records(batch)


def test_kafka_framed_payload_under_the_msgpack_bit_is_corrupt():
    payload = compress_kafka(COMPRESSION_SNAPPY, msgpack.packb([[0, 0, None, b"v", []]], use_bin_type=True))
    batch = build_batch_from_payload(
        payload,
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=COMPRESSION_SNAPPY | RECORDS_MSGPACK_MASK,
    )
    with pytest.raises(CorruptRecordError, match="snappy"):
        decode_records(batch)


@pytest.mark.parametrize("build", [build_batch, build_kafka_batch])
@pytest.mark.parametrize("codec", [COMPRESSION_NONE, COMPRESSION_LZ4], ids=lambda c: NAME_BY_CODEC[c])
def test_offsets_and_log_append_time_written_in_place_keep_both_encodings_valid(build, codec):
    buf = bytearray(build(RECORDS[:3], compression=codec))
    positions = validate_batches(buf)
    assign_offsets(buf, positions, 1_000, 4)
    set_timestamps_log_append_time(buf, positions, 77_000)
    header = validate_batches(buf)[0][1]
    assert header.msgpack_records == (build is build_batch)
    assert header.timestamp_type == LOG_APPEND_TIME
    assert [(o, ts) for o, ts, *_ in _records(buf)] == [(1_000, 77_000), (1_001, 77_000), (1_002, 77_000)]


@pytest.mark.parametrize("build", [build_batch, build_kafka_batch])
@pytest.mark.parametrize("target", CODECS, ids=lambda c: "to-" + NAME_BY_CODEC[c])
def test_rebuild_batch_keeps_the_record_encoding_and_takes_the_new_codec(build, target):
    source = build(RECORDS, compression=COMPRESSION_GZIP, base_offset=7, **PRODUCER)
    header = read_header(source)
    rows = decode_rows(source, 0, header)
    attributes = (header.attributes & ~0x07) | target
    rebuilt = rebuild_batch(header, rows, attributes=attributes)
    new_header = validate_batches(rebuilt)[0][1]
    assert new_header.attributes == attributes and new_header.msgpack_records == header.msgpack_records
    assert _header_fields(new_header) == _header_fields(header)
    assert _records(rebuilt) == _records(source)


def test_rebuild_batch_with_fewer_rows_keeps_the_offset_range():
    source = build_kafka_batch(RECORDS[:5], compression=COMPRESSION_ZSTD)
    header = read_header(source)
    kept = [row for row in decode_rows(source, 0, header) if row[0] in (1, 3)]
    rebuilt = rebuild_batch(header, kept, max_timestamp=5_003)
    new_header = read_header(rebuilt)
    assert (new_header.records_count, new_header.last_offset_delta, new_header.max_timestamp) == (2, 4, 5_003)
    assert [o for o, *_ in _records(rebuilt)] == [1, 3]
    with pytest.raises(ValueError):
        rebuild_batch(header, [])


# ----- to_kafka_encoding: the Kafka listener's fetch path -----------------------------------


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_kafka_encoded_batches_pass_through_as_the_same_object(codec):
    data = build_kafka_batch(RECORDS, compression=codec) + build_kafka_batch(RECORDS[:2], base_offset=31)
    assert to_kafka_encoding(data) is data
    view = memoryview(data)
    assert to_kafka_encoding(view) is view
    assert to_kafka_encoding(b"") == b""


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_a_msgpack_batch_is_converted_with_every_header_field_kept_and_a_new_crc(codec):
    buf = bytearray(build_batch(RECORDS, compression=codec, **PRODUCER))
    assign_offsets(buf, validate_batches(buf), 500, 9)
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, read_header(buf).attributes | TRANSACTIONAL_MASK)
    set_timestamps_log_append_time(buf, list(iter_batches(buf)), 88_000)  # also recomputes the CRC
    converted = to_kafka_encoding(buf)
    before, after = read_header(buf), validate_batches(converted)[0][1]
    assert after.attributes == before.attributes & ~RECORDS_MSGPACK_MASK
    assert after.attributes == codec | TRANSACTIONAL_MASK | 0x08
    assert _header_fields(after) == _header_fields(before)
    assert _records(converted) == _records(buf)
    assert to_kafka_encoding(converted) is converted


def test_mixed_batches_convert_only_the_msgpack_ones_and_keep_kafkas_bytes():
    kafka_1 = build_kafka_batch(RECORDS[:3], base_offset=0, compression=COMPRESSION_GZIP)
    ours = build_batch(RECORDS[3:6], base_offset=3, compression=COMPRESSION_SNAPPY)
    kafka_2 = build_kafka_batch(RECORDS[6:7], base_offset=6)
    data = kafka_1 + ours + kafka_2 + build_batch(RECORDS[7:9], base_offset=7)
    converted = to_kafka_encoding(data)
    batches = validate_batches(converted)
    assert [h.msgpack_records for _, h in batches] == [False] * 4
    assert [h.base_offset for _, h in batches] == [0, 3, 6, 7]
    assert converted[: len(kafka_1)] == kafka_1
    assert converted[batches[2][0] : batches[3][0]] == kafka_2
    assert _records(converted) == _records(data)


def test_a_compacted_msgpack_batch_converts_with_its_offset_gaps():
    source = build_batch(RECORDS[:6], base_offset=40)
    header = read_header(source)
    compacted = rebuild_batch(header, [row for row in decode_rows(source, 0, header) if row[0] % 2])
    converted = to_kafka_encoding(compacted)
    after = validate_batches(converted)[0][1]
    assert (after.records_count, after.last_offset_delta, after.msgpack_records) == (3, 5, False)
    assert [o for o, *_ in _records(converted)] == [41, 43, 45]


def test_a_trailing_partial_batch_is_kept_when_kafkas_and_dropped_when_msgpack():
    whole_kafka = build_kafka_batch(RECORDS[:2])
    partial_kafka = build_kafka_batch(RECORDS[:4], base_offset=2)[:80]
    partial_ours = build_batch(RECORDS[:4], base_offset=2)[:80]
    data = whole_kafka + partial_kafka
    assert to_kafka_encoding(data) is data
    data = whole_kafka + partial_ours
    assert bytes(to_kafka_encoding(data)) == whole_kafka
    short_tail = whole_kafka + partial_ours[:20]  # too short to show its attributes: kept
    assert to_kafka_encoding(short_tail) is short_tail
    converted = to_kafka_encoding(build_batch(RECORDS[:2]) + partial_kafka)
    assert converted.endswith(partial_kafka) and len(list(iter_batches(converted))) == 1
    converted = to_kafka_encoding(build_batch(RECORDS[:2]) + partial_ours)
    assert validate_batches(converted)[0][1].msgpack_records is False


def test_a_msgpack_batch_failing_its_crc_is_corrupt_not_laundered_with_a_new_crc():
    buf = bytearray(build_batch(RECORDS[:3]))
    buf[-2] ^= 0x01
    with pytest.raises(CorruptRecordError, match="CRC"):
        to_kafka_encoding(buf)


def test_msgpack_records_kafkas_encoding_cannot_hold_are_corrupt():
    payload = msgpack.packb([[0, 0, "a str key", b"v", []]], use_bin_type=True)
    batch = build_batch_from_payload(
        payload, record_count=1, base_timestamp=1, max_timestamp=1, attributes=RECORDS_MSGPACK_MASK
    )
    with pytest.raises(CorruptRecordError, match="do not fit Kafka's encoding"):
        to_kafka_encoding(batch)


def test_an_invalid_batch_header_is_corrupt():
    data = bytearray(build_batch(RECORDS[:1]))
    data[16] = 1  # magic
    with pytest.raises(CorruptRecordError, match="magic 1"):
        to_kafka_encoding(data)


def test_producer_batches_carry_the_msgpack_bit():
    payload = compress(COMPRESSION_ZSTD, msgpack.packb([[0, 0, None, b"v", []]], use_bin_type=True))
    assert build_batch([(None, b"v", None, 0)], compression=COMPRESSION_ZSTD)[61:] == payload
    assert read_header(build_batch([(None, b"v", None, 0)])).msgpack_records
