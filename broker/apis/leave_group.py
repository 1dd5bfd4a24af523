"""LeaveGroup handler: group membership, at the group's coordinator.

Kafka concept: ``KafkaApis.handleLeaveGroupRequest`` -> ``GroupCoordinator.leave_group``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_membership import LeaveGroupRequest, LeaveGroupResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: LeaveGroupRequest) -> LeaveGroupResponse:
    """Through the GroupCoordinator (NOT_COORDINATOR when this node has none)."""
    if ctx.group_coordinator is None:
        return LeaveGroupResponse(error_code=Errors.NOT_COORDINATOR)
    return await ctx.group_coordinator.leave_group(request)
