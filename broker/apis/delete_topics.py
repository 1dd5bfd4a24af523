"""DeleteTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

When no controller can answer every topic gets NOT_CONTROLLER and the client retries.  Kafka concept:
``handleDeleteTopicsRequest`` (forwarded to the controller, KIP-590; its
``ReplicationControlManager.deleteTopics`` does the work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DeleteTopicsRequest
) -> DeleteTopicsResponse:
    """Let the active controller delete the topics (forwarded, KIP-590), or answer NOT_CONTROLLER."""
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.delete_topics(request), max(request.timeout_ms, 0)
    )
    if response is None:
        return DeleteTopicsResponse(
            responses=[
                DeletableTopicResult(
                    name=name,
                    error_code=Errors.NOT_CONTROLLER,
                    error_message="This is not the correct controller for this cluster.",
                )
                for name in request.topic_names
            ]
        )
    return response
