"""Fetch handler: consumer and follower fetches through the ReplicaManager, in fetch sessions.

A consumer's fetch that carries client metadata (Kafka's Fetch v11+, the version in the
request header) may be served by a follower, up to the follower's high watermark (KIP-392; this
broker names no preferred read replica); any other fetch is served by the leader only.

From v13 on topics are named by topic id (KIP-516), resolved through the metadata cache: a
partition of an id no topic has is answered UNKNOWN_TOPIC_ID without being read, one whose log
carries another topic id (the name's topic deleted and created again) INCONSISTENT_TOPIC_ID.  The request's
session id and epoch (KIP-227) pick a ``FetchContext`` (``broker/fetch_session.py``): which
partitions are read (an incremental fetch reads every partition of its session) and which of
their answers are sent.  From v16 a NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH partition
carries the leader the metadata names and the answer that leader's endpoint (KIP-951).  An answer
Kafka's broker cannot write (a v13+ partition of the zero topic id followed by another refused
partition: ``_kafka_cannot_write``) is UNKNOWN_SERVER_ERROR, as Kafka answers it.
With an authorizer, a consumer's partition of a topic it may not READ, and every partition of a
follower's fetch without CLUSTER_ACTION on the cluster, is TOPIC_AUTHORIZATION_FAILED and not read.

Kafka concept: ``KafkaApis.handleFetchRequest`` -> ``FetchManager.newContext`` and
``ReplicaManager.fetchMessages``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from kafkette.broker.apis import raft_quorum
from kafkette.broker.apis.auth_helper import (
    CLUSTER_NAME,
    authorize,
    authorize_cluster_operation,
    authorizer_of,
    filter_by_authorized,
)
from kafkette.broker.apis.current_leader import current_leader
from kafkette.broker.client_quota_manager import principal_name
from kafkette.broker.delayed_fetch import FetchPartitionInfo
from kafkette.broker.fetch_session import TopicIdPartition
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.protocol.apis.fetch import (
    AbortedTransaction,
    FetchPartitionData,
    FetchRequest,
    FetchResponse,
    FetchTopicResponse,
    LeaderIdAndEpoch,
    NodeEndpoint,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import fetch_error_response
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_translation import READ_COMMITTED
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


CLIENT_METADATA_MIN_VERSION = 11
"""The first Fetch version carrying client metadata (KIP-392: Kafka's ``FetchRequest.metadata``
is defined from v11 on, and ``fetchOnlyFromLeader`` is false for a consumer that has it)."""

TOPIC_IDS_MIN_VERSION = 13
"""The first Fetch version naming topics by id (KIP-516)."""

REPLICA_STATE_MIN_VERSION = 15
"""The first Fetch version carrying the follower's id in ``replica_state`` (KIP-903)."""

CURRENT_LEADER_MIN_VERSION = 16
"""The first Fetch version answering the current leader and its endpoint (KIP-951)."""

_NEW_LEADER_ERRORS = (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH)

ISOLATION_LEVELS = (0, 1)
"""READ_UNCOMMITTED and READ_COMMITTED; any other value fails the request (Kafka's
``IsolationLevel.forId`` throws)."""


def _requested(
    request: FetchRequest, version: int, topic_names: dict[bytes, str]
) -> tuple[dict[TopicIdPartition, object], list[TopicIdPartition]]:
    """The request's partitions (with their request data) and forgotten partitions, each named by
    topic id and name (v13+: the name the metadata gives the id, None for an unknown id)."""

    def named(topic: object) -> tuple[bytes, str | None]:
        if version >= TOPIC_IDS_MIN_VERSION:
            topic_id = bytes(topic.topic_id)  # type: ignore[attr-defined]
            return topic_id, topic_names.get(topic_id)
        return ZERO_UUID, topic.topic  # type: ignore[attr-defined]

    fetch_data: dict[TopicIdPartition, object] = {}
    for topic in request.topics:
        topic_id, name = named(topic)
        for part in topic.partitions:
            fetch_data[TopicIdPartition(topic_id, name, part.partition)] = part
    to_forget = [
        TopicIdPartition(*named(topic), partition)
        for topic in request.forgotten_topics_data
        for partition in topic.partitions
    ]
    return fetch_data, to_forget


def replica_id_of(request: FetchRequest, version: int) -> int:
    """The fetching replica's broker id (>= 0 for a follower; -1 for a consumer): the request's
    ``replica_state`` from v15, its ``replica_id`` before (Kafka's ``FetchRequest.replicaId``)."""
    return request.replica_state.replica_id if version >= REPLICA_STATE_MIN_VERSION else request.replica_id  # type: ignore[no-any-return]


