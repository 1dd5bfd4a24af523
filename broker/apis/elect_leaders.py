"""ElectLeaders handler: forwarded to the controller when this broker runs it.

Any other broker answers NOT_CONTROLLER (top level, and for every partition named)
so the client retries at the controller.  Kafka concept:
``KafkaApis.handleElectLeaders`` (KIP-460).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE
from kafkette.protocol.apis.elect_leaders import (
    ElectLeadersPartitionResult,
    ElectLeadersReplicaElectionResult,
    ElectLeadersRequest,
    ElectLeadersResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: ElectLeadersRequest) -> ElectLeadersResponse:
    """Let the controller elect leaders, or answer NOT_CONTROLLER."""
    if ctx.controller is None:
        return ElectLeadersResponse(
            error_code=Errors.NOT_CONTROLLER,
            replica_election_results=[
                ElectLeadersReplicaElectionResult(topic=t.topic, partition_result=[
                    ElectLeadersPartitionResult(partition_id=p, error_code=Errors.NOT_CONTROLLER,
                                                error_message=NOT_CONTROLLER_MESSAGE)
                    for p in t.partitions
                ])
                for t in request.topic_partitions or []
            ],
        )
    return await ctx.controller.elect_leaders(request)
