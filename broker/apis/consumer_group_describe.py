"""ConsumerGroupDescribe handler: KIP-848 consumer groups as administrators see them, at their coordinator.

Kafka concept: ``KafkaApis.handleConsumerGroupDescribe`` -> ``GroupCoordinator.consumerGroupDescribe``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.consumer_group_heartbeat import consumer_protocol_enabled
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeGroup,
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


def _every_group(request: ConsumerGroupDescribeRequest, error: Errors) -> ConsumerGroupDescribeResponse:
    return ConsumerGroupDescribeResponse(
        groups=[ConsumerGroupDescribeGroup(group_id=g, error_code=error) for g in request.group_ids]
    )


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ConsumerGroupDescribeRequest
) -> ConsumerGroupDescribeResponse:
    """Through the group coordinator's consumer groups; every group UNSUPPORTED_VERSION while the consumer
    protocol is off, NOT_COORDINATOR when this node has no coordinator."""
    if not consumer_protocol_enabled(ctx.config):
        return _every_group(request, Errors.UNSUPPORTED_VERSION)
    if ctx.group_coordinator is None:
        return _every_group(request, Errors.NOT_COORDINATOR)
    return ctx.group_coordinator.consumer_groups.describe(request, header.api_version)
