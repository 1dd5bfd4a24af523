"""KafkaController through its event queue: registration, heartbeats, CreateTopics,
session expiry, broker return, AlterPartition, restart.  Requests to brokers are
captured by a fake channel manager; time is a manual clock."""

from __future__ import annotations

import asyncio
import base64
import random

from controller_fakes import (
    FakeChannelManager,
    incarnation_id,
    make_config,
    register_live_brokers,
    registration,
    wire_roundtrip,
)
from controller_fakes import heartbeat as hb
from local_metadata_log import MetadataLog

from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import (
    ConfigRecord,
    ControllerEpochRecord,
    FenceBrokerRecord,
    PartitionChangeRecord,
    PartitionRecord,
    TopicRecord,
)
from kafkette.controller.partition_state_machine import PartitionState
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState
from kafkette.protocol.apis.alter_partition import (
    AlterPartitionRequest,
    AlterPartitionRequestPartition,
    AlterPartitionRequestTopic,
)
from kafkette.protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreatableTopicConfig,
    CreateTopicsRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.topic_partition import TopicPartition


def topic(name, partitions=-1, rf=-1, assignment=None, **configs):
    return CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=rf,
        assignments=[
            CreatableReplicaAssignment(partition_index=i, broker_ids=b)
            for i, b in enumerate(assignment or [])
        ],
        configs=[CreatableTopicConfig(name=k.replace("_", "."), value=v) for k, v in configs.items()],
    )


async def create(controller, *topics, timeout_ms=5000, validate_only=False):
    response = await controller.create_topics(
        CreateTopicsRequest(topics=list(topics), timeout_ms=timeout_ms, validate_only=validate_only)
    )
    return wire_roundtrip(response)


def alter(broker_id, broker_epoch, name, partition, leader_epoch, isr, partition_epoch):
    return AlterPartitionRequest(
        broker_id=broker_id,
        broker_epoch=broker_epoch,
        topics=[
            AlterPartitionRequestTopic(
                topic_name=name,
                partitions=[
                    AlterPartitionRequestPartition(
                        partition_index=partition,
                        leader_epoch=leader_epoch,
                        new_isr=isr,
                        partition_epoch=partition_epoch,
                    )
                ],
            )
        ],
    )


def replay_log(path):
    log = MetadataLog(path)
    try:
        return log.replay()
    finally:
        log._executor.shutdown(wait=True)
        if log._file is not None:
            log._file.close()


# ------------------------------------------------------------ lifecycle


async def test_first_start_persists_controller_epoch_one(controller, tmp_path):
    assert controller.controller_epoch == 1
    assert replay_log(tmp_path) == [ControllerEpochRecord(1)]


async def test_stopped_controller_answers_not_controller(controller):
    await controller.stop()
    response = await controller.register_broker(registration(2))
    assert response.error_code == Errors.NOT_CONTROLLER
    created = await create(controller, topic("t"))
    assert created.topics[0].error_code == Errors.NOT_CONTROLLER


# --------------------------------------------------- registration, heartbeat


async def test_registered_broker_stays_fenced_until_it_heartbeats(controller, channel):
    response = wire_roundtrip(await controller.register_broker(registration(2)))
    assert response.error_code == 0 and response.broker_epoch > 0
    assert controller.context.brokers[2].fenced
    assert channel.brokers == {}
    beat = await controller.broker_heartbeat(hb(2, response.broker_epoch))
    assert beat.error_code == 0 and not beat.is_fenced and beat.is_caught_up
    assert controller.context.live_broker_ids() == [2]
    assert channel.brokers == {2: ("127.0.0.1", 9002)}
    update = channel.update_metadata()[2][-1]
    assert update.full and [b.id for b in update.live_brokers] == [2]
    assert update.controller_id == 1 and update.controller_epoch == 1


async def test_broker_epochs_are_monotonic(controller):
    first = await controller.register_broker(registration(2))
    second = await controller.register_broker(registration(3))
    assert second.broker_epoch > first.broker_epoch


async def test_same_incarnation_registering_again_gets_its_existing_epoch(controller):
    first = await controller.register_broker(registration(2))
    again = await controller.register_broker(registration(2))
    assert again.error_code == 0 and again.broker_epoch == first.broker_epoch


