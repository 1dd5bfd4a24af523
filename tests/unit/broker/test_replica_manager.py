"""ReplicaManager: LeaderAndIsr, produce with acks and the produce purgatory, fetch with
min_bytes / max_wait and the fetch purgatory.

Real event loop, LogManager and logs on tmp_path; the AlterPartitionManager is a
recorder and replica fetchers get a fake leader (no sockets).  Purgatory timers are
real, so the timeouts used are tiny.
"""

from __future__ import annotations

import asyncio

import pytest
from broker_fakes import (
    TP0,
    TP1,
    AlterPartitionRecorder,
    FakeLeaderEndPointFactory,
    base_offsets,
    make_batch,
    make_config,
    make_state,
)

from kafkette.broker.delayed_fetch import FetchPartitionInfo
from kafkette.broker.fetcher.replica_fetcher_manager import ReplicaFetcherManager
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrLiveLeader, LeaderAndIsrRequest
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition

WAIT_S = 2.0  # bound on awaiting something that should happen at once


class Harness:
    def __init__(
        self,
        rm: ReplicaManager,
        recorder: AlterPartitionRecorder,
        endpoints: FakeLeaderEndPointFactory,
        clock: MockTime,
    ) -> None:
        self.rm = rm
        self.recorder = recorder
        self.endpoints = endpoints
        self.clock = clock

    async def leader_and_isr(self, *states, controller_epoch: int = 1, live_leaders=()):
        request = LeaderAndIsrRequest(
            controller_id=1,
            controller_epoch=controller_epoch,
            partition_states=list(states),
            live_leaders=[
                LeaderAndIsrLiveLeader(broker_id=b, host_name="127.0.0.1", port=9000 + b)
                for b in live_leaders
            ],
        )
        return await self.rm.become_leader_or_follower(request)

    async def produce(self, acks: int, entries: dict[TopicPartition, bytes], timeout_ms: int = 5_000):
        return await self.rm.append_records(timeout_ms, acks, entries)

    def follower_fetch(self, replica_id: int, tp: TopicPartition, offset: int, leader_epoch: int = -1):
        return self.rm.read_from_local_log(
            replica_id, {tp: FetchPartitionInfo(offset, 1 << 20, leader_epoch)}, 1 << 20
        )


@pytest.fixture
async def harness(tmp_path):
    config = make_config(tmp_path / "logs", node_id=1)
    log_manager = LogManager(config)
    await log_manager.start()
    recorder = AlterPartitionRecorder()
    clock = MockTime()
    rm = ReplicaManager(config, log_manager, MetadataCache(1, "c"), recorder, scheduler=KafkaScheduler(clock))
    endpoints = FakeLeaderEndPointFactory()
    rm.fetcher_manager = ReplicaFetcherManager(config, rm.get_partition, endpoints)
    yield Harness(rm, recorder, endpoints, clock)
    await rm.stop()
    await log_manager.stop()


