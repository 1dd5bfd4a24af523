"""An independent oracle for Kafka's record encoding: aiokafka's readers and builders (its Cython
and its pure-Python implementations) against Kafkette's Kafka-encoded batches, every codec.

aiokafka is in the ``dev`` extra (``make setup``); without it these tests fail at import.  Its
codecs go through cramjam (xerial snappy, independent-block LZ4 frames, zstd), so all five codecs
are checked.
"""

import pytest
from aiokafka import codec as aiokafka_codec
from aiokafka.record import default_records, memory_records

from kafkette.protocol.kafka_records import encode_default_records  # noqa: E402
from kafkette.protocol.record_batch import (  # noqa: E402
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    NAME_BY_CODEC,
    assign_offsets,
    build_batch,
    build_batch_from_payload,
    build_kafka_batch,
    decode_records,
    iter_batches,
    read_header,
    set_timestamps_log_append_time,
    to_kafka_encoding,
    validate_batches,
)

CODECS = [COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_SNAPPY, COMPRESSION_LZ4, COMPRESSION_ZSTD]
READERS = {"cython": default_records.DefaultRecordBatch, "python": default_records._DefaultRecordBatchPy}
BUILDERS = {
    "cython": default_records.DefaultRecordBatchBuilder,
    "python": default_records._DefaultRecordBatchBuilderPy,
}
MEMORY_RECORDS = {"cython": memory_records.MemoryRecords, "python": memory_records._MemoryRecordsPy}
PRODUCER = dict(producer_id=42, producer_epoch=3, base_sequence=17)

RECORDS = [
    (
        b"flight-%d" % i,
        b"delay=%d;" % i * 40,
        [("src", b"jfk"), ("\u00e9t\u00e9", None)],
        1_700_000_000_000 + i,
    )
    for i in range(40)
]
RECORDS += [
    (None, b"keyless", None, 1_700_000_000_005),
    (b"tombstone", None, [], 1_699_999_999_000),  # a negative timestamp delta
    (b"", b"", [("", b"")], 1_700_000_100_000),
    (b"big", bytes(range(256)) * 1_200, None, 1_700_000_000_000),  # 300 KiB: several xerial blocks
]


def _ours(batch):
    return [
        (r.offset, r.timestamp, r.key, r.value, [tuple(h) for h in r.headers])
        for pos, header in iter_batches(batch)
        for r in decode_records(batch, pos, header)
    ]


def _theirs(batch, reader):
    """Every record as aiokafka reads it, after its CRC check."""
    parsed = reader(bytes(batch))
    assert parsed.validate_crc()
    return [(r.offset, r.timestamp, r.key, r.value, [tuple(h) for h in r.headers]) for r in parsed]


def _header_as_aiokafka_reads_it(batch, reader):
    parsed = reader(bytes(batch))
    return (
        parsed.base_offset,
        parsed.compression_type,
        parsed.timestamp_type,
        parsed.last_offset_delta,
        parsed.first_timestamp,
        parsed.max_timestamp,
        parsed.producer_id,
        parsed.producer_epoch,
        parsed.base_sequence,
        parsed.is_transactional,
    )


def _header_as_we_wrote_it(batch):
    h = read_header(batch)
    return (
        h.base_offset,
        h.compression,
        h.timestamp_type,
        h.last_offset_delta,
        h.base_timestamp,
        h.max_timestamp,
        h.producer_id,
        h.producer_epoch,
        h.base_sequence,
        bool(h.attributes & 0x10),
    )


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_aiokafka_reads_our_kafka_batches_with_identical_records_and_a_valid_crc(codec, reader):
    batch = build_kafka_batch(RECORDS, compression=codec, base_offset=1_000, transactional=True, **PRODUCER)
    assert _theirs(batch, reader) == _ours(batch)
    assert _header_as_aiokafka_reads_it(batch, reader) == _header_as_we_wrote_it(batch)
    assert _ours(batch)[41][:3] == (1_041, 1_699_999_999_000, b"tombstone")


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_aiokafka_reads_msgpack_batches_converted_for_kafkas_fetch_path(codec, reader):
    buf = bytearray(build_batch(RECORDS, compression=codec, **PRODUCER))
    assign_offsets(buf, validate_batches(buf), 77, 5)
    converted = to_kafka_encoding(buf)
    assert _theirs(converted, reader) == _ours(buf)
    assert _header_as_aiokafka_reads_it(converted, reader) == _header_as_we_wrote_it(buf)


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_aiokafka_gives_log_append_time_to_every_record_of_a_converted_batch(reader):
    buf = bytearray(build_batch(RECORDS[:5], compression=COMPRESSION_LZ4))
    set_timestamps_log_append_time(buf, validate_batches(buf), 1_800_000_000_000)
    assert {r[1] for r in _theirs(to_kafka_encoding(buf), reader)} == {1_800_000_000_000}


@pytest.mark.parametrize("impl", MEMORY_RECORDS.keys())
def test_aiokafka_walks_a_converted_fetch_of_mixed_batches_and_stops_at_the_partial_tail(impl):
    parts = [
        build_kafka_batch(RECORDS[:10], base_offset=0, compression=COMPRESSION_SNAPPY),
        build_batch(RECORDS[10:20], base_offset=10, compression=COMPRESSION_ZSTD),
        build_batch(RECORDS[20:30], base_offset=20),
        build_kafka_batch(RECORDS[30:], base_offset=30, compression=COMPRESSION_GZIP),
    ]
    data = b"".join(parts) + build_batch(RECORDS[:3], base_offset=len(RECORDS))[:70]
    converted = to_kafka_encoding(data)
    fetched = MEMORY_RECORDS[impl](bytes(converted))
    offsets = []
    while fetched.has_next():
        batch = fetched.next_batch()
        assert batch.validate_crc()
        offsets += [r.offset for r in batch]
    assert offsets == list(range(len(RECORDS)))


@pytest.mark.parametrize("builder", BUILDERS.values(), ids=BUILDERS.keys())
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_batches_built_by_aiokafka_decode_with_our_reader(codec, builder):
    build = builder(magic=2, compression_type=codec, is_transactional=0, batch_size=1 << 22, **PRODUCER)
    for offset, (key, value, headers, ts) in enumerate(RECORDS):
        assert build.append(offset, ts, key, value, list(headers or [])) is not None
    batch = bytes(build.build())
    [(_, header)] = validate_batches(batch)  # whole, CRC valid
    assert (header.compression, header.msgpack_records, header.records_count) == (codec, False, len(RECORDS))
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (42, 3, 17)
    assert _ours(batch) == [
        (i, ts, k, v, [tuple(h) for h in hs or []]) for i, (k, v, hs, ts) in enumerate(RECORDS)
    ]
    assert _ours(batch) == _theirs(batch, READERS["python"])


def test_raw_snappy_records_as_librdkafka_may_send_them_decode():
    rows = [
        [i, ts - RECORDS[0][3], k, v, [list(h) for h in hs or []]] for i, (k, v, hs, ts) in enumerate(RECORDS)
    ]
    payload = bytes(aiokafka_codec.snappy_encode(encode_default_records(rows), xerial_compatible=False))
    assert not payload.startswith(b"\x82SNAPPY")
    batch = build_batch_from_payload(
        payload,
        record_count=len(rows),
        base_timestamp=RECORDS[0][3],
        max_timestamp=max(r[3] for r in RECORDS),
        attributes=COMPRESSION_SNAPPY,
    )
    assert _ours(batch) == _theirs(batch, READERS["python"])
    assert [r[2] for r in _ours(batch)] == [r[0] for r in RECORDS]
