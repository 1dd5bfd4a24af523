"""The Fetcher fetches a partition once ahead of its buffered records when the high watermark is past
them: the answer waits, takes over when they are used up, and is dropped by a seek; an error answered
to it ends fetching ahead of those records (no retry loop) and is left to the fetch at the position."""

from __future__ import annotations

import pytest

from kafkette.client.consumer.fetcher import Fetcher
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchResponse, FetchTopicResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import assign_offsets, build_batch, compute_crc, validate_batches
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)


def batches(first_offset: int, sizes: list[int]) -> bytes:
    """Batches of ``sizes`` records, offsets from ``first_offset``, as a leader stores them."""
    buf = bytearray()
    for size in sizes:
        buf += build_batch([(None, b"v", None, 1000)] * size)
    assign_offsets(buf, validate_batches(buf), first_offset, 0)
    return bytes(buf)


def answer(records: bytes | None, code: int = Errors.NONE, high_watermark: int = 100) -> FetchResponse:
    return FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        responses=[
            FetchTopicResponse(
                topic=TP.topic,
                partitions=[
                    FetchPartitionData(
                        partition_index=TP.partition,
                        error_code=code,
                        high_watermark=high_watermark,
                        records=records,
                    )
                ],
            )
        ],
    )


def fetcher_at(position: int) -> tuple[Fetcher, SubscriptionState]:
    subs = SubscriptionState(auto_offset_reset="none")
    subs.assign([TP])
    subs.seek(TP, position)
    return Fetcher(None, subs, None), subs  # no I/O: answers are handed in directly


def take_all(fetcher: Fetcher) -> list[int]:
    offsets = []
    while (record := fetcher.take_one() or fetcher.take_next()) is not None:
        offsets.append(record.offset)
    return offsets


def test_an_answer_fetched_ahead_waits_and_takes_over_when_the_buffered_records_are_used_up():
    fetcher, subs = fetcher_at(0)
    assert fetcher.fetch_offsets() == {TP: 0}
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [3, 2])))
    assert fetcher.fetch_offsets() == {TP: 5}, "fetched ahead from where the buffered records end"
    assert fetcher.take_next().offset == 0  # handing out has started; the position is 1
    fetcher._handle_response(1, {TP: 5}, answer(batches(5, [4])))  # the fetch from where the buffer ends
    assert fetcher.fetched_ahead(TP) == 4 and fetcher.fetch_offsets() == {}, "one fetch ahead at a time"
    assert take_all(fetcher) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert subs.position(TP) == 9 and fetcher.fetched_ahead(TP) == 0


def test_a_seek_drops_what_was_fetched_ahead():
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [5])))
    fetcher._handle_response(1, {TP: 5}, answer(batches(5, [5])))
    assert fetcher.fetched_ahead(TP) == 5
    subs.seek(TP, 2)
    fetcher.discard({TP})  # what Consumer.seek does
    assert fetcher.fetched_ahead(TP) == 0 and take_all(fetcher) == []
    fetcher._handle_response(1, {TP: 2}, answer(batches(0, [5])))
    assert take_all(fetcher) == [2, 3, 4]


def test_an_answer_fetched_ahead_that_arrives_after_a_seek_is_dropped():
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [5])))
    subs.seek(TP, 0)
    fetcher.discard({TP})
    fetcher._handle_response(1, {TP: 5}, answer(batches(5, [5])))  # sent before the seek
    assert fetcher.fetched_ahead(TP) == 0 and take_all(fetcher) == []


def test_records_fetched_ahead_are_dropped_when_the_buffered_ones_became_stale():
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [5])))
    fetcher._handle_response(1, {TP: 5}, answer(batches(5, [5])))
    subs.seek(TP, 3)  # without discard: the buffered records no longer start at the position
    assert fetcher.fetched_records((), None) == {} and fetcher.fetched_ahead(TP) == 0


@pytest.mark.parametrize("code", [Errors.NOT_LEADER_OR_FOLLOWER, Errors.OFFSET_OUT_OF_RANGE, "corrupt"])
def test_an_error_answered_to_a_fetch_ahead_ends_fetching_ahead_and_is_left_to_the_fetch_at_the_position(
    code,
):
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [2])))
    if code == "corrupt":
        corrupt = bytearray(batches(2, [2]))
        corrupt[-1] ^= 0xFF  # the CRC32C no longer matches
        fetcher._handle_response(1, {TP: 2}, answer(bytes(corrupt)))
    else:
        fetcher._handle_response(1, {TP: 2}, answer(None, code))
    fetcher.raise_pending_error()  # nothing stored for the user
    assert fetcher.fetched_ahead(TP) == 0 and TP in subs.fetchable_partitions()  # no backoff either
    assert fetcher.fetch_offsets() == {}, "not fetched ahead again while the buffered records are handed out"
    assert take_all(fetcher) == [0, 1]
    assert fetcher.fetch_offsets() == {TP: 2}, "the fetch at the position meets the error again"


def test_records_that_reach_the_high_watermark_are_not_fetched_ahead_of():
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [3]), high_watermark=3))
    assert fetcher.fetch_offsets() == {}, "a fetch ahead would only wait at the log end"
    assert take_all(fetcher) == [0, 1, 2] and fetcher.fetch_offsets() == {TP: 3}


def test_an_empty_answer_to_a_fetch_ahead_at_the_high_watermark_ends_fetching_ahead():
    fetcher, subs = fetcher_at(0)
    fetcher._handle_response(1, {TP: 0}, answer(batches(0, [3]), high_watermark=10))
    fetcher._handle_response(1, {TP: 3}, answer(b"", high_watermark=3))  # the log was truncated meanwhile
    assert fetcher.fetched_ahead(TP) == 0 and fetcher.fetch_offsets() == {}


def test_the_position_moves_past_records_compaction_removed_from_the_end_of_a_batch():
    fetcher, subs = fetcher_at(0)
    # A compacted batch keeps its offset range 0..4 but holds only the records at offsets 0 and 1.
    compacted = bytearray(build_batch([(b"k", b"v", None, 1000), (b"k2", b"v2", None, 1000)]))
    compacted[23:27] = (4).to_bytes(4, "big")
    compacted[17:21] = compute_crc(compacted, 0, len(compacted)).to_bytes(4, "big")
    fetcher._handle_response(1, {TP: 0}, answer(bytes(compacted)))
    fetcher._handle_response(1, {TP: 5}, answer(batches(5, [2])))
    assert fetcher.fetched_ahead(TP) == 2
    assert take_all(fetcher) == [0, 1, 5, 6]
    assert subs.position(TP) == 7
