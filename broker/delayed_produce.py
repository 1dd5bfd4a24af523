"""DelayedProduce: an acks=-1 produce waiting for the ISR to replicate its batches.

Completion cases (Kafka's DelayedProduce, checked per partition still pending):
  A. this broker is no longer the leader -> NOT_LEADER_OR_FOLLOWER;
  B. the high watermark reached the required offset -> NONE, or
     NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR fell below min.insync.replicas;
  C. the timeout passed -> REQUEST_TIMED_OUT for partitions still pending.
The operation completes when no partition is pending, or on timeout.

Kafka concept: ``kafka.server.DelayedProduce`` (seed 004, ReplicaManager.appendRecords).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from broker.partition import Partition
from broker.purgatory import DelayedOperation
from protocol.errors import Errors
from protocol.topic_partition import TopicPartition


@dataclass(slots=True)
class ProducePartitionStatus:
    """Per-partition state of a produce: required offset (last offset + 1) and result.

    ``log_append_time_ms`` is the leader's LogAppendTime stamp (ms), -1 under CreateTime.
    """

    required_offset: int
    base_offset: int
    error: Errors = Errors.NONE
    pending: bool = True
    log_start_offset: int = -1
    log_append_time_ms: int = -1


class DelayedProduce(DelayedOperation):
    """Waits until every partition's high watermark passes its appended batches.

    Args:
        delay_ms: the request's ``timeout_ms``.
        statuses: ``{tp: ProducePartitionStatus}``; partitions that already failed
            at append time have ``pending=False``.
        get_partition: ``tp -> Partition | None``.
        result: resolved with ``statuses`` on completion (never with an exception).
    """

    def __init__(
        self,
        delay_ms: int,
        statuses: dict[TopicPartition, ProducePartitionStatus],
        get_partition: Callable[[TopicPartition], Partition | None],
        result: asyncio.Future[dict[TopicPartition, ProducePartitionStatus]],
    ) -> None:
        super().__init__(delay_ms)
        self.statuses = statuses
        self._get_partition = get_partition
        self._result = result

    def try_complete(self) -> bool:
        for tp, status in self.statuses.items():
            if not status.pending:
                continue
            partition = self._get_partition(tp)
            if partition is None:
                status.pending, status.error = False, Errors.UNKNOWN_TOPIC_OR_PARTITION  # case A
                continue
            done, error = partition.check_enough_replicas_reach_offset(status.required_offset)  # A, B
            if done:
                status.pending, status.error = False, error
        if any(s.pending for s in self.statuses.values()):
            return False
        return self.force_complete()

    def on_complete(self) -> None:
        for status in self.statuses.values():
            if status.pending:  # case C
                status.pending, status.error = False, Errors.REQUEST_TIMED_OUT
        if not self._result.done():
            self._result.set_result(self.statuses)
