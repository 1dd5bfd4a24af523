"""Heartbeat handler: group membership, at the group's coordinator.

Kafka concept: ``KafkaApis.handleHeartbeatRequest`` -> ``GroupCoordinator.handle_heartbeat``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_membership import HeartbeatRequest, HeartbeatResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: HeartbeatRequest) -> HeartbeatResponse:
    """Through the GroupCoordinator (NOT_COORDINATOR when this node has none)."""
    if ctx.group_coordinator is None:
        return HeartbeatResponse(error_code=Errors.NOT_COORDINATOR)
    return ctx.group_coordinator.handle_heartbeat(request)
