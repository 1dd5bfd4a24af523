"""RecordAccumulator: batching by size, linger, flush, retries and expiry (manual clock)."""

from __future__ import annotations

import random

import pytest

from kafkette.client.producer.producer_batch import record_size_in_bytes
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.protocol.errors import IllegalStateError, KafkaError, KafkaTimeoutError, MessageTooLargeError
from kafkette.protocol.record_batch import decode_records, iter_batches
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)
TP1 = TopicPartition("t", 1)


class ManualClock:
    def __init__(self) -> None:
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s

    def advance_ms(self, ms: float) -> None:
        self.now_s += ms / 1000


def make(clock: ManualClock, **kwargs) -> RecordAccumulator:
    settings = dict(
        max_batch_size=1000,
        linger_ms=5,
        max_buffer_size=10_000,
        delivery_timeout_ms=120_000,
        retry_backoff_ms=100,
    )
    settings.update(kwargs)
    return RecordAccumulator(clock=clock, **settings)


def append(acc: RecordAccumulator, tp: TopicPartition, value: bytes, **kwargs):
    size = record_size_in_bytes(None, value, None)
    return acc.append(tp, None, value, None, 1_700_000_000_000, size, **kwargs)


async def test_batch_is_not_ready_before_linger_and_ready_after():
    clock = ManualClock()
    acc = make(clock)
    append(acc, TP, b"v")
    assert acc.ready() == ([], pytest.approx(5))
    clock.advance_ms(4)
    assert acc.ready()[0] == []
    clock.advance_ms(1)
    assert acc.ready()[0] == [TP]


async def test_full_batch_is_ready_at_once_and_records_overflow_into_a_new_batch():
    clock = ManualClock()
    acc = make(clock, max_batch_size=300)
    for _ in range(5):
        append(acc, TP, b"x" * 100)
    batches = acc.queued_batches(TP)
    assert [b.record_count for b in batches] == [2, 2, 1]
    assert all(b.size_bytes <= 300 for b in batches)
    assert acc.ready()[0] == [TP]


async def test_a_record_larger_than_the_batch_size_gets_its_own_batch():
    clock = ManualClock()
    acc = make(clock, max_batch_size=100)
    append(acc, TP, b"x" * 500)
    append(acc, TP, b"y")
    assert [b.record_count for b in acc.queued_batches(TP)] == [1, 1]


async def test_abort_on_new_batch_returns_none_instead_of_opening_one():
    clock = ManualClock()
    acc = make(clock)
    assert append(acc, TP, b"v", abort_on_new_batch=True) is None
    assert acc.queued_batches(TP) == []
    assert append(acc, TP, b"v") is not None
    assert append(acc, TP, b"w", abort_on_new_batch=True) is not None
    assert acc.queued_batches(TP)[0].record_count == 2


async def test_drain_closes_the_batch_and_later_records_start_a_new_one():
    clock = ManualClock()
    acc = make(clock)
    append(acc, TP, b"a")
    clock.advance_ms(5)
    batch = acc.drain(TP)
    assert batch is not None and batch.closed and batch.attempts == 1
    append(acc, TP, b"b")
    assert len(acc.queued_batches(TP)) == 1 and acc.queued_batches(TP)[0] is not batch


async def test_flush_makes_lingering_batches_ready():
    clock = ManualClock()
    acc = make(clock, linger_ms=10_000)
    append(acc, TP, b"a")
    append(acc, TP1, b"b")
    assert acc.ready()[0] == []
    acc.begin_flush()
    assert sorted(acc.ready()[0]) == [TP, TP1]
    acc.end_flush()
    assert acc.ready()[0] == []


async def test_a_partition_with_its_batch_in_flight_is_muted_when_one_may_be_in_flight():
    clock = ManualClock()
    acc = make(clock, linger_ms=0)
    append(acc, TP, b"a")
    append(acc, TP1, b"b")
    assert acc.ready({TP: 1})[0] == [TP1]


async def test_up_to_max_in_flight_batches_of_a_partition_are_pipelined():
    clock = ManualClock()
    acc = make(clock, linger_ms=0, max_batch_size=100)
    for i in range(7):
        append(acc, TP, bytes(80) + bytes([i]))  # one record per batch
    in_flight = {TP: 0}
    for expected in range(5):
        assert acc.ready(in_flight, 5)[0] == [TP]
        assert acc.drain(TP).order == expected
        in_flight[TP] += 1
    assert acc.ready(in_flight, 5)[0] == []
    in_flight[TP] = 4
    assert acc.ready(in_flight, 5)[0] == [TP]


