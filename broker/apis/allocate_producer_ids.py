"""AllocateProducerIds handler: producer id blocks, for the controller to hand out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.producer_ids import AllocateProducerIdsRequest, AllocateProducerIdsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AllocateProducerIdsRequest
) -> AllocateProducerIdsResponse:
    """Pass to the controller, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return AllocateProducerIdsResponse(error_code=Errors.NOT_CONTROLLER, producer_id_start=-1)
    return await ctx.controller.controller.allocate_producer_ids(request)
