"""OffsetsForLeaderEpoch handler: the end offset of a leader epoch in this leader's log.

Answers each partition from its leader's leader epoch cache
(``LeaderEpochFileCache.end_offset_for``): the largest epoch <= the requested one and
its end offset (the next epoch's start offset, or the log end offset for the latest
epoch), or -1 / -1 when the leader knows no such epoch.  A follower uses the answer to
truncate a log that may have diverged (see ``broker/fetcher/offset_truncation.py``).
Does not own the cache (``UnifiedLog``) nor the truncation decision (the follower's fetcher).

Per partition errors: UNKNOWN_TOPIC_OR_PARTITION (not hosted here),
KAFKA_STORAGE_ERROR (the log is offline), NOT_LEADER_OR_FOLLOWER (not the leader),
FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH (``current_leader_epoch`` older / newer than
this leader's), UNKNOWN_SERVER_ERROR (anything else, logged with its traceback).

Kafka concept: ``KafkaApis.handleOffsetForLeaderEpochRequest`` /
``Partition.lastOffsetForLeaderEpoch`` (KIP-101).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kafkette.protocol.apis.offsets_for_leader_epoch import (
    EpochEndOffset,
    OffsetForLeaderPartition,
    OffsetForLeaderTopicResult,
    OffsetsForLeaderEpochRequest,
    OffsetsForLeaderEpochResponse,
)
from kafkette.protocol.errors import Errors, error_code_for
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext
    from kafkette.broker.partition import Partition

logger = logging.getLogger(__name__)


async def handle(
    ctx: ApisContext, header: RequestHeader, request: OffsetsForLeaderEpochRequest
) -> OffsetsForLeaderEpochResponse:
    """Answer ``(leader_epoch, end_offset)`` for each requested partition.

    Args:
        ctx: the handler context (``replica_manager.get_partition``).
        header: the request header (unused beyond dispatch).
        request: partitions with the follower's ``current_leader_epoch`` (-1: not checked)
            and the ``leader_epoch`` whose end offset it asks for.

    Returns:
        One ``EpochEndOffset`` per requested partition, in request order; errors are per
        partition (see the module docstring), never raised.
    """
    topics = []
    for topic in request.topics:
        parts = []
        for req in topic.partitions:
            tp = TopicPartition(topic.name, req.partition)
            try:
                parts.append(_end_offset(ctx.replica_manager.get_partition(tp), req))
            except Exception as exc:
                code = error_code_for(exc)
                if code == Errors.UNKNOWN_SERVER_ERROR:
                    logger.exception("Error answering OffsetsForLeaderEpoch for %s", tp)
                parts.append(EpochEndOffset(error_code=code, partition=req.partition))
        topics.append(OffsetForLeaderTopicResult(name=topic.name, partitions=parts))
    return OffsetsForLeaderEpochResponse(topics=topics)


def _end_offset(partition: Partition | None, req: OffsetForLeaderPartition) -> EpochEndOffset:
    """The leader's answer for one partition; Kafka errors are raised (``Partition.leader_log``)
    and turned into the partition's error code by the caller."""
    if partition is None:
        return EpochEndOffset(error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION, partition=req.partition)
    log = partition.leader_log(req.current_leader_epoch)
    leader_epoch, end_offset = log.leader_epoch_cache.end_offset_for(req.leader_epoch, log.log_end_offset)
    return EpochEndOffset(
        error_code=Errors.NONE, partition=req.partition, leader_epoch=leader_epoch, end_offset=end_offset
    )
