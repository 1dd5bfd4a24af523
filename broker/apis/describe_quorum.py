"""DescribeQuorum handler: the metadata quorum's leader, epoch, high watermark and replicas.

Answered by the controller on this node; any other broker answers NOT_CONTROLLER so the
client retries at the controller named in Metadata.  Kafka concept:
``KafkaApis.handleDescribeQuorum`` (KIP-595, KIP-836).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.protocol.apis.raft import DescribeQuorumRequest, DescribeQuorumResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: DescribeQuorumRequest) -> DescribeQuorumResponse:
    """Let the controller describe its quorum, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return DescribeQuorumResponse(error_code=Errors.NOT_CONTROLLER, error_message=NOT_CONTROLLER_MESSAGE)
    return await ctx.controller.describe_quorum(request)
