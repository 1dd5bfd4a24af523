"""Leadership: ElectLeaders (preferred, unclean), the auto leader rebalance, controlled
shutdown, unclean election enabled by a topic config, and leaderless partitions brought
online when a controller starts."""

from __future__ import annotations

import random

from controller_fakes import heartbeat as hb
from controller_fakes import make_config, register_live_brokers, wire_roundtrip
from local_metadata_log import MetadataLog
from test_kafka_controller import create, topic

from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import PartitionRecord, TopicRecord
from kafkette.controller.preferred_leader_election import leader_imbalance_ratios
from kafkette.protocol.apis.configs import (
    OP_SET,
    RESOURCE_TOPIC,
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest
from kafkette.protocol.apis.elect_leaders import (
    ELECTION_PREFERRED,
    ELECTION_UNCLEAN,
    ElectLeadersRequest,
    ElectLeadersTopicPartitions,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

T0 = TopicPartition("t", 0)


async def elect(controller, election_type=ELECTION_PREFERRED, partitions=None, timeout_ms=2000):
    topic_partitions = (
        None
        if partitions is None
        else [ElectLeadersTopicPartitions(topic=t, partitions=ps) for t, ps in partitions.items()]
    )
    response = wire_roundtrip(
        await controller.elect_leaders(
            ElectLeadersRequest(
                election_type=election_type,
                topic_partitions=topic_partitions,
                timeout_ms=timeout_ms,
            )
        )
    )
    assert response.error_code == 0
    return {
        TopicPartition(r.topic, p.partition_id): p.error_code
        for r in response.replica_election_results
        for p in r.partition_result
    }


async def bounce(controller, clock, epochs, down, up=()):
    """Fence ``down`` (session expiry), then bring ``up`` back."""
    clock.advance(6000)
    for b in epochs:
        if b not in down:
            await controller.broker_heartbeat(hb(b, epochs[b]))
    clock.advance(6000)
    await controller.check_broker_sessions()
    for b in up:
        await controller.broker_heartbeat(hb(b, epochs[b]))


async def test_preferred_election_moves_leadership_back_to_the_first_replica(controller, channel, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2], [2, 1]]))
    await bounce(controller, clock, epochs, down={1}, up=[1])
    part = controller.context.partitions[T0]
    assert part.leader == 2 and part.isr == [2]
    # broker 1 not in the ISR yet: the preferred leader is not available
    assert await elect(controller, partitions={"t": [0]}) == {T0: Errors.PREFERRED_LEADER_NOT_AVAILABLE}
    controller.context.partitions[T0].isr = [2, 1]  # as an AlterPartition from leader 2 would
    epoch = part.leader_epoch
    channel.clear()
    assert await elect(controller, partitions={"t": [0, 1]}) == {
        T0: 0,
        TopicPartition("t", 1): Errors.ELECTION_NOT_NEEDED,
    }
    part = controller.context.partitions[T0]
    assert part.leader == 1 and part.leader_epoch == epoch + 1 and part.isr == [2, 1]
    assert {s.leader for r in channel.leader_and_isr()[2] for s in r.partition_states} == {1}
    assert sorted(channel.update_metadata()) == [1, 2]


async def test_elect_all_partitions_lists_only_partitions_that_needed_an_election(controller, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2], [2, 1]]))
    await bounce(controller, clock, epochs, down={1}, up=[1])
    controller.context.partitions[T0].isr = [2, 1]
    assert await elect(controller) == {T0: 0}
    assert await elect(controller, partitions={"nope": [0], "t": [7]}) == {
        TopicPartition("nope", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
        TopicPartition("t", 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
    }


async def test_an_election_of_an_unknown_topic_or_partition_is_worded_as_kafka(controller):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))

    response = wire_roundtrip(
        await controller.elect_leaders(
            ElectLeadersRequest(
                election_type=ELECTION_PREFERRED,
                timeout_ms=2000,
                topic_partitions=[
                    ElectLeadersTopicPartitions(topic="nope", partitions=[0]),
                    ElectLeadersTopicPartitions(topic="t", partitions=[7]),
                ],
            )
        )
    )

    assert sorted(p.error_message for r in response.replica_election_results for p in r.partition_result) == [
        "No such partition as t-7",
        "No such topic as nope",
    ]


