"""ConsumerGroupHeartbeat's request checks, in Kafka's order and with Kafka's messages
(``GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid``), and the order Kafka lists
the supported assignors in (a Java ``HashSet``)."""

from __future__ import annotations

import pytest

from kafkette.broker.group.consumer_group_heartbeat_validation import (
    HeartbeatRequestError,
    validate_heartbeat_request,
)
from kafkette.common.java_hash_order import java_hash_set_order
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkette.protocol.errors import Errors

ASSIGNORS = ["uniform", "range"]


def _join(**fields) -> ConsumerGroupHeartbeatRequest:
    base = dict(
        group_id="g",
        member_id="m",
        member_epoch=0,
        rebalance_timeout_ms=30000,
        subscribed_topic_names=["t"],
        topic_partitions=[],
    )
    base.update(fields)
    return ConsumerGroupHeartbeatRequest(**base)


def _refusal(request, version: int = 1) -> tuple[Errors, str]:
    with pytest.raises(HeartbeatRequestError) as info:
        validate_heartbeat_request(request, version, ASSIGNORS)
    return info.value.error, info.value.message


@pytest.mark.parametrize("version", [0, 1])
def test_a_well_formed_join_passes(version):
    validate_heartbeat_request(_join(), version, ASSIGNORS)


def test_an_empty_member_id_is_allowed_only_for_a_v0_join():
    validate_heartbeat_request(_join(member_id=""), 0, ASSIGNORS)
    assert _refusal(_join(member_id=""), 1) == (Errors.INVALID_REQUEST, "MemberId can't be empty.")
    heartbeat = _join(member_id=" ", member_epoch=3, rebalance_timeout_ms=-1, subscribed_topic_names=None)
    assert _refusal(heartbeat, 0) == (Errors.INVALID_REQUEST, "MemberId can't be empty.")
    leave = _join(member_id="", member_epoch=-1)
    assert _refusal(leave, 0) == (Errors.INVALID_REQUEST, "MemberId can't be empty.")


def test_the_member_id_is_checked_before_the_group_id():
    assert _refusal(_join(member_id="", group_id="")) == (Errors.INVALID_REQUEST, "MemberId can't be empty.")


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("group_id", "GroupId can't be empty."),
        ("instance_id", "InstanceId can't be empty."),
        ("rack_id", "RackId can't be empty."),
    ],
)
def test_blank_ids_are_refused(field, message):
    assert _refusal(_join(**{field: " \t\n"})) == (Errors.INVALID_REQUEST, message)


def test_a_join_must_carry_a_timeout_empty_owned_partitions_and_a_subscription():
    assert _refusal(_join(rebalance_timeout_ms=-1)) == (
        Errors.INVALID_REQUEST,
        "RebalanceTimeoutMs must be provided in first request.",
    )
    owned = [ConsumerGroupHeartbeatTopicPartitions(topic_id=b"\x01" * 16, partitions=[0])]
    for topic_partitions in (None, owned):
        assert _refusal(_join(topic_partitions=topic_partitions)) == (
            Errors.INVALID_REQUEST,
            "TopicPartitions must be empty when (re-)joining.",
        )
    assert _refusal(_join(subscribed_topic_names=None)) == (
        Errors.INVALID_REQUEST,
        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
    )
    validate_heartbeat_request(_join(subscribed_topic_names=[]), 1, ASSIGNORS)
    validate_heartbeat_request(_join(subscribed_topic_names=None, subscribed_topic_regex=""), 1, ASSIGNORS)


def test_epochs_below_minus_two_and_a_static_leave_without_instance_id_are_refused():
    assert _refusal(_join(member_epoch=-2)) == (Errors.INVALID_REQUEST, "InstanceId can't be null.")
    validate_heartbeat_request(_join(member_epoch=-2, instance_id="i"), 1, ASSIGNORS)
    assert _refusal(_join(member_epoch=-3)) == (Errors.INVALID_REQUEST, "MemberEpoch is invalid.")


def test_an_unknown_server_assignor_names_the_supported_ones_in_java_hash_set_order():
    assert _refusal(_join(server_assignor="sticky")) == (
        Errors.UNSUPPORTED_ASSIGNOR,
        "ServerAssignor sticky is not supported. Supported assignors: uniform, range.",
    )
    validate_heartbeat_request(_join(server_assignor="range"), 1, ASSIGNORS)


def test_java_hash_set_order():
    # "uniform" hashes to bucket 1 and "range" to bucket 9 of a 16-bucket HashSet
    assert java_hash_set_order(["range", "uniform"]) == ["uniform", "range"]
    assert java_hash_set_order(["uniform", "uniform"]) == ["uniform"]
