"""Produce handler: appends batches through the ReplicaManager and reports offsets.

acks must be 0, 1 or -1 (INVALID_REQUIRED_ACKS otherwise); acks=0 gets no response, and
closes the connection when a partition failed.  Before anything, as Kafka's
``RequestUtils.hasTransactionalRecords``, the first batch of each partition is looked at in request
order until one is transactional: a batch size or magic Kafka's batch iterator refuses there fails
the whole request with CORRUPT_MESSAGE, and transactional batches in a request without a
transactional id answer TRANSACTIONAL_ID_AUTHORIZATION_FAILED, both for every partition (once, however
often it is listed: ``ProduceRequest.getErrorResponse``), as Kafka does (Kafkette has no transactions:
a request with a transactional id is appended as is).
A partition listed twice, or a null ``records``, is INVALID_REQUEST for that
partition; one whose records hold more than one batch is INVALID_RECORD.  A partition the
metadata does not have is UNKNOWN_TOPIC_OR_PARTITION before any of those checks, however often it
is listed (Kafka's ``metadataCache.contains`` comes first).  A partition of an internal topic is
INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic <name>", unless the client id is Kafka's
``__admin_client`` (the ReplicaManager refuses it; the group coordinator's own writes go straight
to the ReplicaManager).

From v10 (KIP-951) a NOT_LEADER_OR_FOLLOWER partition carries its ``current_leader`` as this broker
knows it (its own replica's leader and epoch, else the metadata's; -1 and -1 when neither knows one),
and the answer the ``node_endpoints`` of those leaders that are alive, on the listener the request
came in on.  v11 and v12 (KIP-890) change nothing for a producer outside a transaction (an idempotent
one included); a transactional batch is appended as at every version.  From v13 (KIP-516) topics are
named by id: an id no topic has is UNKNOWN_TOPIC_ID for each of its partitions, and every answer
names its topic by the id it was asked by.
Kafka concept: ``KafkaApis.handleProduceRequest`` (``getCurrentLeader``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.current_leader import current_leader
from kafkette.common.network.socket_server import CLOSE_CONNECTION, CloseConnectionResponse
from kafkette.protocol.apis.produce import (
    PRODUCE_TOPIC_ID_VERSION,
    BatchIndexAndErrorMessage,
    NodeEndpoint,
    ProduceLeaderIdAndEpoch,
    ProducePartitionResponse,
    ProduceRequest,
    ProduceResponse,
    ProduceTopicResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import produce_error_response
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    BATCH_LENGTH,
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    TRANSACTIONAL_MASK,
    CorruptRecordError,
    iter_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

_new_tuple = tuple.__new__

ADMIN_CLIENT_ID = "__admin_client"
"""The client id whose Produce may append to internal topics (Kafka's ``AdminUtils.ADMIN_CLIENT_ID``:
``internalTopicsAllowed = clientId == ADMIN_CLIENT_ID`` in ``handleProduceRequest``)."""

LEGACY_RECORD_OVERHEAD_V0 = 14
"""The smallest record of magic 0 (Kafka's ``LegacyRecord.RECORD_OVERHEAD_V0``): a batch size below
it is corrupt whatever the magic."""

MAGIC_OFFSET = 16
"""Where a batch's magic byte is (Kafka's ``Records.MAGIC_OFFSET``)."""

HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1

CURRENT_LEADER_VERSION = 10
"""The first Produce version whose NOT_LEADER_OR_FOLLOWER answers carry the current leader (KIP-951)."""


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ProduceRequest
) -> ProduceResponse | CloseConnectionResponse | None:
    """Append and answer per partition; for acks=0 no answer (None), or ``CLOSE_CONNECTION``
    when a partition failed (Kafka's ``KafkaApis.handleProduceRequest`` closes the connection)."""
    version = header.api_version
    by_id = version >= PRODUCE_TOPIC_ID_VERSION
    errors: dict[TopicPartition, Errors] = {}
    entries: dict[TopicPartition, bytes] = {}
    topic_ids: dict[str, bytes] = {}  # v13: the id each topic was asked by
    unknown_ids: dict[bytes, dict[int, None]] = {}  # v13: ids no topic has -> their partitions
    try:
        transactional = _has_transactional_records(request)
    except CorruptRecordError as exc:  # Kafka: the whole request fails (``getErrorResponse``)
        return _error_for_all(request, Errors.CORRUPT_MESSAGE, str(exc))
    if transactional and request.transactional_id is None:
        # Kafka: transactional batches need a transactional id (authorized) for the whole request
        return _error_for_all(request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None)
    valid_acks = request.acks in (0, 1, -1)
    for topic in request.topic_data:
        if by_id:
            name = ctx.metadata_cache.topic_name(topic.topic_id)
            if name is None:
                unknown = unknown_ids.setdefault(topic.topic_id, {})
                for part in topic.partition_data:
                    unknown[part.index] = None
                continue
            topic_ids[name] = topic.topic_id
        else:
            name = topic.name
        for part in topic.partition_data:
            records = part.records
            tp = _new_tuple(TopicPartition, (name, part.index))  # NamedTuple's __new__ is Python code
            if not valid_acks:
                errors[tp] = Errors.INVALID_REQUIRED_ACKS
            elif ctx.metadata_cache.partition_state(tp) is None:  # Kafka looks for it before anything else
                errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                entries.pop(tp, None)
            elif records is None or tp in entries or tp in errors:
                errors[tp] = Errors.INVALID_REQUEST
                entries.pop(tp, None)
            elif _more_than_one_batch(records):
                errors[tp] = Errors.INVALID_RECORD
            else:
                entries[tp] = records
    statuses = (
        await ctx.replica_manager.append_records(
            request.timeout_ms,
            request.acks,
            entries,
            internal_topics_allowed=header.client_id == ADMIN_CLIENT_ID,
        )
        if entries
        else {}
    )
    if request.acks == 0:  # no answer; a failure closes the connection so the producer notices
        failed = errors or unknown_ids or any(status.error != Errors.NONE for status in statuses.values())
        return CLOSE_CONNECTION if failed else None
    by_topic: dict[str, list[ProducePartitionResponse]] = {}
    endpoints: dict[int, NodeEndpoint] = {}
    for tp, status in statuses.items():
        parts = by_topic.get(tp.topic)
        if parts is None:
            parts = by_topic[tp.topic] = []
        ok = status.error == Errors.NONE
        answer = ProducePartitionResponse(
            index=tp.partition,
            error_code=int(status.error),
            base_offset=status.base_offset if ok else -1,
            log_start_offset=status.log_start_offset,
            log_append_time_ms=status.log_append_time_ms if ok else -1,
            error_message=status.error_message,
            record_errors=[
                BatchIndexAndErrorMessage(batch_index=index, batch_index_error_message=message)
                for index, message in status.record_errors
            ]
            if status.record_errors
            else [],
        )
        if status.error == Errors.NOT_LEADER_OR_FOLLOWER and version >= CURRENT_LEADER_VERSION:
            leader_id, leader_epoch = current_leader(ctx, tp, header.listener_name, endpoints, NodeEndpoint)
            answer.current_leader = ProduceLeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch)
        parts.append(answer)
    for tp, code in errors.items():
        by_topic.setdefault(tp.topic, []).append(
            ProducePartitionResponse(index=tp.partition, error_code=int(code), base_offset=-1)
        )
    responses = [
        ProduceTopicResponse(name=name, topic_id=topic_ids.get(name, ZERO_UUID), partition_responses=parts)
        for name, parts in by_topic.items()
    ]
    responses.extend(
        ProduceTopicResponse(
            name="",
            topic_id=topic_id,
            partition_responses=[
                ProducePartitionResponse(index=index, error_code=int(Errors.UNKNOWN_TOPIC_ID), base_offset=-1)
                for index in indexes
            ],
        )
        for topic_id, indexes in unknown_ids.items()
    )
    return ProduceResponse(responses=responses, node_endpoints=[endpoints[n] for n in sorted(endpoints)])