async def yield_until(predicate, rounds: int = 20) -> None:
    """Let other tasks run (no time passes) until ``predicate()`` holds."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")


# ----- LeaderAndIsr ---------------------------------------------------------------------


async def test_become_leader_creates_the_partition_as_leader(harness):
    error, errors = await harness.leader_and_isr(make_state(leader_epoch=3, replicas=[1, 2], isr=[1, 2]))
    assert (error, errors) == (Errors.NONE, {TP0: Errors.NONE})
    partition = harness.rm.get_partition(TP0)
    assert partition.is_leader and partition.leader_epoch == 3 and partition.isr == [1, 2]
    assert harness.rm.log_manager.get_log(TP0) is partition.log


async def test_become_follower_starts_fetching_from_the_leader(harness):
    error, errors = await harness.leader_and_isr(
        make_state(leader=2, leader_epoch=3, replicas=[1, 2]), live_leaders=[2]
    )
    assert (error, errors) == (Errors.NONE, {TP0: Errors.NONE})
    partition = harness.rm.get_partition(TP0)
    assert not partition.is_leader and partition.leader_id == 2
    fetcher = harness.rm.fetcher_manager.fetcher_for(TP0)
    assert fetcher is not None and fetcher.fetch_state(TP0).leader_epoch == 3
    [endpoint] = harness.endpoints.built
    assert (endpoint.broker_id, endpoint.leader_id, endpoint.host, endpoint.port) == (1, 2, "127.0.0.1", 9002)


async def test_follower_becoming_leader_stops_fetching(harness):
    await harness.leader_and_isr(make_state(leader=2, leader_epoch=3, replicas=[1, 2]), live_leaders=[2])
    await harness.leader_and_isr(make_state(leader=1, leader_epoch=4, replicas=[1, 2], isr=[1]))
    assert harness.rm.get_partition(TP0).is_leader
    assert harness.rm.fetcher_manager.fetcher_for(TP0) is None
    assert harness.endpoints.built[0].closed == 1


async def test_follower_without_a_known_leader_address_does_not_fetch(harness):
    _, errors = await harness.leader_and_isr(make_state(leader=2, replicas=[1, 2]))
    assert errors == {TP0: Errors.NONE}
    assert harness.rm.fetcher_manager.fetcher_for(TP0) is None


async def test_request_from_a_stale_controller_epoch_is_refused_whole(harness):
    await harness.leader_and_isr(make_state(leader_epoch=1), controller_epoch=5)
    error, errors = await harness.leader_and_isr(
        make_state(leader_epoch=2, controller_epoch=4), controller_epoch=4
    )
    assert (error, errors) == (Errors.STALE_CONTROLLER_EPOCH, {})
    assert harness.rm.get_partition(TP0).leader_epoch == 1
    assert harness.rm.controller_epoch == 5


async def test_partition_state_with_a_stale_leader_epoch_is_ignored_per_partition(harness):
    await harness.leader_and_isr(make_state(TP0, leader_epoch=5), make_state(TP1, leader_epoch=5))
    error, errors = await harness.leader_and_isr(
        make_state(TP0, leader_epoch=4, leader=2, replicas=[1, 2]),
        make_state(TP1, leader_epoch=6, leader=1, replicas=[1]),
    )
    assert error == Errors.NONE
    assert errors == {TP0: Errors.STALE_CONTROLLER_EPOCH, TP1: Errors.NONE}
    assert harness.rm.get_partition(TP0).is_leader and harness.rm.get_partition(TP0).leader_epoch == 5
    assert harness.rm.get_partition(TP1).leader_epoch == 6


async def test_same_leader_epoch_and_partition_epoch_is_stale_but_a_newer_partition_epoch_applies(harness):
    await harness.leader_and_isr(make_state(leader_epoch=5, partition_epoch=2, replicas=[1, 2], isr=[1, 2]))
    _, errors = await harness.leader_and_isr(
        make_state(leader_epoch=5, partition_epoch=2, replicas=[1, 2], isr=[1])
    )
    assert errors == {TP0: Errors.STALE_CONTROLLER_EPOCH}
    _, errors = await harness.leader_and_isr(
        make_state(leader_epoch=5, partition_epoch=3, replicas=[1, 2], isr=[1])
    )
    assert errors == {TP0: Errors.NONE}
    assert harness.rm.get_partition(TP0).isr == [1]


async def test_partition_state_not_naming_this_broker_as_replica_is_refused(harness):
    _, errors = await harness.leader_and_isr(make_state(leader=2, replicas=[2, 3]))
    assert errors == {TP0: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert harness.rm.get_partition(TP0) is None


# ----- produce --------------------------------------------------------------------------


async def test_append_with_acks_one_returns_base_offsets_per_partition(harness):
    await harness.leader_and_isr(make_state(TP0), make_state(TP1))
    first = await harness.produce(1, {TP0: make_batch(3), TP1: make_batch(1)})
    second = await harness.produce(1, {TP0: make_batch(2)})
    assert {tp: (s.error, s.base_offset) for tp, s in first.items()} == {
        TP0: (Errors.NONE, 0),
        TP1: (Errors.NONE, 0),
    }
    assert (second[TP0].error, second[TP0].base_offset, second[TP0].log_start_offset) == (Errors.NONE, 3, 0)
    assert not any(s.pending for s in first.values())


async def test_append_to_an_unknown_partition_returns_unknown_topic_or_partition(harness):
    await harness.leader_and_isr(make_state(TP0))
    statuses = await harness.produce(1, {TopicPartition("nope", 0): make_batch(1), TP0: make_batch(1)})
    assert statuses[TopicPartition("nope", 0)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert statuses[TopicPartition("nope", 0)].base_offset == -1
    assert statuses[TP0].error == Errors.NONE


async def test_append_to_a_follower_returns_not_leader_or_follower(harness):
    await harness.leader_and_isr(make_state(leader=2, replicas=[1, 2]))
    statuses = await harness.produce(1, {TP0: make_batch(1)})
    assert statuses[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_offline_leader_log_answers_kafka_storage_error_and_other_partitions_keep_serving(harness):
    await harness.leader_and_isr(make_state(TP0), make_state(TP1))
    await harness.produce(1, {TP0: make_batch(2), TP1: make_batch(2)})
    harness.rm.get_partition(TP0).log.mark_offline("test corruption")
    statuses = await harness.produce(1, {TP0: make_batch(1), TP1: make_batch(1)})
    assert (statuses[TP0].error, statuses[TP1].error) == (Errors.KAFKA_STORAGE_ERROR, Errors.NONE)
    results = harness.rm.read_from_local_log(
        -1, {tp: FetchPartitionInfo(0, 1 << 20, -1) for tp in (TP0, TP1)}, 1 << 20
    )
    assert (results[TP0].error, results[TP1].error) == (Errors.KAFKA_STORAGE_ERROR, Errors.NONE)
    assert results[TP1].records


async def test_a_new_leader_records_its_epoch_at_the_log_end_offset_and_checkpoints_it(harness):
    await harness.leader_and_isr(make_state(TP0, leader_epoch=1))
    await harness.produce(1, {TP0: make_batch(3)})
    await harness.leader_and_isr(make_state(TP0, leader_epoch=4))
    log = harness.rm.get_partition(TP0).log
    assert [(e.epoch, e.start_offset) for e in log.leader_epoch_cache.entries] == [(1, 0), (4, 3)]
    if log.pending_flush is not None:
        await asyncio.wait_for(log.pending_flush, 5)
    assert not log.leader_epoch_checkpoint_dirty
    assert (log.dir / "leader-epoch-checkpoint").read_text() == "0\n2\n1 0\n4 3\n"


async def test_partition_over_a_log_found_offline_at_start_up_answers_kafka_storage_error(harness):
    log = harness.rm.log_manager.get_or_create_log(TP0, LogConfig())
    log.append_as_leader(bytearray(make_batch(2)), 0)
    log.mark_offline("corrupt segment found by the start-up scan")
    _, errors = await harness.leader_and_isr(make_state(TP0), make_state(TP1))
    assert errors == {TP0: Errors.NONE, TP1: Errors.NONE}
    statuses = await harness.produce(1, {TP0: make_batch(1), TP1: make_batch(1)})
    assert (statuses[TP0].error, statuses[TP1].error) == (Errors.KAFKA_STORAGE_ERROR, Errors.NONE)


async def test_offline_log_becoming_follower_gets_no_fetcher_and_is_not_truncated(harness):
    await harness.leader_and_isr(make_state(TP0, leader_epoch=1))
    await harness.produce(1, {TP0: make_batch(3)})
    log = harness.rm.get_partition(TP0).log
    log.mark_offline("test corruption")
    _, errors = await harness.leader_and_isr(
        make_state(TP0, leader=2, leader_epoch=2, replicas=[1, 2]), live_leaders=[2]
    )
    assert errors == {TP0: Errors.KAFKA_STORAGE_ERROR}
    assert harness.rm.fetcher_manager.fetcher_for(TP0) is None
    harness.rm.get_partition(TP0).truncate_to(0)
    assert log.log_end_offset == 3 and log.segments[0].size > 0


async def test_append_of_a_corrupt_batch_returns_corrupt_message(harness):
    await harness.leader_and_isr(make_state())
    batch = bytearray(make_batch(2))
    batch[-1] ^= 0xFF
    statuses = await harness.produce(1, {TP0: bytes(batch)})
    assert statuses[TP0].error == Errors.CORRUPT_MESSAGE


async def test_acks_all_on_a_single_replica_isr_completes_at_once(harness):
    await harness.leader_and_isr(make_state())
    async with asyncio.timeout(WAIT_S):
        statuses = await harness.produce(-1, {TP0: make_batch(2)})
    assert (statuses[TP0].error, statuses[TP0].base_offset) == (Errors.NONE, 0)


async def test_acks_all_waits_until_a_follower_fetch_advances_the_high_watermark(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    task = asyncio.create_task(harness.produce(-1, {TP0: make_batch(3)}))
    await yield_until(lambda: len(harness.rm.produce_purgatory) == 1)
    assert not task.done()
    harness.follower_fetch(2, TP0, 2)
    await asyncio.sleep(0)
    assert not task.done(), "the follower has only offsets below 2"
    harness.follower_fetch(2, TP0, 3)
    async with asyncio.timeout(WAIT_S):
        statuses = await task
    assert (statuses[TP0].error, statuses[TP0].base_offset) == (Errors.NONE, 0)
    assert len(harness.rm.produce_purgatory) == 0


async def test_acks_all_times_out_with_request_timed_out_when_followers_do_not_fetch(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    pending = asyncio.ensure_future(harness.produce(-1, {TP0: make_batch(1)}, timeout_ms=60_000))
    await yield_until(lambda: len(harness.rm.produce_purgatory) == 1)
    harness.clock.advance(59_999)  # the purgatory's timeout runs on the node's clock
    await asyncio.sleep(0)
    assert not pending.done()
    harness.clock.advance(1)
    async with asyncio.timeout(WAIT_S):
        statuses = await pending
    assert statuses[TP0].error == Errors.REQUEST_TIMED_OUT
    assert harness.rm.get_partition(TP0).log.log_end_offset == 1, "the batch stays in the leader's log"


async def test_acks_all_with_isr_below_min_insync_replicas_returns_not_enough_replicas(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1], configs={"min.insync.replicas": "2"}))
    statuses = await harness.produce(-1, {TP0: make_batch(1)})
    assert statuses[TP0].error == Errors.NOT_ENOUGH_REPLICAS
    assert len(harness.rm.produce_purgatory) == 0


async def test_acks_all_answers_not_leader_when_leadership_moves_while_waiting(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2], leader_epoch=1))
    task = asyncio.create_task(harness.produce(-1, {TP0: make_batch(1)}))
    await yield_until(lambda: len(harness.rm.produce_purgatory) == 1)
    await harness.leader_and_isr(make_state(leader=2, replicas=[1, 2], isr=[2], leader_epoch=2))
    async with asyncio.timeout(WAIT_S):
        statuses = await task
    assert statuses[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_stop_answers_waiting_produce_requests(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    task = asyncio.create_task(harness.produce(-1, {TP0: make_batch(1)}))
    await yield_until(lambda: len(harness.rm.produce_purgatory) == 1)
    await harness.rm.stop()
    assert (await task)[TP0].error == Errors.REQUEST_TIMED_OUT


# ----- fetch ----------------------------------------------------------------------------


def consumer_fetch(
    harness, offsets: dict[TopicPartition, int], *, max_wait_ms=10_000, min_bytes=1, replica_id=-1
):
    return harness.rm.fetch_messages(
        replica_id=replica_id,
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=1 << 20,
        fetch_infos={tp: FetchPartitionInfo(offset, 1 << 20, -1) for tp, offset in offsets.items()},
    )


async def test_fetch_returns_at_once_when_data_is_available(harness):
    await harness.leader_and_isr(make_state())
    await harness.produce(1, {TP0: make_batch(3)})
    async with asyncio.timeout(WAIT_S):
        results = await consumer_fetch(harness, {TP0: 0})
    result = results[TP0]
    assert (result.error, result.high_watermark, result.log_start_offset) == (Errors.NONE, 3, 0)
    assert base_offsets(result.records) == [0]


async def test_fetch_waits_for_min_bytes_and_is_completed_early_by_an_append(harness):
    await harness.leader_and_isr(make_state())
    batch = make_batch(2)
    task = asyncio.create_task(consumer_fetch(harness, {TP0: 0}, min_bytes=2 * len(batch)))
    await yield_until(lambda: len(harness.rm.fetch_purgatory) == 1)
    await harness.produce(1, {TP0: batch})
    await asyncio.sleep(0)
    assert not task.done(), "one batch is below min_bytes"
    await harness.produce(1, {TP0: make_batch(2)})
    async with asyncio.timeout(WAIT_S):
        results = await task
    assert base_offsets(results[TP0].records) == [0, 2]


async def test_consumer_fetch_waits_for_the_high_watermark_not_the_log_end_offset(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    task = asyncio.create_task(consumer_fetch(harness, {TP0: 0}))
    await yield_until(lambda: len(harness.rm.fetch_purgatory) == 1)
    await harness.produce(1, {TP0: make_batch(2)})
    await asyncio.sleep(0)
    assert not task.done(), "the records are not committed yet"
    harness.follower_fetch(2, TP0, 2)
    async with asyncio.timeout(WAIT_S):
        results = await task
    assert base_offsets(results[TP0].records) == [0] and results[TP0].high_watermark == 2


async def test_fetch_returns_empty_records_after_max_wait(harness):
    await harness.leader_and_isr(make_state())
    pending = asyncio.ensure_future(consumer_fetch(harness, {TP0: 0}, max_wait_ms=60_000))
    await yield_until(lambda: len(harness.rm.fetch_purgatory) == 1)
    harness.clock.advance(60_000)  # the purgatory's timeout runs on the node's clock
    async with asyncio.timeout(WAIT_S):
        results = await pending
    assert results[TP0].error == Errors.NONE and results[TP0].records == b""
    assert len(harness.rm.fetch_purgatory) == 0


async def test_fetch_of_an_unknown_partition_answers_at_once_with_unknown_topic_or_partition(harness):
    await harness.leader_and_isr(make_state())
    async with asyncio.timeout(WAIT_S):
        results = await consumer_fetch(harness, {TopicPartition("nope", 0): 0, TP0: 0})
    assert results[TopicPartition("nope", 0)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert results[TP0].error == Errors.NONE


async def test_fetch_out_of_range_answers_offset_out_of_range(harness):
    await harness.leader_and_isr(make_state())
    await harness.produce(1, {TP0: make_batch(2)})
    results = await consumer_fetch(harness, {TP0: 5})
    assert results[TP0].error == Errors.OFFSET_OUT_OF_RANGE


async def test_fetch_with_a_stale_leader_epoch_answers_fenced_leader_epoch(harness):
    await harness.leader_and_isr(make_state(leader_epoch=4))
    results = harness.rm.read_from_local_log(-1, {TP0: FetchPartitionInfo(0, 1 << 20, 3)}, 1 << 20)
    assert results[TP0].error == Errors.FENCED_LEADER_EPOCH


async def test_a_fetch_naming_another_topic_id_than_the_logs_answers_inconsistent_topic_id(harness):
    """Kafka's ``readFromLog`` (``hasConsistentTopicId``): a Fetch v13+ naming a topic id the partition's log
    does not carry is INCONSISTENT_TOPIC_ID; the log's own id, or none named (zero, before v13), is read."""
    from kafkette.protocol.kafka_uuid import uuid_to_string

    log_id, other_id = bytes(range(1, 17)), bytes(range(21, 37))
    state = make_state()
    state.topic_id = uuid_to_string(log_id)
    await harness.leader_and_isr(state)
    await harness.produce(1, {TP0: make_batch(2)})

    def read(topic_id: bytes):
        info = FetchPartitionInfo(0, 1 << 20, -1, topic_id=topic_id)
        return harness.rm.read_from_local_log(-1, {TP0: info}, 1 << 20)[TP0]

    refused = read(other_id)
    assert (refused.error, refused.high_watermark, refused.records) == (
        Errors.INCONSISTENT_TOPIC_ID,
        -1,
        None,
    )
    assert [read(t).error for t in (log_id, bytes(16))] == [Errors.NONE, Errors.NONE]


