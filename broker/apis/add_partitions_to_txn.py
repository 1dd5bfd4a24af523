"""AddPartitionsToTxn handler: a transactional producer's partitions joined to its transaction.

Versions 0-3 (a client, one transaction): WRITE on the transactional id (else every partition
TRANSACTIONAL_ID_AUTHORIZATION_FAILED), WRITE on each topic (internal topics never: else
TOPIC_AUTHORIZATION_FAILED) and each partition known (else UNKNOWN_TOPIC_OR_PARTITION); when any
partition fails those checks the others answer OPERATION_NOT_ATTEMPTED and nothing is added, as
Kafka answers; otherwise the transaction coordinator's answer for all of them.  Versions 4+ (a
broker's batch, KIP-890): CLUSTER_ACTION on the cluster (else CLUSTER_AUTHORIZATION_FAILED at the
top), then each transaction added, or only checked with ``verify_only``.

Kafka concept: ``KafkaApis.handleAddPartitionsToTxnRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize, filter_by_authorized
from kafkette.broker.transaction.transaction_state import TransactionVersion
from kafkette.common.security.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafkette.common.topic_names import INTERNAL_TOPICS
from kafkette.protocol.apis.transactions import (
    AddPartitionsToTxnPartitionResult,
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResult,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTopicResult,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

BATCHED_VERSION = 4  # KIP-890: a batch of transactions, sent by brokers


async def handle(
    ctx: ApisContext, header: RequestHeader, request: AddPartitionsToTxnRequest
) -> AddPartitionsToTxnResponse:
    """Add (or, v4+ ``verify_only``, check) the partitions; errors per partition."""
    if header.api_version < BATCHED_VERSION:
        errors = await _client_transaction(
            ctx,
            header,
            request.v3_and_below_transactional_id,
            request.v3_and_below_producer_id,
            request.v3_and_below_producer_epoch,
            _partitions(request.v3_and_below_topics),
        )
        return AddPartitionsToTxnResponse(results_by_topic_v3_and_below=_topic_results(errors))
    if not authorize(ctx, header, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME):
        return AddPartitionsToTxnResponse(error_code=int(Errors.CLUSTER_AUTHORIZATION_FAILED))
    results = []
    for txn in request.transactions:
        partitions = _partitions(txn.topics)
        coordinator = ctx.transaction_coordinator
        if coordinator is None:
            errors = dict.fromkeys(partitions, Errors.COORDINATOR_NOT_AVAILABLE)
        elif txn.verify_only:
            errors = coordinator.verify_partitions_in_txn(
                txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions
            )
        else:
            code = await coordinator.add_partitions_to_txn(
                txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions, TransactionVersion.TV_0
            )
            errors = dict.fromkeys(partitions, code)
        results.append(
            AddPartitionsToTxnResult(
                transactional_id=txn.transactional_id, topic_results=_topic_results(errors)
            )
        )
    return AddPartitionsToTxnResponse(results_by_transaction=results)


async def _client_transaction(
    ctx: ApisContext,
    header: RequestHeader,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: list[TopicPartition],
) -> dict[TopicPartition, Errors]:
    if not authorize(ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
        return dict.fromkeys(partitions, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    writable = filter_by_authorized(
        ctx,
        header,
        AclOperation.WRITE,
        ResourceType.TOPIC,
        [tp.topic for tp in partitions if tp.topic not in INTERNAL_TOPICS],
    )
    failed: dict[TopicPartition, Errors] = {}
    for tp in partitions:
        if tp.topic not in writable:
            failed[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
        elif ctx.metadata_cache.partition_state(tp) is None:
            failed[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
    if failed:  # the whole transaction fails: the others were not attempted
        return {tp: failed.get(tp, Errors.OPERATION_NOT_ATTEMPTED) for tp in partitions}
    coordinator = ctx.transaction_coordinator
    if coordinator is None:
        return dict.fromkeys(partitions, Errors.COORDINATOR_NOT_AVAILABLE)
    code = await coordinator.add_partitions_to_txn(
        transactional_id, producer_id, producer_epoch, partitions, TransactionVersion.TV_0
    )
    return dict.fromkeys(partitions, code)


def _partitions(topics: list[AddPartitionsToTxnTopic]) -> list[TopicPartition]:
    return list(dict.fromkeys(TopicPartition(t.name, p) for t in topics for p in t.partitions))


def _topic_results(errors: dict[TopicPartition, Errors]) -> list[AddPartitionsToTxnTopicResult]:
    topics: dict[str, list[AddPartitionsToTxnPartitionResult]] = {}
    for tp, code in errors.items():
        topics.setdefault(tp.topic, []).append(
            AddPartitionsToTxnPartitionResult(partition_index=tp.partition, partition_error_code=int(code))
        )
    return [
        AddPartitionsToTxnTopicResult(name=name, results_by_partition=parts) for name, parts in topics.items()
    ]
