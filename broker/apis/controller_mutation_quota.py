"""The ``controller_mutation_rate`` quota (KIP-599) of CreateTopics, CreatePartitions and
DeleteTopics, applied by the broker that takes the client's request, before it forwards it.

Owns: walking a request's topics in order, each taking its partitions' tokens from the client's
``ControllerMutationQuota``; a topic a strict quota refuses is answered THROTTLING_QUOTA_EXCEEDED (no
message, as Kafka's) and not forwarded; the tokens of a topic the controller
then refuses are given back; the answer's ``throttle_time_ms`` is at least the quota's.  Does not own
the buckets (``ControllerMutationQuotaManager``) nor forwarding (``at_controller``).

Kafka applies the quota at the active controller (``ControllerApis`` hands
``ReplicationControlManager`` a ``ControllerRequestContext.applyPartitionChangeQuota``), so one
bucket per client serves the whole cluster; here each broker holds its own buckets, since a
forwarded request does not carry the client's principal and client id.

Kafka concept: ``ControllerMutationQuota`` as ``ControllerApis.createTopics`` / ``deleteTopics`` /
``createPartitions`` use it, ``RequestHandlerHelper.sendResponseMaybeThrottleWithControllerQuota``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.broker.apis.controller_endpoint import ControllerEndpoint
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.broker.client_quota_manager import principal_name
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


@dataclass(frozen=True)
class MutatingApi:
    """How one partition-mutating API names its topics and answers them.

    Attributes:
        topics: the request's list of topics (attribute name).
        results: the response's list of per-topic results (attribute name).
        strict_since_version: the first version held to a strict quota (Kafka's ``newQuotaFor``).
        partitions: the tokens one topic of the request takes (its partitions created or deleted).
        topic_key: a topic of the request -> what its result is matched by.
        result_key: a result of the response -> the same.
    """

    topics: str
    results: str
    strict_since_version: int
    partitions: Callable[[ApisContext, Any], int]
    topic_key: Callable[[Any], Hashable]
    result_key: Callable[[Any], Hashable]


async def within_controller_mutation_quota(
    ctx: ApisContext,
    header: RequestHeader,
    request: Any,
    api: MutatingApi,
    ask: Callable[[ControllerEndpoint, Any], Awaitable[Any]],
    refuse: Callable[[Any, Errors, str | None], Any],
) -> Any:
    """Answer ``request`` within its client's ``controller_mutation_rate`` quota.

    Args:
        ctx: the handler context (``controller_mutation_quotas``, ``metadata_cache``, ``config``).
        header: the request's header (principal, client id, version).
        request: the decoded request; a copy naming only the admitted topics is forwarded.
        api: the API's shape.
        ask: ``(controller, request) -> response`` from a controller of this node (forwarded to the
            active one otherwise, ``at_controller``; no controller reached: NOT_CONTROLLER).
        refuse: ``(request, error, message) -> response`` with that error for every topic named.

    Returns:
        The response: the controller's results for the admitted topics, then THROTTLING_QUOTA_EXCEEDED
        for the refused ones; ``throttle_time_ms`` raised to the quota's throttle time.
    """

    async def forward(part: Any) -> Any:
        response = await at_controller(ctx, header, part, lambda c: ask(c, part), part.timeout_ms)
        return refuse(part, Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE) if response is None else response

    quota = ctx.controller_mutation_quotas.new_quota_for(
        principal_name(header.principal),
        header.client_id or "",
        strict=header.api_version >= api.strict_since_version,
    )
    if not quota.enabled:
        return await forward(request)
    now_ms = int(time.monotonic() * 1000)
    admitted: list[Any] = []
    refused: list[Any] = []
    taken: dict[Hashable, int] = {}
    for topic in getattr(request, api.topics):
        partitions = api.partitions(ctx, topic)
        if quota.record(partitions, now_ms):
            admitted.append(topic)
            key = api.topic_key(topic)
            taken[key] = taken.get(key, 0) + partitions
        else:
            refused.append(topic)
    if not refused:
        response = await forward(request)
    else:
        # no message: Kafka's ApiError.fromThrowable leaves out a message that is the code's default
        throttled = refuse(_naming(request, api, refused), Errors.THROTTLING_QUOTA_EXCEEDED, None)
        if admitted:
            response = await forward(_naming(request, api, admitted))
            setattr(
                response, api.results, [*getattr(response, api.results), *getattr(throttled, api.results)]
            )
        else:
            response = throttled
    now_ms = int(time.monotonic() * 1000)
    for result in getattr(response, api.results):
        if result.error_code not in (Errors.NONE, Errors.THROTTLING_QUOTA_EXCEEDED):
            quota.give_back(taken.pop(api.result_key(result), 0), now_ms)
    response.throttle_time_ms = max(response.throttle_time_ms, quota.throttle_time_ms)
    return response


def _naming(request: Any, api: MutatingApi, topics: list[Any]) -> Any:
    """A copy of ``request`` naming only ``topics``."""
    part = copy.copy(request)
    setattr(part, api.topics, topics)
    return part
