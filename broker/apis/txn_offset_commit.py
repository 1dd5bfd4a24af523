"""TxnOffsetCommit handler: offsets a transactional producer commits for a group (KIP-98, KIP-447),
answered by the group coordinator, which keeps them pending until the transaction's marker.

Authorization (WRITE on the transactional id, READ on the group, READ on each topic) is the API's
check in ``group_authorization.check_txn_offset_commit``; this handler answers a topic the metadata
does not know, and a partition it does not have, UNKNOWN_TOPIC_OR_PARTITION before the coordinator
sees the request (which is not asked when nothing is left), and merges the coordinator's answers
after those, as Kafka's ``TxnOffsetCommitResponse.Builder``.  Before v2 a COORDINATOR_LOAD_IN_PROGRESS
is answered COORDINATOR_NOT_AVAILABLE (clients older than 2.0 do not retry the former).

Kafka concept: ``KafkaApis.handleTxnOffsetCommitRequest`` -> ``GroupCoordinator.commitTransactionalOffsets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestTopic,
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

LOAD_IN_PROGRESS_FROM_VERSION = 2
"""The first TxnOffsetCommit version whose clients retry COORDINATOR_LOAD_IN_PROGRESS."""


def answer_all(topic: TxnOffsetCommitRequestTopic, error: Errors) -> TxnOffsetCommitResponseTopic:
    """``error`` for every partition of ``topic``."""
    return TxnOffsetCommitResponseTopic(
        name=topic.name,
        partitions=[
            TxnOffsetCommitResponsePartition(partition_index=p.partition_index, error_code=error)
            for p in topic.partitions
        ],
    )


async def handle(
    ctx: ApisContext, header: RequestHeader, request: TxnOffsetCommitRequest
) -> TxnOffsetCommitResponse:
    """Commit transactional offsets through the GroupCoordinator (NOT_COORDINATOR everywhere when
    this node has none); see the module docstring for the per-partition errors."""
    refused: dict[str, TxnOffsetCommitResponseTopic] = {}
    valid: list[TxnOffsetCommitRequestTopic] = []
    for topic in request.topics:
        known = []
        for p in topic.partitions:
            if ctx.metadata_cache.partition_state(TopicPartition(topic.name, p.partition_index)) is None:
                answer = refused.setdefault(topic.name, TxnOffsetCommitResponseTopic(name=topic.name))
                answer.partitions.append(
                    TxnOffsetCommitResponsePartition(
                        partition_index=p.partition_index, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION
                    )
                )
            else:
                known.append(p)
        if known:
            valid.append(TxnOffsetCommitRequestTopic(name=topic.name, partitions=known))
    topics = list(refused.values())
    if valid:
        request.topics = valid
        if ctx.group_coordinator is None:
            answered = [answer_all(topic, Errors.NOT_COORDINATOR) for topic in valid]
        else:
            answered = (
                await ctx.group_coordinator.commit_transactional_offsets(request, header.api_version)
            ).topics
        for answer in answered:
            existing = refused.get(answer.name)
            if existing is None:
                topics.append(answer)
            else:
                existing.partitions.extend(answer.partitions)
    if header.api_version < LOAD_IN_PROGRESS_FROM_VERSION:
        for topic in topics:
            for p in topic.partitions:
                if p.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                    p.error_code = Errors.COORDINATOR_NOT_AVAILABLE
    return TxnOffsetCommitResponse(topics=topics)
