"""ReplicaManager.stop_replicas and the StopReplica handler (seed 001, topic deletion)."""

from __future__ import annotations

import asyncio

from lifecycle_fakes import (
    TP0,
    TP1,
    apis_context,
    leader_and_isr,
    make_batch,
    make_config,
    running_replica_manager,
    stop_replica,
)

from kafkette.broker.apis import stop_replica as stop_replica_api
from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import HIGH_WATERMARK_CHECKPOINT_FILE, RECOVERY_POINT_CHECKPOINT_FILE
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

HEADER = RequestHeader(api_key=5, api_version=0, correlation_id=1, client_id="controller")


async def test_stop_replica_with_delete_removes_the_partition_and_its_log_directory(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, TP1))
        await manager.append_records(1000, 1, {TP0: make_batch(3)})
        log_dir = manager.get_partition(TP0).log.dir
        assert log_dir.exists()

        error, errors = await manager.stop_replicas(stop_replica(TP0))

        assert error == Errors.NONE
        assert errors == {TP0: Errors.NONE}
        assert manager.get_partition(TP0) is None
        assert manager.log_manager.get_log(TP0) is None
        assert not log_dir.exists()
        assert manager.get_partition(TP1) is not None


async def test_stop_replica_from_a_stale_controller_epoch_is_refused_whole(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, controller_epoch=3))

        error, errors = await manager.stop_replicas(stop_replica(TP0, controller_epoch=2))

        assert error == Errors.STALE_CONTROLLER_EPOCH
        assert errors == {}
        assert manager.get_partition(TP0).log.dir.exists()


async def test_stop_replica_with_an_older_leader_epoch_is_fenced_and_keeps_the_partition(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, TP1, leader_epoch=5))

        _, errors = await manager.stop_replicas(stop_replica(TP0, TP1, leader_epoch=4))
        assert errors == {TP0: Errors.FENCED_LEADER_EPOCH, TP1: Errors.FENCED_LEADER_EPOCH}
        assert manager.get_partition(TP0).is_leader

        _, errors = await manager.stop_replicas(stop_replica(TP0, leader_epoch=5))
        assert errors == {TP0: Errors.NONE}
        assert manager.get_partition(TP0) is None


async def test_stop_replica_for_a_partition_not_hosted_here_is_answered_none_every_time(tmp_path):
    unknown = TopicPartition("never-hosted", 0)
    async with running_replica_manager(make_config(tmp_path)) as manager:
        for _ in range(2):
            error, errors = await manager.stop_replicas(stop_replica(unknown))
            assert (error, errors) == (Errors.NONE, {unknown: Errors.NONE})


async def test_stop_replica_deletes_a_log_loaded_at_start_up_that_no_partition_claimed(tmp_path):
    # The topic was deleted while this broker was down: its log is on disk, no LeaderAndIsr came.
    config = make_config(tmp_path)
    async with running_replica_manager(config) as manager:
        log = manager.log_manager.get_or_create_log(TP0, LogConfig.from_broker(config))
        assert manager.get_partition(TP0) is None

        _, errors = await manager.stop_replicas(stop_replica(TP0))

        assert errors == {TP0: Errors.NONE}
        assert not log.dir.exists()
        assert manager.log_manager.get_log(TP0) is None


async def test_stop_replica_without_delete_keeps_the_log_and_stops_leading(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0))

        _, errors = await manager.stop_replicas(stop_replica(TP0, delete=False, leader_epoch=1))

        assert errors == {TP0: Errors.NONE}
        partition = manager.get_partition(TP0)
        assert partition is not None and partition.log.dir.exists()
        statuses = await manager.append_records(1000, 1, {TP0: make_batch()})
        assert statuses[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_an_acks_all_produce_waiting_on_a_deleted_partition_completes_at_once(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        # Follower 2 is in the ISR but never fetches: the produce waits in the purgatory.
        await manager.become_leader_or_follower(leader_and_isr(TP0, replicas=[1, 2]))
        produce = asyncio.create_task(manager.append_records(30_000, -1, {TP0: make_batch()}))
        await asyncio.sleep(0)
        assert manager.produce_purgatory.watched(TP0) == 1

        await manager.stop_replicas(stop_replica(TP0))

        statuses = await asyncio.wait_for(produce, 1)
        assert statuses[TP0].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
        assert manager.produce_purgatory.watched(TP0) == 0


async def test_a_delayed_fetch_on_a_stopped_partition_answers_not_leader(tmp_path):
    from kafkette.broker.delayed_fetch import FetchPartitionInfo

    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0))
        fetch = asyncio.create_task(
            manager.fetch_messages(
                replica_id=-1,
                max_wait_ms=30_000,
                min_bytes=1,
                max_bytes=1 << 20,
                fetch_infos={TP0: FetchPartitionInfo(0, 1 << 20, -1)},
            )
        )
        await asyncio.sleep(0)
        assert manager.fetch_purgatory.watched(TP0) == 1

        await manager.stop_replicas(stop_replica(TP0, delete=False, leader_epoch=1))

        results = await asyncio.wait_for(fetch, 1)
        assert results[TP0].error == Errors.NOT_LEADER_OR_FOLLOWER


async def test_deleted_partitions_leave_the_offset_checkpoint_files(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, TP1))
        await manager.append_records(1000, 1, {TP0: make_batch(2), TP1: make_batch(2)})
        await manager.checkpoint_high_watermarks()
        await manager.log_manager.checkpoint_log_offsets()
        assert set(OffsetCheckpointFile(tmp_path / HIGH_WATERMARK_CHECKPOINT_FILE).read()) == {TP0, TP1}

        await manager.stop_replicas(stop_replica(TP0, TP1))

        assert OffsetCheckpointFile(tmp_path / HIGH_WATERMARK_CHECKPOINT_FILE).read() == {}
        assert OffsetCheckpointFile(tmp_path / RECOVERY_POINT_CHECKPOINT_FILE).read() == {}


async def test_a_recreated_partition_starts_empty_after_deletion(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0))
        await manager.append_records(1000, 1, {TP0: make_batch(5)})
        await manager.stop_replicas(stop_replica(TP0, controller_epoch=1))

        await manager.become_leader_or_follower(leader_and_isr(TP0, leader_epoch=0))

        partition = manager.get_partition(TP0)
        assert partition.log.log_end_offset == 0
        assert partition.high_watermark == 0


async def test_the_stop_replica_handler_reports_an_error_code_per_partition(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, TP1, leader_epoch=3))
        request = stop_replica(TP0, leader_epoch=3)
        request.topic_states[0].partition_states.append(
            type(request.topic_states[0].partition_states[0])(
                partition_index=1, leader_epoch=2, delete_partition=True
            )
        )

        response = await stop_replica_api.handle(apis_context(manager), HEADER, request)

        assert response.error_code == Errors.NONE
        codes = {(e.topic_name, e.partition_index): e.error_code for e in response.partition_errors}
        assert codes == {(TP0.topic, 0): Errors.NONE, (TP1.topic, 1): Errors.FENCED_LEADER_EPOCH}
