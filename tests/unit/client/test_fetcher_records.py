"""Fetch answers decode into ConsumerRecords; records below the fetch offset are dropped."""

from __future__ import annotations

import gc

import msgpack
import pytest

from kafkette.client.consumer.fetcher import Fetcher, PartitionRecords, next_fetch_offset, parse_records
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.protocol.errors import Errors, KafkaError
from kafkette.protocol.record_batch import (
    RECORDS_MSGPACK_MASK,
    CorruptRecordError,
    assign_offsets,
    build_batch,
    build_batch_from_payload,
    build_kafka_batch,
    compute_crc,
    iter_batches,
    set_timestamps_log_append_time,
    validate_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 2)


def log_bytes(batch_sizes: list[int]) -> bytes:
    """Batches as a leader would store them: consecutive offsets from 0."""
    buf = bytearray()
    value = 0
    for size in batch_sizes:
        records = [
            (f"k{value + i}".encode(), f"v{value + i}".encode(), [("h", b"1")], 1000 + value + i)
            for i in range(size)
        ]
        buf += build_batch(records)
        value += size
    assign_offsets(buf, validate_batches(buf), 0, 5)
    return bytes(buf)


def test_records_are_decoded_with_offsets_timestamps_and_headers():
    records = parse_records(TP, log_bytes([2, 3]), 0)
    assert [r.offset for r in records] == [0, 1, 2, 3, 4]
    first = records[0]
    assert (first.topic, first.partition, first.key, first.value, first.timestamp) == (
        "t",
        2,
        b"k0",
        b"v0",
        1000,
    )
    assert first.headers == [("h", b"1")] and first.timestamp_type == 0


def test_records_below_the_fetch_offset_are_dropped():
    records = parse_records(TP, log_bytes([3, 3]), 4)
    assert [r.offset for r in records] == [4, 5]


@pytest.mark.parametrize("codec", [0, 2, 4], ids=["none", "snappy", "zstd"])
def test_batches_produced_by_kafka_clients_are_consumed_like_the_sdks_own(codec):
    records = [(f"k{i}".encode(), f"v{i}".encode(), [("h", b"1")], 1000 + i) for i in range(5)]
    ours, kafkas = build_batch(records, compression=codec), build_kafka_batch(records, compression=codec)
    mixed = bytearray(ours + kafkas)
    assign_offsets(mixed, validate_batches(mixed), 0, 5)
    consumed = parse_records(TP, bytes(mixed), 3)
    assert [r.offset for r in consumed] == list(range(3, 10))
    assert [(r.key, r.value, r.timestamp, r.headers) for r in consumed[2:]] == [
        (k, v, ts, h) for k, v, h, ts in records
    ]


def test_a_trailing_partial_batch_is_ignored():
    data = log_bytes([2, 2])
    records = parse_records(TP, data[:-5], 0)
    assert [r.offset for r in records] == [0, 1]


def test_a_corrupt_batch_raises():
    data = bytearray(log_bytes([2]))
    data[-1] ^= 0xFF
    with pytest.raises(CorruptRecordError):
        parse_records(TP, bytes(data), 0)


def test_partition_records_are_taken_in_order_and_track_the_position():
    records = parse_records(TP, log_bytes([5]), 0)
    pr = PartitionRecords(TP, 0, records)
    assert [r.offset for r in pr.take(2)] == [0, 1]
    assert pr.position == 2 and not pr.exhausted
    assert [r.offset for r in pr.take(None)] == [2, 3, 4]
    assert pr.position == 5 and pr.exhausted


def test_next_fetch_offset_moves_past_batches_whose_records_were_compacted_away():
    # A compacted batch keeps its offset range 0..4 but holds only the record at offset 1.
    batch = bytearray(build_batch([(b"k", b"v", None, 1000), (b"k2", b"v2", None, 1000)]))
    batch[23:27] = (4).to_bytes(4, "big")  # last_offset_delta 4; record deltas stay 0 and 1
    batch[17:21] = compute_crc(batch, 0, len(batch)).to_bytes(4, "big")
    assert parse_records(TP, bytes(batch), 2) == []
    assert next_fetch_offset(bytes(batch), 2) == 5
    assert next_fetch_offset(b"", 2) == 2


