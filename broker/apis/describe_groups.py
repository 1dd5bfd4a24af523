"""DescribeGroups handler: consumer groups as administrators see them, at their coordinator.

Kafka concept: ``KafkaApis.handleDescribeGroupsRequest`` -> ``GroupCoordinator.handle_describe_groups``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_admin import DescribedGroup, DescribeGroupsRequest, DescribeGroupsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeGroupsRequest
) -> DescribeGroupsResponse:
    """Through the GroupCoordinator (an error for every group when this node has none)."""
    if ctx.group_coordinator is None:
        return DescribeGroupsResponse(
            groups=[DescribedGroup(error_code=Errors.NOT_COORDINATOR, group_id=g) for g in request.groups]
        )
    return ctx.group_coordinator.handle_describe_groups(request, header.api_version)
