"""``OffsetAndMetadata``: a committed offset as clients see it, and the group requests' error
handling shared by the Consumer and the AdminClient.

Owns: the value type and the checks of a commit or fetch answer (per-partition errors raised
as Kafka's exception classes).  Kafka concept: ``org.apache.kafka.clients.consumer.OffsetAndMetadata``
(aiokafka's ``OffsetAndMetadata``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from kafkette.client.group_coordinator_channel import COORDINATOR_RETRIABLE
from kafkette.protocol.apis.group_admin import OffsetDeleteResponse
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetCommitResponse,
    OffsetFetchResponse,
)
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.topic_partition import TopicPartition


class OffsetAndMetadata(NamedTuple):
    """A committed offset.

    Attributes:
        offset: the next offset the group will consume.
        metadata: the committer's string ("" when none).
        leader_epoch: the leader epoch of the last consumed record, -1 when unknown.
    """

    offset: int
    metadata: str = ""
    leader_epoch: int = -1


def _error(what: str, group_id: str, code: int, where: str = "") -> Exception:
    cls = error_class(code)
    return cls(f"Offset {what} of group {group_id!r}{where} failed: {cls.message}")


def offset_commit_request(
    group_id: str,
    offsets: Mapping[TopicPartition, OffsetAndMetadata],
    *,
    generation_id: int = -1,
    member_id: str = "",
    group_instance_id: str | None = None,
) -> OffsetCommitRequest:
    """The OffsetCommit request for ``offsets`` (outside group management by default)."""
    return OffsetCommitRequest(
        group_id=group_id,
        generation_id=generation_id,
        member_id=member_id,
        group_instance_id=group_instance_id,
        topics=offset_commit_topics(offsets, OffsetCommitRequestPartition, OffsetCommitRequestTopic),
    )


def offset_commit_topics(
    offsets: Mapping[TopicPartition, OffsetAndMetadata], partition_type: type, topic_type: type
) -> list[Any]:
    """``offsets`` as the ``topics`` of an OffsetCommit or TxnOffsetCommit request: one
    ``topic_type(name, partitions)`` per topic of ``partition_type(partition_index,
    committed_offset, committed_leader_epoch, committed_metadata)``, in partition order."""
    by_topic: dict[str, list[Any]] = {}
    for tp, value in sorted(offsets.items()):
        by_topic.setdefault(tp.topic, []).append(
            partition_type(
                partition_index=tp.partition,
                committed_offset=value.offset,
                committed_leader_epoch=value.leader_epoch,
                committed_metadata=value.metadata,
            )
        )
    return [topic_type(name=n, partitions=ps) for n, ps in by_topic.items()]


def commit_group_error(response: OffsetCommitResponse | OffsetDeleteResponse) -> int:
    """The first coordinator error (COORDINATOR_RETRIABLE) among the partitions of a commit or
    OffsetDelete answer (such an error applies to every partition)."""
    for topic in response.topics:
        for p in topic.partitions:
            if p.error_code in COORDINATOR_RETRIABLE:
                return p.error_code
    return Errors.NONE


def raise_commit_errors(group_id: str, response: OffsetCommitResponse) -> None:
    """Raise the first partition error of a commit answer.

    Raises:
        KafkaError: its class named after the code (``IllegalGenerationError``,
            ``UnknownTopicOrPartitionError``, ``OffsetMetadataTooLargeError``, ...), the message
            naming the group and partition.
    """
    for topic in response.topics:
        for p in topic.partitions:
            if p.error_code != Errors.NONE:
                raise _error("commit", group_id, p.error_code, f" for {topic.name}-{p.partition_index}")


def committed_offsets(
    group_id: str, response: OffsetFetchResponse
) -> dict[TopicPartition, OffsetAndMetadata | None]:
    """``{partition: committed offset or None}`` of an OffsetFetch answer.

    Raises:
        KafkaError: the group's or a partition's error (class named after the code).
    """
    if response.error_code != Errors.NONE:
        raise _error("fetch", group_id, response.error_code)
    out: dict[TopicPartition, OffsetAndMetadata | None] = {}
    for topic in response.topics:
        for p in topic.partitions:
            if p.error_code != Errors.NONE:
                raise _error("fetch", group_id, p.error_code, f" for {topic.name}-{p.partition_index}")
            tp = TopicPartition(topic.name, p.partition_index)
            out[tp] = (
                None
                if p.committed_offset < 0
                else OffsetAndMetadata(p.committed_offset, p.metadata or "", p.committed_leader_epoch)
            )
    return out