async def test_heartbeat_from_unknown_broker_is_broker_id_not_registered(controller):
    beat = await controller.broker_heartbeat(hb(5, 1))
    assert beat.error_code == Errors.BROKER_ID_NOT_REGISTERED


async def test_heartbeat_with_wrong_epoch_is_stale_broker_epoch(controller):
    response = await controller.register_broker(registration(2))
    beat = wire_roundtrip(await controller.broker_heartbeat(hb(2, response.broker_epoch + 100)))
    assert beat.error_code == Errors.STALE_BROKER_EPOCH
    assert controller.context.brokers[2].fenced


async def test_want_fence_keeps_a_fenced_broker_fenced(controller):
    response = await controller.register_broker(registration(2))
    beat = await controller.broker_heartbeat(hb(2, response.broker_epoch, want_fence=True))
    assert beat.is_fenced and controller.context.brokers[2].fenced


# ---------------------------------------------------------------- CreateTopics


async def test_create_topics_writes_records_and_propagates_to_replicas_and_brokers(
    controller, channel, tmp_path
):
    await register_live_brokers(controller, 1, 2, 3)
    channel.clear()
    response = await create(controller, topic("flights", 3, 2, min_insync_replicas="2"))
    result = response.topics[0]
    assert (result.name, result.error_code, result.num_partitions, result.replication_factor) == (
        "flights",
        0,
        3,
        2,
    )

    partitions = {tp: p for tp, p in controller.context.partitions.items() if tp.topic == "flights"}
    assert len(partitions) == 3
    for tp, part in partitions.items():
        assert len(set(part.replicas)) == 2
        assert part.leader == part.replicas[0] and part.isr == part.replicas
        assert (part.leader_epoch, part.partition_epoch) == (0, 0)
        assert controller.context.partition_state_machine.state(tp) == PartitionState.OnlinePartition
        for r in part.replicas:
            assert (
                controller.context.replica_state_machine.state(PartitionAndReplica(tp, r))
                == ReplicaState.OnlineReplica
            )

    leader_and_isr = channel.leader_and_isr()
    for broker_id, requests in leader_and_isr.items():
        (request,) = requests
        assert request.controller_id == 1 and request.controller_epoch == 1
        for state in request.partition_states:
            part = partitions[TopicPartition(state.topic_name, state.partition_index)]
            assert broker_id in part.replicas
            assert state.is_new and {o.name: o.value for o in state.configs} == {"min.insync.replicas": "2"}
            assert (state.leader, state.isr, state.replicas) == (part.leader, part.isr, part.replicas)
            assert state.leader_epoch == 0 and state.partition_epoch == 0
        assert {ll.broker_id for ll in request.live_leaders} == {s.leader for s in request.partition_states}
    hosted = {(b, tp) for tp, p in partitions.items() for b in p.replicas}
    sent = {
        (b, TopicPartition(s.topic_name, s.partition_index))
        for b, reqs in leader_and_isr.items()
        for r in reqs
        for s in r.partition_states
    }
    assert sent == hosted

    update_metadata = channel.update_metadata()
    assert sorted(update_metadata) == [1, 2, 3]
    for requests in update_metadata.values():
        (request,) = requests
        assert not request.full
        assert len(request.partition_states) == 3
        assert [b.id for b in request.live_brokers] == [1, 2, 3]
        assert all(s.offline_replicas == [] for s in request.partition_states)

    await controller.stop()
    records = replay_log(tmp_path)
    assert [r for r in records if isinstance(r, TopicRecord)][0].name == "flights"
    assert ConfigRecord("topic", "flights", "min.insync.replicas", "2") in records
    assert sum(isinstance(r, PartitionRecord) for r in records) == 3


async def test_create_topics_uses_num_partitions_and_default_replication_factor(tmp_path, clock, channel):
    config = make_config(num_partitions=4, default_replication_factor=2)
    ctrl = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await ctrl.start()
    try:
        await register_live_brokers(ctrl, 1, 2)
        result = (await create(ctrl, topic("t"))).topics[0]
        assert (result.error_code, result.num_partitions, result.replication_factor) == (0, 4, 2)
    finally:
        await ctrl.stop()


