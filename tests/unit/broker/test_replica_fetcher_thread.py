"""ReplicaFetcherThread against a fake leader: truncation, fetching, round-robin,
out-of-range handling, backoff, and answers that race partition changes.

The follower is broker 2 with a real Partition and Log on tmp_path; the leader
(broker 1) is a FakeLeaderEndPoint.  The thread is driven by calling
``maybe_truncate()`` / ``maybe_fetch()`` directly; ``time.monotonic`` in the fetcher
module is replaced by a manual clock.
"""

from __future__ import annotations

import asyncio

import pytest
from broker_fakes import (
    TP0,
    TP1,
    FakeLeaderEndPoint,
    ManualMonotonic,
    base_offsets,
    fetch_response,
    make_batch,
    make_config,
    make_state,
    new_partition,
    requested,
)

import broker.fetcher.replica_fetcher_thread as fetcher_module
from broker.fetcher.replica_fetcher_thread import FETCHING, TRUNCATING, ReplicaFetcherThread
from broker.log.log_manager import LogManager
from protocol.apis.fetch import FetchPartitionData
from protocol.errors import Errors, KafkaConnectionError

BACKOFF_MS = 500
LEADER_EPOCH = 3


@pytest.fixture
def monotonic(monkeypatch):
    fake = ManualMonotonic()
    monkeypatch.setattr(fetcher_module, "time", fake)
    return fake


class Follower:
    """Broker 2's side: partitions, the fake leader and the fetcher under test."""

    def __init__(self, log_manager: LogManager, backoff_ms: int = BACKOFF_MS) -> None:
        self.log_manager = log_manager
        self.partitions = {}
        self.leader = FakeLeaderEndPoint(broker_id=2, leader_id=1)
        config = make_config(log_manager.log_dirs[0], node_id=2, replica_fetch_backoff_ms=backoff_ms,
                             replica_fetch_max_bytes=4096)
        self.fetcher = ReplicaFetcherThread("ReplicaFetcherThread-0-1", 2, self.leader, config, self.partitions.get)

    def host(self, tp, *, records: bytes = b"", high_watermark: int = 0):
        partition = new_partition(self.log_manager, tp, broker_id=2)
        partition.make_follower(make_state(tp, leader=1, leader_epoch=LEADER_EPOCH, replicas=[1, 2], isr=[1, 2]))
        if records:
            partition.append_records_to_follower(records)
        partition.update_follower_high_watermark(high_watermark)
        self.partitions[tp] = partition
        return partition

    async def add(self, *tps):
        self.fetcher.add_partitions(dict.fromkeys(tps, LEADER_EPOCH))
        await self.fetcher.maybe_truncate()

    def answer(self, parts):
        """Make the leader answer the next fetches with ``{tp: FetchPartitionData}`` (others empty)."""
        def responder(request):
            return fetch_response({
                tp: parts.get(tp) or FetchPartitionData(error_code=Errors.NONE, high_watermark=-1, records=b"")
                for tp, _ in requested(request)
            })
        self.leader.responder = responder


@pytest.fixture
async def follower(tmp_path, monotonic):
    log_manager = LogManager(make_config(tmp_path / "logs", node_id=2))
    await log_manager.start()
    follower = Follower(log_manager)
    yield follower
    await follower.fetcher.stop()
    await log_manager.stop()


def data(records=b"", high_watermark=-1, error=Errors.NONE):
    return FetchPartitionData(error_code=error, high_watermark=high_watermark, records=records)


async def test_added_partition_truncates_to_its_high_watermark_then_fetches_from_its_log_end_offset(follower):
    partition = follower.host(TP0, records=make_batch(3, base_offset=0) + make_batch(2, base_offset=3),
                              high_watermark=3)
    follower.fetcher.add_partitions({TP0: LEADER_EPOCH})
    state = follower.fetcher.fetch_state(TP0)
    assert (state.state, state.fetch_offset) == (TRUNCATING, -1)
    assert partition.log.log_end_offset == 5, "nothing is truncated before maybe_truncate"
    await follower.fetcher.maybe_truncate()
    assert partition.log.log_end_offset == 3
    assert (state.state, state.fetch_offset) == (FETCHING, 3)
    await follower.fetcher.maybe_fetch()
    [request] = follower.leader.requests
    assert request.replica_id == 2
    assert requested(request) == [(TP0, 3)]
    sent = request.topics[0].partitions[0]
    assert (sent.current_leader_epoch, sent.log_start_offset, sent.partition_max_bytes) == (LEADER_EPOCH, 0, 4096)


