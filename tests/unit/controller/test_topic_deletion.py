"""DeleteTopics, KRaft-style: a ``RemoveTopicRecord`` per topic, answered once it commits;
UpdateMetadata deleted_topics and StopReplica(delete) to the live replicas, not waited for;
re-creation with a new topic id; topics an older controller queued for deletion removed at
failover; restart."""

from __future__ import annotations

import asyncio
import base64
import random

from controller_fakes import heartbeat as hb
from controller_fakes import make_config, register_live_brokers, wire_roundtrip
from local_metadata_log import MetadataLog
from test_kafka_controller import create, replay_log, topic

from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import RemoveTopicRecord, TopicDeletionRecord
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicState
from kafkette.protocol.apis.stop_replica import StopReplicaRequest
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.topic_partition import TopicPartition


async def delete(controller, *names, timeout_ms=2000):
    response = await controller.delete_topics(
        DeleteTopicsRequest(topic_names=list(names), timeout_ms=timeout_ms)
    )
    return {r.name: r for r in wire_roundtrip(response).responses}


async def test_delete_topic_answers_once_the_removal_commits_without_waiting_for_stop_replica(
    controller, channel, tmp_path
):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("doomed", 3, 2, retention_ms="1000"))
    placement = {tp: list(p.replicas) for tp, p in controller.context.partitions.items()}
    channel.clear()
    channel.auto_ack = False  # no broker ever answers: the deletion must not wait for them

    results = await asyncio.wait_for(delete(controller, "doomed"), 5)

    assert results["doomed"].error_code == 0
    ctx = controller.context
    assert "doomed" not in ctx.topics and not ctx.partitions and not ctx.topics_to_be_deleted
    assert len(ctx.partition_state_machine) == 0 and len(ctx.replica_state_machine) == 0
    for broker_id in (1, 2, 3):
        expected = sorted((tp, True) for tp, replicas in placement.items() if broker_id in replicas)
        assert sorted(channel.stopped_partitions(broker_id)) == expected
        # UpdateMetadata with deleted_topics reaches every broker before its StopReplica
        kinds = [type(r) for b, r in channel.sent if b == broker_id]
        assert kinds.index(UpdateMetadataRequest) < kinds.index(StopReplicaRequest)
        update = channel.update_metadata()[broker_id][0]
        assert update.deleted_topics == ["doomed"] and update.partition_states == []
        stop = channel.stop_replica()[broker_id][0]
        assert {s.leader_epoch for t in stop.topic_states for s in t.partition_states} == {
            -2
        }  # EpochDuringDelete
    channel.ack_all()
    await controller.stop()
    records = replay_log(tmp_path)
    assert not any(isinstance(r, TopicDeletionRecord) for r in records)
    assert any(isinstance(r, RemoveTopicRecord) and r.name == "doomed" for r in records)


