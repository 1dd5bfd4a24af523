"""CreatePartitions handler: forwarded to the controller when this broker runs it.

Kafka concept: ``handleCreatePartitionsRequest`` (seed 001, adding partitions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopicResult,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader,
                 request: CreatePartitionsRequest) -> CreatePartitionsResponse:
    """Let the controller add the partitions, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return CreatePartitionsResponse(results=[
            CreatePartitionsTopicResult(name=t.name, error_code=Errors.NOT_CONTROLLER,
                                        error_message="This is not the correct controller for this cluster.")
            for t in request.topics
        ])
    return await ctx.controller.create_partitions(request)
