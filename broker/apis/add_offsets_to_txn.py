"""AddOffsetsToTxn handler: the group's ``__consumer_offsets`` partition joined to the producer's
transaction, so that its TxnOffsetCommit is completed by the transaction's marker.

WRITE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the group
(else GROUP_AUTHORIZATION_FAILED), then the transaction coordinator's answer for the partition
of the group (Kafka's ``GroupCoordinator.partitionFor``).

Kafka concept: ``KafkaApis.handleAddOffsetsToTxnRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize
from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.broker.transaction.transaction_state import TransactionVersion
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.apis.transactions import AddOffsetsToTxnRequest, AddOffsetsToTxnResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AddOffsetsToTxnRequest
) -> AddOffsetsToTxnResponse:
    """Add the group's offsets partition to the transaction; one error code."""
    if not authorize(
        ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
    ):
        return AddOffsetsToTxnResponse(error_code=int(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
    if not authorize(ctx, header, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AddOffsetsToTxnResponse(error_code=int(Errors.GROUP_AUTHORIZATION_FAILED))
    coordinator = ctx.transaction_coordinator
    if coordinator is None:
        return AddOffsetsToTxnResponse(error_code=int(Errors.COORDINATOR_NOT_AVAILABLE))
    partition_count = (
        ctx.metadata_cache.num_partitions(GROUP_METADATA_TOPIC_NAME)
        or ctx.config.offsets_topic_num_partitions
    )
    offsets_partition = TopicPartition(
        GROUP_METADATA_TOPIC_NAME, partition_for(request.group_id, partition_count)
    )
    code = await coordinator.add_partitions_to_txn(
        request.transactional_id,
        request.producer_id,
        request.producer_epoch,
        [offsets_partition],
        TransactionVersion.TV_0,
    )
    return AddOffsetsToTxnResponse(error_code=int(code))
