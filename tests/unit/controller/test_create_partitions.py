"""CreatePartitions (seed 001): only increases, manual assignments validated like creation,
Kafka's continuation of the assignment, New -> Online with LeaderAndIsr and UpdateMetadata,
rack awareness, validate_only, the acknowledgement wait."""

from __future__ import annotations

import asyncio

from controller_fakes import heartbeat as hb
from controller_fakes import register_live_brokers, registration, wire_roundtrip
from test_kafka_controller import create, topic

from kafkette.controller.partition_state_machine import PartitionState
from kafkette.controller.replica_assignment import assign_replicas_to_brokers
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsAssignment,
    CreatePartitionsRequest,
    CreatePartitionsTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition


async def add_partitions(controller, name, count, assignments=None, *, validate_only=False, timeout_ms=2000):
    request = CreatePartitionsRequest(
        topics=[
            CreatePartitionsTopic(
                name=name,
                count=count,
                assignments=None
                if assignments is None
                else [CreatePartitionsAssignment(broker_ids=a) for a in assignments],
            )
        ],
        timeout_ms=timeout_ms,
        validate_only=validate_only,
    )
    return wire_roundtrip(await controller.create_partitions(request)).results[0]


async def test_new_partitions_go_online_and_are_propagated(controller, channel):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", 2, 2, retention_ms="5000"))
    channel.clear()
    result = await add_partitions(controller, "t", 5)
    assert (result.error_code, result.error_message) == (0, None)
    ctx = controller.context
    assert ctx.topics["t"].num_partitions == 5
    for p in (2, 3, 4):
        tp = TopicPartition("t", p)
        part = ctx.partitions[tp]
        assert len(set(part.replicas)) == 2 and part.leader == part.replicas[0] and part.isr == part.replicas
        assert ctx.partition_state_machine.state(tp) == PartitionState.OnlinePartition
    sent = {
        (b, s.topic_name, s.partition_index, s.is_new, tuple((o.name, o.value) for o in s.configs))
        for b, reqs in channel.leader_and_isr().items()
        for r in reqs
        for s in r.partition_states
    }
    expected = {
        (b, "t", p, True, (("retention.ms", "5000"),))
        for p in (2, 3, 4)
        for b in ctx.partitions[TopicPartition("t", p)].replicas
    }
    assert sent == expected
    for b in (1, 2, 3):
        (update,) = channel.update_metadata()[b]
        assert sorted(s.partition_index for s in update.partition_states) == [2, 3, 4]
        assert [(c.topic_name, {o.name: o.value for o in c.configs}) for c in update.topic_configs] == [
            ("t", {"retention.ms": "5000"})
        ]


async def test_added_partitions_continue_kafkas_assignment_from_partition_zero(controller):
    await register_live_brokers(controller, 1, 2, 3, 4)
    await create(controller, topic("t", assignment=[[2, 3], [3, 4]]))
    await add_partitions(controller, "t", 6)
    expected = assign_replicas_to_brokers(4, 2, [1, 2, 3, 4], fixed_start_index=1, start_partition_id=2)
    assert {
        p: controller.context.partitions[TopicPartition("t", p)].replicas for p in range(2, 6)
    } == expected


async def test_partition_count_must_increase(controller):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 3, 1))
    lower = await add_partitions(controller, "t", 2)
    assert lower.error_code == Errors.INVALID_PARTITIONS
    assert lower.error_message == "The topic t currently has 3 partition(s); 2 would not be an increase."
    same = await add_partitions(controller, "t", 3)
    assert (same.error_code, same.error_message) == (
        Errors.INVALID_PARTITIONS,
        "Topic already has 3 partition(s).",
    )


async def test_unknown_topic_is_unknown_topic_or_partition_without_a_message(controller):
    unknown = await add_partitions(controller, "nope", 2)
    assert (unknown.error_code, unknown.error_message) == (
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        None,
    )  # as Kafka's


