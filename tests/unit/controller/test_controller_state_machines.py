"""Partition and replica state machines: Kafka's legal transitions, illegal ones refused."""

from __future__ import annotations

import logging

import pytest

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    FenceBrokerRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
    UnfenceBrokerRecord,
)
from kafkette.controller.partition_state_machine import PartitionState, PartitionStateMachine
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState, ReplicaStateMachine
from kafkette.controller.state_machine import IllegalStateTransitionError
from kafkette.protocol.topic_partition import TopicPartition

P = PartitionState
R = ReplicaState
TP = TopicPartition("t", 0)

LEGAL_PARTITION = [
    (P.NonExistentPartition, P.NewPartition),
    (P.NewPartition, P.OnlinePartition),
    (P.NewPartition, P.OfflinePartition),
    (P.OnlinePartition, P.OnlinePartition),
    (P.OnlinePartition, P.OfflinePartition),
    (P.OfflinePartition, P.OnlinePartition),
    (P.OfflinePartition, P.OfflinePartition),
    (P.OfflinePartition, P.NonExistentPartition),
]
LEGAL_REPLICA = [
    (R.NonExistentReplica, R.NewReplica),
    (R.NewReplica, R.OnlineReplica),
    (R.OnlineReplica, R.OnlineReplica),
    (R.OfflineReplica, R.OnlineReplica),
    (R.ReplicaDeletionIneligible, R.OnlineReplica),
    (R.NewReplica, R.OfflineReplica),
    (R.OnlineReplica, R.OfflineReplica),
    (R.OfflineReplica, R.OfflineReplica),
    (R.ReplicaDeletionIneligible, R.OfflineReplica),
    (R.OfflineReplica, R.ReplicaDeletionStarted),
    (R.ReplicaDeletionStarted, R.ReplicaDeletionSuccessful),
    (R.OfflineReplica, R.ReplicaDeletionIneligible),
    (R.ReplicaDeletionStarted, R.ReplicaDeletionIneligible),
    (R.ReplicaDeletionSuccessful, R.NonExistentReplica),
]


def test_partition_transition_table_is_exactly_kafkas():
    machine = PartitionStateMachine()
    legal = {(a, b) for a in P for b in P if machine.is_legal(a, b)}
    assert legal == set(LEGAL_PARTITION)


def test_replica_transition_table_is_exactly_kafkas():
    machine = ReplicaStateMachine()
    legal = {(a, b) for a in R for b in R if machine.is_legal(a, b)}
    assert legal == set(LEGAL_REPLICA)


def test_partition_walks_creation_then_leader_loss_then_reelection():
    machine = PartitionStateMachine()
    for target in (P.NewPartition, P.OnlinePartition, P.OfflinePartition, P.OnlinePartition):
        machine.transition(TP, target)
        assert machine.state(TP) == target
    assert machine.online_partitions() == [TP]


def test_illegal_partition_transition_raises_logs_and_leaves_state(caplog):
    machine = PartitionStateMachine(lambda: "[Controller id=1 epoch=2]")
    caplog.set_level(logging.ERROR, logger="state.change.logger")
    with pytest.raises(IllegalStateTransitionError) as info:
        machine.transition(TP, P.OnlinePartition)
    assert info.value.current == P.NonExistentPartition and info.value.target == P.OnlinePartition
    assert machine.state(TP) == P.NonExistentPartition
    record = next(r for r in caplog.records if r.name == "state.change.logger")
    assert "[Controller id=1 epoch=2] Illegal state transition for partition t-0" in record.getMessage()


def test_illegal_replica_transition_raises():
    machine = ReplicaStateMachine()
    key = PartitionAndReplica(TP, 3)
    machine.transition(key, R.NewReplica)
    machine.transition(key, R.OnlineReplica)
    with pytest.raises(IllegalStateTransitionError):
        machine.transition(key, R.ReplicaDeletionStarted)
    assert machine.state(key) == R.OnlineReplica


def test_deleted_replica_is_forgotten():
    machine = ReplicaStateMachine()
    key = PartitionAndReplica(TP, 3)
    for target in (
        R.NewReplica,
        R.OfflineReplica,
        R.ReplicaDeletionStarted,
        R.ReplicaDeletionSuccessful,
        R.NonExistentReplica,
    ):
        machine.transition(key, target)
    assert machine.state(key) == R.NonExistentReplica
    assert len(machine) == 0


def test_check_transitions_dry_run_applies_nothing():
    machine = PartitionStateMachine()
    machine.check_transitions([(TP, P.NewPartition), (TP, P.OnlinePartition)])
    assert machine.state(TP) == P.NonExistentPartition
    with pytest.raises(IllegalStateTransitionError):
        machine.check_transitions([(TP, P.NewPartition), (TP, P.NewPartition)])


def _context_with_partition() -> ControllerContext:
    ctx = ControllerContext(lambda: 0)
    for b in (1, 2):
        ctx.replay(RegisterBrokerRecord(b, 10 + b, f"i{b}", "127.0.0.1", 9000 + b))
        ctx.replay(UnfenceBrokerRecord(b, 10 + b))
    ctx.replay(TopicRecord("t", "id"))
    ctx.replay(PartitionRecord("t", 0, [1, 2], [1, 2], 1))
    return ctx


def test_replaying_a_partition_record_moves_partition_and_replicas_new_to_online():
    ctx = _context_with_partition()
    assert ctx.partition_state_machine.state(TP) == P.OnlinePartition
    assert ctx.replica_state_machine.state(PartitionAndReplica(TP, 1)) == R.OnlineReplica


def test_fencing_the_leader_moves_partition_offline_until_a_change_elects_a_new_leader():
    ctx = _context_with_partition()
    ctx.replay(FenceBrokerRecord(1, 11))
    assert ctx.partition_state_machine.state(TP) == P.OfflinePartition
    assert ctx.replica_state_machine.state(PartitionAndReplica(TP, 1)) == R.OfflineReplica
    ctx.replay(PartitionChangeRecord("t", 0, 2, [2], 1, 1))
    assert ctx.partition_state_machine.state(TP) == P.OnlinePartition


def test_record_implying_an_illegal_transition_is_refused_before_it_is_written():
    ctx = _context_with_partition()
    duplicate = PartitionRecord("t", 0, [1, 2], [1, 2], 1)
    with pytest.raises(IllegalStateTransitionError):
        ctx.check_records([duplicate])
    assert ctx.partitions[TP].leader == 1
