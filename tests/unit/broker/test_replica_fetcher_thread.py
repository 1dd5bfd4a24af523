"""ReplicaFetcherThread against a fake leader: truncation, fetching, round-robin,
out-of-range handling, backoff, and answers that race partition changes.

The follower is broker 2 with a real Partition and Log on tmp_path; the leader
(broker 1) is a FakeLeaderEndPoint.  The thread is driven by calling
``maybe_truncate()`` / ``maybe_fetch()`` directly, on a MockTime the tests advance.
"""

from __future__ import annotations

import asyncio

import pytest
from broker_fakes import (
    TP0,
    TP1,
    FakeLeaderEndPoint,
    base_offsets,
    fetch_response,
    make_batch,
    make_config,
    make_state,
    new_partition,
    requested,
)

from kafkette.broker.fetcher.replica_fetcher_thread import FETCHING, TRUNCATING, ReplicaFetcherThread
from kafkette.broker.log.log_manager import LogManager
from kafkette.common.clock import MockTime
from kafkette.protocol.apis.fetch import FetchPartitionData
from kafkette.protocol.errors import Errors, KafkaConnectionError

BACKOFF_MS = 500
LEADER_EPOCH = 3


@pytest.fixture
def monotonic():
    return MockTime(monotonic_ms=1_000_000.0)


class Follower:
    """Broker 2's side: partitions, the fake leader and the fetcher under test."""

    def __init__(self, log_manager: LogManager, time: MockTime, backoff_ms: int = BACKOFF_MS) -> None:
        self.log_manager = log_manager
        self.partitions = {}
        self.leader = FakeLeaderEndPoint(broker_id=2, leader_id=1)
        config = make_config(
            log_manager.log_dirs[0],
            node_id=2,
            replica_fetch_backoff_ms=backoff_ms,
            replica_fetch_max_bytes=4096,
        )
        self.fetcher = ReplicaFetcherThread(
            "ReplicaFetcherThread-0-1", 2, self.leader, config, self.partitions.get, time=time
        )

    def host(self, tp, *, records: bytes = b"", high_watermark: int = 0):
        partition = new_partition(self.log_manager, tp, broker_id=2)
        partition.make_follower(
            make_state(tp, leader=1, leader_epoch=LEADER_EPOCH, replicas=[1, 2], isr=[1, 2])
        )
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
            return fetch_response(
                {
                    tp: parts.get(tp)
                    or FetchPartitionData(error_code=Errors.NONE, high_watermark=-1, records=b"")
                    for tp, _ in requested(request)
                }
            )

        self.leader.responder = responder


@pytest.fixture
async def follower(tmp_path, monotonic):
    log_manager = LogManager(make_config(tmp_path / "logs", node_id=2))
    await log_manager.start()
    follower = Follower(log_manager, monotonic)
    yield follower
    await follower.fetcher.stop()
    await log_manager.stop()


def data(records=b"", high_watermark=-1, error=Errors.NONE):
    return FetchPartitionData(error_code=error, high_watermark=high_watermark, records=records)


async def test_added_partition_truncates_to_its_high_watermark_then_fetches_from_its_log_end_offset(follower):
    partition = follower.host(
        TP0, records=make_batch(3, base_offset=0) + make_batch(2, base_offset=3), high_watermark=3
    )
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
    assert (sent.current_leader_epoch, sent.log_start_offset, sent.partition_max_bytes) == (
        LEADER_EPOCH,
        0,
        4096,
    )


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
    partition = follower.host(
        TP0, records=make_batch(3, base_offset=0) + make_batch(2, base_offset=3), high_watermark=5
    )
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
    monotonic.advance(BACKOFF_MS - 1)
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[2])] == [TP1]
    monotonic.advance(1)
    await follower.fetcher.maybe_fetch()
    assert [tp for tp, _ in requested(follower.leader.requests[3])] == [TP0, TP1]


async def test_failed_fetch_request_delays_every_partition_sent(tmp_path, monotonic):
    log_manager = LogManager(make_config(tmp_path / "logs", node_id=2))
    await log_manager.start()
    follower = Follower(log_manager, monotonic, backoff_ms=5)  # maybe_fetch then waits this long for work
    try:
        follower.host(TP0)
        follower.host(TP1)
        await follower.add(TP0, TP1)
        follower.leader.fetch_error = KafkaConnectionError("leader unreachable")
        fetching = asyncio.ensure_future(follower.fetcher.maybe_fetch())
        async with asyncio.timeout(5):
            while monotonic.sleepers == 0:  # failed, delayed both, now waits for work on the clock
                await asyncio.sleep(0)
        until = monotonic.monotonic_ms() / 1000 + 0.005
        assert follower.fetcher.fetch_state(TP0).delayed_until == pytest.approx(until)
        assert follower.fetcher.fetch_state(TP1).delayed_until == pytest.approx(until)
        assert not fetching.done()
        monotonic.advance(5)  # the backoff ends: the wait is over
        await asyncio.wait_for(fetching, 5)
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