async def handle(ctx: ApisContext, header: RequestHeader, request: FetchRequest) -> FetchResponse:
    """Read (possibly after waiting up to ``max_wait_ms``) and answer per partition; a Fetch of
    the metadata log (``__cluster_metadata`` by name, a voter pulling from the quorum's leader)
    goes to this node's voter.  An isolation level other than 0 and 1 fails a request that has a
    partition the metadata has to read with UNKNOWN_SERVER_ERROR (Kafka's ``getErrorResponse``), as Kafka's
    ``IsolationLevel.forId`` throws there."""
    version = header.api_version
    if (
        version < TOPIC_IDS_MIN_VERSION
        and request.topics
        and request.topics[0].topic == CLUSTER_METADATA_TOPIC_NAME
    ):
        authorize_cluster_operation(ctx, header, AclOperation.CLUSTER_ACTION)  # a voter's fetch
        return await raft_quorum.handle(ctx, header, request)  # type: ignore[no-any-return]
    replica_id = replica_id_of(request, version)
    topic_names = ctx.metadata_cache.topic_ids_to_names() if version >= TOPIC_IDS_MIN_VERSION else {}
    fetch_data, to_forget = _requested(request, version, topic_names)
    context = ctx.fetch_manager.new_context(
        version,
        request.session_id,
        request.session_epoch,
        replica_id >= 0,
        fetch_data,
        to_forget,
        int(ctx.replica_manager.time.monotonic_ms()),
    )
    erroneous: list[tuple[TopicIdPartition, FetchPartitionData]] = []
    interesting: dict[TopicPartition, tuple[TopicIdPartition, FetchPartitionInfo]] = {}
    order: list[TopicIdPartition] = []
    partitions = list(context.partitions(topic_names))
    readable = _authorized_topics(ctx, header, replica_id >= 0, partitions)
    for tp, part in partitions:
        order.append(tp)
        if tp.topic is None or (readable is not None and tp.topic not in readable):
            code = Errors.UNKNOWN_TOPIC_ID if tp.topic is None else Errors.TOPIC_AUTHORIZATION_FAILED
            erroneous.append(
                (
                    tp,
                    FetchPartitionData(
                        partition_index=tp.partition,
                        error_code=int(code),
                        high_watermark=-1,
                        log_start_offset=-1,
                    ),
                )
            )
            continue
        interesting[TopicPartition(tp.topic, tp.partition)] = (
            tp,
            FetchPartitionInfo(
                part.fetch_offset,
                part.partition_max_bytes,
                part.current_leader_epoch,
                part.log_start_offset,
                tp.topic_id,
            ),
        )
    if request.isolation_level not in ISOLATION_LEVELS and any(
        ctx.metadata_cache.partition_state(tp) is not None for tp in interesting
    ):  # Kafka reads the level only when a partition the metadata has is left to read
        return fetch_error_response(request, version, Errors.UNKNOWN_SERVER_ERROR, None)  # type: ignore[no-any-return]
    results = (
        await ctx.replica_manager.fetch_messages(
            replica_id=replica_id,
            max_wait_ms=request.max_wait_ms,
            min_bytes=request.min_bytes,
            max_bytes=request.max_bytes,
            fetch_infos={tp: info for tp, (_, info) in interesting.items()},
            fetch_only_from_leader=replica_id >= 0 or version < CLIENT_METADATA_MIN_VERSION,
            read_committed=request.isolation_level == READ_COMMITTED and replica_id < 0,
        )
        if interesting
        else {}
    )
    node_endpoints: dict[int, NodeEndpoint] = {}
    updates: list[tuple[TopicIdPartition, FetchPartitionData]] = []
    for tp, result in results.items():
        data = FetchPartitionData(
            partition_index=tp.partition,
            error_code=int(result.error),
            high_watermark=result.high_watermark,
            last_stable_offset=result.last_stable_offset,
            log_start_offset=result.log_start_offset,
            aborted_transactions=None
            if result.aborted_transactions is None  # read_uncommitted: null, as Kafka answers
            else [
                AbortedTransaction(producer_id=a.producer_id, first_offset=a.first_offset)
                for a in result.aborted_transactions
            ],
            records=result.records,
        )
        if version >= CURRENT_LEADER_MIN_VERSION and result.error in _NEW_LEADER_ERRORS:
            leader_id, leader_epoch = current_leader(
                ctx, tp, header.listener_name, node_endpoints, NodeEndpoint
            )
            data.current_leader = LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch)
        updates.append((interesting[tp][0], data))
    error_code, session_id, sent = context.response(
        updates + erroneous, int(ctx.replica_manager.time.monotonic_ms())
    )
    # only a zero topic id (never in a client's normal fetch) can make it fail: skip the walk otherwise
    if any(tp.topic_id == ZERO_UUID for tp, _ in erroneous) and _kafka_cannot_write(
        ctx, order, {tp for tp, _ in sent}
    ):
        return fetch_error_response(request, version, Errors.UNKNOWN_SERVER_ERROR, None)  # type: ignore[no-any-return]
    if replica_id < 0 and ctx.fetch_quotas.quotas_enabled:
        throttle_time_ms = _consumer_throttle_time_ms(ctx, header, sent)
        if throttle_time_ms > 0:  # Kafka's getThrottledResponse: nothing read is sent
            return FetchResponse(
                throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=[]
            )
    by_topic: dict[tuple[bytes, str | None], list[FetchPartitionData]] = {}
    for tp, data in sent:
        by_topic.setdefault((tp.topic_id, tp.topic), []).append(data)
    response = FetchResponse(
        error_code=error_code,
        session_id=session_id,
        responses=[
            FetchTopicResponse(topic=name or "", topic_id=topic_id, partitions=partitions)
            for (topic_id, name), partitions in by_topic.items()
        ],
    )
    if node_endpoints:
        response.node_endpoints = list(node_endpoints.values())
    return response