async def test_follower_fetch_reads_past_the_high_watermark_and_updates_follower_state(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2, 3], isr=[1, 2, 3]))
    await harness.produce(1, {TP0: make_batch(2)})
    await harness.produce(1, {TP0: make_batch(2)})
    results = harness.follower_fetch(2, TP0, 0)
    assert base_offsets(results[TP0].records) == [0, 2]
    assert results[TP0].high_watermark == 0
    assert harness.rm.get_partition(TP0).remote_replicas[2].log_end_offset == 0


async def test_follower_fetch_with_a_fenced_leader_epoch_does_not_update_follower_state(harness):
    # Kafka's Partition.fetchRecords validates the leader epoch before
    # updateFollowerFetchState; a fenced fetch must not move the ISR or the HW.
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2], leader_epoch=5))
    await harness.produce(1, {TP0: make_batch(3)})
    results = harness.follower_fetch(2, TP0, 3, leader_epoch=4)
    assert results[TP0].error == Errors.FENCED_LEADER_EPOCH
    partition = harness.rm.get_partition(TP0)
    assert partition.remote_replicas[2].log_end_offset == -1
    assert partition.high_watermark == 0


async def test_follower_fetch_beyond_the_leader_log_end_offset_does_not_advance_the_high_watermark(harness):
    # The read fails with OFFSET_OUT_OF_RANGE: the follower has diverged, so its
    # offset must not count towards the high watermark (Kafka reads before updating).
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    await harness.produce(1, {TP0: make_batch(3)})
    results = harness.follower_fetch(2, TP0, 10)
    assert results[TP0].error == Errors.OFFSET_OUT_OF_RANGE
    assert harness.rm.get_partition(TP0).high_watermark == 0