# ----- truncation by leader epoch (OffsetsForLeaderEpoch, KIP-101) ----------------------------


def epochs_of(partition):
    return [(e.epoch, e.start_offset) for e in partition.log.leader_epoch_cache.entries]


async def test_follower_with_a_lagging_high_watermark_keeps_what_the_leader_has(follower):
    # 0..39 written in epoch 0 and acknowledged; this follower only knows high watermark 30.
    records = b"".join(make_batch(10, base_offset=o, leader_epoch=0) for o in (0, 10, 20, 30))
    partition = follower.host(TP0, records=records, high_watermark=30)
    follower.leader.epoch_end_offsets[TP0] = (0, 40)  # the leader's epoch 0 ends where its new epoch starts
    await follower.add(TP0)
    assert follower.leader.epoch_requests == [
        {TP0: (LEADER_EPOCH, 0)}
    ]  # (current leader epoch, latest own epoch)
    assert partition.log.log_end_offset == 40
    state = follower.fetcher.fetch_state(TP0)
    assert (state.state, state.fetch_offset) == (FETCHING, 40)


async def test_follower_drops_what_the_leader_never_had_in_the_same_epoch(follower):
    records = make_batch(5, base_offset=0, leader_epoch=2) + make_batch(3, base_offset=5, leader_epoch=2)
    partition = follower.host(TP0, records=records, high_watermark=5)
    follower.leader.epoch_end_offsets[TP0] = (2, 5)
    await follower.add(TP0)
    assert partition.log.log_end_offset == 5
    assert follower.fetcher.fetch_state(TP0).fetch_offset == 5


async def test_follower_with_an_epoch_the_leader_never_had_truncates_in_rounds(follower):
    records = (
        make_batch(5, base_offset=0, leader_epoch=0)
        + make_batch(5, base_offset=5, leader_epoch=1)
        + make_batch(5, base_offset=10, leader_epoch=3)
    )
    partition = follower.host(TP0, records=records, high_watermark=4)
    assert epochs_of(partition) == [(0, 0), (1, 5), (3, 10)]
    # The leader has epochs 0 (0..6) and 2 (from 7): asked about 3 it answers (2, 12).
    follower.leader.epoch_end_offsets[TP0] = (2, 12)
    await follower.add(TP0)
    state = follower.fetcher.fetch_state(TP0)
    assert (partition.log.log_end_offset, state.state) == (10, TRUNCATING)  # dropped epoch 3, asks again
    follower.leader.epoch_end_offsets[TP0] = (0, 7)  # asked about 1: the leader's epoch 0 ends at 7
    await follower.fetcher.maybe_truncate()
    assert follower.leader.epoch_requests == [{TP0: (LEADER_EPOCH, 3)}, {TP0: (LEADER_EPOCH, 1)}]
    assert partition.log.log_end_offset == 5  # min(7, where the follower's epoch 0 ends) = 5
    assert (state.state, state.fetch_offset) == (FETCHING, 5)
    assert epochs_of(partition) == [(0, 0)]


async def test_undefined_answer_falls_back_to_the_high_watermark(follower):
    partition = follower.host(TP0, records=make_batch(8, base_offset=0, leader_epoch=5), high_watermark=3)
    follower.leader.epoch_end_offsets[TP0] = (-1, -1)
    await follower.add(TP0)
    assert partition.log.log_end_offset == 0  # the single batch straddles 3: dropped whole
    assert follower.fetcher.fetch_state(TP0).state == FETCHING


async def test_follower_without_leader_epochs_truncates_to_its_high_watermark_without_asking(follower):
    partition = follower.host(
        TP0, records=make_batch(3, base_offset=0) + make_batch(2, base_offset=3), high_watermark=3
    )
    await follower.add(TP0)
    assert follower.leader.epoch_requests == []
    assert partition.log.log_end_offset == 3


