"""JoinGroup handler: group membership, at the group's coordinator.

Kafka concept: ``KafkaApis.handleJoinGroupRequest`` -> ``GroupCoordinator.handle_join_group``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.group_membership import JoinGroupRequest, JoinGroupResponse, join_error_response
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


SKIP_ASSIGNMENT_FROM_VERSION = 9
"""The first JoinGroup version whose answer carries ``skip_assignment`` (KIP-814; Kafka's
``JoinGroupRequest.supportsSkippingAssignment``)."""


async def handle(ctx: ApisContext, header: RequestHeader, request: JoinGroupRequest) -> JoinGroupResponse:
    """Through the GroupCoordinator (NOT_COORDINATOR when this node has none); a v0 request's rebalance
    timeout is its session timeout (Kafka's ``JoinGroupRequest.maybeOverrideRebalanceTimeout``)."""
    if ctx.group_coordinator is None:
        return join_error_response(Errors.NOT_COORDINATOR, request.member_id)
    if header.api_version == 0:
        # v0 has no rebalance timeout: the session timeout (Kafka's JoinGroupRequest constructor); v1+
        # keeps the one given, -1 too
        request.rebalance_timeout_ms = request.session_timeout_ms
    # Kafka reports a member's host as the client's address with a leading slash ("/127.0.0.1")
    client_host = f"/{header.client_address}" if header.client_address else ""
    return await ctx.group_coordinator.handle_join_group(
        request,
        header.client_id or "",
        client_host,
        supports_skip_assignment=header.api_version >= SKIP_ASSIGNMENT_FROM_VERSION,
    )