def _authorized_topics(
    ctx: ApisContext,
    header: RequestHeader,
    from_follower: bool,
    partitions: list[tuple[TopicIdPartition, Any]],
) -> set[str] | None:
    """The topics this fetch may read (None: every one, no authorizer): a follower's fetch needs
    CLUSTER_ACTION on the cluster, else none of its partitions is read; a consumer's needs READ on
    each topic (Kafka's ``handleFetchRequest``; the others answer TOPIC_AUTHORIZATION_FAILED)."""
    if authorizer_of(ctx) is None:
        return None
    names = {tp.topic for tp, _ in partitions if tp.topic is not None}
    if from_follower:
        return (
            names
            if authorize(ctx, header, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME)
            else set()
        )
    return filter_by_authorized(ctx, header, AclOperation.READ, ResourceType.TOPIC, names)


def _consumer_throttle_time_ms(
    ctx: ApisContext, header: RequestHeader, sent: list[tuple[TopicIdPartition, FetchPartitionData]]
) -> int:
    """The throttle time (ms) of a consumer over its ``consumer_byte_rate`` for this answer's record
    bytes; a throttled answer's bytes are taken back, as it is sent empty (Kafka's
    ``quotas.fetch.maybeRecordAndGetThrottleTimeMs`` then ``unrecordQuotaSensor``)."""
    user, client_id = principal_name(header.principal), header.client_id or ""
    size = sum(len(data.records) for _, data in sent if data.records)
    now_ms = int(time.monotonic() * 1000)
    throttle_time_ms = ctx.fetch_quotas.record_and_get_throttle_time_ms(user, client_id, size, now_ms)
    if throttle_time_ms > 0:
        ctx.fetch_quotas.unrecord(user, client_id, size, now_ms)
    return throttle_time_ms


def _kafka_cannot_write(ctx: ApisContext, order: list[TopicIdPartition], sent: set[TopicIdPartition]) -> bool:
    """Whether Kafka's broker fails this answer with UNKNOWN_SERVER_ERROR (its ``getErrorResponse``):
    ``FetchResponse.toMessage`` groups the answered partitions by comparing each with the topic before
    it, by name when that topic has the zero topic id, and a zero id asked by a v13+ fetch has no name
    (a NullPointerException).  Kafka answers the partitions it read first, then the ones it refused
    before reading (an unknown topic id, a partition the metadata lacks) in request order; so the answer
    fails when a zero-id partition is followed by another refused one.

    Args:
        order: the fetch context's partitions, in request (or session) order.
        sent: the partitions the context answers.
    """
    refused = [
        tp
        for tp in dict.fromkeys(order)
        if tp in sent
        and (
            tp.topic is None
            or ctx.metadata_cache.partition_state(TopicPartition(tp.topic, tp.partition)) is None
        )
    ]
    return any(tp.topic is None and tp.topic_id == ZERO_UUID for tp in refused[:-1])
