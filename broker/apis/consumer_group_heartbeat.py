"""ConsumerGroupHeartbeat handler: a member of a KIP-848 consumer group joins, heartbeats or leaves, at the
group's coordinator.

Answers UNSUPPORTED_VERSION while the consumer protocol is off (``group.coordinator.rebalance.protocols``
without ``consumer``, or ``group.version`` below 1), as Kafka's ``isConsumerGroupProtocolEnabled``.

With an authorizer, a regex subscription resolves to the topics the heartbeating member may DESCRIBE
(Kafka's ``TopicRegexResolver``, given the heartbeat's request context).

Kafka concept: ``KafkaApis.handleConsumerGroupHeartbeat`` -> ``GroupCoordinator.consumerGroupHeartbeat``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize, authorizer_of
from kafkette.broker.broker_features import FINALIZED_FEATURES, GROUP_VERSION, GROUP_VERSION_CONSUMER_PROTOCOL
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext
    from kafkette.broker.config import KafkaConfig

CONSUMER_PROTOCOL = "consumer"


def consumer_protocol_enabled(config: KafkaConfig) -> bool:
    """Whether this broker serves the consumer group protocol (Kafka's
    ``KafkaApis.isConsumerGroupProtocolEnabled``)."""
    protocols = [p.strip().lower() for p in config.group_coordinator_rebalance_protocols]
    return (
        CONSUMER_PROTOCOL in protocols
        and FINALIZED_FEATURES.get(GROUP_VERSION, 0) >= GROUP_VERSION_CONSUMER_PROTOCOL
    )


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ConsumerGroupHeartbeatRequest
) -> ConsumerGroupHeartbeatResponse:
    """Through the group coordinator's consumer groups (NOT_COORDINATOR when this node has none)."""
    if not consumer_protocol_enabled(ctx.config):
        error = Errors.UNSUPPORTED_VERSION
        return ConsumerGroupHeartbeatResponse(error_code=error, error_message=default_message(error))
    if ctx.group_coordinator is None:
        return ConsumerGroupHeartbeatResponse(error_code=Errors.NOT_COORDINATOR)
    client_host = f"/{header.client_address}" if header.client_address else ""
    return await ctx.group_coordinator.consumer_groups.heartbeat(
        request, header.api_version, header.client_id or "", client_host, _describe_check(ctx, header)
    )


def _describe_check(ctx: ApisContext, header: RequestHeader) -> Callable[[str, int], bool] | None:
    """With an authorizer, ``(topic, reference count) -> whether the member may DESCRIBE it`` for its
    regex resolution (a denial is not logged as asked for: Kafka's ``logIfDenied=false``); None
    without one."""
    if authorizer_of(ctx) is None:
        return None

    def may_describe(topic: str, ref_count: int) -> bool:
        return authorize(
            ctx,
            header,
            AclOperation.DESCRIBE,
            ResourceType.TOPIC,
            topic,
            log_if_denied=False,
            ref_count=ref_count,
        )

    return may_describe
