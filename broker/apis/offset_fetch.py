"""OffsetFetch handler: a group's committed offsets, from its coordinator.

Kafka concept: ``KafkaApis.handleOffsetFetchRequest`` -> ``GroupCoordinator.handleFetchOffsets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.offsets import OffsetFetchRequest, OffsetFetchResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: OffsetFetchRequest) -> OffsetFetchResponse:
    """Read through the GroupCoordinator (NOT_COORDINATOR when this node has none)."""
    if ctx.group_coordinator is None:
        return OffsetFetchResponse(error_code=Errors.NOT_COORDINATOR)
    return ctx.group_coordinator.handle_fetch_offsets(request)
