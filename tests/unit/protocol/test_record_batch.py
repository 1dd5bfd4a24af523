"""Record batch format: build, validate, assign offsets in place, decode."""

import pytest

from kafkette.protocol.record_batch import (
    HEADER_SIZE,
    CorruptRecordError,
    assign_offsets,
    build_batch,
    decode_records,
    iter_batches,
    read_header,
    validate_batches,
)


def _batch(n=3, ts=1000):
    return build_batch([(f"k{i}".encode(), f"v{i}".encode(), [("h", b"x")], ts + i) for i in range(n)])


def test_header_is_61_bytes_and_describes_the_records():
    b = _batch(3)
    h = read_header(b)
    assert HEADER_SIZE == 61
    assert (h.records_count, h.last_offset_delta, h.base_timestamp, h.max_timestamp) == (3, 2, 1000, 1002)
    assert h.size_in_bytes == len(b)


def test_assign_offsets_keeps_the_crc_valid():
    buf = bytearray(_batch(3) + _batch(2))
    positions = validate_batches(buf)
    assert assign_offsets(buf, positions, 100, 7) == 105
    headers = [h for _, h in iter_batches(buf, verify_crc=True)]
    assert [(h.base_offset, h.partition_leader_epoch) for h in headers] == [(100, 7), (103, 7)]
    records = decode_records(buf, 0)
    assert [r.offset for r in records] == [100, 101, 102]
    assert records[0].key == b"k0" and records[0].headers == [("h", b"x")]


def test_flipped_payload_byte_fails_crc():
    buf = bytearray(_batch())
    buf[-3] ^= 0xFF
    with pytest.raises(CorruptRecordError, match="CRC"):
        validate_batches(buf)


def test_trailing_bytes_and_empty_input_are_corrupt():
    with pytest.raises(CorruptRecordError):
        validate_batches(_batch() + b"xx")
    with pytest.raises(CorruptRecordError):
        validate_batches(b"")


def test_iter_batches_stops_at_partial_tail():
    data = _batch() + _batch()[:-5]
    assert len(list(iter_batches(data))) == 1


def test_null_keys_and_values_round_trip():
    b = build_batch([(None, None, None, 5)])
    (r,) = decode_records(b)
    assert r.key is None and r.value is None and r.headers == []
