"""Regex subscriptions of KIP-848 consumer groups: RE2 checking with Kafka's message, full-match
resolution over every topic, and through ConsumerGroupCoordinator (an in-memory log, a manual clock): a
regex join resolved in the background (RegularExpression record, then an epoch bump and the assignment),
a topic created later joining the assignment after the 10 s batch interval (not before), a second member
of a resolved regex bumping the epoch at once, the last user's change or leave tombstoning the regex, an
invalid regex refused, a reload from the records, shutdown cancelling a running resolution, and the
broker's ``group.consumer.regex.refresh.interval.ms`` resolving a regex again once its resolution is older."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from consumer_group_fakes import Log, Topics, new_coordinator

from kafkette.broker.config import KafkaConfig
from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_coordinator import ConsumerGroupCoordinator
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_records import (
    ConsumerGroupMetadataKey,
    ConsumerGroupRegularExpressionKey,
)
from kafkette.broker.group.consumer_group_regex import (
    REGEX_BATCH_REFRESH_MIN_INTERVAL_MS,
    compile_regular_expression,
    resolve_regular_expressions,
)
from kafkette.broker.group.consumer_group_settings import consumer_group_settings
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.common.clock import MockTime
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatRequest
from kafkette.protocol.errors import Errors

ORDERS_1 = bytes(range(1, 17))
ORDERS_2 = bytes(range(17, 33))
OTHER = bytes(range(33, 49))


def _topics() -> Topics:
    """orders-1 (2 partitions) and other (1)."""
    return Topics({"orders-1": (ORDERS_1, 2), "other": (OTHER, 1)})


def _coordinator(
    time: MockTime, log: Log, topics: Topics, settings: ConsumerGroupSettings | None = None
) -> ConsumerGroupCoordinator:
    return new_coordinator(
        time,
        log,
        topics,
        settings
        or ConsumerGroupSettings(assignors=new_assignors(["uniform", "range"]), assignment_interval_ms=0),
    )


def _join(
    member_id: str, regex: str | None = None, names: list[str] | None = None
) -> ConsumerGroupHeartbeatRequest:
    return ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id=member_id,
        member_epoch=0,
        rebalance_timeout_ms=60000,
        subscribed_topic_names=names,
        subscribed_topic_regex=regex,
        topic_partitions=[],
    )


def _beat(member_id: str, epoch: int, **fields: Any) -> ConsumerGroupHeartbeatRequest:
    return ConsumerGroupHeartbeatRequest(group_id="g", member_id=member_id, member_epoch=epoch, **fields)


async def _send(coordinator: ConsumerGroupCoordinator, request: ConsumerGroupHeartbeatRequest):
    return await coordinator.heartbeat(request, 1, "client", "/127.0.0.1")


async def _resolutions_done(coordinator: ConsumerGroupCoordinator) -> None:
    """Let the background resolutions run (bounded)."""
    for _ in range(100):
        await asyncio.sleep(0)
        if not coordinator._regex_tasks:
            return
    raise AssertionError("regex resolution did not finish")


def _assigned(response) -> dict[bytes, list[int]]:
    assert response.assignment is not None
    return {tp.topic_id: sorted(tp.partitions) for tp in response.assignment.topic_partitions}


def test_an_invalid_regex_gets_kafkas_message_with_re2s_description():
    with pytest.raises(ConsumerGroupError) as raised:
        compile_regular_expression("orders-(")
    assert raised.value.error == "INVALID_REGULAR_EXPRESSION"
    assert raised.value.message == (
        "SubscribedTopicRegex `orders-(` is not a valid regular expression: missing ): orders-(."
    )


def test_resolution_is_a_full_match_over_every_topic_internal_ones_included():
    names = ["orders-1", "xorders-1", "orders", "__consumer_offsets", "orders-2-dlq"]
    resolved = resolve_regular_expressions(["orders-.*", "orders-[0-9]", "__.*", "("], names)
    assert resolved == {
        "orders-.*": frozenset({"orders-1", "orders-2-dlq"}),
        "orders-[0-9]": frozenset({"orders-1"}),
        "__.*": frozenset({"__consumer_offsets"}),
        "(": frozenset(),
    }


async def test_a_regex_join_is_resolved_in_the_background_then_assigned():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    response = await _send(coordinator, _join("m1", regex="orders-.*"))
    assert response.error_code == Errors.NONE
    assert _assigned(response) == {}  # an unresolved regex matches no topic
    group = coordinator.group("g")
    epoch = group.group_epoch
    await _resolutions_done(coordinator)
    assert group.resolved_regexes["orders-.*"].topics == frozenset({"orders-1"})
    regex_records = log.regex_records()
    assert [(r, v.topics, v.timestamp) for r, v in regex_records] == [
        ("orders-.*", ("orders-1",), time.milliseconds())
    ]
    last_two = [type(k) for k, _ in log.decoded()[-2:]]
    assert last_two == [ConsumerGroupRegularExpressionKey, ConsumerGroupMetadataKey]
    assert group.group_epoch == epoch + 1
    response = await _send(coordinator, _beat("m1", response.member_epoch))
    assert (response.member_epoch, _assigned(response)) == (epoch + 1, {ORDERS_1: [0, 1]})
    await coordinator.stop()


async def test_a_topic_created_later_is_added_after_the_batch_interval():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    response = await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    response = await _send(coordinator, _beat("m1", response.member_epoch))
    epoch = response.member_epoch
    assert epoch == coordinator.group("g").group_epoch
    topics.create("orders-2", ORDERS_2, 1)
    coordinator.on_topics_changed({"orders-2"})
    time.advance(1000)
    await _send(coordinator, _beat("m1", epoch))
    assert not coordinator._regex_tasks  # within REGEX_BATCH_REFRESH_MIN_INTERVAL_MS of the last resolution
    time.advance(REGEX_BATCH_REFRESH_MIN_INTERVAL_MS)
    await _send(coordinator, _beat("m1", epoch))
    await _resolutions_done(coordinator)
    assert coordinator.group("g").resolved_regexes["orders-.*"].topics == frozenset({"orders-1", "orders-2"})
    assert coordinator.group("g").group_epoch == epoch + 1
    response = await _send(coordinator, _beat("m1", epoch))
    assert (response.member_epoch, _assigned(response)) == (epoch + 1, {ORDERS_1: [0, 1], ORDERS_2: [0]})
    await coordinator.stop()


async def test_no_refresh_without_new_topics_before_the_refresh_interval():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    records = len(log.records)
    time.advance(2 * REGEX_BATCH_REFRESH_MIN_INTERVAL_MS)
    await _send(coordinator, _beat("m1", 0))
    assert not coordinator._regex_tasks
    assert not log.regex_records()[records:]
    await coordinator.stop()


async def test_the_brokers_regex_refresh_interval_refreshes_a_resolution_without_new_topics():
    config = KafkaConfig(
        {
            "node.id": "1",
            "group.consumer.regex.refresh.interval.ms": "10000",
            "group.consumer.assignment.interval.ms": "0",
        }
    )
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics, consumer_group_settings(config))
    response = await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    response = await _send(coordinator, _beat("m1", response.member_epoch))
    first = log.regex_records()
    time.advance(10000)
    await _send(coordinator, _beat("m1", response.member_epoch))
    assert not coordinator._regex_tasks  # not yet more than the interval old
    time.advance(1)
    await _send(coordinator, _beat("m1", response.member_epoch))
    assert coordinator._regex_tasks
    await _resolutions_done(coordinator)
    refreshed = log.regex_records()[len(first) :]
    assert [(r, v.topics, v.timestamp) for r, v in refreshed] == [
        ("orders-.*", ("orders-1",), time.milliseconds())
    ]
    await coordinator.stop()


async def test_a_second_member_of_a_resolved_regex_bumps_the_epoch_at_once():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    epoch = coordinator.group("g").group_epoch
    response = await _send(coordinator, _join("m2", regex="orders-.*"))
    assert response.error_code == Errors.NONE
    assert coordinator.group("g").group_epoch == epoch + 1
    assert not coordinator._regex_tasks
    await coordinator.stop()


async def test_the_last_users_change_tombstones_the_regex_and_bumps_the_epoch():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    response = await _send(coordinator, _beat("m1", 1))
    epoch = coordinator.group("g").group_epoch
    response = await _send(coordinator, _beat("m1", response.member_epoch, subscribed_topic_regex=""))
    assert response.error_code == Errors.NONE
    assert log.regex_records()[-1] == ("orders-.*", None)
    group = coordinator.group("g")
    assert group.resolved_regexes == {}
    assert group.group_epoch == epoch + 1  # REGEX_UPDATED_AND_RESOLVED
    await coordinator.stop()


async def test_the_last_users_leave_tombstones_the_regex():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    await _send(coordinator, _join("m2", regex="orders-.*"))
    await _send(coordinator, _beat("m1", -1))
    assert log.regex_records()[-1][1] is not None  # m2 still uses it
    await _send(coordinator, _beat("m2", -1))
    assert log.regex_records()[-1] == ("orders-.*", None)
    assert coordinator.group("g").resolved_regexes == {}
    await coordinator.stop()


async def test_an_invalid_regex_is_refused_and_writes_nothing():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    response = await _send(coordinator, _join("m1", regex="[a-"))
    assert response.error_code == Errors.INVALID_REGULAR_EXPRESSION
    assert response.error_message.startswith("SubscribedTopicRegex `[a-` is not a valid regular expression: ")
    assert log.records == []
    assert coordinator.group("g") is None
    await coordinator.stop()


async def test_a_reload_keeps_the_resolved_regex():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    await _resolutions_done(coordinator)
    reloaded = _coordinator(time, log, topics)
    reloaded.on_loaded({"g": log.decoded()})
    assert reloaded.group("g").resolved_regexes == coordinator.group("g").resolved_regexes
    assert reloaded.group("g").is_subscribed_to_topic("orders-1")
    await coordinator.stop()
    await reloaded.stop()


async def test_stop_cancels_a_running_resolution():
    time, log, topics = MockTime(), Log(), _topics()
    coordinator = _coordinator(time, log, topics)
    await _send(coordinator, _join("m1", regex="orders-.*"))
    assert coordinator._regex_tasks
    await coordinator.stop()
    assert not coordinator._regex_tasks
    assert log.regex_records() == []


def test_resolution_leaves_out_the_topics_the_member_may_not_describe():
    asked: list[tuple[str, int]] = []

    def may_describe(topic: str, ref_count: int) -> bool:
        asked.append((topic, ref_count))
        return topic != "orders-secret"

    names = ["orders-1", "orders-secret", "payments"]
    resolved = resolve_regular_expressions(["orders-.*", ".*s.*"], names, may_describe)
    assert resolved == {"orders-.*": frozenset({"orders-1"}), ".*s.*": frozenset({"orders-1", "payments"})}
    assert sorted(asked) == [("orders-1", 2), ("orders-secret", 2), ("payments", 1)]  # each topic once