async def test_an_unknown_election_type_is_invalid_request_for_each_partition_named_unless_none_is(
    controller,
):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    named = [
        ElectLeadersTopicPartitions(topic="t", partitions=[0, 0]),
        ElectLeadersTopicPartitions(topic="nope", partitions=[1]),
    ]

    response = wire_roundtrip(
        await controller.elect_leaders(
            ElectLeadersRequest(election_type=69, timeout_ms=2000, topic_partitions=named)
        )
    )
    empty = await controller.elect_leaders(
        ElectLeadersRequest(election_type=-39, timeout_ms=2000, topic_partitions=[])
    )

    assert response.error_code == Errors.INVALID_REQUEST
    assert [
        (r.topic, [(p.partition_id, p.error_code, p.error_message) for p in r.partition_result])
        for r in response.replica_election_results
    ] == [
        ("t", [(0, Errors.INVALID_REQUEST, "Unknown election type 69")] * 2),
        ("nope", [(1, Errors.INVALID_REQUEST, "Unknown election type 69")]),
    ]
    assert (empty.error_code, empty.replica_election_results) == (0, [])


async def test_unclean_election_elects_a_live_out_of_sync_replica(controller, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    controller.context.partitions[T0].isr = [1]  # 2 fell out of sync
    await bounce(controller, clock, epochs, down={1})
    assert controller.context.partitions[T0].leader == -1
    assert await elect(controller, ELECTION_UNCLEAN, {"t": [0]}) == {T0: 0}
    part = controller.context.partitions[T0]
    assert part.leader == 2 and part.isr == [2]
    assert await elect(controller, ELECTION_UNCLEAN, {"t": [0]}) == {T0: Errors.ELECTION_NOT_NEEDED}


async def test_unclean_election_without_live_replicas_is_eligible_leaders_not_available(controller, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1]]))
    await bounce(controller, clock, epochs, down={1})
    assert await elect(controller, ELECTION_UNCLEAN, {"t": [0]}) == {
        T0: Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
    }


async def test_offline_partition_stays_offline_until_unclean_election_is_enabled_on_the_topic(
    controller, channel, clock
):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    controller.context.partitions[T0].isr = [1]
    await bounce(controller, clock, epochs, down={1})
    assert controller.context.partitions[T0].leader == -1
    channel.clear()
    response = await controller.incremental_alter_configs(
        IncrementalAlterConfigsRequest(
            resources=[
                AlterConfigsResource(
                    resource_type=RESOURCE_TOPIC,
                    resource_name="t",
                    configs=[
                        AlterableConfig(
                            name="unclean.leader.election.enable", config_operation=OP_SET, value="true"
                        )
                    ],
                )
            ]
        )
    )
    assert response.responses[0].error_code == 0
    part = controller.context.partitions[T0]
    assert part.leader == 2 and part.isr == [2]
    assert [s.leader for r in channel.leader_and_isr()[2] for s in r.partition_states] == [2]


def test_leader_imbalance_ratio_counts_partitions_led_away_from_their_preferred_broker():
    from kafkette.controller.controller_context import ControllerContext, PartitionRegistration, TopicInfo

    ctx = ControllerContext(lambda: 0)
    ctx.topics["t"] = TopicInfo("t", "id", num_partitions=4)
    for p, (replicas, leader) in enumerate([([1, 2], 1), ([1, 2], 2), ([2, 1], 2), ([1, 2], 2)]):
        ctx.partitions[TopicPartition("t", p)] = PartitionRegistration(replicas, replicas, leader, 0, 0)
    assert leader_imbalance_ratios(ctx) == {1: 2 / 3, 2: 0.0}


async def test_auto_rebalance_elects_preferred_leaders_above_the_imbalance_percentage(
    tmp_path, clock, channel
):
    ctrl = KafkaController(
        make_config(leader_imbalance_per_broker_percentage=50),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(3),
    )
    await ctrl.start()
    try:
        epochs = await register_live_brokers(ctrl, 1, 2)
        await create(ctrl, topic("t", assignment=[[1, 2], [2, 1], [1, 2]]))
        await bounce(ctrl, clock, epochs, down={1}, up=[1])
        assert [ctrl.context.partitions[TopicPartition("t", p)].leader for p in range(3)] == [2, 2, 2]
        assert await ctrl.check_leader_imbalance() == []  # broker 1 is not back in the ISRs yet
        for p in (0, 2):
            ctrl.context.partitions[TopicPartition("t", p)].isr = [2, 1]
        # ratio of broker 1 = 2/2 = 100% > 50%
        assert await ctrl.check_leader_imbalance() == [TopicPartition("t", 0), TopicPartition("t", 2)]
        assert [ctrl.context.partitions[TopicPartition("t", p)].leader for p in range(3)] == [1, 2, 1]
        assert await ctrl.check_leader_imbalance() == []
    finally:
        await ctrl.stop()


