"""CreatePartitions handler: answered by the active controller, here or forwarded to it (KIP-590).

Kafka concept: ``handleCreatePartitionsRequest`` (adding partitions to a topic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.broker.apis.controller_forwarding import at_controller, deadline_passed
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopicResult,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: CreatePartitionsRequest
) -> CreatePartitionsResponse:
    """Let the active controller add the partitions (forwarded, KIP-590), or answer NOT_CONTROLLER;
    REQUEST_TIMED_OUT for everything named when ``timeout_ms`` <= 0 and a topic named once is left
    (``deadline_passed``), as Kafka answers it."""
    if deadline_passed(request.timeout_ms, (t.name for t in request.topics)):
        return _refused(request, Errors.REQUEST_TIMED_OUT, None)
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_partitions(request), request.timeout_ms
    )
    if response is None:
        return _refused(request, Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE)
    return response


def _refused(
    request: CreatePartitionsRequest, error: Errors, message: str | None
) -> CreatePartitionsResponse:
    """``error`` (with ``message``) for every topic named, as Kafka's
    ``CreatePartitionsRequest.getErrorResponse``."""
    return CreatePartitionsResponse(
        results=[
            CreatePartitionsTopicResult(name=t.name, error_code=error, error_message=message)
            for t in request.topics
        ]
    )