async def test_manual_assignment_places_new_partitions(controller):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", 1, 2))
    result = await add_partitions(controller, "t", 3, [[3, 1], [2, 3]])
    assert result.error_code == 0
    assert controller.context.partitions[TopicPartition("t", 1)].replicas == [3, 1]
    assert controller.context.partitions[TopicPartition("t", 2)].replicas == [2, 3]


async def test_manual_assignment_is_validated_like_creation(controller):
    await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", 1, 2))
    cases = {
        "only 1 assignment": [[1, 2]],
        "includes the broker 1 more than once": [[1, 1], [2, 3]],
        "not consistent with previous partitions": [[1], [2, 3]],
        "no such broker is registered": [[1, 9], [2, 3]],
    }
    for message, assignment in cases.items():
        result = await add_partitions(controller, "t", 3, assignment)
        assert result.error_code == Errors.INVALID_REPLICA_ASSIGNMENT, message
        assert message in result.error_message
    too_many = await add_partitions(controller, "t", 2, [[1, 2], [2, 3]])
    assert too_many.error_code == Errors.INVALID_REPLICA_ASSIGNMENT
    assert controller.context.topics["t"].num_partitions == 1


async def test_replication_factor_above_live_brokers_is_invalid_replication_factor(controller, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", 1, 2))
    await controller.broker_heartbeat(hb(2, epochs[2], want_fence=True))
    result = await add_partitions(controller, "t", 2)
    assert result.error_code == Errors.INVALID_REPLICATION_FACTOR


async def test_validate_only_creates_nothing(controller, channel):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    channel.clear()
    result = await add_partitions(controller, "t", 4, validate_only=True)
    assert result.error_code == 0
    assert controller.context.topics["t"].num_partitions == 1 and channel.sent == []


async def test_duplicate_topic_in_request_is_answered_once_with_invalid_request(controller):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    request = CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name="t", count=2, assignments=None)] * 2, timeout_ms=30000
    )
    results = (await controller.create_partitions(request)).results
    assert [(r.name, r.error_code) for r in results] == [("t", Errors.INVALID_REQUEST)]


async def test_rack_aware_placement_of_added_partitions(controller):
    for broker_id, rack in ((1, "a"), (2, "a"), (3, "b"), (4, "b")):
        response = await controller.register_broker(registration(broker_id, rack=rack))
        await controller.broker_heartbeat(hb(broker_id, response.broker_epoch))
    await create(controller, topic("t", 2, 2))
    await add_partitions(controller, "t", 8)
    racks = {1: "a", 2: "a", 3: "b", 4: "b"}
    for tp, part in controller.context.partitions.items():
        assert {racks[b] for b in part.replicas} == {"a", "b"}, tp


async def test_some_brokers_without_rack_fail_creation_with_kafkas_message(controller):
    for broker_id, rack in ((1, "a"), (2, None)):
        response = await controller.register_broker(registration(broker_id, rack=rack))
        await controller.broker_heartbeat(hb(broker_id, response.broker_epoch))
    result = (await create(controller, topic("t", 2, 2))).topics[0]
    assert result.error_code == Errors.INVALID_REPLICA_ASSIGNMENT
    assert result.error_message == "Not all brokers have rack information for replica rack aware assignment."


async def test_response_waits_for_acknowledgement_and_times_out(controller, channel):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", 1, 2))
    channel.auto_ack = False
    timed_out = await add_partitions(controller, "t", 2, timeout_ms=1)
    assert timed_out.error_code == Errors.REQUEST_TIMED_OUT
    assert controller.context.topics["t"].num_partitions == 2
    task = asyncio.ensure_future(add_partitions(controller, "t", 3, timeout_ms=30000))
    channel.sent_event.clear()
    await channel.sent_event.wait()
    await asyncio.sleep(0)
    assert not task.done()
    channel.ack_all()
    assert (await task).error_code == 0