async def test_auto_rebalance_leaves_an_imbalance_within_the_percentage(controller, clock):
    epochs = await register_live_brokers(controller, 1, 2)
    assignment = [[1, 2]] * 10
    await create(controller, topic("t", assignment=assignment))
    await bounce(controller, clock, epochs, down={1}, up=[1])
    for p in range(10):
        part = controller.context.partitions[TopicPartition("t", p)]
        part.isr = [2, 1]
        if p > 0:
            part.leader = 1
    assert leader_imbalance_ratios(controller.context)[1] == 0.1  # not above the default 10%
    assert await controller.check_leader_imbalance() == []


# ------------------------------------------------------------- controlled shutdown


async def test_controlled_shutdown_moves_leaderships_and_leaves_isrs(controller, channel):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    await create(controller, topic("t", assignment=[[1, 2, 3], [2, 1, 3]]), topic("solo", assignment=[[1]]))
    channel.clear()
    response = wire_roundtrip(
        await controller.controlled_shutdown(ControlledShutdownRequest(broker_id=1, broker_epoch=epochs[1]))
    )
    assert response.error_code == 0 and response.remaining_partitions == []  # RF 1 is never listed
    p0, p1 = (controller.context.partitions[TopicPartition("t", p)] for p in range(2))
    p2 = controller.context.partitions[TopicPartition("solo", 0)]
    assert (p0.leader, p0.isr, p0.leader_epoch) == (2, [2, 3], 1)
    assert (p1.leader, p1.isr, p1.leader_epoch) == (2, [2, 3], 1)  # 1 only left the ISR
    assert (p2.leader, p2.isr) == (1, [1])
    assert {
        (s.partition_index, s.leader) for r in channel.leader_and_isr()[1] for s in r.partition_states
    } == {(0, 2), (1, 2)}
    # the broker in controlled shutdown is not made leader again by a preferred election
    assert await elect(controller, partitions={"t": [0]}) == {T0: Errors.PREFERRED_LEADER_NOT_AVAILABLE}


async def test_controlled_shutdown_reports_partitions_without_another_eligible_leader(controller):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    controller.context.partitions[T0].isr = [1]
    response = await controller.controlled_shutdown(
        ControlledShutdownRequest(broker_id=1, broker_epoch=epochs[1])
    )
    assert [(r.topic_name, r.partition_index) for r in response.remaining_partitions] == [("t", 0)]
    assert controller.context.partitions[T0].leader == 1


async def test_controlled_shutdown_checks_the_broker_and_its_epoch(controller):
    epochs = await register_live_brokers(controller, 1)
    stale = await controller.controlled_shutdown(
        ControlledShutdownRequest(broker_id=1, broker_epoch=epochs[1] + 7)
    )
    assert stale.error_code == Errors.STALE_BROKER_EPOCH
    unknown = await controller.controlled_shutdown(ControlledShutdownRequest(broker_id=9, broker_epoch=1))
    assert unknown.error_code == Errors.BROKER_NOT_AVAILABLE


async def test_broker_that_heartbeats_want_shut_down_after_controlled_shutdown_is_fenced(controller):
    epochs = await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", assignment=[[1, 2]]))
    await controller.controlled_shutdown(ControlledShutdownRequest(broker_id=1, broker_epoch=epochs[1]))
    beat = await controller.broker_heartbeat(hb(1, epochs[1], want_shut_down=True))
    assert beat.should_shut_down and beat.is_fenced
    assert controller.context.partitions[T0].leader == 2


# --------------------------------------------------------------------- restart


async def test_restart_brings_leaderless_partitions_with_a_live_isr_online(tmp_path, clock, channel):
    config = make_config()
    first = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await first.start()
    await register_live_brokers(first, 1, 2)
    # a topic written to the log whose partition was never brought online (the controller died
    # right after the write): leader -1, ISR [2]
    await first.submit(
        "Test",
        lambda: first.write(
            [TopicRecord("late", "id-late"), PartitionRecord("late", 0, [1, 2], [2], -1)], "Test"
        ),
    )
    await first.stop()
    channel.clear()
    second = KafkaController(
        config, metadata_log=MetadataLog(tmp_path), channel_manager=channel, clock_ms=clock
    )
    await second.start()
    try:
        part = second.context.partitions[TopicPartition("late", 0)]
        assert part.leader == 2 and part.leader_epoch == 1
        states = {
            (b, s.topic_name, s.leader)
            for b, rs in channel.leader_and_isr().items()
            for r in rs
            for s in r.partition_states
        }
        assert {(1, "late", 2), (2, "late", 2)} <= states
    finally:
        await second.stop()
