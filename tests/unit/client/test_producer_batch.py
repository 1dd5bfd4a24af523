"""ProducerBatch: records kept as wire rows encode to the same bytes as ``build_batch``;
completion gives each record its offset and timestamp."""

from __future__ import annotations

import pytest

from kafkette.client.producer.producer_batch import ProducerBatch, RecordMetadata
from kafkette.protocol.record_batch import COMPRESSION_GZIP, COMPRESSION_NONE, build_batch, decode_records
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 3)
RECORDS = [
    (b"k0", b"v0", None, 1_700_000_000_005),
    (None, b"v1", [("h", b"x"), ("n", None)], 1_700_000_000_002),  # earlier than the first: negative delta
    (b"k2", None, None, 1_700_000_000_009),
]


def _batch(records, compression=COMPRESSION_NONE) -> tuple[ProducerBatch, list]:
    batch = ProducerBatch(TP, 0.0, 1e9, compression)
    futures = [batch.try_append(k, v, h, ts, 10, 1 << 20) for k, v, h, ts in records]
    return batch, futures


@pytest.mark.parametrize("compression", [COMPRESSION_NONE, COMPRESSION_GZIP])
async def test_encoded_batch_is_byte_identical_to_build_batch(compression):
    batch, _ = _batch(RECORDS, compression)
    batch.producer_id, batch.producer_epoch, batch.base_sequence = 7, 1, 40
    expected = build_batch(
        RECORDS, compression=compression, producer_id=7, producer_epoch=1, base_sequence=40
    )
    assert batch.encoded() == expected
    decoded = decode_records(batch.encoded())
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in decoded] == [
        (0, 1_700_000_000_005, b"k0", b"v0", []),
        (1, 1_700_000_000_002, None, b"v1", [("h", b"x"), ("n", None)]),
        (2, 1_700_000_000_009, b"k2", None, []),
    ]


async def test_complete_gives_each_record_its_offset_and_create_time():
    batch, futures = _batch(RECORDS)
    batch.complete(100)
    assert [f.result() for f in futures] == [
        RecordMetadata("t", 3, 100, 1_700_000_000_005),
        RecordMetadata("t", 3, 101, 1_700_000_000_002),
        RecordMetadata("t", 3, 102, 1_700_000_000_009),
    ]
    assert batch.completion.done()


async def test_complete_with_log_append_time_or_unknown_offset():
    batch, futures = _batch(RECORDS[:2])
    batch.complete(-1, 1_800_000_000_000)
    assert [f.result() for f in futures] == [RecordMetadata("t", 3, -1, 1_800_000_000_000)] * 2


async def test_a_cancelled_record_future_does_not_stop_the_others():
    batch, futures = _batch(RECORDS)
    futures[1].cancel()
    batch.complete(5)
    assert futures[0].result().offset == 5 and futures[2].result().offset == 7


async def test_a_full_or_closed_batch_refuses_records_and_an_empty_one_cannot_encode():
    batch = ProducerBatch(TP, 0.0, 1e9)
    with pytest.raises(ValueError):
        batch.encoded()
    assert batch.try_append(None, b"x" * 50, None, 1, 60, 100) is not None  # an empty batch takes any record
    assert batch.try_append(None, b"y", None, 1, 60, 100) is None
    batch.closed = True
    assert batch.try_append(None, b"y", None, 1, 1, 100) is None
    assert batch.record_count == 1
