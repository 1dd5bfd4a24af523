"""DeleteTopics through the TopicDeletionManager (seed 001): queueing, UpdateMetadata
deleted_topics, StopReplica(delete) with per-partition callbacks, ineligible replicas and
retries when a broker returns, completeDeleteTopic, re-creation, restart."""

from __future__ import annotations

import asyncio
import random

from controller_fakes import heartbeat as hb
from controller_fakes import make_config, register_live_brokers, wire_roundtrip
from local_metadata_log import MetadataLog
from test_kafka_controller import create, replay_log, topic

from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import RemoveTopicRecord, TopicDeletionRecord
from kafkette.controller.partition_state_machine import PartitionState
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsTopic
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest
from kafkette.protocol.apis.stop_replica import StopReplicaRequest
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition


async def delete(controller, *names, timeout_ms=2000):
    response = await controller.delete_topics(DeleteTopicsRequest(topic_names=list(names), timeout_ms=timeout_ms))
    return {r.name: r for r in wire_roundtrip(response).responses}


async def drain(controller, rounds=5):
    """Let queued callbacks and background events run (no sleeps: yield to the loop)."""
    for _ in range(rounds):
        await controller.check_broker_sessions()
        await asyncio.sleep(0)


async def test_delete_topic_removes_every_trace_and_stop_replicas_each_replica(controller, channel, tmp_path):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("doomed", 3, 2, retention_ms="1000"))
    placement = {tp: list(p.replicas) for tp, p in controller.context.partitions.items()}
    channel.clear()

    results = await delete(controller, "doomed")

    assert results["doomed"].error_code == 0
    ctx = controller.context
    assert "doomed" not in ctx.topics and not ctx.partitions and not ctx.topics_to_be_deleted
    assert len(ctx.partition_state_machine) == 0 and len(ctx.replica_state_machine) == 0
    for broker_id in (1, 2, 3):
        expected = sorted((tp, True) for tp, replicas in placement.items() if broker_id in replicas)
        assert sorted(channel.stopped_partitions(broker_id)) == expected
    # UpdateMetadata with deleted_topics reaches every broker before its StopReplica
    for broker_id in (1, 2, 3):
        kinds = [type(r) for b, r in channel.sent if b == broker_id]
        first_update = kinds.index(UpdateMetadataRequest)
        assert first_update < kinds.index(StopReplicaRequest)
        update = channel.update_metadata()[broker_id][0]
        assert update.deleted_topics == ["doomed"] and update.partition_states == []
    await controller.stop()
    records = replay_log(tmp_path)
    assert any(isinstance(r, TopicDeletionRecord) and r.name == "doomed" for r in records)
    assert any(isinstance(r, RemoveTopicRecord) and r.name == "doomed" for r in records)


async def test_recreated_topic_is_fresh(controller):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", 1, 1, retention_ms="1000"))
    old_id = controller.context.topics["t"].topic_id
    await delete(controller, "t")
    result = (await create(controller, topic("t", 2, 2))).topics[0]
    assert result.error_code == 0
    info = controller.context.topics["t"]
    assert info.topic_id != old_id and info.configs == {} and info.num_partitions == 2


async def test_delete_topic_disabled_is_refused_with_a_clear_message(tmp_path, clock, channel):
    ctrl = KafkaController(make_config(delete_topic_enable=False), metadata_log=MetadataLog(tmp_path), channel_manager=channel,
                           clock_ms=clock)
    await ctrl.start()
    try:
        await register_live_brokers(ctrl, 1)
        await create(ctrl, topic("keep", 1, 1))
        result = (await delete(ctrl, "keep"))["keep"]
        assert result.error_code == Errors.TOPIC_DELETION_DISABLED
        assert "delete.topic.enable" in result.error_message
        assert "keep" in ctrl.context.topics and not ctrl.context.topics_to_be_deleted
    finally:
        await ctrl.stop()


