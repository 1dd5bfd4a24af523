"""Offset expiry of KIP-848 consumer groups on the coordinator (Kafka's ``cleanupGroupMetadata`` with
``OffsetMetadataManager.cleanupExpiredOffsets`` and ``GroupMetadataManager.maybeDeleteGroup``): offsets
of topics the group does not subscribe to expire by commit time even while it has members, subscribed
topics' offsets stay while it has members, and an Empty group left without offsets is deleted."""

from __future__ import annotations

import pytest
from test_group_coordinator import TOPIC, InMemoryGroupMetadataManager, OneTopicMetadataCache

from kafkette.broker.group.consumer_group_records import ConsumerGroupMetadataKey
from kafkette.broker.group.coordinator_records import OffsetCommitValue, decode_key
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

HOUR = 3_600_000
SUBSCRIBED, UNSUBSCRIBED = TopicPartition(TOPIC, 0), TopicPartition("payments", 0)


@pytest.fixture
async def coordinator():
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=MockTime()),
        offsets_retention_ms=HOUR,
    )
    yield coordinator
    await coordinator.stop()


async def _heartbeat(coordinator: GroupCoordinator, epoch: int) -> int:
    request = ConsumerGroupHeartbeatRequest(
        group_id="modern", member_id="m1", member_epoch=epoch, rebalance_timeout_ms=30000, topic_partitions=[]
    )
    if epoch == 0:
        request.subscribed_topic_names = [TOPIC]
    answer = await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")
    return answer.error_code


def _commit_at(coordinator: GroupCoordinator, commit_timestamp: int, *partitions: TopicPartition) -> None:
    offsets = coordinator.manager.offsets.setdefault("modern", {})  # type: ignore[attr-defined]
    for tp in partitions:
        offsets[tp] = OffsetCommitValue(3, commit_timestamp=commit_timestamp)


def _offsets(coordinator: GroupCoordinator) -> list[TopicPartition]:
    return sorted(coordinator.manager.fetch_offsets("modern", None))


async def test_unsubscribed_topics_expire_by_commit_time_while_the_group_has_members(coordinator):
    assert await _heartbeat(coordinator, 0) == Errors.NONE
    _commit_at(coordinator, 0, SUBSCRIBED, UNSUBSCRIBED)
    assert await coordinator.expire_offsets(HOUR - 1) == 0
    assert await coordinator.expire_offsets(HOUR) == 1
    assert _offsets(coordinator) == [SUBSCRIBED]
    assert await coordinator.expire_offsets(10 * HOUR) == 0  # subscribed: kept while the group has members
    assert _offsets(coordinator) == [SUBSCRIBED]
    assert coordinator.consumer_groups.group("modern") is not None


async def test_an_empty_group_is_deleted_with_its_tombstones_once_its_last_offset_expires(coordinator):
    assert await _heartbeat(coordinator, 0) == Errors.NONE
    _commit_at(coordinator, 0, SUBSCRIBED)
    assert await _heartbeat(coordinator, -1) == Errors.NONE
    _commit_at(coordinator, HOUR, UNSUBSCRIBED)
    assert await coordinator.expire_offsets(HOUR + 1) == 1  # Empty: every topic is unsubscribed
    assert _offsets(coordinator) == [UNSUBSCRIBED]
    assert coordinator.consumer_groups.group("modern") is not None  # an offset is left
    written = len(coordinator.manager.records)  # type: ignore[attr-defined]
    assert await coordinator.expire_offsets(2 * HOUR) == 1
    assert _offsets(coordinator) == []
    assert coordinator.consumer_groups.group("modern") is None
    tombstones = coordinator.manager.records[written:]  # type: ignore[attr-defined]
    assert tombstones and all(value is None for _, value in tombstones)
    assert decode_key(tombstones[-1][0]) == ConsumerGroupMetadataKey("modern")


async def test_an_empty_group_without_offsets_is_deleted_and_one_with_members_is_not(coordinator):
    assert await _heartbeat(coordinator, 0) == Errors.NONE
    assert await coordinator.expire_offsets(HOUR) == 0
    assert coordinator.consumer_groups.group("modern") is not None
    assert await _heartbeat(coordinator, -1) == Errors.NONE
    assert await coordinator.expire_offsets(HOUR) == 0
    assert coordinator.consumer_groups.group("modern") is None