async def test_each_topic_gets_its_own_error_and_valid_ones_are_still_created(controller):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("exists", 1, 1))
    response = await create(
        controller,
        topic("exists", 1, 1),
        topic("too-many", 1, 4),
        topic("bad name", 1, 1),
        topic("zero", 0, 1),
        topic("bad-config", 1, 1, no_such_config="1"),
        topic("bad-assignment", assignment=[[1, 1]]),
        topic("mixed", 2, -1, assignment=[[1]]),
        topic("ok", 2, 3),
    )
    by_name = {r.name: r for r in response.topics}
    assert by_name["exists"].error_code == Errors.TOPIC_ALREADY_EXISTS
    assert by_name["exists"].error_message == "Topic 'exists' already exists."
    assert by_name["too-many"].error_code == Errors.INVALID_REPLICATION_FACTOR
    assert by_name["too-many"].error_message == (
        "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached "
        "because only 3 broker(s) are registered or some brokers have all their log directories cordoned."
    )
    assert by_name["bad name"].error_code == Errors.INVALID_TOPIC_EXCEPTION
    assert by_name["zero"].error_code == Errors.INVALID_PARTITIONS
    assert by_name["bad-config"].error_code == Errors.INVALID_CONFIG
    assert "no.such.config" in by_name["bad-config"].error_message
    assert by_name["bad-assignment"].error_code == Errors.INVALID_REPLICA_ASSIGNMENT
    assert by_name["mixed"].error_code == Errors.INVALID_REQUEST
    assert by_name["ok"].error_code == 0
    assert set(controller.context.topics) == {"exists", "ok"}


async def test_duplicate_topic_in_one_request_is_answered_once_with_invalid_request(controller):
    await register_live_brokers(controller, 1)
    response = await create(controller, topic("dup", 1, 1), topic("dup", 1, 1))
    assert [(r.name, r.error_code) for r in response.topics] == [("dup", Errors.INVALID_REQUEST)]
    assert controller.context.topics == {}


async def test_the_metadata_logs_name_cannot_be_created_while_internal_topics_can(controller):
    await register_live_brokers(controller, 1)
    for validate_only in (True, False):
        response = await create(
            controller,
            topic("__cluster_metadata", 1, 1),
            topic("__consumer_offsets", 1, 1),
            validate_only=validate_only,
        )
        assert [(r.name, r.error_code, r.error_message) for r in response.topics] == [
            (
                "__cluster_metadata",
                Errors.INVALID_REQUEST,
                "Creation of internal topic __cluster_metadata is prohibited.",
            ),
            ("__consumer_offsets", Errors.NONE, None),
        ]
    assert set(controller.context.topics) == {"__consumer_offsets"}


async def test_manual_assignment_is_used_as_given(controller, channel):
    await register_live_brokers(controller, 1, 2, 3)
    result = (await create(controller, topic("m", assignment=[[3, 1], [2, 3]]))).topics[0]
    assert (result.error_code, result.num_partitions, result.replication_factor) == (0, 2, 2)
    assert controller.context.partitions[TopicPartition("m", 0)].replicas == [3, 1]
    assert controller.context.partitions[TopicPartition("m", 0)].leader == 3
    assert controller.context.partitions[TopicPartition("m", 1)].leader == 2


async def test_validate_only_validates_without_creating(controller, channel, tmp_path):
    await register_live_brokers(controller, 1, 2)
    channel.clear()
    response = await create(controller, topic("t", 3, 2), topic("u", 1, 5), validate_only=True)
    assert [(r.error_code, r.num_partitions) for r in response.topics] == [
        (0, 3),
        (Errors.INVALID_REPLICATION_FACTOR, -1),
    ]
    assert controller.context.topics == {}
    assert channel.sent == []


async def test_create_topics_answers_the_id_the_topic_record_carries_and_a_fresh_one_under_validate_only(
    controller, tmp_path
):
    await register_live_brokers(controller, 1, 2)
    checked = await create(controller, topic("t", 1, 1), topic("u", 1, 5), validate_only=True)
    assert checked.topics[0].topic_id != bytes(16), (
        "Kafka's controller makes (and answers) the id also to validate"
    )
    assert checked.topics[1].topic_id == bytes(16), "no id on an error"
    created = (await create(controller, topic("t", 1, 1))).topics[0]
    assert created.topic_id not in (bytes(16), checked.topics[0].topic_id)
    await controller.stop()
    (record,) = [r for r in replay_log(tmp_path) if isinstance(r, TopicRecord)]
    assert base64.urlsafe_b64decode(record.topic_id + "==") == created.topic_id