async def test_deleting_an_unknown_topic_is_unknown_topic_or_partition(controller):
    assert (await delete(controller, "ghost"))["ghost"].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION


async def test_delete_topics_answers_each_name_once_in_kafkas_words(controller):
    """Beside a topic deleted, an unknown one gets Kafka's generic UNKNOWN_TOPIC_OR_PARTITION message
    and a name given twice one INVALID_REQUEST answer (Kafka's ``ControllerApis.deleteTopics``)."""
    await register_live_brokers(controller, 1)
    await create(controller, topic("kept-name", 1, 1))
    response = await controller.delete_topics(DeleteTopicsRequest(
        topic_names=["kept-name", "ghost", "twice", "twice"], timeout_ms=2000))
    assert [(r.name, r.error_code, r.error_message) for r in wire_roundtrip(response).responses] == [
        ("kept-name", Errors.NONE, None),
        ("ghost", Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."),
        ("twice", Errors.INVALID_REQUEST, "Duplicate topic name."),
    ]


async def test_replica_on_a_down_broker_is_ineligible_until_it_returns(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2, 3]]))
    tp = TopicPartition("t", 0)
    clock.advance(6000)
    for b in (1, 2):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    clock.advance(6000)
    assert await controller.check_broker_sessions() == [3]
    channel.clear()

    results = await delete(controller, "t", timeout_ms=0)

    assert results["t"].error_code == Errors.REQUEST_TIMED_OUT
    await drain(controller)
    states = controller.context.replica_state_machine
    assert states.state(PartitionAndReplica(tp, 1)) == ReplicaState.ReplicaDeletionSuccessful
    assert states.state(PartitionAndReplica(tp, 2)) == ReplicaState.ReplicaDeletionSuccessful
    # ReplicaDeletionIneligible, then markTopicForDeletionRetry puts it back to OfflineReplica
    assert states.state(PartitionAndReplica(tp, 3)) == ReplicaState.OfflineReplica
    assert "t" in controller.context.topics_to_be_deleted
    assert controller._deletion.topics_ineligible_for_deletion == {"t"}
    assert 3 not in channel.stop_replica()

    # the broker comes back: StopReplica to it, then the topic is gone
    beat = await controller.broker_heartbeat(hb(3, epochs[3]))
    assert not beat.is_fenced
    await drain(controller)
    assert channel.stopped_partitions(3) == [(tp, True)]
    assert "t" not in controller.context.topics and not controller.context.topics_to_be_deleted
    assert controller.context.partition_state_machine.state(tp) == PartitionState.NonExistentPartition


async def test_failed_stop_replica_makes_the_replica_ineligible_and_a_returning_broker_retries(
    controller, channel, clock
):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    tp = TopicPartition("t", 0)
    channel.stop_replica_errors[(2, tp)] = Errors.KAFKA_STORAGE_ERROR
    results = await delete(controller, "t", timeout_ms=0)
    assert results["t"].error_code == Errors.REQUEST_TIMED_OUT
    await drain(controller)
    states = controller.context.replica_state_machine
    # ReplicaDeletionIneligible, then marked for retry (OfflineReplica); the topic waits for the broker
    assert states.state(PartitionAndReplica(tp, 2)) == ReplicaState.OfflineReplica
    assert "t" in controller._deletion.topics_ineligible_for_deletion
    assert channel.stopped_partitions(2) == [(tp, True)]
    await drain(controller)
    assert channel.stopped_partitions(2) == [(tp, True)]  # no retry while ineligible

    # broker 2 restarts (fenced, then unfenced): the deletion is retried and succeeds
    del channel.stop_replica_errors[(2, tp)]
    await controller.broker_heartbeat(hb(2, epochs[2], want_fence=True))
    await controller.broker_heartbeat(hb(2, epochs[2]))
    await drain(controller)
    assert channel.stopped_partitions(2) == [(tp, True), (tp, True)]
    assert "t" not in controller.context.topics


