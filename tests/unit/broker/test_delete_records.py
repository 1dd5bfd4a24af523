"""DeleteRecords: ReplicaManager.delete_records, DelayedDeleteRecords and the API handler.

Real event loop, LogManager and logs on tmp_path; followers are simulated by calling
``read_from_local_log`` with their replica id and log start offset, as their fetches do.
"""

from __future__ import annotations

import asyncio

import pytest
from broker_fakes import TP0, TP1, AlterPartitionRecorder, make_batch, make_config, make_state

from kafkette.broker.apis import delete_records as delete_records_api
from kafkette.broker.apis.apis_context import ApisContext
from kafkette.broker.delayed_fetch import FetchPartitionInfo
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrRequest
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
)
from kafkette.protocol.errors import Errors

WAIT_S = 2.0


class Cluster:
    def __init__(self, rm: ReplicaManager, time: MockTime) -> None:
        self.rm = rm
        self.time = time

    async def lead(self, *states):
        await self.rm.become_leader_or_follower(
            LeaderAndIsrRequest(controller_id=1, controller_epoch=1, partition_states=list(states))
        )

    def set_live_brokers(self, *ids):
        self.rm.metadata_cache.update_metadata(
            UpdateMetadataRequest(
                controller_id=1,
                controller_epoch=1,
                full=False,
                live_brokers=[UpdateMetadataBroker(id=i, host="127.0.0.1", port=9000 + i) for i in ids],
            )
        )

    async def produce(self, batches=4, tp=TP0):
        for _ in range(batches):
            await self.rm.append_records(5_000, 1, {tp: make_batch(5)})

    def follower_fetch(self, replica_id, offset, log_start_offset, tp=TP0):
        info = FetchPartitionInfo(offset, 1 << 20, -1, log_start_offset)
        return self.rm.read_from_local_log(replica_id, {tp: info}, 1 << 20)[tp]


@pytest.fixture
async def cluster(tmp_path):
    config = make_config(tmp_path / "logs", node_id=1)
    log_manager = LogManager(config)
    await log_manager.start()
    time = MockTime()
    rm = ReplicaManager(
        config, log_manager, MetadataCache(1, "c"), AlterPartitionRecorder(), scheduler=KafkaScheduler(time)
    )
    yield Cluster(rm, time)
    await rm.stop()
    await log_manager.stop()


async def test_single_replica_delete_records_answers_at_once_with_the_new_log_start(cluster):
    await cluster.lead(make_state(replicas=[1]))
    await cluster.produce()
    statuses = await asyncio.wait_for(cluster.rm.delete_records(1_000, {TP0: 7}), WAIT_S)
    assert (statuses[TP0].error, statuses[TP0].low_watermark) == (Errors.NONE, 7)
    assert cluster.rm.get_partition(TP0).log.log_start_offset == 7


async def test_minus_one_means_the_high_watermark(cluster):
    await cluster.lead(make_state(replicas=[1]))
    await cluster.produce()
    statuses = await asyncio.wait_for(cluster.rm.delete_records(1_000, {TP0: -1}), WAIT_S)
    assert (statuses[TP0].error, statuses[TP0].low_watermark) == (Errors.NONE, 20)


async def test_offsets_above_the_high_watermark_or_negative_are_out_of_range(cluster):
    await cluster.lead(make_state(replicas=[1]))
    await cluster.produce()
    statuses = await asyncio.wait_for(cluster.rm.delete_records(1_000, {TP0: 21}), WAIT_S)
    assert statuses[TP0].error == Errors.OFFSET_OUT_OF_RANGE
    statuses = await asyncio.wait_for(cluster.rm.delete_records(1_000, {TP0: -5}), WAIT_S)
    assert statuses[TP0].error == Errors.OFFSET_OUT_OF_RANGE
    assert cluster.rm.get_partition(TP0).log.log_start_offset == 0


