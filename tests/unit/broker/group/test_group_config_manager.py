"""GroupConfigManager (Kafka's ``GroupConfigManager`` with ``GroupConfig.evaluate``) and the consumer group
coordinator applying a group's overrides: the heartbeat interval it answers, the session timeout that
fences a silent member, and the assignment interval; the broker's values for groups without overrides."""

from __future__ import annotations

import asyncio
import logging

import pytest
from consumer_group_fakes import Log
from test_consumer_group_coordinator import _beat, _join, _owned, _send, _topics

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_coordinator import ConsumerGroupCoordinator
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.group_config_manager import GroupConfig, GroupConfigManager
from kafkette.common.clock import MockTime
from kafkette.protocol.errors import Errors

BOUNDS = {
    "consumer.session.timeout.ms": (6000, 60000),
    "consumer.heartbeat.interval.ms": (1000, 15000),
    "consumer.assignment.interval.ms": (0, 15000),
}
SETTINGS = ConsumerGroupSettings(
    new_assignors(["uniform", "range"]),
    session_timeout_ms=45000,
    heartbeat_interval_ms=5000,
    assignment_interval_ms=0,
)


def test_a_group_has_a_config_while_it_has_overrides_and_unset_ones_are_the_brokers() -> None:
    manager = GroupConfigManager(BOUNDS)
    assert manager.group_config("g") is None
    assert manager.consumer_group_settings("g", SETTINGS) is SETTINGS
    manager.update_group_config(
        "g", {"consumer.heartbeat.interval.ms": "2000", "share.delivery.count.limit": "3"}
    )
    assert manager.group_config("g") == GroupConfig(consumer_heartbeat_interval_ms=2000)
    settings = manager.consumer_group_settings("g", SETTINGS)
    assert (settings.heartbeat_interval_ms, settings.session_timeout_ms, settings.assignment_interval_ms) == (
        2000,
        45000,
        0,
    )
    assert manager.consumer_group_settings("other", SETTINGS) is SETTINGS
    manager.update_group_config("g", {})
    assert manager.group_config("g") is None and manager.group_ids() == []


def test_values_outside_the_brokers_bounds_are_capped_with_a_warning(caplog) -> None:
    manager = GroupConfigManager(BOUNDS, broker_session_timeout_ms=45000, broker_heartbeat_interval_ms=5000)
    with caplog.at_level(logging.WARNING):
        manager.update_group_config(
            "g", {"consumer.session.timeout.ms": "90000", "consumer.heartbeat.interval.ms": "10"}
        )
    assert manager.group_config("g") == GroupConfig(
        consumer_session_timeout_ms=60000, consumer_heartbeat_interval_ms=1000
    )
    assert "exceeds the broker's allowed maximum 60000" in caplog.text
    assert "below the broker's allowed minimum 1000" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        manager.update_group_config(
            "h", {"consumer.heartbeat.interval.ms": "15000", "consumer.session.timeout.ms": "6000"}
        )
    assert "is not greater than consumer.heartbeat.interval.ms (15000)" in caplog.text


def test_a_full_update_drops_the_groups_it_does_not_list_and_an_empty_id_is_refused() -> None:
    manager = GroupConfigManager(BOUNDS)
    manager.update_group_configs({"a": {"consumer.session.timeout.ms": "7000"}, "b": {}}, full=False)
    manager.update_group_configs({"c": {"consumer.assignment.interval.ms": "0"}}, full=False)
    assert sorted(manager.group_ids()) == ["a", "c"]
    manager.update_group_configs({"c": {"consumer.assignment.interval.ms": "500"}}, full=True)
    assert manager.group_ids() == ["c"]
    assert manager.group_config("c") == GroupConfig(consumer_assignment_interval_ms=500)
    with pytest.raises(ValueError, match="Group name can't be empty."):
        manager.update_group_config("", {"consumer.session.timeout.ms": "7000"})


def _coordinator(time: MockTime, manager: GroupConfigManager) -> ConsumerGroupCoordinator:
    return ConsumerGroupCoordinator(
        partition_for=lambda group_id: 0,
        coordinator_error=lambda group_id: Errors.NONE,
        append=Log().append,
        topics=_topics(),
        settings=SETTINGS,
        time=time,
        group_configs=manager,
    )


async def test_the_heartbeat_interval_is_the_groups_override_and_the_brokers_without_one() -> None:
    manager = GroupConfigManager(BOUNDS)
    coordinator = _coordinator(MockTime(), manager)
    assert (await _send(coordinator, _join("m1", ["foo"]))).heartbeat_interval_ms == 5000
    manager.update_group_config("g", {"consumer.heartbeat.interval.ms": "1500"})
    assert (await _send(coordinator, _beat("m1", 2))).heartbeat_interval_ms == 1500
    manager.update_group_config("g", {})
    assert (await _send(coordinator, _beat("m1", 2))).heartbeat_interval_ms == 5000
    await coordinator.stop()


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_the_session_timeout_that_fences_a_member_is_the_groups_override() -> None:
    time = MockTime()
    manager = GroupConfigManager(BOUNDS)
    manager.update_group_config("g", {"consumer.session.timeout.ms": "10000"})
    coordinator = _coordinator(time, manager)
    await _send(coordinator, _join("m1", ["foo"]))
    time.advance(9999)
    await _settle()
    assert coordinator.group("g").num_members() == 1
    time.advance(1)
    await _settle()
    assert coordinator.group("g").num_members() == 0
    await coordinator.stop()


async def test_the_assignment_interval_is_the_groups_override() -> None:
    time = MockTime()
    manager = GroupConfigManager(BOUNDS)
    manager.update_group_config("g", {"consumer.assignment.interval.ms": "1000"})
    coordinator = _coordinator(time, manager)  # the broker's interval is 0
    await _send(coordinator, _join("m1", ["foo"]))
    early = await _send(coordinator, _join("m2", ["foo"]))
    assert (early.member_epoch, _owned(early)) == (2, {})  # the target of epoch 2 is under 1000 ms old
    time.advance(1000)
    assert (await _send(coordinator, _beat("m2", 2, {}))).member_epoch == 3
    await coordinator.stop()
