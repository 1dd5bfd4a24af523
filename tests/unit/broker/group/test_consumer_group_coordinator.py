"""ConsumerGroupCoordinator over an in-memory ``__consumer_offsets`` (every write acknowledged, the records
kept) and a manual clock: a first join, a second member's rebalance step by step (revocation before the
new owner gets a partition), epochs fenced both ways, a lost answer retried with the previous epoch, a
leave, a static member's temporary leave and return, a session expiry, a failed write that changes
nothing, a reload from the written records, the assignment interval, and describe."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from consumer_group_fakes import Log, Topics, new_coordinator

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_coordinator import ConsumerGroupCoordinator
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.common.clock import MockTime
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkette.protocol.errors import Errors

FOO = bytes(range(1, 17))
BAR = bytes(range(17, 33))


def _topics() -> Topics:
    """Two topics: foo (3 partitions), bar (2)."""
    return Topics({"foo": (FOO, 3), "bar": (BAR, 2)})


def _coordinator(time: MockTime, log: Log, **settings: Any) -> ConsumerGroupCoordinator:
    defaults: dict[str, Any] = {"assignment_interval_ms": 0}
    defaults.update(settings)
    return new_coordinator(
        time, log, _topics(), ConsumerGroupSettings(assignors=new_assignors(["uniform", "range"]), **defaults)
    )


def _join(member_id: str, topics: list[str], **fields: Any) -> ConsumerGroupHeartbeatRequest:
    base: dict[str, Any] = dict(
        group_id="g",
        member_id=member_id,
        member_epoch=0,
        rebalance_timeout_ms=60000,
        subscribed_topic_names=topics,
        topic_partitions=[],
        server_assignor="range",
    )
    base.update(fields)
    return ConsumerGroupHeartbeatRequest(**base)


def _beat(member_id: str, epoch: int, owned: dict[bytes, list[int]] | None = None, **fields: Any):
    return ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id=member_id,
        member_epoch=epoch,
        topic_partitions=None
        if owned is None
        else [ConsumerGroupHeartbeatTopicPartitions(topic_id=t, partitions=p) for t, p in owned.items()],
        **fields,
    )


def _owned(response) -> dict[bytes, list[int]] | None:
    if response.assignment is None:
        return None
    return {tp.topic_id: sorted(tp.partitions) for tp in response.assignment.topic_partitions}


async def _send(coordinator, request, version: int = 1):
    return await coordinator.heartbeat(request, version, "client", "/127.0.0.1")


async def test_a_first_member_gets_every_partition_at_epoch_two():
    log = Log()
    coordinator = _coordinator(MockTime(), log)
    response = await _send(coordinator, _join("m1", ["foo"]))
    assert response.error_code == Errors.NONE
    assert (response.member_id, response.member_epoch, response.heartbeat_interval_ms) == ("m1", 2, 5000)
    assert _owned(response) == {FOO: [0, 1, 2]}
    kinds = [type(k).__name__ for k, _ in log.decoded()]
    assert kinds == [
        "ConsumerGroupMemberMetadataKey",
        "ConsumerGroupMetadataKey",
        "ConsumerGroupTargetAssignmentMemberKey",
        "ConsumerGroupTargetAssignmentMetadataKey",
        "ConsumerGroupCurrentMemberAssignmentKey",
    ]
    group = coordinator.group("g")
    assert (group.group_epoch, group.assignment_epoch, group.state().value) == (2, 2, "Stable")
    await coordinator.stop()


async def test_a_second_member_gets_partitions_only_once_the_first_revoked_them():
    coordinator = _coordinator(MockTime(), Log())
    first = await _send(coordinator, _join("m1", ["foo", "bar"]))
    assert _owned(first) == {FOO: [0, 1, 2], BAR: [0, 1]}
    second = await _send(coordinator, _join("m2", ["foo", "bar"]))
    # range: m1 keeps foo-0,1 and bar-0; m2's foo-2 and bar-1 are still m1's, so m2 waits at epoch 3
    assert (second.member_epoch, _owned(second)) == (3, {})
    assert coordinator.group("g").state().value == "Reconciling"
    revoke = await _send(coordinator, _beat("m1", 2, {FOO: [0, 1, 2], BAR: [0, 1]}))
    assert (revoke.member_epoch, _owned(revoke)) == (2, {FOO: [0, 1], BAR: [0]})
    waiting = await _send(coordinator, _beat("m2", 3, {}))
    assert waiting.member_epoch == 3 and not _owned(waiting)
    revoked = await _send(coordinator, _beat("m1", 2, {FOO: [0, 1], BAR: [0]}))
    assert revoked.member_epoch == 3
    assigned = await _send(coordinator, _beat("m2", 3, {}))
    assert (assigned.member_epoch, _owned(assigned)) == (3, {FOO: [2], BAR: [1]})
    assert coordinator.group("g").state().value == "Stable"
    await coordinator.stop()


async def test_epochs_are_fenced_both_ways_and_a_lost_answer_may_be_retried_with_the_previous_epoch():
    coordinator = _coordinator(MockTime(), Log())
    await _send(coordinator, _join("m1", ["foo"]))
    ahead = await _send(coordinator, _beat("m1", 7, {FOO: [0, 1, 2]}))
    assert ahead.error_code == Errors.FENCED_MEMBER_EPOCH
    assert ahead.error_message == (
        "The consumer group member has a greater member epoch (7) than the one known by the group "
        "coordinator (2). The member must abandon all its partitions and rejoin."
    )
    await _send(coordinator, _join("m2", ["foo"]))  # group epoch 3, m1 must revoke
    await _send(coordinator, _beat("m1", 2, {FOO: [0, 1, 2]}))
    acked = await _send(coordinator, _beat("m1", 2, {FOO: [0, 1]}))
    assert acked.member_epoch == 3
    retried = await _send(coordinator, _beat("m1", 2, {FOO: [0, 1]}))  # the answer was lost
    assert retried.error_code == Errors.NONE and retried.member_epoch == 3
    behind = await _send(coordinator, _beat("m1", 1, {FOO: [0, 1]}))
    assert (
        behind.error_code == Errors.FENCED_MEMBER_EPOCH and "smaller member epoch (1)" in behind.error_message
    )
    await coordinator.stop()


async def test_unknown_group_and_unknown_member():
    coordinator = _coordinator(MockTime(), Log())
    missing = await _send(coordinator, _beat("m1", 5, {}))
    assert (missing.error_code, missing.error_message) == (
        Errors.GROUP_ID_NOT_FOUND,
        "Consumer group g not found.",
    )
    await _send(coordinator, _join("m1", ["foo"]))
    stranger = await _send(coordinator, _beat("m9", 2, {}))
    assert (stranger.error_code, stranger.error_message) == (
        Errors.UNKNOWN_MEMBER_ID,
        "Member m9 is not a member of group g.",
    )
    invalid = await _send(coordinator, _join("", ["foo"]))
    assert (invalid.error_code, invalid.error_message) == (Errors.INVALID_REQUEST, "MemberId can't be empty.")
    await coordinator.stop()


async def test_a_leave_removes_the_member_and_bumps_the_epoch():
    log = Log()
    coordinator = _coordinator(MockTime(), log)
    await _send(coordinator, _join("m1", ["foo"]))
    await _send(coordinator, _join("m2", ["foo"]))
    left = await _send(coordinator, _beat("m2", -1))
    assert (left.error_code, left.member_id, left.member_epoch) == (Errors.NONE, "m2", -1)
    group = coordinator.group("g")
    assert list(group.members) == ["m1"] and group.group_epoch == 4
    tail = [(type(k).__name__, v is None) for k, v in log.decoded()[-4:]]
    assert tail == [
        ("ConsumerGroupCurrentMemberAssignmentKey", True),
        ("ConsumerGroupTargetAssignmentMemberKey", True),
        ("ConsumerGroupMemberMetadataKey", True),
        ("ConsumerGroupMetadataKey", False),
    ]
    await coordinator.stop()


async def test_a_static_member_leaves_for_a_while_and_comes_back_with_its_partitions():
    coordinator = _coordinator(MockTime(), Log())
    joined = await _send(coordinator, _join("m1", ["foo"], instance_id="i1"))
    assert _owned(joined) == {FOO: [0, 1, 2]}
    away = await _send(coordinator, _beat("m1", -2, instance_id="i1"))
    assert (away.member_id, away.member_epoch) == ("m1", -2)
    taken = await _send(coordinator, _join("m2", ["foo"], instance_id="i2"))
    assert taken.error_code == Errors.NONE
    owner = await _send(coordinator, _join("m3", ["foo"], instance_id="i2"))
    assert owner.error_code == Errors.UNRELEASED_INSTANCE_ID
    back = await _send(coordinator, _join("m1b", ["foo"], instance_id="i1"))
    assert back.error_code == Errors.NONE and back.member_id == "m1b"
    group = coordinator.group("g")
    assert "m1" not in group.members and group.static_member_id("i1") == "m1b"
    await coordinator.stop()


async def test_a_member_whose_session_expires_is_fenced():
    time = MockTime()
    coordinator = _coordinator(time, Log(), session_timeout_ms=45000)
    await _send(coordinator, _join("m1", ["foo"]))
    await _send(coordinator, _join("m2", ["foo"]))
    time.advance(30000)
    await _send(coordinator, _beat("m1", 2, {FOO: [0, 1, 2]}))  # m1 renews its session, m2 does not
    time.advance(15001)
    for _ in range(5):
        await asyncio.sleep(0)
    group = coordinator.group("g")
    assert list(group.members) == ["m1"]
    time.advance(30000)
    for _ in range(5):
        await asyncio.sleep(0)
    assert coordinator.group("g").num_members() == 0
    await coordinator.stop()


async def test_a_failed_write_changes_nothing_and_answers_as_kafka_maps_it():
    log = Log()
    coordinator = _coordinator(MockTime(), log)
    await _send(coordinator, _join("m1", ["foo"]))
    log.fail_with = Errors.NOT_ENOUGH_REPLICAS
    failed = await _send(coordinator, _join("m2", ["foo"]))
    assert (failed.error_code, failed.error_message) == (Errors.COORDINATOR_NOT_AVAILABLE, None)
    group = coordinator.group("g")
    assert list(group.members) == ["m1"] and group.group_epoch == 2
    log.fail_with = Errors.NOT_LEADER_OR_FOLLOWER
    assert (await _send(coordinator, _join("m2", ["foo"]))).error_code == Errors.NOT_COORDINATOR
    await coordinator.stop()


async def test_a_reload_from_the_written_records_gives_the_same_groups():
    log = Log()
    coordinator = _coordinator(MockTime(), log)
    await _send(coordinator, _join("m1", ["foo", "bar"]))
    await _send(coordinator, _join("m2", ["foo"], instance_id="i2"))
    await _send(coordinator, _beat("m1", 2, {FOO: [0, 1, 2], BAR: [0, 1]}))
    reloaded = _coordinator(MockTime(), log)
    reloaded.on_loaded({"g": log.decoded()})
    before, after = coordinator.group("g"), reloaded.group("g")
    assert dict(after.members) == dict(before.members)
    assert dict(after.target_assignment) == dict(before.target_assignment)
    assert (after.group_epoch, after.assignment_epoch, after.state()) == (
        before.group_epoch,
        before.assignment_epoch,
        before.state(),
    )
    await coordinator.stop()
    await reloaded.stop()


async def test_the_assignment_interval_defers_a_new_target():
    time = MockTime()
    coordinator = _coordinator(time, Log(), assignment_interval_ms=1000)
    await _send(coordinator, _join("m1", ["foo"]))
    early = await _send(coordinator, _join("m2", ["foo"]))
    # the target of epoch 2 is under a second old: m2 reconciles towards it (nothing for m2) at epoch 2
    assert (early.member_epoch, _owned(early)) == (2, {})
    assert coordinator.group("g").state().value == "Assigning"
    time.advance(1000)
    later = await _send(coordinator, _beat("m2", 2, {}))
    # the new target (epoch 3) gives m2 partitions m1 still owns: m2 moves to epoch 3 holding nothing yet
    assert later.member_epoch == 3 and not _owned(later)
    assert coordinator.group("g").assignment_epoch == 3
    await coordinator.stop()


async def test_describe_reports_the_group_and_its_members():
    coordinator = _coordinator(MockTime(), Log())
    await _send(coordinator, _join("m1", ["foo"]))
    response = coordinator.describe(ConsumerGroupDescribeRequest(group_ids=["g", "missing", ""]), 1)
    by_id = {g.group_id: g for g in response.groups}
    g = by_id["g"]
    assert (g.error_code, g.group_state, g.group_epoch, g.assignment_epoch, g.assignor_name) == (
        0,
        "Stable",
        2,
        2,
        "range",
    )
    (member,) = g.members
    assert (member.member_id, member.member_type, member.client_host) == ("m1", 1, "/127.0.0.1")
    assert [(tp.topic_name, tp.partitions) for tp in member.assignment.topic_partitions] == [
        ("foo", [0, 1, 2])
    ]
    assert (by_id["missing"].error_code, by_id["missing"].error_message) == (
        Errors.GROUP_ID_NOT_FOUND,
        "Group missing not found.",
    )
    assert by_id[""].error_code == Errors.INVALID_GROUP_ID
    await coordinator.stop()


@pytest.mark.parametrize("epoch", [0, 3])
async def test_not_coordinator_is_answered_with_kafkas_default_message(epoch):
    log = Log()
    settings = ConsumerGroupSettings(assignors=new_assignors(["uniform", "range"]))
    coordinator = new_coordinator(MockTime(), log, _topics(), settings, Errors.NOT_COORDINATOR)
    request = _join("m1", ["foo"]) if epoch == 0 else _beat("m1", epoch, {})
    response = await _send(coordinator, request)
    assert (response.error_code, response.error_message) == (
        Errors.NOT_COORDINATOR,
        "This is not the correct coordinator.",
    )
    await coordinator.stop()