async def test_follower_fetch_from_a_broker_outside_the_replicas_answers_not_leader_or_follower(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    results = harness.follower_fetch(7, TP0, 0)
    assert results[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


# ----- ISR shrink and checkpoints -------------------------------------------------------


async def test_maybe_shrink_isr_proposes_dropping_lagging_followers_of_led_partitions(harness):
    await harness.leader_and_isr(make_state(replicas=[1, 2], isr=[1, 2]))
    await harness.leader_and_isr(make_state(TP1, leader=2, replicas=[1, 2], isr=[1, 2]))
    await harness.produce(1, {TP0: make_batch(1)})
    harness.clock.advance(harness.rm.config.replica_lag_time_max_ms + 1)
    harness.rm.maybe_shrink_isr()
    assert [(p.tp, p.new_isr) for p in harness.recorder.proposals] == [(TP0, [1])]


async def test_high_watermarks_are_checkpointed_and_restored_by_a_new_replica_manager(harness, tmp_path):
    await harness.leader_and_isr(make_state())
    await harness.produce(1, {TP0: make_batch(4)})
    await harness.rm.checkpoint_high_watermarks()
    rm2 = ReplicaManager(
        harness.rm.config, harness.rm.log_manager, MetadataCache(1, "c"), AlterPartitionRecorder()
    )
    await rm2.become_leader_or_follower(
        LeaderAndIsrRequest(
            controller_id=1, controller_epoch=1, partition_states=[make_state(leader=2, replicas=[1, 2])]
        )
    )
    assert rm2.get_partition(TP0).high_watermark == 4
    await rm2.stop()


async def test_the_scheduled_isr_expiration_shrinks_the_isr_when_the_node_clock_advances(tmp_path):
    config = make_config(tmp_path / "logs", node_id=1)
    log_manager = LogManager(config)
    await log_manager.start()
    time = MockTime()
    scheduler = KafkaScheduler(time)
    recorder = AlterPartitionRecorder()
    rm = ReplicaManager(config, log_manager, MetadataCache(1, "c"), recorder, scheduler=scheduler)
    try:
        await rm.become_leader_or_follower(
            LeaderAndIsrRequest(
                controller_id=1,
                controller_epoch=1,
                partition_states=[make_state(replicas=[1, 2], isr=[1, 2])],
            )
        )
        rm.start()
        await rm.append_records(5_000, 1, {TP0: make_batch(1)})
        await yield_until(lambda: time.sleepers == 2)  # isr-expiration and highwatermark-checkpoint wait
        check_ms = config.replica_lag_time_max_ms / 2
        for runs in (1, 2):  # the follower is not later than replica.lag.time.max.ms yet
            time.advance(check_ms)
            await yield_until(lambda n=runs: scheduler.job("isr-expiration").runs == n)
        assert recorder.proposals == []
        time.advance(check_ms)  # now it is: the third check drops it
        await yield_until(lambda: scheduler.job("isr-expiration").runs == 3)
        assert [(p.tp, p.new_isr) for p in recorder.proposals] == [(TP0, [1])]
    finally:
        await rm.stop()
        await scheduler.shutdown()
        await log_manager.stop()


# ----- answers as Kafka gives them ----------------------------------------------------------


def _known_elsewhere(harness, tp: TopicPartition, leader: int = 2) -> None:
    """Make ``tp`` known to the metadata cache, led by another broker with no replica here."""
    harness.rm.metadata_cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[
                UpdateMetadataPartitionState(
                    topic_name=tp.topic,
                    partition_index=tp.partition,
                    controller_epoch=1,
                    leader=leader,
                    leader_epoch=0,
                    isr=[leader],
                    replicas=[leader],
                )
            ],
            live_brokers=[UpdateMetadataBroker(id=i, host="127.0.0.1", port=9000 + i) for i in (1, 2)],
        )
    )


