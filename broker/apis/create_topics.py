"""CreateTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

When no controller can answer (an election is going on) every topic gets NOT_CONTROLLER
and the client retries.  Kafka concept: ``handleCreateTopicsRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.create_topics import (
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: CreateTopicsRequest
) -> CreateTopicsResponse:
    """Let the active controller create the topics (forwarded, KIP-590), or answer NOT_CONTROLLER."""
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_topics(request), max(request.timeout_ms, 0)
    )
    if response is None:
        return CreateTopicsResponse(
            topics=[
                CreatableTopicResult(
                    name=t.name,
                    error_code=Errors.NOT_CONTROLLER,
                    error_message="This is not the correct controller for this cluster.",
                )
                for t in request.topics
            ]
        )
    return response
