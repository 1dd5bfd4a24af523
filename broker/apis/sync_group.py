"""SyncGroup handler: group membership, at the group's coordinator.

From version 5 the protocol type and name are mandatory: a request without them is
INCONSISTENT_GROUP_PROTOCOL before the group is looked at.

Kafka concept: ``KafkaApis.handleSyncGroupRequest`` -> ``GroupCoordinator.handle_sync_group``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_membership import SyncGroupRequest, SyncGroupResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

MANDATORY_PROTOCOL_FROM_VERSION = 5


async def handle(ctx: ApisContext, header: RequestHeader, request: SyncGroupRequest) -> SyncGroupResponse:
    """Through the GroupCoordinator (NOT_COORDINATOR when this node has none); INCONSISTENT_GROUP_PROTOCOL
    for a v5+ request without its protocol type or name (Kafka's
    ``SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent``)."""
    if header.api_version >= MANDATORY_PROTOCOL_FROM_VERSION and (
        request.protocol_type is None or request.protocol_name is None
    ):
        return SyncGroupResponse(error_code=Errors.INCONSISTENT_GROUP_PROTOCOL)
    if ctx.group_coordinator is None:
        return SyncGroupResponse(error_code=Errors.NOT_COORDINATOR)
    return await ctx.group_coordinator.handle_sync_group(request)
