"""DelayedProduce: an acks=-1 produce waiting for the ISR to replicate its batches.

Completion cases (Kafka's DelayedProduce, checked per partition still pending):
  A. this broker is no longer the leader -> NOT_LEADER_OR_FOLLOWER;
  B. the high watermark reached the required offset -> NONE, or
     NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR fell below min.insync.replicas;
  C. the timeout passed -> REQUEST_TIMED_OUT for partitions still pending.
The operation completes when no partition is pending, or on timeout.

Kafka concept: ``kafka.server.DelayedProduce`` (parked by ``ReplicaManager.appendRecords`` with acks=all).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.broker.delayed_partition_operation import DelayedPartitionsOperation
from kafkette.broker.partition import Partition
from kafkette.protocol.errors import Errors


@dataclass(slots=True)
class ProducePartitionStatus:
    """Per-partition state of a produce: required offset (last offset + 1) and result.

    ``log_append_time_ms`` is the leader's LogAppendTime stamp (ms), -1 under CreateTime.
    ``record_errors`` names the records a failed batch was refused for: ``[(index in the
    batch, message)]`` (Kafka's ``RecordError``s, answered in Produce v8+); ``error_message`` says
    why a partition was refused, when there is more to say than the error's name (an internal topic).
    """

    required_offset: int
    base_offset: int
    error: Errors = Errors.NONE
    pending: bool = True
    log_start_offset: int = -1
    log_append_time_ms: int = -1
    record_errors: list[tuple[int, str]] = field(default_factory=list)
    error_message: str | None = None


class DelayedProduce(DelayedPartitionsOperation[ProducePartitionStatus]):
    """Waits until every partition's high watermark passes its appended batches.

    A partition no longer hosted here gets UNKNOWN_TOPIC_OR_PARTITION, and case C (timeout)
    is handled by ``DelayedPartitionsOperation``.

    Args:
        delay_ms: the request's ``timeout_ms``.
        statuses: ``{tp: ProducePartitionStatus}``; partitions that already failed
            at append time have ``pending=False``.
        get_partition: ``tp -> Partition | None``.
        result: resolved with ``statuses`` on completion (never with an exception).
    """

    def try_complete_partition(self, partition: Partition, status: ProducePartitionStatus) -> None:
        """Cases A and B: leadership lost, or the high watermark reached the required offset."""
        done, error = partition.check_enough_replicas_reach_offset(status.required_offset)  # A, B
        if done:
            status.pending, status.error = False, error
