"""DelayedPartitionsOperation: the per-partition completion loop under DelayedProduce and
DelayedDeleteRecords."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from kafkette.broker.delayed_partition_operation import DelayedPartitionsOperation
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

TP0 = TopicPartition("flights", 0)
TP1 = TopicPartition("flights", 1)


@dataclass
class Status:
    reached: bool = False
    error: Errors = Errors.NONE
    pending: bool = True


class DelayedReach(DelayedPartitionsOperation[Status]):
    """Completes a partition once its status says ``reached``."""

    def try_complete_partition(self, partition, status: Status) -> None:
        if status.reached:
            status.pending = False


def operation(hosted: set[TopicPartition], statuses: dict[TopicPartition, Status]):
    result: asyncio.Future[dict[TopicPartition, Status]] = asyncio.get_running_loop().create_future()
    return DelayedReach(30_000, statuses, lambda tp: object() if tp in hosted else None, result), result


async def test_a_partition_gone_while_waiting_is_unknown_topic_or_partition_and_the_rest_still_waits():
    statuses = {TP0: Status(), TP1: Status()}
    op, result = operation({TP1}, statuses)

    assert op.try_complete() is False
    assert (statuses[TP0].pending, statuses[TP0].error) == (False, Errors.UNKNOWN_TOPIC_OR_PARTITION)
    assert statuses[TP1].pending and not result.done()

    statuses[TP1].reached = True
    assert op.try_complete() is True
    assert result.result() is statuses
    assert statuses[TP1].error == Errors.NONE


async def test_completion_on_timeout_marks_only_the_pending_partitions_request_timed_out():
    statuses = {TP0: Status(reached=True), TP1: Status()}
    op, result = operation({TP0, TP1}, statuses)
    assert op.try_complete() is False

    assert op.force_complete() is True
    assert op.force_complete() is False
    assert {tp: s.error for tp, s in result.result().items()} == {
        TP0: Errors.NONE,
        TP1: Errors.REQUEST_TIMED_OUT,
    }
    assert not any(s.pending for s in statuses.values())
