"""AlterPartition handler: ISR changes from partition leaders, for the controller."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.alter_partition import AlterPartitionRequest, AlterPartitionResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AlterPartitionRequest
) -> AlterPartitionResponse:
    """Pass to the controller, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return AlterPartitionResponse(error_code=Errors.NOT_CONTROLLER)
    return await ctx.controller.controller.alter_partition(request)
