"""DeleteTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

Topics come named (``topic_names``, v1-5) or, from v6 on (KIP-516), as ``topics`` entries each with
a name or a topic id; the names of an older version are handed on as v6 entries (a name and the
zero id, which the controller treats alike), since the controller channel speaks the newest version.
When no controller can answer every topic gets NOT_CONTROLLER and the client retries.  The client's
``controller_mutation_rate`` quota holds back topics over it (``controller_mutation_quota``).  Kafka concept:
``handleDeleteTopicsRequest`` (forwarded to the controller, KIP-590; its
``ControllerApis.deleteTopics`` and ``ReplicationControlManager.deleteTopics`` do the work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import deadline_passed
from kafkette.broker.apis.controller_mutation_quota import MutatingApi, within_controller_mutation_quota
from kafkette.protocol.apis.delete_topics import (
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DeleteTopicState,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import delete_topics_error_response
from kafkette.protocol.kafka_schema import ZERO_UUID

DELETE_TOPICS_BY_ID_VERSION = 6
"""The first DeleteTopics version naming topics by ``topics`` entries (KIP-516)."""

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DeleteTopicsRequest
) -> DeleteTopicsResponse:
    """Let the active controller delete the topics (forwarded, KIP-590), or answer NOT_CONTROLLER;
    REQUEST_TIMED_OUT for everything named when ``timeout_ms`` <= 0 and a topic named once is left
    (``deadline_passed``), as Kafka answers it."""
    if request.topic_names:
        request.topics = [DeleteTopicState(name=n, topic_id=ZERO_UUID) for n in request.topic_names] + list(
            request.topics
        )
        request.topic_names = []
    if deadline_passed(request.timeout_ms, ((t.name, t.topic_id) for t in request.topics)):
        return _refused(request, Errors.REQUEST_TIMED_OUT, None)

    def refuse(part: DeleteTopicsRequest, error: Errors, message: str | None) -> DeleteTopicsResponse:
        """Topics over the quota, answered with the ids the controller would have found for them."""
        response = _refused(part, error, message)
        for result in response.responses:
            if result.topic_id == ZERO_UUID and result.name is not None:
                result.topic_id = ctx.metadata_cache.topic_id(result.name)
        return response

    return await within_controller_mutation_quota(  # type: ignore[no-any-return]
        ctx, header, request, DELETE_TOPICS, lambda c, part: c.controller.delete_topics(part), refuse
    )


def _partitions(ctx: ApisContext, topic: DeleteTopicState) -> int:
    """The partitions a topic to delete has (none for an unknown topic)."""
    name = topic.name if topic.topic_id == ZERO_UUID else ctx.metadata_cache.topic_name(topic.topic_id)
    count = ctx.metadata_cache.num_partitions(name) if name is not None else None
    return count or 0


DELETE_TOPICS = MutatingApi(
    topics="topics",
    results="responses",
    strict_since_version=5,
    partitions=_partitions,
    topic_key=lambda topic: (topic.name, topic.topic_id),
    result_key=lambda result: (result.name, result.topic_id),
)
"""DeleteTopics under ``controller_mutation_rate`` (strict from v5)."""


def _refused(request: DeleteTopicsRequest, error: Errors, message: str | None) -> DeleteTopicsResponse:
    """``error`` (with ``message``) for every topic named, as Kafka's
    ``DeleteTopicsRequest.getErrorResponse`` (the names of an older version are ``topics`` here)."""
    return delete_topics_error_response(request, DELETE_TOPICS_BY_ID_VERSION, int(error), message)
