"""AlterClientQuotas handler: forwarded to the active controller (KIP-546, KIP-590).

The controller decides and writes the quotas (``ClientQuotaControlManager``) and sends every live
broker the altered entities' sets; this broker only carries the request there.  When no
controller takes it, every entry is answered NOT_CONTROLLER.
Kafka concept: ``KafkaApis`` forwarding ``ALTER_CLIENT_QUOTAS`` to the controller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntryResult,
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
)
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AlterClientQuotasRequest
) -> AlterClientQuotasResponse:
    """The controller's answer: one result per entity."""
    response = await at_controller(
        ctx,
        header,
        request,
        lambda c: c.controller.alter_client_quotas(request),
        ctx.config.request_timeout_ms,
    )
    if response is not None:
        return response
    return AlterClientQuotasResponse(
        throttle_time_ms=0,
        entries=[
            AlterClientQuotasEntryResult(
                error_code=Errors.NOT_CONTROLLER,
                error_message=default_message(Errors.NOT_CONTROLLER),
                entity=entry.entity,
            )
            for entry in request.entries
        ],
    )
