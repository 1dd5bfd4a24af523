"""ListGroups handler: consumer groups as administrators see them, at their coordinator.

Kafka concept: ``KafkaApis.handleListGroupsRequest`` -> ``GroupCoordinator.handle_list_groups``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_admin import ListGroupsRequest, ListGroupsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: ListGroupsRequest) -> ListGroupsResponse:
    """Through the GroupCoordinator (an error for every group when this node has none)."""
    if ctx.group_coordinator is None:
        return ListGroupsResponse(error_code=Errors.COORDINATOR_NOT_AVAILABLE)
    return ctx.group_coordinator.handle_list_groups(request)
