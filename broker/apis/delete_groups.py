"""DeleteGroups handler: consumer groups as administrators see them, at their coordinator.

Kafka concept: ``KafkaApis.handleDeleteGroupsRequest`` -> ``GroupCoordinator.handle_delete_groups``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_admin import DeletableGroupResult, DeleteGroupsRequest, DeleteGroupsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DeleteGroupsRequest
) -> DeleteGroupsResponse:
    """Through the GroupCoordinator (an error for every group when this node has none)."""
    if ctx.group_coordinator is None:
        return DeleteGroupsResponse(
            results=[
                DeletableGroupResult(group_id=g, error_code=Errors.NOT_COORDINATOR)
                for g in request.groups_names
            ]
        )
    return await ctx.group_coordinator.handle_delete_groups(request)
