"""CreatePartitions handler: answered by the active controller, here or forwarded to it (KIP-590).

The client's ``controller_mutation_rate`` quota holds back topics over it (``controller_mutation_quota``).
Kafka concept: ``handleCreatePartitionsRequest`` (adding partitions to a topic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.controller_forwarding import deadline_passed
from kafkette.broker.apis.controller_mutation_quota import MutatingApi, within_controller_mutation_quota
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopic,
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

    def refuse(part: CreatePartitionsRequest, error: Errors, message: str | None) -> CreatePartitionsResponse:
        return create_partitions_error_response(part, header.api_version, error, message)  # type: ignore[no-any-return]

    return await within_controller_mutation_quota(  # type: ignore[no-any-return]
        ctx, header, request, CREATE_PARTITIONS, lambda c, part: c.controller.create_partitions(part), refuse
    )


def _partitions(ctx: ApisContext, topic: CreatePartitionsTopic) -> int:
    """The partitions a topic gains (none for an unknown topic or a count that is no increase: the
    controller refuses those)."""
    current = ctx.metadata_cache.num_partitions(topic.name)
    return max(topic.count - current, 0) if current is not None else 0  # type: ignore[no-any-return]


CREATE_PARTITIONS = MutatingApi(
    topics="topics",
    results="results",
    strict_since_version=3,
    partitions=_partitions,
    topic_key=lambda topic: topic.name,
    result_key=lambda result: result.name,
)
"""CreatePartitions under ``controller_mutation_rate`` (strict from v3)."""
