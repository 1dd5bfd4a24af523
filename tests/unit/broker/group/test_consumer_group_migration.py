"""KIP-848's online upgrade checks (Kafka's ``validateOnlineUpgrade``): a member of the consumer protocol
joining a non-empty classic group is refused with Kafka's GROUP_ID_NOT_FOUND message when
``group.consumer.migration.policy`` does not enable upgrades, when the group's protocol type is not
"consumer", or when the group is larger than ``group.consumer.max.size``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_group_coordinator import InMemoryGroupMetadataManager, OneTopicMetadataCache, join_request

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_migration import validate_online_upgrade
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.broker.group.group_coordinator_config import ConsumerGroupMigrationPolicy
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatRequest
from kafkette.protocol.errors import Errors

_DISABLED = "Cannot upgrade classic group g to consumer group because online upgrade is disabled."
_NOT_CONSUMER = (
    "Cannot upgrade classic group g to consumer group because the group does not use the consumer "
    "embedded protocol."
)
_TOO_BIG = (
    "Cannot upgrade classic group g to consumer group because the group size exceeds the consumer "
    "group maximum size."
)


def _classic(protocol_type: str | None = "consumer", members: int = 1):
    return SimpleNamespace(
        group_id="g",
        uses_consumer_protocol=protocol_type == "consumer",
        members={f"m{i}": object() for i in range(members)},
    )


def _refusal(group, policy: ConsumerGroupMigrationPolicy, max_size: int = 10) -> tuple[str, str] | None:
    try:
        validate_online_upgrade(group, policy, max_size)
    except ConsumerGroupError as exc:
        return exc.error, exc.message
    return None


@pytest.mark.parametrize(
    ("policy", "refused"),
    [
        (ConsumerGroupMigrationPolicy.DISABLED, True),
        (ConsumerGroupMigrationPolicy.DOWNGRADE, True),
        (ConsumerGroupMigrationPolicy.UPGRADE, False),
        (ConsumerGroupMigrationPolicy.BIDIRECTIONAL, False),
    ],
)
def test_only_the_upgrade_and_bidirectional_policies_allow_an_online_upgrade(policy, refused):
    expected = ("GROUP_ID_NOT_FOUND", _DISABLED) if refused else None
    assert _refusal(_classic(), policy) == expected


def test_a_group_not_of_the_consumer_protocol_type_is_not_upgraded():
    for protocol_type in ("connect", None):
        refusal = _refusal(_classic(protocol_type), ConsumerGroupMigrationPolicy.BIDIRECTIONAL)
        assert refusal == ("GROUP_ID_NOT_FOUND", _NOT_CONSUMER)


def test_a_group_larger_than_the_consumer_group_max_size_is_not_upgraded():
    policy = ConsumerGroupMigrationPolicy.UPGRADE
    assert _refusal(_classic(members=3), policy, max_size=2) == ("GROUP_ID_NOT_FOUND", _TOO_BIG)
    assert _refusal(_classic(members=2), policy, max_size=2) is None


def test_the_policy_is_checked_before_the_protocol_type_and_the_size():
    group = _classic("connect", members=3)
    assert _refusal(group, ConsumerGroupMigrationPolicy.DISABLED, 1) == ("GROUP_ID_NOT_FOUND", _DISABLED)
    assert _refusal(group, ConsumerGroupMigrationPolicy.UPGRADE, 1) == ("GROUP_ID_NOT_FOUND", _NOT_CONSUMER)


def _coordinator(policy: ConsumerGroupMigrationPolicy) -> GroupCoordinator:
    settings = ConsumerGroupSettings(new_assignors(["uniform", "range"]), migration_policy=policy)
    return GroupCoordinator(
        InMemoryGroupMetadataManager(),
        OneTopicMetadataCache(),  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=MockTime()),
        consumer_group_settings=settings,
    )


async def _classic_member(coordinator: GroupCoordinator, protocol_type: str = "consumer") -> None:
    first = await coordinator.handle_join_group(
        join_request("g", protocol_type=protocol_type), "c", "/127.0.0.1"
    )
    await coordinator.handle_join_group(
        join_request("g", first.member_id, protocol_type=protocol_type), "c", "/127.0.0.1"
    )
    assert coordinator._classic_group_state("g") not in (None, "Empty")  # a classic group with a member


async def _heartbeat(coordinator: GroupCoordinator, member_epoch: int = 0):
    request = ConsumerGroupHeartbeatRequest(
        group_id="g",
        member_id="m1",
        member_epoch=member_epoch,
        rebalance_timeout_ms=30000,
        subscribed_topic_names=["t"] if member_epoch == 0 else None,
        topic_partitions=[] if member_epoch == 0 else None,
    )
    answer = await coordinator.consumer_groups.heartbeat(request, 1, "client", "/127.0.0.1")
    return answer.error_code, answer.error_message


async def test_a_joining_consumer_member_is_refused_the_upgrade_when_the_policy_disables_it():
    coordinator = _coordinator(ConsumerGroupMigrationPolicy.DISABLED)
    try:
        await _classic_member(coordinator)
        assert await _heartbeat(coordinator) == (Errors.GROUP_ID_NOT_FOUND, _DISABLED)
        assert coordinator.consumer_groups.group("g") is None
        assert coordinator._classic_group_state("g") not in (None, "Empty")  # left as it was
    finally:
        await coordinator.stop()


async def test_a_joining_consumer_member_is_refused_the_upgrade_of_a_group_of_another_protocol_type():
    coordinator = _coordinator(ConsumerGroupMigrationPolicy.BIDIRECTIONAL)
    try:
        await _classic_member(coordinator, protocol_type="connect")
        assert await _heartbeat(coordinator) == (Errors.GROUP_ID_NOT_FOUND, _NOT_CONSUMER)
    finally:
        await coordinator.stop()


async def test_a_heartbeat_past_the_join_to_a_classic_group_is_told_it_is_not_a_consumer_group():
    coordinator = _coordinator(ConsumerGroupMigrationPolicy.DISABLED)
    try:
        await _classic_member(coordinator)
        assert await _heartbeat(coordinator, member_epoch=3) == (
            Errors.GROUP_ID_NOT_FOUND,
            "Group g is not a consumer group.",
        )
    finally:
        await coordinator.stop()
