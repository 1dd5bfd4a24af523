"""DelayedDeleteRecords: a DeleteRecords waiting for the followers' log start offsets.

The leader moves its own log start offset at once; the request is answered when the
partition's low watermark (the smallest log start offset of the leader and its live
followers, which learn the leader's from their fetches and report theirs in the next
one) reaches the requested offset.

Completion cases (Kafka's DelayedDeleteRecords, checked per partition still pending):
  A. the partition is no longer hosted here -> UNKNOWN_TOPIC_OR_PARTITION;
  B. this broker is no longer the leader -> NOT_LEADER_OR_FOLLOWER;
  C. the low watermark reached the requested offset -> NONE with the low watermark;
  D. the timeout passed -> REQUEST_TIMED_OUT for partitions still pending.
The operation completes when no partition is pending, or on timeout.

Kafka concept: ``kafka.server.DelayedDeleteRecords`` (the DeleteRecords
purgatory of ReplicaManager).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.broker.delayed_partition_operation import DelayedPartitionsOperation
from kafkette.broker.partition import Partition
from kafkette.protocol.errors import Errors, NotLeaderOrFollowerError
from kafkette.protocol.topic_partition import TopicPartition


@dataclass(slots=True)
class DeleteRecordsPartitionStatus:
    """Per-partition state of a DeleteRecords.

    Attributes:
        requested_offset: the offset the log start offset must reach (-1 converted to the HW).
        low_watermark: the partition's low watermark when last checked (-1: unknown).
        error: the result code.
        pending: True while waiting for the followers.
    """

    requested_offset: int
    low_watermark: int = -1
    error: Errors = Errors.NONE
    pending: bool = True


class DelayedDeleteRecords(DelayedPartitionsOperation[DeleteRecordsPartitionStatus]):
    """Waits until every pending partition's low watermark reaches its requested offset.

    Case A (partition gone) and case D (timeout) are handled by ``DelayedPartitionsOperation``.

    Args:
        delay_ms: the request's ``timeout_ms``.
        statuses: ``{tp: DeleteRecordsPartitionStatus}``; partitions that already failed
            have ``pending=False``.
        get_partition: ``tp -> Partition | None``.
        is_alive: ``broker_id -> bool`` (followers on dead brokers do not hold it back).
        result: resolved with ``statuses`` on completion (never with an exception).
    """

    def __init__(
        self,
        delay_ms: int,
        statuses: dict[TopicPartition, DeleteRecordsPartitionStatus],
        get_partition: Callable[[TopicPartition], Partition | None],
        is_alive: Callable[[int], bool],
        result: asyncio.Future[dict[TopicPartition, DeleteRecordsPartitionStatus]],
    ) -> None:
        super().__init__(delay_ms, statuses, get_partition, result)
        self._is_alive = is_alive

    def try_complete_partition(self, partition: Partition, status: DeleteRecordsPartitionStatus) -> None:
        """Cases B and C: leadership lost, or the low watermark reached the requested offset."""
        try:
            low_watermark = partition.low_watermark_if_leader(self._is_alive)
        except NotLeaderOrFollowerError:
            status.pending, status.error = False, Errors.NOT_LEADER_OR_FOLLOWER  # case B
            return
        status.low_watermark = low_watermark
        if low_watermark >= status.requested_offset:
            status.pending = False  # case C