async def test_a_retried_batch_waits_until_no_batch_of_its_partition_is_in_flight():
    clock = ManualClock()
    acc = make(clock, linger_ms=0, max_batch_size=100, retry_backoff_ms=0)
    for i in range(3):
        append(acc, TP, bytes(80) + bytes([i]))
    first, second, third = (acc.drain(TP) for _ in range(3))
    acc.reenqueue(first)
    assert acc.ready({TP: 2}, 5)[0] == []  # the second and third are still in flight
    assert acc.ready({}, 5)[0] == [TP]


async def test_retried_batches_are_requeued_in_creation_order_whatever_order_they_come_back():
    clock = ManualClock()
    acc = make(clock, linger_ms=0, max_batch_size=100, retry_backoff_ms=0)
    for i in range(4):
        append(acc, TP, bytes(80) + bytes([i]))
    drained = [acc.drain(TP) for _ in range(3)]
    for batch in (drained[2], drained[0], drained[1]):
        acc.reenqueue(batch)
    assert [b.order for b in acc.queued_batches(TP)] == [0, 1, 2, 3]


async def test_reenqueued_batch_goes_first_and_waits_for_the_retry_backoff():
    clock = ManualClock()
    acc = make(clock, linger_ms=0)
    append(acc, TP, b"first")
    batch = acc.drain(TP)
    append(acc, TP, b"second")
    acc.reenqueue(batch)
    assert acc.queued_batches(TP)[0] is batch
    ready, wait_ms = acc.ready()
    assert ready == [] and 80 <= wait_ms <= 120  # retry.backoff.ms with 20% jitter
    clock.advance_ms(wait_ms + 0.01)
    assert acc.ready()[0] == [TP]
    assert acc.drain(TP) is batch and batch.attempts == 2


async def test_completion_resolves_futures_with_consecutive_offsets_and_frees_the_buffer():
    clock = ManualClock()
    acc = make(clock)
    futures = [append(acc, TP, f"v{i}".encode()) for i in range(3)]
    assert acc.buffered_bytes > 0
    batch = acc.drain(TP)
    batch.complete(base_offset=40)
    acc.deallocate(batch)
    assert [f.result().offset for f in futures] == [40, 41, 42]
    assert all(f.result().partition == 0 and f.result().topic == "t" for f in futures)
    assert acc.buffered_bytes == 0 and not acc.has_incomplete()


async def test_acks_zero_completion_reports_offset_minus_one():
    clock = ManualClock()
    acc = make(clock)
    fut = append(acc, TP, b"v")
    batch = acc.drain(TP)
    batch.complete(base_offset=-1)
    assert fut.result().offset == -1


async def test_batch_bytes_decode_back_to_the_appended_records():
    clock = ManualClock()
    acc = make(clock)
    acc.append(TP, b"k", b"v1", [("h", b"x")], 1000, 20)
    acc.append(TP, None, b"v2", None, 1005, 20)
    batch = acc.drain(TP)
    data = batch.encoded()
    [(pos, header)] = list(iter_batches(data, verify_crc=True))
    records = decode_records(data, pos, header)
    assert [(r.key, r.value, r.headers, r.timestamp) for r in records] == [
        (b"k", b"v1", [("h", b"x")], 1000),
        (None, b"v2", [], 1005),
    ]
    assert header.producer_id == -1


async def test_expired_batches_fail_with_a_timeout():
    clock = ManualClock()
    acc = make(clock, delivery_timeout_ms=1000, linger_ms=10_000)
    fut = append(acc, TP, b"v")
    assert acc.expire() == []
    clock.advance_ms(1000)
    [expired] = acc.expire()
    assert expired.done and isinstance(fut.exception(), KafkaTimeoutError)
    assert acc.buffered_bytes == 0


async def test_a_retried_batch_expires_with_its_last_broker_error():
    from kafkette.protocol.errors import NotEnoughReplicasError

    clock = ManualClock()
    acc = make(clock, delivery_timeout_ms=1000, linger_ms=0)
    fut = append(acc, TP, b"v")
    batch = acc.drain(TP)
    batch.last_error = NotEnoughReplicasError("ISR [2] below min.insync.replicas 2")
    acc.reenqueue(batch)
    clock.advance_ms(1000)
    [expired] = acc.expire()
    assert expired is batch
    assert isinstance(fut.exception(), NotEnoughReplicasError)
    assert isinstance(fut.exception().__cause__, KafkaTimeoutError)