async def test_not_leader_unknown_partition_and_compact_topic_errors(cluster):
    await cluster.lead(
        make_state(leader=2, replicas=[1, 2]),
        make_state(TP1, replicas=[1], configs={"cleanup.policy": "compact"}),
    )
    statuses = await asyncio.wait_for(
        cluster.rm.delete_records(1_000, {TP0: 0, TP1: 0, TP0._replace(topic="nope"): 0}), WAIT_S
    )
    assert statuses[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER
    assert statuses[TP1].error == Errors.POLICY_VIOLATION
    assert statuses[TP0._replace(topic="nope")].error == Errors.UNKNOWN_TOPIC_OR_PARTITION


async def test_delete_records_waits_until_live_followers_report_the_new_log_start(cluster):
    cluster.set_live_brokers(1, 2, 3)
    await cluster.lead(make_state(replicas=[1, 2, 3]))
    await cluster.produce()
    cluster.follower_fetch(2, 20, 0)
    cluster.follower_fetch(3, 20, 0)
    task = asyncio.create_task(cluster.rm.delete_records(5_000, {TP0: 10}))
    await asyncio.sleep(0)
    assert not task.done() and len(cluster.rm.delete_records_purgatory) == 1
    result = cluster.follower_fetch(2, 20, 0)
    assert result.log_start_offset == 10  # what the follower learns from the fetch response
    cluster.follower_fetch(2, 20, 10)
    await asyncio.sleep(0)
    assert not task.done()
    cluster.follower_fetch(3, 20, 12)
    statuses = await asyncio.wait_for(task, WAIT_S)
    assert (statuses[TP0].error, statuses[TP0].low_watermark) == (Errors.NONE, 10)


async def test_a_dead_follower_does_not_hold_delete_records_back(cluster):
    cluster.set_live_brokers(1, 2)
    await cluster.lead(make_state(replicas=[1, 2, 3], isr=[1, 2]))
    await cluster.produce()
    cluster.follower_fetch(2, 20, 5)
    statuses = await asyncio.wait_for(cluster.rm.delete_records(5_000, {TP0: 5}), WAIT_S)
    assert (statuses[TP0].error, statuses[TP0].low_watermark) == (Errors.NONE, 5)


async def test_delete_records_expires_with_request_timed_out(cluster):
    cluster.set_live_brokers(1, 2)
    await cluster.lead(make_state(replicas=[1, 2]))
    await cluster.produce()
    cluster.follower_fetch(2, 20, 0)
    pending = asyncio.ensure_future(cluster.rm.delete_records(60_000, {TP0: 10}))
    for _ in range(20):
        if len(cluster.rm.delete_records_purgatory):
            break
        await asyncio.sleep(0)
    assert len(cluster.rm.delete_records_purgatory) == 1
    cluster.time.advance(60_000)  # the purgatory's timeout runs on the node's clock
    statuses = await asyncio.wait_for(pending, WAIT_S)
    assert statuses[TP0].error == Errors.REQUEST_TIMED_OUT
    assert cluster.rm.get_partition(TP0).log.log_start_offset == 10  # the leader moved anyway, as Kafka


async def test_losing_leadership_completes_a_waiting_delete_records(cluster):
    cluster.set_live_brokers(1, 2)
    await cluster.lead(make_state(replicas=[1, 2]))
    await cluster.produce()
    cluster.follower_fetch(2, 20, 0)
    task = asyncio.create_task(cluster.rm.delete_records(5_000, {TP0: 10}))
    await asyncio.sleep(0)
    await cluster.rm.become_leader_or_follower(
        LeaderAndIsrRequest(
            controller_id=1,
            controller_epoch=1,
            partition_states=[make_state(leader=2, leader_epoch=2, replicas=[1, 2])],
        )
    )
    statuses = await asyncio.wait_for(task, WAIT_S)
    assert statuses[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_handler_answers_per_partition_low_watermark_and_errors(cluster, tmp_path):
    await cluster.lead(make_state(replicas=[1]))
    await cluster.produce()
    cluster.rm.metadata_cache.update_metadata(  # the metadata the broker has for the partition it leads
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=False,
            partition_states=[
                UpdateMetadataPartitionState(
                    topic_name=TP0.topic, partition_index=0, leader=1, leader_epoch=1, isr=[1], replicas=[1]
                )
            ],
        )
    )
    ctx = ApisContext(
        config=cluster.rm.config,
        replica_manager=cluster.rm,
        metadata_cache=cluster.rm.metadata_cache,
        controller=None,
        producer_id_manager=None,
    )
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsTopic(
                name=TP0.topic,
                partitions=[
                    DeleteRecordsPartition(partition_index=0, offset=15),
                    DeleteRecordsPartition(partition_index=9, offset=1),
                ],
            )
        ],
        timeout_ms=1_000,
    )
    response = await asyncio.wait_for(delete_records_api.handle(ctx, None, request), WAIT_S)
    results = {p.partition_index: (p.error_code, p.low_watermark) for p in response.topics[0].partitions}
    assert results == {0: (Errors.NONE, 15), 9: (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    request.timeout_ms = -1
    response = await delete_records_api.handle(ctx, None, request)
    results = {p.partition_index: p.error_code for p in response.topics[0].partitions}
    assert results == {0: Errors.INVALID_REQUEST, 9: Errors.UNKNOWN_TOPIC_OR_PARTITION}