def test_fetcher_hands_the_user_no_record_of_a_corrupt_batch_and_raises_corrupt_message():
    data = bytearray(log_bytes([2]))
    position = data.index(b"v1")
    data[position + 1] ^= 0x01  # "v1" -> "v0": still valid msgpack, only the CRC32C tells
    subs = SubscriptionState(auto_offset_reset="earliest")
    subs.assign([TP])
    subs.seek(TP, 0)
    fetcher = Fetcher(None, subs, None)  # no I/O in _handle_partition
    fetcher._handle_partition(TP, 0, Errors.NONE, 2, bytes(data))
    assert fetcher._records == {}
    with pytest.raises(KafkaError) as raised:
        fetcher.raise_pending_error()
    assert raised.value.errno == Errors.CORRUPT_MESSAGE and "CRC" in str(raised.value)


def test_log_append_time_batches_give_every_record_the_broker_time():
    buf = bytearray(log_bytes([3]))
    set_timestamps_log_append_time(buf, list(iter_batches(buf)), 99_000)
    records = parse_records(TP, bytes(buf), 1)
    assert [(r.offset, r.timestamp, r.timestamp_type) for r in records] == [(1, 99_000, 1), (2, 99_000, 1)]


def test_a_batch_whose_record_rows_are_malformed_is_corrupt():
    batch = build_batch_from_payload(
        msgpack.packb([[0, 0, None]]),
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=RECORDS_MSGPACK_MASK,
    )
    with pytest.raises(CorruptRecordError, match="malformed record"):
        parse_records(TP, batch, 0)


@pytest.mark.parametrize("enabled_before", [True, False])
def test_decoding_leaves_the_garbage_collector_as_the_application_set_it(enabled_before):
    was = gc.isenabled()
    try:
        (gc.enable if enabled_before else gc.disable)()
        assert [r.offset for r in parse_records(TP, log_bytes([2]), 0)] == [0, 1]
        assert gc.isenabled() is enabled_before
        data = bytearray(log_bytes([2]))
        data[-1] ^= 0xFF
        with pytest.raises(CorruptRecordError):
            parse_records(TP, bytes(data), 0)
        assert gc.isenabled() is enabled_before
    finally:
        (gc.enable if was else gc.disable)()


def fetcher_with(records: int, *tps: TopicPartition) -> tuple[Fetcher, SubscriptionState]:
    """A Fetcher holding ``records`` fetched records of each of ``tps`` from offset 0 (no I/O)."""
    subs = SubscriptionState(auto_offset_reset="earliest")
    subs.assign(list(tps))
    fetcher = Fetcher(None, subs, None)
    for tp in tps:
        subs.seek(tp, 0)
        fetcher._handle_partition(tp, 0, Errors.NONE, records, log_bytes([records]))
    return fetcher, subs


def take(fetcher: Fetcher):
    """One record as ``async for`` takes it: the next of the records being handed out, else the
    first of the next buffered ones."""
    return fetcher.take_one() or fetcher.take_next()


def test_take_one_hands_out_records_in_order_and_advances_the_position():
    fetcher, subs = fetcher_with(3, TP)
    taken = [take(fetcher) for _ in range(4)]
    assert [r.offset for r in taken[:3]] == [0, 1, 2] and taken[3] is None
    assert subs.position(TP) == 3 and not fetcher.has_records() and not fetcher.data_ready.is_set()


def test_take_one_returns_nothing_of_a_paused_partition_and_resumes_where_it_was():
    fetcher, subs = fetcher_with(3, TP)
    assert take(fetcher).offset == 0
    subs.pause([TP])
    assert take(fetcher) is None
    subs.resume([TP])
    assert take(fetcher).offset == 1 and subs.position(TP) == 2


def test_take_one_drops_records_made_stale_by_a_seek():
    fetcher, subs = fetcher_with(3, TP)
    assert take(fetcher).offset == 0
    subs.seek(TP, 0)
    assert take(fetcher) is None  # offsets 1 and 2 were fetched for position 1: refetched from 0
    assert subs.position(TP) == 0


def test_take_one_drops_records_of_a_partition_no_longer_assigned():
    other = TopicPartition("t", 3)
    fetcher, subs = fetcher_with(3, TP, other)
    first = take(fetcher)
    kept = other if first.partition == TP.partition else TP
    subs.assign([kept])
    rest = [take(fetcher) for _ in range(4)]
    assert [(r.partition, r.offset) for r in rest if r is not None] == [(kept.partition, o) for o in range(3)]