async def test_fetched_data_is_appended_and_the_follower_high_watermark_updated(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)
    follower.answer({TP0: data(make_batch(3, base_offset=0, leader_epoch=LEADER_EPOCH), high_watermark=2)})
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 3
    assert partition.high_watermark == 2
    assert follower.fetcher.fetch_state(TP0).fetch_offset == 3
    follower.answer({TP0: data(make_batch(2, base_offset=3), high_watermark=5)})
    await follower.fetcher.maybe_fetch()
    assert requested(follower.leader.requests[-1]) == [(TP0, 3)]
    assert (partition.log.log_end_offset, partition.high_watermark) == (5, 5)
    assert base_offsets(partition.log.read(0, 1 << 20).records) == [0, 3]


async def test_partition_that_returned_data_moves_to_the_end_of_the_next_request(follower):
    follower.host(TP0)
    follower.host(TP1)
    await follower.add(TP0, TP1)
    follower.answer({TP0: data(make_batch(1, base_offset=0), high_watermark=0)})
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[0])] == [TP0, TP1]
    follower.answer({})
    await follower.fetcher.maybe_fetch()
    assert requested(follower.leader.requests[1]) == [(TP1, 0), (TP0, 1)]
    follower.answer({TP1: data(make_batch(1, base_offset=0), high_watermark=0)})
    await follower.fetcher.maybe_fetch()
    follower.answer({})
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[3])] == [TP0, TP1]


async def test_offset_out_of_range_above_the_leader_log_end_offset_truncates_to_it(follower):
    partition = follower.host(TP0, records=make_batch(3, base_offset=0) + make_batch(2, base_offset=3),
                              high_watermark=5)
    await follower.add(TP0)
    follower.leader.latest_offsets[TP0] = 3
    follower.answer({TP0: data(error=Errors.OFFSET_OUT_OF_RANGE)})
    await follower.fetcher.maybe_fetch()
    assert follower.leader.offset_requests == [("latest", TP0, LEADER_EPOCH)]
    assert (partition.log.log_end_offset, partition.high_watermark) == (3, 3)
    assert follower.fetcher.fetch_state(TP0).fetch_offset == 3


async def test_offset_out_of_range_below_the_leader_log_start_truncates_fully_to_it(follower):
    partition = follower.host(TP0, records=make_batch(5, base_offset=0), high_watermark=5)
    await follower.add(TP0)
    follower.leader.latest_offsets[TP0] = 30
    follower.leader.earliest_offsets[TP0] = 20
    follower.answer({TP0: data(error=Errors.OFFSET_OUT_OF_RANGE)})
    await follower.fetcher.maybe_fetch()
    log = partition.log
    assert (log.log_start_offset, log.log_end_offset, partition.high_watermark) == (20, 20, 20)
    assert follower.fetcher.fetch_state(TP0).fetch_offset == 20
    follower.answer({})
    await follower.fetcher.maybe_fetch()
    assert requested(follower.leader.requests[-1]) == [(TP0, 20)]


async def test_offset_out_of_range_inside_the_leader_log_keeps_the_log(follower):
    partition = follower.host(TP0, records=make_batch(5, base_offset=0), high_watermark=5)
    await follower.add(TP0)
    follower.leader.latest_offsets[TP0] = 30
    follower.leader.earliest_offsets[TP0] = 0
    follower.answer({TP0: data(error=Errors.OFFSET_OUT_OF_RANGE)})
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 5
    assert follower.fetcher.fetch_state(TP0).fetch_offset == 5