async def test_update_metadata_carries_the_metadata_offset_the_brokers_advertise_as_the_features_epoch(
    controller, channel
):
    await register_live_brokers(controller, 1, 2)
    offsets = []
    for name in ("a", "b"):
        channel.clear()
        await create(controller, topic(name, 1, 1))
        sent = {r.metadata_offset for requests in channel.update_metadata().values() for r in requests}
        assert sent == {controller._metadata_log.next_offset - 1}, "the offset of the last record applied"
        offsets.extend(sent)
    assert 0 < offsets[0] < offsets[1], "it follows the metadata log"


async def test_create_topics_waits_for_propagation_acknowledgements(controller, channel):
    await register_live_brokers(controller, 1, 2)
    channel.auto_ack = False
    channel.clear()
    task = asyncio.get_running_loop().create_task(create(controller, topic("t", 2, 2), timeout_ms=30000))
    await asyncio.wait_for(channel.sent_event.wait(), 5)
    assert not task.done()
    channel.ack_all()
    response = await asyncio.wait_for(task, 5)
    assert response.topics[0].error_code == 0


async def test_create_topics_does_not_wait_for_a_broker_it_cannot_reach(controller, channel):
    # broker 2 died and is not fenced yet: KRaft's controller answers once the records are
    # committed; this one still waits for the brokers it can reach, and no longer for broker 2
    await register_live_brokers(controller, 1, 2)
    channel.auto_ack = False
    channel.clear()
    channel.unreachable.add(2)
    task = asyncio.get_running_loop().create_task(create(controller, topic("t", 2, 2), timeout_ms=30000))
    await asyncio.wait_for(channel.sent_event.wait(), 5)
    await asyncio.sleep(0.3)
    assert not task.done()  # broker 1 has not answered yet
    for broker_id, request, future in list(channel.pending):
        if broker_id == 1:
            future.set_result(channel._response_for(broker_id, request))
    response = await asyncio.wait_for(task, 5)
    assert response.topics[0].error_code == 0


async def test_create_topics_times_out_with_request_timed_out_but_the_topic_stays(controller, channel):
    await register_live_brokers(controller, 1, 2)
    channel.auto_ack = False
    response = await create(controller, topic("t", 1, 2), timeout_ms=1)
    assert response.topics[0].error_code == Errors.REQUEST_TIMED_OUT
    assert "t" in controller.context.topics
    again = await create(controller, topic("t", 1, 2), timeout_ms=1)
    assert again.topics[0].error_code == Errors.TOPIC_ALREADY_EXISTS


# ------------------------------------------------------------- session expiry


async def _three_brokers_and_topic(controller, channel, clock, assignment, other_assignment=None):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    result = (await create(controller, topic("t", assignment=assignment))).topics[0]
    assert result.error_code == 0
    if other_assignment:
        assert (await create(controller, topic("u", assignment=other_assignment))).topics[0].error_code == 0
    channel.clear()
    clock.advance(9001)
    return epochs


async def test_session_expiry_fences_the_broker_and_reelects_from_the_live_isr(controller, channel, clock):
    epochs = await _three_brokers_and_topic(controller, channel, clock, [[1, 2, 3], [2, 3, 1]], [[3, 2]])
    for b in (2, 3):
        assert (await controller.broker_heartbeat(hb(b, epochs[b]))).error_code == 0
    assert await controller.check_broker_sessions() == [1]
    ctx = controller.context
    assert ctx.brokers[1].fenced and ctx.live_broker_ids() == [2, 3]

    p0, p1 = (ctx.partitions[TopicPartition("t", i)] for i in range(2))
    p2 = ctx.partitions[TopicPartition("u", 0)]
    assert (p0.leader, p0.isr, p0.leader_epoch, p0.partition_epoch) == (2, [2, 3], 1, 1)
    assert (p1.leader, p1.isr, p1.leader_epoch, p1.partition_epoch) == (2, [2, 3], 1, 1)
    assert (p2.leader, p2.isr, p2.leader_epoch) == (3, [3, 2], 0)  # untouched: no replica on 1
    assert ctx.partition_state_machine.state(TopicPartition("t", 0)) == PartitionState.OnlinePartition
    assert (
        ctx.replica_state_machine.state(PartitionAndReplica(TopicPartition("t", 0), 1))
        == ReplicaState.OfflineReplica
    )

    assert 1 not in channel.brokers
    leader_and_isr = channel.leader_and_isr()
    assert sorted(leader_and_isr) == [2, 3]
    for requests in leader_and_isr.values():
        assert sorted(s.partition_index for s in requests[0].partition_states) == [0, 1]
    update_metadata = channel.update_metadata()
    assert sorted(update_metadata) == [2, 3]
    request = update_metadata[2][0]
    assert [b.id for b in request.live_brokers] == [2, 3]
    assert {s.partition_index: s.offline_replicas for s in request.partition_states} == {0: [1], 1: [1]}


