"""ListOffsets handler: earliest (-2), latest (-1), max timestamp (-3), the tiered storage values
(-4, -5, -6) and by timestamp.

Answers each partition from its leader's log: earliest, and earliest local (-4: there is no remote
storage, so the local log starts at the log start offset), is the log start offset; latest tiered
(-5) and earliest pending upload (-6) find no offset (-1), as Kafka answers them for a topic without
remote storage;
latest is the high watermark for consumers and the log end offset for followers
(``replica_id`` >= 0); max timestamp and a timestamp >= 0 look the record up by time
(``UnifiedLog.fetch_offset_by_timestamp``: time index, offset index, one batch decoded) and
answer its offset, timestamp and batch leader epoch, or offset -1 / timestamp -1 when
no record qualifies, including a record at or past the high watermark for consumers.
A log taken offline by corruption answers KAFKA_STORAGE_ERROR.  Does not own the lookups themselves
(``UnifiedLog``) nor the client side (``OffsetFetcher``).

Kafka concept: ``KafkaApis.handleListOffsetRequest`` / ``Partition.fetchOffsetForTimestamp``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kafkette.protocol.apis.list_offsets import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_PENDING_UPLOAD_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIERED_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsPartitionResponse,
    ListOffsetsRequest,
    ListOffsetsResponse,
    ListOffsetsTopicResponse,
)
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import list_offsets_error_response
from kafkette.protocol.kafka_translation import READ_COMMITTED
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext
    from kafkette.broker.partition import Partition

logger = logging.getLogger(__name__)

ISOLATION_LEVELS = (0, 1)
"""READ_UNCOMMITTED and READ_COMMITTED; any other value fails the request (Kafka's
``IsolationLevel.forId`` throws)."""
_SPECIAL_TIMESTAMPS = (
    LATEST_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    MAX_TIMESTAMP,
    EARLIEST_LOCAL_TIMESTAMP,
    LATEST_TIERED_TIMESTAMP,
    EARLIEST_PENDING_UPLOAD_TIMESTAMP,
)


async def handle(ctx: ApisContext, header: RequestHeader, request: ListOffsetsRequest) -> ListOffsetsResponse:
    """Answer each partition from its leader's log.

    Per partition errors: INVALID_REQUEST (the partition is asked twice, in one topic entry or two:
    answered once, before any other check),
    UNSUPPORTED_VERSION (a negative timestamp other than -1 to -6: a special timestamp of a
    later version, as Kafka's ``ReplicaManager.fetchOffset`` answers it),
    UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (also when the partition exists but has
    no replica here), FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH (stale or future
    ``current_leader_epoch``), CORRUPT_MESSAGE (the batch holding the record cannot be
    decoded), UNKNOWN_SERVER_ERROR (logged; and on every partition when the isolation level is
    neither 0 nor 1, as Kafka fails the whole request).
    """
    if request.topics and request.isolation_level not in ISOLATION_LEVELS:
        return list_offsets_error_response(request, header.api_version, Errors.UNKNOWN_SERVER_ERROR, None)  # type: ignore[no-any-return]
    asked: set[tuple[str, int]] = set()
    duplicates: set[tuple[str, int]] = set()  # Kafka's ListOffsetsRequest.duplicatePartitions
    for topic in request.topics:
        for req in topic.partitions:
            key = (topic.name, req.partition_index)
            (duplicates if key in asked else asked).add(key)
    topics: dict[str, ListOffsetsTopicResponse] = {}  # one answer per topic and partition, as Kafka's
    answered: set[tuple[str, int]] = set()
    for topic in request.topics:
        if topic.name not in topics:
            topics[topic.name] = ListOffsetsTopicResponse(name=topic.name, partitions=[])
        parts = topics[topic.name].partitions
        for req in topic.partitions:
            key = (topic.name, req.partition_index)
            if key in answered:
                continue
            answered.add(key)
            resp = ListOffsetsPartitionResponse(partition_index=req.partition_index)
            parts.append(resp)
            if key in duplicates:  # before anything else, as Kafka's ReplicaManager.fetchOffset
                resp.error_code = Errors.INVALID_REQUEST
                resp.offset = resp.timestamp = resp.leader_epoch = -1
                continue
            if req.timestamp < 0 and req.timestamp not in _SPECIAL_TIMESTAMPS:
                resp.error_code = Errors.UNSUPPORTED_VERSION  # a special timestamp of a later version
                continue
            tp = TopicPartition(topic.name, req.partition_index)
            try:
                partition = ctx.replica_manager.get_partition_or_error(tp)
            except KafkaError as exc:
                resp.error_code = error_code_for(exc)
                continue
            if (error := _leader_error(partition, req.current_leader_epoch)) != Errors.NONE:
                resp.error_code = error
            elif req.timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
                resp.offset = partition.log.log_start_offset
                resp.leader_epoch = partition.leader_epoch
            elif req.timestamp == LATEST_TIMESTAMP:
                resp.offset = partition.end_offset_for(
                    request.replica_id >= 0, request.isolation_level == READ_COMMITTED
                )
                resp.leader_epoch = partition.leader_epoch
            elif req.timestamp in (LATEST_TIERED_TIMESTAMP, EARLIEST_PENDING_UPLOAD_TIMESTAMP):
                pass  # nothing is tiered: offset, timestamp and leader epoch stay -1
            else:
                last_fetchable_offset = partition.end_offset_for(
                    request.replica_id >= 0, request.isolation_level == READ_COMMITTED
                )
                _answer_by_timestamp(tp, partition, req, last_fetchable_offset, resp)
    return ListOffsetsResponse(topics=list(topics.values()))


def _leader_error(partition: Partition, current_leader_epoch: int) -> Errors:
    """NONE when ``partition`` may answer as leader in ``current_leader_epoch``, else the error code."""
    try:
        partition.leader_log(current_leader_epoch)
    except KafkaError as exc:
        return error_code_for(exc)
    return Errors.NONE


def _answer_by_timestamp(
    tp: TopicPartition,
    partition: Partition,
    req: ListOffsetsPartition,
    last_fetchable_offset: int,
    resp: ListOffsetsPartitionResponse,
) -> None:
    """Fill ``resp`` from a lookup by timestamp; a record at or past ``last_fetchable_offset`` (the
    LEO for a replica, the HW, or the LSO for READ_COMMITTED: Kafka's ``lastFetchableOffset``) is
    not returned."""
    try:
        found = partition.log.fetch_offset_by_timestamp(req.timestamp)
    except Exception as exc:
        resp.error_code = error_code_for(exc)
        if resp.error_code == Errors.UNKNOWN_SERVER_ERROR:
            logger.exception("Error looking up %s by timestamp %d", tp, req.timestamp)
        return
    if found is not None and found.offset < last_fetchable_offset:
        resp.timestamp, resp.offset, resp.leader_epoch = found.timestamp, found.offset, found.leader_epoch
