"""CreatePartitions handler: answered by the active controller, here or forwarded to it (KIP-590).

Kafka concept: ``handleCreatePartitionsRequest`` (adding partitions to a topic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
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
    """Let the active controller add the partitions (forwarded, KIP-590), or answer NOT_CONTROLLER."""
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.create_partitions(request), max(request.timeout_ms, 0)
    )
    if response is None:
        return CreatePartitionsResponse(
            results=[
                CreatePartitionsTopicResult(
                    name=t.name,
                    error_code=Errors.NOT_CONTROLLER,
                    error_message="This is not the correct controller for this cluster.",
                )
                for t in request.topics
            ]
        )
    return response