async def test_a_partition_known_to_the_metadata_but_not_hosted_here_answers_not_leader_or_follower(harness):
    other = TopicPartition("elsewhere", 0)
    _known_elsewhere(harness, other)
    statuses = await harness.produce(1, {other: make_batch(1), TopicPartition("nope", 0): make_batch(1)})
    assert statuses[other].error == Errors.NOT_LEADER_OR_FOLLOWER
    assert statuses[TopicPartition("nope", 0)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    results = await consumer_fetch(harness, {other: 0})
    assert results[other].error == Errors.NOT_LEADER_OR_FOLLOWER
    deleted = await harness.rm.delete_records(1_000, {other: 0})
    assert deleted[other].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_a_failed_fetch_answers_no_high_watermark_or_log_start_offset(harness):
    await harness.leader_and_isr(make_state())
    await harness.produce(1, {TP0: make_batch(2)})
    results = await consumer_fetch(harness, {TP0: 5, TopicPartition("nope", 0): 0})
    assert (results[TP0].error, results[TP0].high_watermark, results[TP0].log_start_offset) == (
        Errors.OFFSET_OUT_OF_RANGE,
        -1,
        -1,
    )
    assert results[TopicPartition("nope", 0)].high_watermark == -1


async def test_a_refused_append_answers_the_log_start_offset_unless_kafka_answers_it_unknown(harness):
    await harness.leader_and_isr(
        make_state(configs={"cleanup.policy": "compact", "max.message.bytes": "200"})
    )
    keyless = build_batch([(b"k", b"v", None, 1_000), (None, b"v", None, 1_000), (None, b"w", None, 1_000)])
    statuses = await harness.produce(1, {TP0: keyless})
    assert (statuses[TP0].error, statuses[TP0].log_start_offset) == (Errors.INVALID_RECORD, 0)
    assert [index for index, _ in statuses[TP0].record_errors] == [1, 2], "every keyless record is named"
    too_large = await harness.produce(1, {TP0: make_batch(1, value_bytes=500)})
    assert (too_large[TP0].error, too_large[TP0].log_start_offset) == (Errors.MESSAGE_TOO_LARGE, -1)


async def test_a_refused_append_sums_up_its_record_errors_in_kafkas_words(harness):
    await harness.leader_and_isr(make_state(configs={"cleanup.policy": "compact"}))
    keyless = build_batch([(b"k", b"v", None, 1_000), (None, b"v", None, 1_000)])
    statuses = await harness.produce(1, {TP0: keyless})
    record_error = f"Compacted topic cannot accept message without key in topic partition {TP0}"
    assert statuses[TP0].record_errors == [(1, record_error)], "LogValidator's text, with no full stop"
    assert statuses[TP0].error_message == (
        "One or more records have been rejected due to 1 record errors in total, and only showing the first "
        f"three errors at most: [RecordError(batchIndex=1, message='{record_error}')]"
    )


async def test_a_record_refused_for_its_timestamp_is_summed_up_as_kafka_does(harness):
    await harness.leader_and_isr(make_state(configs={"message.timestamp.before.max.ms": "1000"}))
    statuses = await harness.produce(1, {TP0: build_batch([(None, b"v", None, 1_000)])})
    assert statuses[TP0].error == Errors.INVALID_TIMESTAMP
    assert statuses[TP0].error_message == "One or more records have been rejected due to invalid timestamp"


async def test_acks_all_on_a_single_replica_with_min_insync_replicas_above_the_replication_factor_succeeds(
    harness,
):
    await harness.leader_and_isr(make_state(configs={"min.insync.replicas": "2"}))
    statuses = await harness.produce(-1, {TP0: make_batch(1)})
    assert (statuses[TP0].error, statuses[TP0].base_offset) == (Errors.NONE, 0)


async def test_a_consumer_with_client_metadata_may_fetch_from_a_follower_up_to_its_high_watermark(harness):
    await harness.leader_and_isr(make_state(leader=2, replicas=[1, 2], isr=[1, 2]), live_leaders=[2])
    partition = harness.rm.get_partition(TP0)
    partition.append_records_to_follower(build_batch([(None, b"a", None, 1_000), (None, b"b", None, 1_000)]))
    partition.update_follower_high_watermark(1)
    leader_only = harness.rm.read_from_local_log(-1, {TP0: FetchPartitionInfo(0, 1 << 20, -1)}, 1 << 20)
    assert leader_only[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER
    served = harness.rm.read_from_local_log(
        -1, {TP0: FetchPartitionInfo(0, 1 << 20, -1)}, 1 << 20, fetch_only_from_leader=False
    )
    assert (served[TP0].error, served[TP0].high_watermark) == (Errors.NONE, 1)
    assert base_offsets(served[TP0].records) == [0]
    at_hw = harness.rm.read_from_local_log(
        -1, {TP0: FetchPartitionInfo(1, 1 << 20, -1)}, 1 << 20, fetch_only_from_leader=False
    )
    assert (at_hw[TP0].error, at_hw[TP0].records) == (Errors.NONE, b"")


async def test_a_consumer_fetch_waiting_on_a_follower_is_completed_when_the_followers_high_watermark_moves(
    harness,
):
    # Kafka's ReplicaFetcherThread completes the delayed fetches of partitions whose high
    # watermark its fetch moved (KIP-392: consumers may fetch from followers).
    await harness.leader_and_isr(make_state(leader=2, replicas=[1, 2], isr=[1, 2]), live_leaders=[2])
    partition = harness.rm.get_partition(TP0)
    task = asyncio.create_task(
        harness.rm.fetch_messages(
            replica_id=-1,
            max_wait_ms=60_000,
            min_bytes=1,
            max_bytes=1 << 20,
            fetch_infos={TP0: FetchPartitionInfo(0, 1 << 20, -1)},
            fetch_only_from_leader=False,
        )
    )
    await yield_until(lambda: len(harness.rm.fetch_purgatory) == 1)
    partition.append_records_to_follower(build_batch([(None, b"a", None, 1_000), (None, b"b", None, 1_000)]))
    await asyncio.sleep(0)
    assert not task.done(), "nothing is below the follower's high watermark yet"
    partition.update_follower_high_watermark(2)  # as the replica fetcher does with the leader's answer
    async with asyncio.timeout(WAIT_S):  # the purgatory's own timeout runs on the node's clock, not advanced
        results = await task
    assert (results[TP0].error, results[TP0].high_watermark) == (Errors.NONE, 2)
    assert base_offsets(results[TP0].records) == [0]


# ----- internal topics ----------------------------------------------------------------------

OFFSETS0 = TopicPartition("__consumer_offsets", 0)


async def test_a_clients_append_to_an_internal_topic_is_refused_and_the_coordinators_is_not(harness):
    await harness.leader_and_isr(make_state(OFFSETS0))
    refused = (await harness.produce(1, {OFFSETS0: make_batch(1)}))[OFFSETS0]
    assert (refused.error, refused.base_offset, refused.log_start_offset, refused.error_message) == (
        Errors.INVALID_TOPIC_EXCEPTION,
        -1,
        -1,
        "Cannot append to internal topic __consumer_offsets",
    )
    assert harness.rm.get_partition(OFFSETS0).log.log_end_offset == 0, "nothing was appended"
    allowed = await harness.rm.append_records(
        5_000, 1, {OFFSETS0: make_batch(2)}, internal_topics_allowed=True
    )
    assert (allowed[OFFSETS0].error, allowed[OFFSETS0].base_offset, allowed[OFFSETS0].error_message) == (
        Errors.NONE,
        0,
        None,
    )


async def test_every_internal_topic_is_refused_at_any_broker_but_an_unknown_partition_is_unknown(harness):
    state = TopicPartition("__transaction_state", 0)
    share = TopicPartition("__share_group_state", 3)
    _known_elsewhere(harness, state)  # led by another broker, no replica here
    await harness.leader_and_isr(
        make_state(share, leader=2, replicas=[1, 2]), live_leaders=[2]
    )  # a follower here
    unknown = TopicPartition("__consumer_offsets", 99)
    statuses = await harness.produce(1, {state: make_batch(1), share: make_batch(1), unknown: make_batch(1)})
    assert {tp: s.error for tp, s in statuses.items()} == {
        state: Errors.INVALID_TOPIC_EXCEPTION,
        share: Errors.INVALID_TOPIC_EXCEPTION,
        unknown: Errors.UNKNOWN_TOPIC_OR_PARTITION,
    }
    assert statuses[unknown].error_message is None


async def test_delete_records_of_an_internal_topic_is_refused(harness):
    await harness.leader_and_isr(make_state(OFFSETS0))
    await harness.rm.append_records(5_000, 1, {OFFSETS0: make_batch(3)}, internal_topics_allowed=True)
    statuses = await harness.rm.delete_records(
        1_000, {OFFSETS0: 2, TopicPartition("__consumer_offsets", 7): 0}
    )
    assert (statuses[OFFSETS0].error, statuses[OFFSETS0].low_watermark) == (
        Errors.INVALID_TOPIC_EXCEPTION,
        -1,
    )
    assert statuses[TopicPartition("__consumer_offsets", 7)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert harness.rm.get_partition(OFFSETS0).log.log_start_offset == 0
