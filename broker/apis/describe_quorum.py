"""DescribeQuorum handler: the metadata quorum's leader, epoch, high watermark and replicas.

Answered by the active controller, here or forwarded to it (KIP-590); NOT_CONTROLLER when
no controller can answer, and the client retries.  Kafka concept:
``KafkaApis.handleDescribeQuorum`` (KIP-595, KIP-836).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.raft import DescribeQuorumRequest, DescribeQuorumResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeQuorumRequest
) -> DescribeQuorumResponse:
    """Let the active controller describe its quorum (forwarded, KIP-590), or answer NOT_CONTROLLER."""
    response = await at_controller(
        ctx, header, request, lambda c: c.describe_quorum(request), ctx.config.request_timeout_ms
    )
    if response is None:
        return DescribeQuorumResponse(error_code=Errors.NOT_CONTROLLER, error_message=NOT_CONTROLLER_MESSAGE)
    return response
