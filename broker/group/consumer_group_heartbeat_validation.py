"""The checks a ConsumerGroupHeartbeat request passes before its group is touched (KIP-848).

Owns: Kafka's order of checks and its exact messages: the member id (required from version 1,
KIP-1082, and whenever the member is already in the group or leaving), blank group, instance and rack
ids, what a (re-)join must carry (a rebalance timeout, an empty owned-partitions list, a subscription
by names or by regex), a static leave's instance id, a valid epoch, and a server assignor among
``group.consumer.assignors``.  Does not own the group's own checks (an unknown group or member, a
fenced epoch), which need its state.

Kafka concept: ``GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid`` and
``Utils.throwIfEmptyString``; the error answer carries only the code and the message
(``ApiError.fromThrowable``).
"""

from __future__ import annotations

from typing import Any

from kafkette.common.java_hash_order import java_hash_set_order
from kafkette.protocol.errors import Errors

CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION = 1
"""From this version the consumer generates its member id (KIP-1082) and always sends it."""
JOIN_GROUP_MEMBER_EPOCH = 0
LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
_JAVA_TRIMMED = "".join(chr(c) for c in range(0x21))
"""What Java's ``String.trim`` strips: every code point up to U+0020."""


class HeartbeatRequestError(Exception):
    """A request the coordinator refuses before looking at the group.

    Attributes:
        error: INVALID_REQUEST or UNSUPPORTED_ASSIGNOR.
        message: Kafka's message for it, sent as the response's ``error_message``.
    """

    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message


def _blank(value: str | None) -> bool:
    """Java's ``value != null && value.trim().isEmpty()``."""
    return value is not None and not value.strip(_JAVA_TRIMMED)


def validate_heartbeat_request(request: Any, version: int, assignors: list[str]) -> None:
    """Check a ConsumerGroupHeartbeat request as Kafka does, in Kafka's order.

    Args:
        request: the ``ConsumerGroupHeartbeatRequest`` (its ``group_id``, ``member_id``,
            ``member_epoch``, ``instance_id``, ``rack_id``, ``rebalance_timeout_ms``,
            ``subscribed_topic_names``, ``subscribed_topic_regex``, ``server_assignor``,
            ``topic_partitions``).
        version: the request's API version (0 or 1).
        assignors: the names of ``group.consumer.assignors``.

    Raises:
        HeartbeatRequestError: INVALID_REQUEST or UNSUPPORTED_ASSIGNOR, with Kafka's message.
    """
    epoch = request.member_epoch
    if (
        version >= CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION
        or epoch > 0
        or epoch == LEAVE_GROUP_MEMBER_EPOCH
    ):
        _refuse_blank(request.member_id, "MemberId can't be empty.")
    _refuse_blank(request.group_id, "GroupId can't be empty.")
    _refuse_blank(request.instance_id, "InstanceId can't be empty.")
    _refuse_blank(request.rack_id, "RackId can't be empty.")
    if epoch == JOIN_GROUP_MEMBER_EPOCH:
        if request.rebalance_timeout_ms == -1:
            _invalid("RebalanceTimeoutMs must be provided in first request.")
        if request.topic_partitions is None or request.topic_partitions:
            _invalid("TopicPartitions must be empty when (re-)joining.")
        if (
            request.subscribed_topic_names is None
            and getattr(request, "subscribed_topic_regex", None) is None
        ):
            _invalid(
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."
            )
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if request.instance_id is None:
            _invalid("InstanceId can't be null.")
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        _invalid("MemberEpoch is invalid.")
    if request.server_assignor is not None and request.server_assignor not in assignors:
        raise HeartbeatRequestError(
            Errors.UNSUPPORTED_ASSIGNOR,
            f"ServerAssignor {request.server_assignor} is not supported. Supported assignors: "
            f"{', '.join(java_hash_set_order(assignors))}.",
        )


def _refuse_blank(value: str | None, message: str) -> None:
    if _blank(value):
        _invalid(message)


def _invalid(message: str) -> None:
    raise HeartbeatRequestError(Errors.INVALID_REQUEST, message)