async def test_fenced_sole_isr_leader_leaves_partition_offline_keeping_last_isr_member(
    controller, channel, clock
):
    epochs = await _three_brokers_and_topic(controller, channel, clock, [[1]])
    for b in (2, 3):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    assert await controller.check_broker_sessions() == [1]
    part = controller.context.partitions[TopicPartition("t", 0)]
    assert (part.leader, part.isr, part.leader_epoch) == (-1, [1], 1)
    assert (
        controller.context.partition_state_machine.state(TopicPartition("t", 0))
        == PartitionState.OfflinePartition
    )
    states = channel.update_metadata()[2][0].partition_states
    assert [(s.leader, s.offline_replicas) for s in states] == [(-1, [1])]


async def test_no_clean_leader_means_no_leader_without_unclean_election(controller, channel, clock):
    epochs = await _three_brokers_and_topic(controller, channel, clock, [[1, 2]])
    await controller.broker_heartbeat(hb(1, epochs[1]))
    shrink = await controller.alter_partition(alter(1, epochs[1], "t", 0, 0, [1], 0))
    assert shrink.topics[0].partitions[0].error_code == 0
    clock.advance(9001)
    for b in (2, 3):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    assert await controller.check_broker_sessions() == [1]
    assert controller.context.partitions[TopicPartition("t", 0)].leader == -1


async def test_unclean_election_topic_config_elects_a_live_out_of_sync_replica(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2]], unclean_leader_election_enable="true"))
    await controller.alter_partition(alter(1, epochs[1], "t", 0, 0, [1], 0))
    clock.advance(9001)
    for b in (2, 3):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    assert await controller.check_broker_sessions() == [1]
    part = controller.context.partitions[TopicPartition("t", 0)]
    assert (part.leader, part.isr) == (2, [2])


async def test_broker_returning_is_elected_and_told_about_all_its_partitions(controller, channel, clock):
    epochs = await _three_brokers_and_topic(controller, channel, clock, [[1]], [[2, 1]])
    await controller.broker_heartbeat(hb(2, epochs[2]))
    await controller.broker_heartbeat(hb(3, epochs[3]))
    await controller.check_broker_sessions()
    assert controller.context.partitions[TopicPartition("t", 0)].leader == -1
    channel.clear()

    beat = await controller.broker_heartbeat(hb(1, epochs[1]))
    assert not beat.is_fenced
    p0 = controller.context.partitions[TopicPartition("t", 0)]
    assert (p0.leader, p0.isr, p0.leader_epoch) == (1, [1], 2)
    assert 1 in channel.brokers
    (to_returned,) = channel.leader_and_isr()[1]
    assert sorted((s.topic_name, s.partition_index) for s in to_returned.partition_states) == [
        ("t", 0),
        ("u", 0),
    ]
    assert to_returned.type == 2
    assert 2 not in channel.leader_and_isr()  # u-0's leadership did not change
    full = channel.update_metadata()[1][0]
    assert full.full and [b.id for b in full.live_brokers] == [1, 2, 3]
    incremental = channel.update_metadata()[2][0]
    assert not incremental.full and [
        (s.topic_name, s.partition_index) for s in incremental.partition_states
    ] == [("t", 0)]
    assert [b.id for b in incremental.live_brokers] == [1, 2, 3]


async def test_controlled_shutdown_fences_and_answers_should_shut_down(controller, channel):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[2, 1]]))
    beat = await controller.broker_heartbeat(hb(2, epochs[2], want_shut_down=True))
    assert beat.should_shut_down and beat.is_fenced
    assert controller.context.partitions[TopicPartition("t", 0)].leader == 1