async def test_error_answer_backs_off_without_truncating_then_retries(follower, monotonic):
    partition = follower.host(TP0, records=make_batch(10, base_offset=0, leader_epoch=1), high_watermark=0)
    follower.host(TP1, records=make_batch(4, base_offset=0, leader_epoch=1), high_watermark=0)
    follower.leader.epoch_end_offsets[TP0] = (
        Errors.UNKNOWN_LEADER_EPOCH
    )  # leader has not seen the new epoch yet
    follower.leader.epoch_end_offsets[TP1] = (1, 4)
    await follower.add(TP0, TP1)
    state = follower.fetcher.fetch_state(TP0)
    assert (partition.log.log_end_offset, state.state) == (10, TRUNCATING)
    assert follower.fetcher.fetch_state(TP1).state == FETCHING
    follower.leader.epoch_end_offsets[TP0] = (1, 10)
    monotonic.advance(BACKOFF_MS - 1)
    await follower.fetcher.maybe_truncate()
    assert len(follower.leader.epoch_requests) == 1, "asked again before replica.fetch.backoff.ms"
    monotonic.advance(1)
    await follower.fetcher.maybe_truncate()
    assert follower.leader.epoch_requests[-1] == {TP0: (LEADER_EPOCH, 1)}
    assert (partition.log.log_end_offset, state.state, state.fetch_offset) == (10, FETCHING, 10)


async def test_unreachable_leader_delays_every_truncating_partition(follower, monotonic):
    partition = follower.host(TP0, records=make_batch(10, base_offset=0, leader_epoch=1), high_watermark=0)
    follower.leader.epoch_error = KafkaConnectionError("leader unreachable")
    await follower.add(TP0)
    state = follower.fetcher.fetch_state(TP0)
    assert (partition.log.log_end_offset, state.state) == (10, TRUNCATING)
    assert state.delayed_until == pytest.approx(monotonic.monotonic_ms() / 1000 + BACKOFF_MS / 1000)


async def test_epoch_answer_for_a_partition_re_added_while_in_flight_is_ignored(follower):
    partition = follower.host(TP0, records=make_batch(10, base_offset=0, leader_epoch=1), high_watermark=0)

    def re_add(partitions):
        follower.fetcher.add_partitions({TP0: LEADER_EPOCH + 1})

    follower.leader.epoch_end_offsets[TP0] = (1, 2)
    follower.leader.epoch_responder = re_add
    await follower.add(TP0)
    state = follower.fetcher.fetch_state(TP0)
    assert partition.log.log_end_offset == 10
    assert (state.state, state.leader_epoch) == (TRUNCATING, LEADER_EPOCH + 1)


async def test_running_fetcher_truncates_in_rounds_then_fetches(follower):
    records = make_batch(5, base_offset=0, leader_epoch=0) + make_batch(5, base_offset=5, leader_epoch=3)
    partition = follower.host(TP0, records=records, high_watermark=0)
    answers = {3: (2, 7), 0: (0, 7)}  # the leader never had epoch 3; its epoch 0 ends at 7

    def answer(partitions):
        follower.leader.epoch_end_offsets[TP0] = answers[partitions[TP0].leader_epoch]

    follower.leader.epoch_responder = answer
    follower.leader.block = True  # the first fetch waits until the fetcher is stopped
    follower.fetcher.add_partitions({TP0: LEADER_EPOCH})
    follower.fetcher.start()
    async with asyncio.timeout(5):
        while not follower.leader.requests:
            await asyncio.sleep(0)
    assert [r[TP0][1] for r in follower.leader.epoch_requests] == [3, 0]
    assert partition.log.log_end_offset == 5
    assert requested(follower.leader.requests[0]) == [(TP0, 5)]


async def test_epoch_started_at_the_log_end_offset_and_never_written_is_dropped_between_rounds(follower):
    # This broker led epoch 2 from offset 10 but wrote nothing before becoming a follower.
    records = make_batch(8, base_offset=0, leader_epoch=0) + make_batch(2, base_offset=8, leader_epoch=0)
    partition = follower.host(TP0, records=records, high_watermark=5)
    partition.log.maybe_assign_epoch_start_offset(2, 10)
    follower.leader.epoch_end_offsets[TP0] = (1, 12)  # the leader never had epoch 2 (nor 0 past 8, below)
    await follower.add(TP0)
    assert partition.log.log_end_offset == 10 and epochs_of(partition) == [(0, 0)]
    follower.leader.epoch_end_offsets[TP0] = (0, 8)
    await follower.fetcher.maybe_truncate()
    assert [r[TP0][1] for r in follower.leader.epoch_requests] == [2, 0]
    assert partition.log.log_end_offset == 8
    assert follower.fetcher.fetch_state(TP0).state == FETCHING
