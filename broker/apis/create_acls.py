"""CreateAcls handler: forwarded to the active controller (KIP-140, KIP-590).

The controller decides and writes the ACLs (``AclControlManager``) and sends every live broker
the new ones; this broker only carries the request there.  Without an authorizer
(``authorizer.class.name`` unset) every creation is answered SECURITY_DISABLED with Kafka's
message, as Kafka's ``AclApis`` answers it; when no controller takes the request, NOT_CONTROLLER.
Kafka concept: ``KafkaApis`` forwarding ``CREATE_ACLS`` to the controller, whose ``AclApis``
handles it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.acl_apis_authorization import check_create_acls
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.acls import AclCreationResult, CreateAclsRequest, CreateAclsResponse
from kafkette.protocol.errors import Errors, KafkaError, default_message, error_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

NO_AUTHORIZER = "No Authorizer is configured."


def _answer_each(request: CreateAclsRequest, code: Errors, message: str) -> CreateAclsResponse:
    return CreateAclsResponse(
        throttle_time_ms=0,
        results=[AclCreationResult(error_code=code, error_message=message) for _ in request.creations],
    )


async def handle(ctx: ApisContext, header: RequestHeader, request: CreateAclsRequest) -> CreateAclsResponse:
    """The controller's answer: one result per creation, in request order."""
    if ctx.authorizer is None:
        return _answer_each(request, Errors.SECURITY_DISABLED, NO_AUTHORIZER)
    try:
        check_create_acls(ctx, header)
    except KafkaError as exc:
        return _answer_each(request, Errors.CLUSTER_AUTHORIZATION_FAILED, error_message(exc))
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_acls(request), ctx.config.request_timeout_ms
    )
    if response is not None:
        return response
    return _answer_each(request, Errors.NOT_CONTROLLER, default_message(Errors.NOT_CONTROLLER))
