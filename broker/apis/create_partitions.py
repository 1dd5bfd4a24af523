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
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import create_partitions_error_response

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: CreatePartitionsRequest
) -> CreatePartitionsResponse:
    """Let the active controller add the partitions (forwarded, KIP-590), or answer NOT_CONTROLLER;
    REQUEST_TIMED_OUT for everything named when ``timeout_ms`` <= 0 and a topic named once is left
    (``deadline_passed``), as Kafka answers it."""
    if deadline_passed(request.timeout_ms, (t.name for t in request.topics)):
        return create_partitions_error_response(request, header.api_version, Errors.REQUEST_TIMED_OUT, None)  # type: ignore[no-any-return]
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_partitions(request), request.timeout_ms
    )
    if response is None:
        return create_partitions_error_response(  # type: ignore[no-any-return]
            request, header.api_version, Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE
        )
    return response
