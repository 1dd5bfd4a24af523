"""WriteTxnMarkers handler: append the transaction coordinator's COMMIT/ABORT markers (KIP-98).

Authorization as Kafka's: ALTER on the cluster, else CLUSTER_ACTION (CLUSTER_AUTHORIZATION_FAILED
for the whole request, see ``request_authorization``).  Per marker, each partition not hosted
online here answers UNKNOWN_TOPIC_OR_PARTITION; the others get one control batch each (the
marker: ``protocol.control_record``), appended through ``ReplicaManager.append_records`` with
acks=-1, ``request.timeout.ms`` and the coordinator as origin (the only origin allowed to append
control batches, internal topics included), so a partition answers what the append answers:
NOT_LEADER_OR_FOLLOWER on a follower, INVALID_PRODUCER_EPOCH for a marker of an older producer
epoch, TRANSACTION_COORDINATOR_FENCED for an older coordinator epoch, NOT_ENOUGH_REPLICAS, ...
The answer groups the errors by producer id, then topic.

Kafka concept: ``KafkaApis.handleWriteTxnMarkersRequest`` (``MemoryRecords.withEndTransactionMarker``,
``AppendOrigin.COORDINATOR``).  ``__consumer_offsets`` partitions get the marker in the log like
any other (Kafka hands them to its group coordinator's ``completeTransaction``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from kafkette.broker.group.pending_transactional_offsets import TransactionResult
from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.apis.write_txn_markers import (
    WriteTxnMarkersRequest,
    WriteTxnMarkersResponse,
    write_txn_markers_response,
)
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


def _online(ctx: ApisContext, tp: TopicPartition) -> bool:
    """True when ``tp`` is hosted here with an online log (Kafka's ``ReplicaManager.onlinePartition``)."""
    partition = ctx.replica_manager.get_partition(tp)
    return partition is not None and partition.log is not None and not partition.log.is_offline


async def handle(
    ctx: ApisContext, header: RequestHeader, request: WriteTxnMarkersRequest
) -> WriteTxnMarkersResponse:
    """Append each marker to its partitions and answer an error code per partition.

    Args:
        ctx: the broker's handler context.
        header: the request header (authorization was checked before).
        request: the markers: producer id and epoch, result (True = COMMIT), coordinator epoch,
            partitions by topic.

    Returns:
        The WriteTxnMarkersResponse, partitions answered once each per producer id.
    """
    errors: dict[int, dict[tuple[str, int], int]] = {}
    appends = []
    now_ms = ctx.replica_manager.time.milliseconds()
    for marker in request.markers:
        answered = errors.setdefault(marker.producer_id, {})
        end_marker = EndTransactionMarker(
            ControlRecordType.COMMIT if marker.transaction_result else ControlRecordType.ABORT,
            marker.coordinator_epoch,
        )
        batch = build_end_txn_marker_batch(marker.producer_id, marker.producer_epoch, end_marker, now_ms)
        entries: dict[TopicPartition, bytes] = {}
        for topic in marker.topics:
            for index in topic.partition_indexes:
                tp = TopicPartition(topic.name, index)
                if _online(ctx, tp):
                    entries[tp] = batch
                else:
                    answered[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
        if entries:
            appends.append((answered, entries, marker))
    statuses = await asyncio.gather(
        *(
            ctx.replica_manager.append_records(
                ctx.config.request_timeout_ms,
                -1,
                entries,
                internal_topics_allowed=True,
                origin=AppendOrigin.COORDINATOR,
            )
            for _, entries, _ in appends
        )
    )
    for (answered, _, marker), by_partition in zip(appends, statuses, strict=True):
        offsets_partitions = []
        for tp, status in by_partition.items():
            answered[tp] = int(status.error)
            if tp.topic == GROUP_METADATA_TOPIC_NAME and status.error == Errors.NONE:
                offsets_partitions.append(tp.partition)
        if offsets_partitions and ctx.group_coordinator is not None:
            # the group coordinator completes the transaction's offsets (Kafka's onTransactionCompleted)
            result = TransactionResult.COMMIT if marker.transaction_result else TransactionResult.ABORT
            ctx.group_coordinator.on_transaction_completed(marker.producer_id, offsets_partitions, result)
    return write_txn_markers_response(errors)