def _error_for_all(
    request: ProduceRequest, error: Errors, message: str | None
) -> ProduceResponse | CloseConnectionResponse:
    """The whole request failed with ``error``: every partition answered so under the topic's name or
    id as asked, a partition listed twice once (Kafka's ``ProduceRequest.getErrorResponse``); acks=0:
    the connection is closed (Kafka has no answer to send and closes it)."""
    if request.acks == 0:
        return CLOSE_CONNECTION
    return produce_error_response(request, 0, int(error), message)


def _has_transactional_records(request: ProduceRequest) -> bool:
    """Whether a partition's first batch has the transactional attribute bit, looking at the
    partitions in request order up to the first that has (Kafka's
    ``RequestUtils.hasTransactionalRecords``, which ``handleProduceRequest`` asks first).

    Raises:
        CorruptRecordError: a first batch looked at has a size below Kafka's minimum record
            overhead or a magic outside 0-2 (Kafka's ``ByteBufferLogInputStream.nextBatchSize``).
    """
    for topic in request.topic_data:
        for part in topic.partition_data:
            records = part.records
            if records is None or len(records) < LOG_OVERHEAD:
                continue  # no batch
            size = BATCH_LENGTH.unpack_from(records, 8)[0]
            if size < LEGACY_RECORD_OVERHEAD_V0:
                raise CorruptRecordError(
                    f"Record size {size} is less than the minimum record overhead "
                    f"({LEGACY_RECORD_OVERHEAD_V0})"
                )
            if len(records) < HEADER_SIZE_UP_TO_MAGIC:
                continue
            magic = int.from_bytes(records[MAGIC_OFFSET : MAGIC_OFFSET + 1], "big", signed=True)
            if magic < 0 or magic > MAGIC:
                raise CorruptRecordError(f"Invalid magic found in record: {magic}")
            if len(records) < size + LOG_OVERHEAD:
                continue  # a batch cut short is no batch
            if magic == MAGIC and records[ATTRIBUTES_OFFSET + 1] & TRANSACTIONAL_MASK:
                return True
    return False


def _more_than_one_batch(records: bytes) -> bool:
    """True when ``records`` holds a second batch after the first: a producer sends exactly one
    batch per partition (Kafka's ``ProduceRequest.validateRecords``, INVALID_RECORD).  Anything
    malformed is left to the log's checks (CORRUPT_MESSAGE)."""
    if len(records) >= LOG_OVERHEAD:
        # The common case, one batch filling ``records``: its length field says so without a
        # header decode (fewer bytes after it than a header cannot hold a second batch).
        first_size = BATCH_LENGTH.unpack_from(records, 8)[0] + LOG_OVERHEAD
        if len(records) - first_size < HEADER_SIZE:
            return False
    try:
        for count, _ in enumerate(iter_batches(records), 1):
            if count > 1:
                return True
    except CorruptRecordError:
        return False
    return False
