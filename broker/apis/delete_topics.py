"""DeleteTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

Topics come named (``topic_names``, v1-5) or, from v6 on (KIP-516), as ``topics`` entries each with
a name or a topic id; the names of an older version are handed on as v6 entries (a name and the
zero id, which the controller treats alike), since the controller channel speaks the newest version.
When no controller can answer every topic gets NOT_CONTROLLER and the client retries.  Kafka concept:
``handleDeleteTopicsRequest`` (forwarded to the controller, KIP-590; its
``ControllerApis.deleteTopics`` and ``ReplicationControlManager.deleteTopics`` do the work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DeleteTopicState,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DeleteTopicsRequest
) -> DeleteTopicsResponse:
    """Let the active controller delete the topics (forwarded, KIP-590), or answer NOT_CONTROLLER."""
    if request.topic_names:
        request.topics = [DeleteTopicState(name=n, topic_id=ZERO_UUID) for n in request.topic_names] + list(
            request.topics
        )
        request.topic_names = []
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.delete_topics(request), max(request.timeout_ms, 0)
    )
    if response is None:
        return DeleteTopicsResponse(
            responses=[
                DeletableTopicResult(
                    name=topic.name,
                    topic_id=topic.topic_id,
                    error_code=Errors.NOT_CONTROLLER,
                    error_message="This is not the correct controller for this cluster.",
                )
                for topic in request.topics
            ]
        )
    return response
