"""CreateTopics handler: answered by the active controller, here or forwarded to it (KIP-590).

When no controller can answer (an election is going on) every topic gets NOT_CONTROLLER
and the client retries.  The client's ``controller_mutation_rate`` quota holds back topics over it
(``controller_mutation_quota``).  Kafka concept: ``handleCreateTopicsRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import deadline_passed
from kafkette.broker.apis.controller_mutation_quota import MutatingApi, within_controller_mutation_quota
from kafkette.protocol.apis.create_topics import (
    CreatableTopic,
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

    return await within_controller_mutation_quota(  # type: ignore[no-any-return]
        ctx, header, request, CREATE_TOPICS, lambda c, part: c.controller.create_topics(part), _refused
    )


def _partitions(ctx: ApisContext, topic: CreatableTopic) -> int:
    """The partitions a topic to create will have: its count, its assignments', or
    ``num.partitions``."""
    if topic.num_partitions != -1:
        return topic.num_partitions  # type: ignore[no-any-return]
    return len(topic.assignments) if topic.assignments else ctx.config.num_partitions  # type: ignore[no-any-return]


CREATE_TOPICS = MutatingApi(
    topics="topics",
    results="topics",
    strict_since_version=6,
    partitions=_partitions,
    topic_key=lambda topic: topic.name,
    result_key=lambda result: result.name,
)
"""CreateTopics under ``controller_mutation_rate`` (strict from v6)."""


def _refused(request: CreateTopicsRequest, error: Errors, message: str | None) -> CreateTopicsResponse:
    """``error`` (with ``message``) for every topic named, as Kafka's
    ``CreateTopicsRequest.getErrorResponse``."""
    return create_topics_error_response(request, 0, int(error), message)  # type: ignore[no-any-return]
