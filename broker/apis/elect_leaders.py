"""ElectLeaders handler: answered by the active controller, here or forwarded to it (KIP-590).

When no controller can answer: NOT_CONTROLLER (top level, and for every partition named),
and the client retries.  Kafka concept:
``KafkaApis.handleElectLeaders`` (KIP-460).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import elect_leaders_error_response

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ElectLeadersRequest
) -> ElectLeadersResponse:
    """Let the active controller elect leaders (forwarded, KIP-590), or answer NOT_CONTROLLER;
    REQUEST_TIMED_OUT for everything named when ``timeout_ms`` <= 0 (unless the list is empty), as
    Kafka answers it."""
    # Kafka's QuorumController answers an empty list at once, else finds its deadline already past
    if request.timeout_ms <= 0 and request.topic_partitions != []:
        return _refused(request, Errors.REQUEST_TIMED_OUT, None)
    response = await at_controller(
        ctx, header, request, lambda c: c.controller.elect_leaders(request), request.timeout_ms
    )
    if response is None:
        return _refused(request, Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE)
    return response


def _refused(request: ElectLeadersRequest, error: Errors, message: str | None) -> ElectLeadersResponse:
    """``error`` at the top level and (with ``message``) for every partition named, as Kafka's
    ``ElectLeadersRequest.getErrorResponse``."""
    return elect_leaders_error_response(request, 0, int(error), message)
