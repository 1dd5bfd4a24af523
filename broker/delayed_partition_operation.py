"""DelayedPartitionsOperation: a delayed operation over per-partition statuses.

Owns the completion loop shared by the purgatory operations that wait on several
partitions at once and answer with one status per partition (DelayedProduce,
DelayedDeleteRecords): skip partitions already decided, fail partitions no longer
hosted here with UNKNOWN_TOPIC_OR_PARTITION, ask the subclass about the rest,
complete when none is pending, and on completion mark whatever is still pending
REQUEST_TIMED_OUT before resolving the result future with the statuses.

Does not own what "reached" means for one partition (high watermark for produce,
low watermark for DeleteRecords): subclasses implement ``try_complete_partition``.
Does not own watching or expiry: see ``purgatory.py``.

Kafka concept: the shape common to ``kafka.server.DelayedProduce`` and
``kafka.server.DelayedDeleteRecords``: ``tryComplete`` walks the
partition statuses still ``acksPending``, ``onComplete`` answers with all of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from kafkette.broker.partition import Partition
from kafkette.broker.purgatory import DelayedOperation
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition


class PartitionStatus(Protocol):
    """What the shared loop needs of a per-partition status: whether it still waits, and its code."""

    pending: bool
    error: Errors


StatusT = TypeVar("StatusT", bound=PartitionStatus)


class DelayedPartitionsOperation(DelayedOperation, Generic[StatusT]):
    """Waits until no partition status is pending, or the timeout passes.

    Invariants: a status leaves ``pending`` exactly once and never returns to it;
    ``result`` is resolved once, with ``statuses``, never with an exception.

    Args:
        delay_ms: the request's ``timeout_ms`` (ms).
        statuses: ``{tp: status}``; partitions that already failed have ``pending=False``.
        get_partition: ``tp -> Partition | None`` (None: no longer hosted here).
        result: resolved with ``statuses`` on completion.
    """

    def __init__(
        self,
        delay_ms: int,
        statuses: dict[TopicPartition, StatusT],
        get_partition: Callable[[TopicPartition], Partition | None],
        result: asyncio.Future[dict[TopicPartition, StatusT]],
    ) -> None:
        super().__init__(delay_ms)
        self.statuses = statuses
        self._get_partition = get_partition
        self._result = result

    def try_complete_partition(self, partition: Partition, status: StatusT) -> None:
        """Check one pending partition hosted here; set ``pending=False`` (and ``error``) when decided.

        Args:
            partition: the hosted partition the status belongs to.
            status: its status, still pending.
        """
        raise NotImplementedError

    def try_complete(self) -> bool:
        """Check every pending partition; complete when none is pending.

        Returns:
            True when this call completed the operation.
        """
        for tp, status in self.statuses.items():
            if not status.pending:
                continue
            partition = self._get_partition(tp)
            if partition is None:
                status.pending, status.error = False, Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            self.try_complete_partition(partition, status)
        if any(s.pending for s in self.statuses.values()):
            return False
        return self.force_complete()

    def on_complete(self) -> None:
        """Mark partitions still pending REQUEST_TIMED_OUT and resolve the result with all statuses."""
        for status in self.statuses.values():
            if status.pending:
                status.pending, status.error = False, Errors.REQUEST_TIMED_OUT
        if not self._result.done():
            self._result.set_result(self.statuses)
