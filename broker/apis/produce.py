"""Produce handler: appends batches through the ReplicaManager and reports offsets.

acks must be 0, 1 or -1 (INVALID_REQUIRED_ACKS otherwise); acks=0 gets no response, and
closes the connection when a partition failed.  Before anything, as Kafka's
``RequestUtils.hasTransactionalRecords``, the first batch of each partition is looked at in request
order until one is transactional: a batch size or magic Kafka's batch iterator refuses there fails
the whole request with CORRUPT_MESSAGE, and transactional batches in a request without a
transactional id answer TRANSACTIONAL_ID_AUTHORIZATION_FAILED, both for every partition (once, however
often it is listed: ``ProduceRequest.getErrorResponse``), as Kafka does.  Transactional batches are
verified with their coordinator before the append (KIP-890, ``ReplicaManager.handle_produce_append``:
a partition not in the transaction answers INVALID_TXN_STATE; v12+ adds it instead); batches of two
producers in one request fail it with INVALID_PRODUCER_ID_MAPPING.
A partition the metadata does not have is UNKNOWN_TOPIC_OR_PARTITION before any other check (Kafka's
``metadataCache.contains`` comes first); a null ``records`` is INVALID_REQUEST; then Kafka's
``ProduceRequest.validateRecords``: not exactly one whole batch of magic 2 is INVALID_RECORD, a
ZStandard batch before v7 UNSUPPORTED_COMPRESSION_TYPE, a batch the iterator refuses CORRUPT_MESSAGE.
A partition listed twice is answered once, as Kafka's maps keyed by partition answer it: a refusal of
either entry wins, else the last entry's batch is appended.  A partition of an internal topic is
INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic <name>", unless the client id is Kafka's
``__admin_client`` (the ReplicaManager refuses it; the group coordinator's own writes go straight
to the ReplicaManager).

From v10 (KIP-951) a NOT_LEADER_OR_FOLLOWER partition carries its ``current_leader`` as this broker
knows it (its own replica's leader and epoch, else the metadata's; -1 and -1 when neither knows one),
and the answer the ``node_endpoints`` of those leaders that are alive, on the listener the request
came in on.  v11 and v12 (KIP-890) change nothing for a producer outside a transaction (an idempotent
one included); for a transactional one they choose the verification (v11 TRANSACTION_ABORTABLE passes
to the client, v12 the leader adds the partition to the transaction).  From v13 (KIP-516) topics are
named by id: an id no topic has is UNKNOWN_TOPIC_ID for each of its partitions, and every answer
names its topic by the id it was asked by.  A producer over its ``producer_byte_rate`` quota
(KIP-13, KIP-55; the bytes of its record sets, per user and client id) gets the answer at once with
its ``throttle_time_ms``, and its connection reads nothing more for that long (KIP-219).
Kafka concept: ``KafkaApis.handleProduceRequest`` (``getCurrentLeader``, ``quotas.produce``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kafkette.broker.apis.current_leader import current_leader
from kafkette.broker.client_quota_manager import principal_name
from kafkette.broker.transaction.add_partitions_to_txn_manager import (
    produce_request_version_to_transaction_supported_operation,
)
from kafkette.common.network.socket_server import CLOSE_CONNECTION, CloseConnectionResponse, NoOpResponse
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
from kafkette.protocol.errors import Errors, InvalidProducerIdMappingError
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import produce_error_response
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    BATCH_LENGTH,
    LOG_OVERHEAD,
    MAGIC,
    TRANSACTIONAL_MASK,
    CorruptRecordError,
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

ZSTD_MIN_VERSION = 7
"""The first Produce version that may carry ZStandard-compressed batches (KIP-110)."""

COMPRESSION_CODEC_MASK = 0x07
ZSTD_CODEC = 4
MAX_COMPRESSION_CODEC = 4
"""Kafka's compression type ids: none 0, gzip 1, snappy 2, lz4 3, zstd 4."""

CURRENT_LEADER_VERSION = 10
"""The first Produce version whose NOT_LEADER_OR_FOLLOWER answers carry the current leader (KIP-951)."""


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ProduceRequest
) -> ProduceResponse | CloseConnectionResponse | NoOpResponse | None:
    """Append and answer per partition; for acks=0 no answer (None, or a ``NoOpResponse``
    muting the connection for its byte-rate throttle time: Kafka records the bytes of an acks=0
    Produce against ``producer_byte_rate`` too), or ``CLOSE_CONNECTION`` when a partition failed
    (Kafka's ``KafkaApis.handleProduceRequest`` closes the connection)."""
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
            elif records is None:
                errors[tp] = Errors.INVALID_REQUEST
            else:
                try:
                    problem = _validate_records(version, records)
                except ValueError:  # Kafka: not an ApiException, the whole request fails
                    # ApiError.fromThrowable keeps no message for UNKNOWN_SERVER_ERROR
                    return _error_for_all(request, Errors.UNKNOWN_SERVER_ERROR, None)
                if problem is None:
                    entries[tp] = records  # listed twice: the last one (Kafka's map)
                else:
                    errors[tp] = problem
    try:
        statuses = (
            await ctx.replica_manager.handle_produce_append(
                request.timeout_ms,
                request.acks,
                entries,
                request.transactional_id,
                produce_request_version_to_transaction_supported_operation(version),
                internal_topics_allowed=header.client_id == ADMIN_CLIENT_ID,
            )
            if entries
            else {}
        )
    except InvalidProducerIdMappingError as exc:  # Kafka: the whole request fails
        return _error_for_all(request, Errors.INVALID_PRODUCER_ID_MAPPING, str(exc))
    throttle_time_ms = ctx.produce_quotas.record_and_get_throttle_time_ms(
        principal_name(header.principal),
        header.client_id or "",
        sum(len(records) for records in entries.values()),
        int(time.monotonic() * 1000),
    )
    if request.acks == 0:  # no answer; a failure closes the connection so the producer notices
        failed = errors or unknown_ids or any(status.error != Errors.NONE for status in statuses.values())
        if failed:
            return CLOSE_CONNECTION
        return NoOpResponse(throttle_time_ms) if throttle_time_ms > 0 else None
    by_topic: dict[str, list[ProducePartitionResponse]] = {}
    endpoints: dict[int, NodeEndpoint] = {}
    for tp, status in statuses.items():
        if tp in errors:  # Kafka's merged answer: a refusal of the same partition wins
            continue
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
    return ProduceResponse(
        throttle_time_ms=throttle_time_ms,
        responses=responses,
        node_endpoints=[endpoints[n] for n in sorted(endpoints)],
    )


