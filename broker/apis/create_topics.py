"""CreateTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

When no controller can answer (an election is going on) every topic gets NOT_CONTROLLER
and the client retries.  Kafka concept: ``handleCreateTopicsRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.broker.apis.controller_forwarding import at_controller, deadline_passed
from kafkette.protocol.apis.create_topics import (
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import create_topics_error_response

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: CreateTopicsRequest
) -> CreateTopicsResponse:
    """Let the active controller create the topics (forwarded, KIP-590), or answer NOT_CONTROLLER;
    REQUEST_TIMED_OUT for everything named when ``timeout_ms`` <= 0 and a topic named once is left
    (``deadline_passed``), as Kafka answers it."""
    if deadline_passed(request.timeout_ms, (t.name for t in request.topics)):
        return _refused(request, Errors.REQUEST_TIMED_OUT, None)
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_topics(request), request.timeout_ms
    )
    if response is None:
        return _refused(request, Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE)
    return response


def _refused(request: CreateTopicsRequest, error: Errors, message: str | None) -> CreateTopicsResponse:
    """``error`` (with ``message``) for every topic named, as Kafka's
    ``CreateTopicsRequest.getErrorResponse``."""
    return create_topics_error_response(request, 0, int(error), message)  # type: ignore[no-any-return]
