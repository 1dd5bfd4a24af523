"""CreateTopics handler: forwarded to the controller when this broker runs it.

Any other broker answers NOT_CONTROLLER per topic so the client retries at the
controller named in Metadata (seed 002).  Kafka concept: ``handleCreateTopicsRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.create_topics import (
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: CreateTopicsRequest) -> CreateTopicsResponse:
    """Let the controller create the topics, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return CreateTopicsResponse(
            topics=[
                CreatableTopicResult(name=t.name, error_code=Errors.NOT_CONTROLLER,
                                     error_message="This is not the correct controller for this cluster.")
                for t in request.topics
            ]
        )
    return await ctx.controller.create_topics(request)