def _error_for_all(
    request: ProduceRequest, error: Errors, message: str | None
) -> ProduceResponse | CloseConnectionResponse:
    """The whole request failed with ``error``: every partition answered so under the topic's name or
    id as asked, a partition listed twice once (Kafka's ``ProduceRequest.getErrorResponse``); acks=0:
    the connection is closed (Kafka has no answer to send and closes it)."""
    if request.acks == 0:
        return CLOSE_CONNECTION
    return produce_error_response(request, 0, int(error), message)


def _next_batch(records: bytes, position: int) -> tuple[int, int] | None:
    """The magic and size (with the log overhead, bytes) of the batch at ``position``, or None when
    ``records`` holds no whole batch there (Kafka's ``ByteBufferLogInputStream.nextBatch``).

    Raises:
        CorruptRecordError: a batch size below Kafka's minimum record overhead or a magic outside 0-2
            (``nextBatchSize``).
    """
    remaining = len(records) - position
    if remaining < LOG_OVERHEAD:
        return None
    size = BATCH_LENGTH.unpack_from(records, position + 8)[0]
    if size < LEGACY_RECORD_OVERHEAD_V0:
        raise CorruptRecordError(
            f"Record size {size} is less than the minimum record overhead ({LEGACY_RECORD_OVERHEAD_V0})"
        )
    if remaining < HEADER_SIZE_UP_TO_MAGIC:
        return None
    magic = int.from_bytes(records[position + MAGIC_OFFSET : position + MAGIC_OFFSET + 1], "big", signed=True)
    if magic < 0 or magic > MAGIC:
        raise CorruptRecordError(f"Invalid magic found in record: {magic}")
    if remaining < size + LOG_OVERHEAD:
        return None  # a batch cut short is no batch
    return magic, size + LOG_OVERHEAD


def _has_transactional_records(request: ProduceRequest) -> bool:
    """Whether a partition's first batch has the transactional attribute bit, looking at the
    partitions in request order up to the first that has (Kafka's
    ``RequestUtils.hasTransactionalRecords``, which ``handleProduceRequest`` asks first).

    Raises:
        CorruptRecordError: a first batch looked at that Kafka's batch iterator refuses (``_next_batch``).
    """
    for topic in request.topic_data:
        for part in topic.partition_data:
            records = part.records
            batch = None if records is None else _next_batch(records, 0)
            if (
                batch is not None
                and batch[0] == MAGIC
                and records[ATTRIBUTES_OFFSET + 1] & TRANSACTIONAL_MASK
            ):
                return True
    return False


def _validate_records(version: int, records: bytes) -> Errors | None:
    """Kafka's ``ProduceRequest.validateRecords`` for one partition: exactly one batch, of magic 2, not
    ZStandard-compressed before v7; the error a partition breaking that is answered, or None.

    Returns:
        INVALID_RECORD (no whole batch, another magic, a second batch), UNSUPPORTED_COMPRESSION_TYPE
        (ZStandard before v7), CORRUPT_MESSAGE (a batch Kafka's iterator refuses), or None.

    Raises:
        ValueError: before v7, a compression codec id Kafka does not know (its ``CompressionType.forId``
            throws IllegalArgumentException, which fails the whole request).
    """
    try:
        first = _next_batch(records, 0)
        if first is None or first[0] != MAGIC:
            return Errors.INVALID_RECORD
        if version < ZSTD_MIN_VERSION:
            codec = records[ATTRIBUTES_OFFSET + 1] & COMPRESSION_CODEC_MASK
            if codec > MAX_COMPRESSION_CODEC:
                raise ValueError(f"Unknown compression type id: {codec}")
            if codec == ZSTD_CODEC:
                return Errors.UNSUPPORTED_COMPRESSION_TYPE
        if _next_batch(records, first[1]) is not None:
            return Errors.INVALID_RECORD
    except CorruptRecordError:
        return Errors.CORRUPT_MESSAGE
    return None
