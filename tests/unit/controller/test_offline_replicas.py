"""Replicas whose log went offline on a live broker (BrokerHeartbeat ``offline_replicas``).

The controller marks them offline with a PartitionChangeRecord (written before any
request goes out), re-elects a leader from the rest of the ISR where the broker led,
removes the replica from the ISR, and never elects it (nor lets it back into the ISR)
while the broker reports it; a replica no longer reported becomes eligible again.
"""

from __future__ import annotations

import random

from controller_fakes import heartbeat as hb
from controller_fakes import register_live_brokers, registration
from local_metadata_log import MetadataLog
from test_kafka_controller import alter, create, replay_log, topic

from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import PartitionChangeRecord
from kafkette.controller.partition_state_machine import PartitionState
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState
from kafkette.protocol.apis.broker_registration import BrokerHeartbeatOfflineReplicaTopic
from kafkette.protocol.apis.elect_leaders import (
    ELECTION_PREFERRED,
    ElectLeadersRequest,
    ElectLeadersTopicPartitions,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

T0 = TopicPartition("t", 0)
T1 = TopicPartition("t", 1)


def offline(*tps: TopicPartition) -> list[BrokerHeartbeatOfflineReplicaTopic]:
    by_topic: dict[str, list[int]] = {}
    for tp in tps:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return [BrokerHeartbeatOfflineReplicaTopic(topic_name=t, partitions=p) for t, p in by_topic.items()]


def partition_changes(tmp_path) -> list[PartitionChangeRecord]:
    return [r for r in replay_log(tmp_path) if isinstance(r, PartitionChangeRecord)]


async def report(controller, broker_id, epoch, *tps):
    response = await controller.broker_heartbeat(hb(broker_id, epoch, offline_replicas=offline(*tps)))
    assert response.error_code == 0, response
    return response


async def setup(controller, channel, assignment, **configs):
    epochs = await register_live_brokers(controller, 1, 2, 3)
    assert (await create(controller, topic("t", assignment=assignment, **configs))).topics[0].error_code == 0
    channel.clear()
    return epochs


async def test_offline_leader_replica_moves_leadership_and_leaves_the_isr(controller, channel, tmp_path):
    epochs = await setup(controller, channel, [[1, 2, 3], [2, 3, 1]])
    await report(controller, 1, epochs[1], T0)

    ctx = controller.context
    p0, p1 = ctx.partitions[T0], ctx.partitions[T1]
    assert (p0.leader, p0.isr, p0.leader_epoch, p0.partition_epoch, p0.offline_replicas) == (
        2,
        [2, 3],
        1,
        1,
        [1],
    )
    assert (p1.leader, p1.isr, p1.leader_epoch, p1.offline_replicas) == (
        2,
        [2, 3, 1],
        0,
        [],
    )  # broker 1's other replica
    assert ctx.replica_state_machine.state(PartitionAndReplica(T0, 1)) == ReplicaState.OfflineReplica
    assert ctx.replica_state_machine.state(PartitionAndReplica(T1, 1)) == ReplicaState.OnlineReplica
    assert ctx.partition_state_machine.state(T0) == PartitionState.OnlinePartition
    assert not ctx.brokers[1].fenced

    (change,) = partition_changes(tmp_path)
    assert change == PartitionChangeRecord(
        topic="t", partition=0, leader=2, isr=[2, 3], leader_epoch=1, partition_epoch=1, offline_replicas=[1]
    )
    leader_and_isr = channel.leader_and_isr()
    assert sorted(leader_and_isr) == [1, 2, 3]
    for requests in leader_and_isr.values():
        assert [(s.partition_index, s.leader, s.isr) for s in requests[0].partition_states] == [
            (0, 2, [2, 3])
        ]
    update_metadata = channel.update_metadata()
    assert sorted(update_metadata) == [1, 2, 3]
    assert [
        (s.partition_index, s.leader, s.offline_replicas) for s in update_metadata[3][0].partition_states
    ] == [(0, 2, [1])]


async def test_offline_follower_replica_leaves_the_isr_and_the_leader_stays(controller, channel, tmp_path):
    epochs = await setup(controller, channel, [[1, 2, 3]])
    await report(controller, 3, epochs[3], T0)
    part = controller.context.partitions[T0]
    assert (part.leader, part.isr, part.leader_epoch, part.offline_replicas) == (1, [1, 2], 1, [3])


async def test_a_heartbeat_reporting_the_same_offline_set_writes_nothing(controller, channel, tmp_path):
    epochs = await setup(controller, channel, [[1, 2, 3]])
    await report(controller, 1, epochs[1], T0)
    channel.clear()
    await report(controller, 1, epochs[1], T0)
    assert len(partition_changes(tmp_path)) == 1
    assert channel.sent == []


async def test_unknown_partitions_and_partitions_not_hosted_are_ignored(controller, channel, tmp_path):
    epochs = await setup(controller, channel, [[2, 3]])
    await report(controller, 1, epochs[1], T0, TopicPartition("nope", 0))
    assert partition_changes(tmp_path) == [] and channel.sent == []


async def test_offline_replica_is_never_elected_while_reported(controller, channel, clock):
    epochs = await setup(controller, channel, [[1, 2, 3]], unclean_leader_election_enable="true")
    await report(controller, 1, epochs[1], T0)
    assert controller.context.partitions[T0].leader == 2

    # The leader shrinks the ISR to itself, then dies: no clean candidate; unclean election
    # may take a live out-of-sync replica (3), never the offline one (1).
    part = controller.context.partitions[T0]
    response = await controller.alter_partition(
        alter(2, epochs[2], "t", 0, part.leader_epoch, [2], part.partition_epoch)
    )
    assert response.topics[0].partitions[0].error_code == 0
    clock.advance(9001)
    await report(controller, 1, epochs[1], T0)
    await controller.broker_heartbeat(hb(3, epochs[3]))
    assert await controller.check_broker_sessions() == [2]
    part = controller.context.partitions[T0]
    assert (part.leader, part.isr) == (3, [3])

    # The new leader cannot add the offline replica back to the ISR.
    response = await controller.alter_partition(
        alter(3, epochs[3], "t", 0, part.leader_epoch, [3, 1], part.partition_epoch)
    )
    assert response.topics[0].partitions[0].error_code == Errors.INELIGIBLE_REPLICA

    # Nor can a preferred election make it leader.
    elected = await controller.elect_leaders(
        ElectLeadersRequest(
            election_type=ELECTION_PREFERRED,
            timeout_ms=1000,
            topic_partitions=[ElectLeadersTopicPartitions(topic="t", partitions=[0])],
        )
    )
    assert (
        elected.replica_election_results[0].partition_result[0].error_code
        == Errors.PREFERRED_LEADER_NOT_AVAILABLE
    )

    # With 3 gone too, the partition goes leaderless instead of electing 1.
    clock.advance(9001)
    await report(controller, 1, epochs[1], T0)
    assert await controller.check_broker_sessions() == [3]
    assert controller.context.partitions[T0].leader == -1


async def test_offline_sole_isr_leader_leaves_the_partition_leaderless_keeping_its_isr(controller, channel):
    epochs = await setup(controller, channel, [[1, 2]])
    part = controller.context.partitions[T0]
    await controller.alter_partition(
        alter(1, epochs[1], "t", 0, part.leader_epoch, [1], part.partition_epoch)
    )
    await report(controller, 1, epochs[1], T0)
    part = controller.context.partitions[T0]
    assert (part.leader, part.isr, part.offline_replicas) == (-1, [1], [1])
    assert controller.context.partition_state_machine.state(T0) == PartitionState.OfflinePartition


async def test_offline_replicas_on_the_unfencing_heartbeat_are_not_elected(controller, channel, clock):
    epochs = await setup(controller, channel, [[1, 2]])
    part = controller.context.partitions[T0]
    await controller.alter_partition(
        alter(1, epochs[1], "t", 0, part.leader_epoch, [1], part.partition_epoch)
    )
    clock.advance(9001)
    for b in (2, 3):
        await controller.broker_heartbeat(hb(b, epochs[b]))
    assert await controller.check_broker_sessions() == [1]
    assert controller.context.partitions[T0].leader == -1

    # Broker 1 restarts and its loader found the log corrupt: its first heartbeat says so.
    epoch = (await controller.register_broker(registration(1, incarnation="second"))).broker_epoch
    response = await report(controller, 1, epoch, T0)
    assert not response.is_fenced
    part = controller.context.partitions[T0]
    assert (part.leader, part.isr, part.offline_replicas) == (-1, [1], [1])
    assert (
        controller.context.replica_state_machine.state(PartitionAndReplica(T0, 1))
        == ReplicaState.OfflineReplica
    )


async def test_a_replica_no_longer_reported_is_eligible_again(controller, channel, clock):
    epochs = await setup(controller, channel, [[1, 2]])
    part = controller.context.partitions[T0]
    await controller.alter_partition(
        alter(1, epochs[1], "t", 0, part.leader_epoch, [1], part.partition_epoch)
    )
    await report(controller, 1, epochs[1], T0)
    assert controller.context.partitions[T0].leader == -1

    await report(controller, 1, epochs[1])  # e.g. restarted after the operator removed the corrupt log
    part = controller.context.partitions[T0]
    assert (part.leader, part.isr, part.offline_replicas) == (1, [1], [])
    assert (
        controller.context.replica_state_machine.state(PartitionAndReplica(T0, 1))
        == ReplicaState.OnlineReplica
    )


async def test_offline_marks_survive_a_controller_restart(tmp_path, clock, channel):
    from controller_fakes import make_config

    first = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await first.start()
    try:
        epochs = await setup(first, channel, [[1, 2, 3]])
        await report(first, 1, epochs[1], T0)
    finally:
        await first.stop()
    second = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await second.start()
    try:
        part = second.context.partitions[T0]
        assert (part.leader, part.isr, part.offline_replicas) == (2, [2, 3], [1])
        assert second.context.offline_replicas(T0) == [1]
    finally:
        await second.stop()