async def test_partition_error_delays_only_that_partition_by_replica_fetch_backoff_ms(follower, monotonic):
    follower.host(TP0)
    follower.host(TP1)
    await follower.add(TP0, TP1)
    follower.answer({TP0: data(error=Errors.NOT_LEADER_OR_FOLLOWER)})
    await follower.fetcher.maybe_fetch()
    follower.answer({})
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[1])] == [TP1]
    monotonic.advance_ms(BACKOFF_MS - 1)
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[2])] == [TP1]
    monotonic.advance_ms(1)
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[3])] == [TP0, TP1]


async def test_failed_fetch_request_delays_every_partition_sent(tmp_path, monotonic):
    log_manager = LogManager(make_config(tmp_path / "logs", node_id=2))
    await log_manager.start()
    follower = Follower(log_manager, backoff_ms=5)  # maybe_fetch then waits this long for work
    try:
        follower.host(TP0)
        follower.host(TP1)
        await follower.add(TP0, TP1)
        follower.leader.fetch_error = KafkaConnectionError("leader unreachable")
        async with asyncio.timeout(2):
            await follower.fetcher.maybe_fetch()
        until = monotonic.now_s + 0.005
        assert follower.fetcher.fetch_state(TP0).delayed_until == pytest.approx(until)
        assert follower.fetcher.fetch_state(TP1).delayed_until == pytest.approx(until)
    finally:
        await follower.fetcher.stop()
        await log_manager.stop()


async def test_append_at_an_unexpected_offset_sends_the_partition_back_to_truncating(follower):
    partition = follower.host(TP0, records=make_batch(5, base_offset=0), high_watermark=5)
    await follower.add(TP0)
    follower.answer({TP0: data(make_batch(4, base_offset=3))})  # starts below the log end offset 5
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 5
    assert follower.fetcher.fetch_state(TP0).state == TRUNCATING


async def test_follower_appends_batches_after_a_gap_left_by_compaction(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)
    follower.answer({TP0: data(make_batch(2, base_offset=7))})
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 9


async def test_response_for_a_partition_removed_while_in_flight_is_ignored(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)

    def respond_after_removal(request):
        follower.fetcher.remove_partitions([TP0])
        return fetch_response({TP0: data(make_batch(2, base_offset=0), high_watermark=2)})

    follower.leader.responder = respond_after_removal
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 0 and partition.high_watermark == 0
    assert follower.fetcher.fetch_state(TP0) is None


async def test_response_for_a_partition_re_added_while_in_flight_is_ignored(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)

    def respond_after_re_add(request):
        follower.fetcher.remove_partitions([TP0])
        follower.fetcher.add_partitions({TP0: LEADER_EPOCH + 1})
        return fetch_response({TP0: data(make_batch(2, base_offset=0), high_watermark=2)})

    follower.leader.responder = respond_after_re_add
    await follower.fetcher.maybe_fetch()
    assert partition.log.log_end_offset == 0
    state = follower.fetcher.fetch_state(TP0)
    assert (state.state, state.leader_epoch) == (TRUNCATING, LEADER_EPOCH + 1)


async def test_partition_no_longer_hosted_is_dropped_when_its_answer_arrives(follower):
    follower.host(TP0)
    await follower.add(TP0)
    del follower.partitions[TP0]
    follower.answer({TP0: data(make_batch(1, base_offset=0))})
    await follower.fetcher.maybe_fetch()
    assert follower.fetcher.fetch_state(TP0) is None and follower.fetcher.partition_count == 0


async def test_stop_cancels_a_fetch_in_flight_and_closes_the_leader(follower):
    follower.host(TP0)
    follower.fetcher.add_partitions({TP0: LEADER_EPOCH})
    follower.leader.block = True
    follower.fetcher.start()
    [task] = [t for t in asyncio.all_tasks() if t.get_name() == follower.fetcher.name]
    async with asyncio.timeout(2):
        while not follower.leader.requests:
            await asyncio.sleep(0)
        await follower.fetcher.stop()
    assert task.cancelled()
    assert follower.leader.closed == 1
