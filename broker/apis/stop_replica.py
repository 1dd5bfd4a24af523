"""StopReplica handler: the controller stops (and with delete_partition deletes) replicas.

Kafka concept: ``KafkaApis.handleStopReplicaRequest`` -> ``ReplicaManager.stopReplicas``
(with ``delete_partition`` the log is renamed ``-delete`` and removed later, ``asyncDelete``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.apis.stop_replica import (
    StopReplicaPartitionError,
    StopReplicaRequest,
    StopReplicaResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: StopReplicaRequest) -> StopReplicaResponse:
    """Stop the listed replicas and report an error code per partition."""
    error, partition_errors = await ctx.replica_manager.stop_replicas(request)
    if ctx.group_coordinator is not None:  # a stopped __consumer_offsets replica leads no more
        for tp, code in partition_errors.items():
            if tp.topic == GROUP_METADATA_TOPIC_NAME and code == Errors.NONE:
                ctx.group_coordinator.on_resignation(tp.partition)
    if ctx.transaction_coordinator is not None:  # and a stopped __transaction_state replica
        for tp, code in partition_errors.items():
            if tp.topic == TRANSACTION_STATE_TOPIC_NAME and code == Errors.NONE:
                ctx.transaction_coordinator.on_resignation(tp.partition)
    return StopReplicaResponse(
        error_code=int(error),
        partition_errors=[
            StopReplicaPartitionError(topic_name=tp.topic, partition_index=tp.partition, error_code=int(code))
            for tp, code in partition_errors.items()
        ],
    )
