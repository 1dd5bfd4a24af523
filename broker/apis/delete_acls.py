"""DeleteAcls handler: forwarded to the active controller (KIP-140, KIP-590).

The controller matches the filters against its ACLs and deletes them (``AclControlManager``),
then sends every live broker the deleted ids; this broker only carries the request there.
Without an authorizer (``authorizer.class.name`` unset) every filter is answered
SECURITY_DISABLED with Kafka's message, as Kafka's ``AclApis`` answers it; when no controller
takes the request, NOT_CONTROLLER.
Kafka concept: ``KafkaApis`` forwarding ``DELETE_ACLS`` to the controller, whose ``AclApis``
handles it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.acl_apis_authorization import check_delete_acls
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.acls import DeleteAclsFilterResult, DeleteAclsRequest, DeleteAclsResponse
from kafkette.protocol.errors import Errors, KafkaError, default_message, error_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

NO_AUTHORIZER = "No Authorizer is configured."


def _answer_each(request: DeleteAclsRequest, code: Errors, message: str) -> DeleteAclsResponse:
    return DeleteAclsResponse(
        throttle_time_ms=0,
        filter_results=[
            DeleteAclsFilterResult(error_code=code, error_message=message, matching_acls=[])
            for _ in request.filters
        ],
    )


async def handle(ctx: ApisContext, header: RequestHeader, request: DeleteAclsRequest) -> DeleteAclsResponse:
    """The controller's answer: one result per filter, in request order."""
    if ctx.authorizer is None:
        return _answer_each(request, Errors.SECURITY_DISABLED, NO_AUTHORIZER)
    try:
        check_delete_acls(ctx, header)
    except KafkaError as exc:
        return _answer_each(request, Errors.CLUSTER_AUTHORIZATION_FAILED, error_message(exc))
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.delete_acls(request), ctx.config.request_timeout_ms
    )
    if response is not None:
        return response
    return _answer_each(request, Errors.NOT_CONTROLLER, default_message(Errors.NOT_CONTROLLER))
