"""BrokerRegistration handler: a broker joins the cluster through the controller."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.broker_registration import BrokerRegistrationRequest, BrokerRegistrationResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: BrokerRegistrationRequest
) -> BrokerRegistrationResponse:
    """Pass to the controller, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return BrokerRegistrationResponse(error_code=Errors.NOT_CONTROLLER)
    return await ctx.controller.controller.register_broker(request)
