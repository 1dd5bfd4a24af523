"""DeleteTopics handler: forwarded to the controller when this broker runs it.

Any other broker answers NOT_CONTROLLER per topic so the client retries at the
controller.  Kafka concept: ``handleDeleteTopicsRequest`` (seed 001).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
    """Let the controller delete the topics, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return DeleteTopicsResponse(responses=[
            DeletableTopicResult(name=name, error_code=Errors.NOT_CONTROLLER,
                                 error_message="This is not the correct controller for this cluster.")
            for name in request.topic_names
        ])
    return await ctx.controller.delete_topics(request)
