"""BrokerHeartbeat handler: keeps a broker's session alive at the controller."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.broker_registration import BrokerHeartbeatRequest, BrokerHeartbeatResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: BrokerHeartbeatRequest
) -> BrokerHeartbeatResponse:
    """Pass to the controller, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return BrokerHeartbeatResponse(error_code=Errors.NOT_CONTROLLER, is_fenced=False)
    return await ctx.controller.controller.broker_heartbeat(request)
