"""ControlledShutdown handler: a stopping broker asks the controller to move its leaderships.

Forwarded to the controller when this broker runs it (including a request from this
very broker), NOT_CONTROLLER elsewhere.  Kafka concept:
``KafkaApis.handleControlledShutdownRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest, ControlledShutdownResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ControlledShutdownRequest
) -> ControlledShutdownResponse:
    """Let the controller handle the shutdown, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return ControlledShutdownResponse(error_code=Errors.NOT_CONTROLLER)
    return await ctx.controller.controller.controlled_shutdown(request)
