"""AlterUserScramCredentials handler: forwarded to the active controller (KIP-554, KIP-590).

The controller decides and writes the credentials (``ScramControlManager``) and sends every live
broker the altered users' sets; this broker only carries the request there.  When no controller
takes it, every named user is answered NOT_CONTROLLER.
Kafka concept: ``KafkaApis`` forwarding ``ALTER_USER_SCRAM_CREDENTIALS`` to the controller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
)
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AlterUserScramCredentialsRequest
) -> AlterUserScramCredentialsResponse:
    """The controller's answer: one result per user named."""
    response = await at_controller(
        ctx,
        header,
        request,
        lambda c: c.controller.alter_user_scram_credentials(request),
        ctx.config.request_timeout_ms,
    )
    if response is not None:
        return response
    users = dict.fromkeys([d.name for d in request.deletions] + [u.name for u in request.upsertions])
    return AlterUserScramCredentialsResponse(
        throttle_time_ms=0,
        results=[
            AlterUserScramCredentialsResult(
                user=user,
                error_code=Errors.NOT_CONTROLLER,
                error_message=default_message(Errors.NOT_CONTROLLER),
            )
            for user in users
        ],
    )