async def test_broker_fenced_during_deletion_moves_started_replicas_to_ineligible(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    tp = TopicPartition("t", 0)
    channel.auto_ack = False
    task = asyncio.ensure_future(delete(controller, "t", timeout_ms=60000))
    await channel.sent_event.wait()
    while not any(isinstance(r, StopReplicaRequest) for _, r in channel.sent):
        channel.sent_event.clear()
        await channel.sent_event.wait()
    states = controller.context.replica_state_machine
    assert states.state(PartitionAndReplica(tp, 2)) == ReplicaState.ReplicaDeletionStarted

    await controller.broker_heartbeat(hb(2, epochs[2], want_fence=True))
    channel.fail_pending(2)
    channel.ack_all()
    await drain(controller)
    assert states.state(PartitionAndReplica(tp, 1)) == ReplicaState.ReplicaDeletionSuccessful
    # fence: ReplicaDeletionStarted -> ReplicaDeletionIneligible, then marked for retry
    assert states.state(PartitionAndReplica(tp, 2)) == ReplicaState.OfflineReplica
    assert "t" in controller._deletion.topics_ineligible_for_deletion
    assert not task.done()

    channel.auto_ack = True
    await controller.broker_heartbeat(hb(2, epochs[2]))
    results = await asyncio.wait_for(task, 5)
    assert results["t"].error_code == 0
    assert "t" not in controller.context.topics


async def test_create_partitions_and_create_topics_are_refused_while_queued_for_deletion(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    clock.advance(6000)
    await controller.broker_heartbeat(hb(1, epochs[1]))
    clock.advance(6000)
    await controller.check_broker_sessions()  # broker 2 down: deletion cannot finish
    await delete(controller, "t", timeout_ms=0)

    response = await controller.create_partitions(CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name="t", count=3, assignments=None)], timeout_ms=1000,
    ))
    result = wire_roundtrip(response).results[0]
    assert result.error_code == Errors.INVALID_TOPIC_EXCEPTION
    assert result.error_message == "The topic is queued for deletion."
    again = (await create(controller, topic("t", 1, 1))).topics[0]
    assert again.error_code == Errors.TOPIC_ALREADY_EXISTS and "marked for deletion" in again.error_message


async def test_restarted_controller_resumes_a_queued_deletion(tmp_path, clock, channel):
    config = make_config()
    first = KafkaController(config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock,
                            rng=random.Random(1))
    await first.start()
    epochs = await register_live_brokers(first, 1, 2)
    await create(first, topic("t", 2, 2))
    channel.auto_ack = False  # StopReplicas never answered: the controller dies mid-deletion
    task = asyncio.ensure_future(delete(first, "t", timeout_ms=60000))
    while not any(isinstance(r, StopReplicaRequest) for _, r in channel.sent):
        channel.sent_event.clear()
        await channel.sent_event.wait()
    await first.stop()
    assert (await task)["t"].error_code == Errors.NOT_CONTROLLER
    channel.pending.clear()
    channel.auto_ack = True
    channel.clear()

    second = KafkaController(config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock)
    await second.start()
    try:
        assert second.context.topics_to_be_deleted == {"t"}
        await drain(second)
        assert "t" not in second.context.topics and not second.context.partitions
        assert sorted(channel.stop_replica()) == [1, 2]
        for update in channel.update_metadata()[1]:
            assert all(s.topic_name != "t" for s in update.partition_states)
    finally:
        await second.stop()
    assert epochs


async def test_restart_replays_a_completed_deletion(tmp_path, clock, channel):
    config = make_config()
    first = KafkaController(config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock)
    await first.start()
    await register_live_brokers(first, 1)
    await create(first, topic("gone", 2, 1))
    await delete(first, "gone")
    await create(first, topic("gone", 1, 1))
    await first.stop()
    second = KafkaController(config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock)
    await second.start()
    try:
        assert second.context.topics["gone"].num_partitions == 1
        assert sorted(second.context.partitions) == [TopicPartition("gone", 0)]
    finally:
        await second.stop()