async def test_new_incarnation_fences_the_old_one_and_registers_fenced(controller, channel, tmp_path):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[2, 1]]))
    channel.clear()
    response = await controller.register_broker(registration(2, incarnation="restarted"))
    assert response.error_code == 0 and response.broker_epoch > epochs[2]
    reg = controller.context.brokers[2]
    assert reg.fenced and reg.incarnation_id == uuid_to_string(incarnation_id("restarted"))
    part = controller.context.partitions[TopicPartition("t", 0)]
    assert (part.leader, part.isr, part.leader_epoch) == (1, [1], 1)
    assert 2 not in channel.brokers and 1 in channel.leader_and_isr()
    await controller.stop()
    records = replay_log(tmp_path)
    fence_index = records.index(FenceBrokerRecord(2, epochs[2]))
    assert isinstance(records[fence_index + 1], PartitionChangeRecord)


# -------------------------------------------------------------- AlterPartition


async def test_alter_partition_commits_isr_and_sends_update_metadata_only(controller, channel):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2, 3]]))
    channel.clear()
    response = wire_roundtrip(await controller.alter_partition(alter(1, epochs[1], "t", 0, 0, [1, 3], 0)))
    assert response.error_code == 0
    p = response.topics[0].partitions[0]
    assert (p.error_code, p.leader_id, p.leader_epoch, p.isr, p.partition_epoch) == (0, 1, 0, [1, 3], 1)
    part = controller.context.partitions[TopicPartition("t", 0)]
    assert (part.isr, part.leader_epoch, part.partition_epoch) == ([1, 3], 0, 1)
    assert channel.leader_and_isr() == {}
    assert sorted(channel.update_metadata()) == [1, 2, 3]
    assert channel.update_metadata()[2][0].partition_states[0].isr == [1, 3]


async def test_alter_partition_validation_errors(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2, 3]]))

    async def error(request):
        response = wire_roundtrip(await controller.alter_partition(request))
        return response.error_code or response.topics[0].partitions[0].error_code

    assert await error(alter(1, epochs[1] + 1, "t", 0, 0, [1], 0)) == Errors.STALE_BROKER_EPOCH
    assert await error(alter(1, epochs[1], "nope", 0, 0, [1], 0)) == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert await error(alter(1, epochs[1], "t", 0, 5, [1], 0)) == Errors.FENCED_LEADER_EPOCH
    assert await error(alter(2, epochs[2], "t", 0, 0, [2], 0)) == Errors.FENCED_LEADER_EPOCH
    assert await error(alter(1, epochs[1], "t", 0, 0, [1], 3)) == Errors.INVALID_UPDATE_VERSION
    assert await error(alter(1, epochs[1], "t", 0, 0, [2, 3], 0)) == Errors.INELIGIBLE_REPLICA
    assert await error(alter(1, epochs[1], "t", 0, 0, [1, 4], 0)) == Errors.INELIGIBLE_REPLICA
    clock.advance(9001)
    await controller.broker_heartbeat(hb(1, epochs[1]))
    await controller.broker_heartbeat(hb(2, epochs[2]))
    assert await controller.check_broker_sessions() == [3]
    part = controller.context.partitions[TopicPartition("t", 0)]
    assert await error(alter(1, epochs[1], "t", 0, part.leader_epoch, [1, 2, 3], part.partition_epoch)) == (
        Errors.INELIGIBLE_REPLICA
    )
    assert part.isr == [1, 2]


# ---------------------------------------------------------------------- restart