async def test_leader_and_isr_carries_the_topic_id(controller, channel):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    states = [s for r in channel.leader_and_isr()[1] for s in r.partition_states]
    assert {s.topic_id for s in states} == {controller.context.topics["t"].topic_id}


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
    ctrl = KafkaController(
        make_config(delete_topic_enable=False),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
    )
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
    response = await controller.delete_topics(
        DeleteTopicsRequest(topic_names=["kept-name", "ghost", "twice", "twice"], timeout_ms=2000)
    )
    assert [(r.name, r.error_code, r.error_message) for r in wire_roundtrip(response).responses] == [
        ("kept-name", Errors.NONE, None),
        ("ghost", Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."),
        ("twice", Errors.INVALID_REQUEST, "Duplicate topic name."),
    ]


def _id(controller, name):
    info = controller.context.topics[name]
    return base64.urlsafe_b64decode(info.topic_id + "=" * (-len(info.topic_id) % 4))


async def test_delete_topics_v6_by_topic_id_and_by_name_answers_with_the_topic_ids(controller):
    """KIP-516: a topic given by id is deleted and answered with its name; one given by name is answered
    with its id; an unknown id is UNKNOWN_TOPIC_ID with a null name, an unknown name keeps the zero id."""
    await register_live_brokers(controller, 1)
    await create(controller, topic("by-id", 1, 1))
    await create(controller, topic("by-name", 1, 1))
    by_id, by_name, ghost_id = _id(controller, "by-id"), _id(controller, "by-name"), bytes(range(16))
    request = DeleteTopicsRequest(
        topics=[
            DeleteTopicState(name=None, topic_id=by_id),
            DeleteTopicState(name="by-name"),
            DeleteTopicState(name=None, topic_id=ghost_id),
            DeleteTopicState(name="ghost"),
        ],
        timeout_ms=2000,
    )
    response = wire_roundtrip(await controller.delete_topics(request))
    assert [(r.name, r.topic_id, r.error_code, r.error_message) for r in response.responses] == [
        ("by-id", by_id, Errors.NONE, None),
        ("by-name", by_name, Errors.NONE, None),
        (None, ghost_id, Errors.UNKNOWN_TOPIC_ID, "This server does not host this topic ID."),
        (
            "ghost",
            ZERO_UUID,
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            "This server does not host this topic-partition.",
        ),
    ]
    assert "by-id" not in controller.context.topics and "by-name" not in controller.context.topics


async def test_delete_topics_v6_invalid_entries_in_kafkas_words(controller):
    """Neither a name nor an id, both, an id given twice, and a name whose id is also given: INVALID_REQUEST
    with Kafka's messages (``ControllerApis.deleteTopics``); nothing is deleted."""
    await register_live_brokers(controller, 1)
    await create(controller, topic("twice-by-id", 1, 1))
    await create(controller, topic("name-and-id", 1, 1))
    twice, both = _id(controller, "twice-by-id"), _id(controller, "name-and-id")
    request = DeleteTopicsRequest(
        topics=[
            DeleteTopicState(name=None, topic_id=ZERO_UUID),
            DeleteTopicState(name="x", topic_id=twice),
            DeleteTopicState(name=None, topic_id=twice),
            DeleteTopicState(name=None, topic_id=twice),
            DeleteTopicState(name=None, topic_id=both),
            DeleteTopicState(name="name-and-id"),
        ],
        timeout_ms=2000,
    )
    response = wire_roundtrip(await controller.delete_topics(request))
    assert sorted(
        ((r.name or "", r.topic_id, r.error_code, r.error_message) for r in response.responses),
    ) == sorted(
        [
            ("", ZERO_UUID, Errors.INVALID_REQUEST, "Neither topic name nor id were specified."),
            ("x", twice, Errors.INVALID_REQUEST, "You may not specify both topic name and topic id."),
            ("", twice, Errors.INVALID_REQUEST, "Duplicate topic id."),
            (
                "name-and-id",
                both,
                Errors.INVALID_REQUEST,
                "The provided topic name maps to an ID that was already supplied.",
            ),
        ]
    )
    assert {"twice-by-id", "name-and-id"} <= set(controller.context.topics)


async def test_deletion_does_not_wait_for_a_replica_on_a_down_broker_and_the_name_is_free_at_once(
    controller, channel, clock
):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2, 3]]))
    old_id = controller.context.topics["t"].topic_id
    clock.advance(6000)
    for b in (1, 2):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    clock.advance(6000)
    assert await controller.check_broker_sessions() == [3]
    channel.clear()

    results = await delete(controller, "t", timeout_ms=0)

    assert results["t"].error_code == 0
    assert "t" not in controller.context.topics
    assert sorted(channel.stop_replica()) == [
        1,
        2,
    ]  # none to the down broker: its log is stray when it returns
    again = (await create(controller, topic("t", 1, 1))).topics[0]
    assert again.error_code == 0 and controller.context.topics["t"].topic_id != old_id

    channel.clear()
    beat = await controller.broker_heartbeat(hb(3, epochs[3]))
    assert not beat.is_fenced
    full = channel.update_metadata()[3][0]
    assert full.full and {c.topic_name: c.topic_id for c in full.topic_configs}["t"] != old_id


async def test_restarted_controller_removes_a_topic_an_older_controller_queued_for_deletion(
    tmp_path, clock, channel
):
    config = make_config()
    first = KafkaController(
        config,
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(1),
    )
    await first.start()
    await register_live_brokers(first, 1, 2)
    await create(first, topic("t", 2, 2))
    queued = TopicDeletionRecord("t", first.context.topics["t"].topic_id)  # ZK-style deletion, mid-way
    await first.submit("QueueDeletion", lambda: first.write([queued], "QueueDeletion"))
    await first.stop()
    channel.clear()

    second = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await second.start()
    try:
        assert "t" not in second.context.topics and not second.context.partitions
        assert not second.context.topics_to_be_deleted
        assert sorted(channel.stop_replica()) == [1, 2]
        for update in channel.update_metadata()[1]:
            assert all(s.topic_name != "t" for s in update.partition_states)
    finally:
        await second.stop()
    assert any(isinstance(r, RemoveTopicRecord) and r.name == "t" for r in replay_log(tmp_path))


async def test_restart_replays_a_completed_deletion(tmp_path, clock, channel):
    config = make_config()
    first = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await first.start()
    await register_live_brokers(first, 1)
    await create(first, topic("gone", 2, 1))
    await delete(first, "gone")
    await create(first, topic("gone", 1, 1))
    await first.stop()
    second = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await second.start()
    try:
        assert second.context.topics["gone"].num_partitions == 1
        assert sorted(second.context.partitions) == [TopicPartition("gone", 0)]
    finally:
        await second.stop()