async def test_expiry_catches_a_retried_batch_older_than_every_batch_queued_since():
    clock = ManualClock()
    acc = make(clock, delivery_timeout_ms=1000, linger_ms=0)
    other = TopicPartition(TP.topic, TP.partition + 1)
    first = append(acc, TP, b"v")
    batch = acc.drain(TP)  # in flight
    third = append(acc, other, b"x")
    clock.advance_ms(600)
    second = append(acc, TP, b"w")  # due 600 ms after the drained batch
    clock.advance_ms(400)
    assert [b.tp for b in acc.expire()] == [other] and isinstance(third.exception(), KafkaTimeoutError)
    acc.reenqueue(batch)  # back, ahead of ``second``, with its own earlier deadline (passed)
    [expired] = acc.expire()
    assert expired is batch and isinstance(first.exception(), KafkaTimeoutError) and not second.done()
    clock.advance_ms(599)
    assert acc.expire() == []
    clock.advance_ms(1)
    [_] = acc.expire()
    assert isinstance(second.exception(), KafkaTimeoutError)


async def test_abort_batches_fails_every_incomplete_batch():
    clock = ManualClock()
    acc = make(clock)
    queued = append(acc, TP, b"a")
    append(acc, TP1, b"b")
    in_flight_batch = acc.drain(TP1)
    assert acc.abort_batches(KafkaError("boom")) == 2
    assert isinstance(queued.exception(), KafkaError)
    assert isinstance(in_flight_batch.futures[0].exception(), KafkaError)
    assert not acc.has_incomplete()


async def test_closed_accumulator_refuses_appends():
    clock = ManualClock()
    acc = make(clock)
    acc.close()
    with pytest.raises(IllegalStateError):
        append(acc, TP, b"v")


async def test_wait_for_room_rejects_records_larger_than_the_buffer():
    acc = make(ManualClock(), max_buffer_size=100)
    with pytest.raises(MessageTooLargeError):
        await acc.wait_for_room(101, 1000)


async def test_wait_for_room_times_out_when_the_buffer_stays_full():
    acc = make(ManualClock(), max_buffer_size=300)
    append(acc, TP, b"x" * 150)
    await acc.wait_for_room(10, 0)  # fits: no wait
    with pytest.raises(KafkaTimeoutError):
        await acc.wait_for_room(100, 0)


def test_invalid_settings_are_rejected():
    with pytest.raises(ValueError):
        RecordAccumulator(max_batch_size=0)
    with pytest.raises(ValueError):
        RecordAccumulator(linger_ms=-1)


async def test_a_batchs_retry_backoff_doubles_per_failed_attempt_up_to_retry_backoff_max_ms():
    clock = ManualClock()
    acc = make(clock, linger_ms=0, retry_backoff_ms=100, retry_backoff_max_ms=1000, rng=random.Random(11))
    append(acc, TP, b"v")
    waits = []
    for _ in range(8):
        batch = acc.drain(TP)
        acc.reenqueue(batch)  # the attempt failed
        ready, wait_ms = acc.ready()
        assert ready == []
        waits.append(wait_ms)
        clock.advance_ms(wait_ms + 0.01)  # (seconds on the clock: float rounding)
        assert acc.ready()[0] == [TP]
    for n, wait in enumerate(waits):  # Kafka's ExponentialBackoff(100, 2, 1000, 0.2).backoff(n)
        term = min(100 * 2**n, 1000)
        assert 0.8 * term - 1 <= wait <= min(1.2 * term, 1000), waits
    assert acc.retry_backoff_ms_after(1) <= 120 and 800 <= acc.retry_backoff_ms_after(20) <= 1000


async def test_a_new_leader_ends_a_retried_batchs_backoff_at_once():
    clock = ManualClock()
    acc = make(clock, linger_ms=0, retry_backoff_ms=1000, retry_backoff_max_ms=1000)
    append(acc, TP, b"v")
    batch = acc.drain(TP)
    batch.leader_epoch = 3  # the attempt failed while the partition's leader had epoch 3
    acc.reenqueue(batch)
    epochs = {TP: 3}
    assert acc.ready(leader_epoch_of=epochs.__getitem__)[0] == []
    assert acc.ready()[0] == []
    epochs[TP] = 4  # a leader elected since (KIP-951): no reason to wait
    assert acc.ready(leader_epoch_of=epochs.__getitem__)[0] == [TP]
    assert acc.ready()[0] == []  # without metadata the backoff holds