async def test_restart_replays_state_bumps_epoch_and_pushes_full_state(tmp_path, clock, channel):
    first = KafkaController(
        make_config(), metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await first.start()
    epochs = await register_live_brokers(first, 1, 2, 3)
    await create(first, topic("t", assignment=[[1, 2], [2, 3]], retention_ms="1000"))
    await first.alter_partition(alter(1, epochs[1], "t", 0, 0, [1], 0))
    clock.advance(9001)
    for b in (1, 2):
        await first.broker_heartbeat(hb(b, epochs[b]))
    assert await first.check_broker_sessions() == [3]
    before = (
        {b: (r.broker_epoch, r.fenced, r.host, r.port) for b, r in first.context.brokers.items()},
        {tp: vars(p).copy() for tp, p in first.context.partitions.items()},
        first.context.topic_configs("t"),
    )
    await first.stop()

    channel2 = FakeChannelManager()
    second = KafkaController(
        make_config(), metadata_log=MetadataLog(tmp_path), channel_manager=channel2, clock_ms=clock
    )
    await second.start()
    try:
        assert second.controller_epoch == 2
        after = (
            {b: (r.broker_epoch, r.fenced, r.host, r.port) for b, r in second.context.brokers.items()},
            {tp: vars(p).copy() for tp, p in second.context.partitions.items()},
            second.context.topic_configs("t"),
        )
        assert after == before
        ctx = second.context
        assert ctx.partition_state_machine.state(TopicPartition("t", 1)) == PartitionState.OnlinePartition
        assert (
            ctx.replica_state_machine.state(PartitionAndReplica(TopicPartition("t", 1), 3))
            == ReplicaState.OfflineReplica
        )
        assert sorted(channel2.brokers) == [1, 2]
        for b in (1, 2):
            update = channel2.update_metadata()[b][0]
            assert update.full and update.controller_epoch == 2 and len(update.partition_states) == 2
        # heartbeats with epochs from before the restart are still valid
        assert (await second.broker_heartbeat(hb(1, epochs[1]))).error_code == 0
        assert (await second.register_broker(registration(4))).broker_epoch > max(epochs.values())
    finally:
        await second.stop()
    assert [r.epoch for r in replay_log(tmp_path) if isinstance(r, ControllerEpochRecord)] == [1, 2]


async def test_session_timer_runs_the_check_on_its_own(tmp_path, clock, channel):
    ctrl = KafkaController(
        make_config(broker_heartbeat_interval_ms=2, broker_session_timeout_ms=4),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(1),
    )
    await ctrl.start()
    try:
        await register_live_brokers(ctrl, 2)
        clock.advance(10)
        await asyncio.wait_for(channel.removed_event.wait(), 5)
        assert ctrl.context.brokers[2].fenced
    finally:
        await ctrl.stop()


# ------------------------------------------------------------- producer ids


async def test_producer_id_blocks_are_disjoint_and_survive_restart(tmp_path, clock, channel):
    from kafkette.protocol.apis.producer_ids import AllocateProducerIdsRequest

    first = KafkaController(
        make_config(), metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await first.start()
    epochs = await register_live_brokers(first, 1, 2)
    a = await first.allocate_producer_ids(AllocateProducerIdsRequest(broker_id=1, broker_epoch=epochs[1]))
    b = await first.allocate_producer_ids(AllocateProducerIdsRequest(broker_id=2, broker_epoch=epochs[2]))
    stale = await first.allocate_producer_ids(
        AllocateProducerIdsRequest(broker_id=2, broker_epoch=epochs[2] + 99)
    )
    unknown = await first.allocate_producer_ids(AllocateProducerIdsRequest(broker_id=7, broker_epoch=1))
    await first.stop()
    assert (a.error_code, b.error_code) == (0, 0)
    assert a.producer_id_len == b.producer_id_len > 0
    assert b.producer_id_start >= a.producer_id_start + a.producer_id_len
    assert (
        stale.error_code == Errors.STALE_BROKER_EPOCH
        and unknown.error_code == Errors.BROKER_ID_NOT_REGISTERED
    )

    second = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=FakeChannelManager(),
        clock_ms=clock,
    )
    await second.start()
    try:
        c = await second.allocate_producer_ids(
            AllocateProducerIdsRequest(broker_id=1, broker_epoch=epochs[1])
        )
        assert c.error_code == 0 and c.producer_id_start >= b.producer_id_start + b.producer_id_len
    finally:
        await second.stop()


async def test_a_registration_of_another_cluster_is_refused_with_inconsistent_cluster_id(controller):
    request = registration(5)
    request.cluster_id = "another-cluster"
    response = await controller.register_broker(request)
    assert response.error_code == Errors.INCONSISTENT_CLUSTER_ID
    assert (
        "Expected cluster ID kafkette-cluster, but got cluster ID another-cluster." == response.error_message
    )
    assert 5 not in controller.context.brokers
