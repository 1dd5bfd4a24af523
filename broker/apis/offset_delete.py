"""OffsetDelete handler: consumer groups as administrators see them, at their coordinator.

Kafka concept: ``KafkaApis.handleOffsetDeleteRequest`` -> ``GroupCoordinator.handle_offset_delete``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_admin import OffsetDeleteRequest, OffsetDeleteResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: OffsetDeleteRequest
) -> OffsetDeleteResponse:
    """Through the GroupCoordinator (an error for every group when this node has none)."""
    if ctx.group_coordinator is None:
        return OffsetDeleteResponse(error_code=Errors.NOT_COORDINATOR)
    return await ctx.group_coordinator.handle_offset_delete(request)
