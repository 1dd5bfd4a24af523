"""Fetch handler: consumer and follower fetches through the ReplicaManager.

A consumer's fetch that carries client metadata (Kafka's Fetch v11+, the version in the
request header) may be served by a follower, up to the follower's high watermark (KIP-392; this broker names
no preferred read replica); any other fetch is served by the leader only.

Kafka concept: ``KafkaApis.handleFetchRequest`` -> ``ReplicaManager.fetchMessages``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis import raft_quorum
from kafkette.broker.delayed_fetch import FetchPartitionInfo
from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchRequest, FetchResponse, FetchTopicResponse
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


CLIENT_METADATA_MIN_VERSION = 11
"""The first Fetch version carrying client metadata (KIP-392: Kafka's ``FetchRequest.metadata``
is defined from v11 on, and ``fetchOnlyFromLeader`` is false for a consumer that has it)."""


async def handle(ctx: ApisContext, header: RequestHeader, request: FetchRequest) -> FetchResponse:
    """Read (possibly after waiting up to ``max_wait_ms``) and answer per partition; a Fetch of
    the metadata log (``__cluster_metadata``, a voter pulling from the quorum's leader) goes to
    this node's voter."""
    if request.topics and request.topics[0].topic == CLUSTER_METADATA_TOPIC_NAME:
        return await raft_quorum.handle(ctx, header, request)  # type: ignore[no-any-return]
    infos: dict[TopicPartition, FetchPartitionInfo] = {}
    for topic in request.topics:
        for part in topic.partitions:
            infos[TopicPartition(topic.topic, part.partition)] = FetchPartitionInfo(
                part.fetch_offset, part.partition_max_bytes, part.current_leader_epoch, part.log_start_offset
            )
    results = await ctx.replica_manager.fetch_messages(
        replica_id=request.replica_id,
        max_wait_ms=request.max_wait_ms,
        min_bytes=request.min_bytes,
        max_bytes=request.max_bytes,
        fetch_infos=infos,
        fetch_only_from_leader=request.replica_id >= 0 or header.api_version < CLIENT_METADATA_MIN_VERSION,
    )
    by_topic: dict[str, list[FetchPartitionData]] = {}
    for tp, result in results.items():
        by_topic.setdefault(tp.topic, []).append(
            FetchPartitionData(
                partition_index=tp.partition,
                error_code=int(result.error),
                high_watermark=result.high_watermark,
                last_stable_offset=result.high_watermark,
                log_start_offset=result.log_start_offset,
                aborted_transactions=None,  # read_uncommitted: null, as Kafka answers
                records=result.records,
            )
        )
    return FetchResponse(responses=[FetchTopicResponse(topic=t, partitions=p) for t, p in by_topic.items()])
