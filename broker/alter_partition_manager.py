"""Sends ISR changes proposed by partition leaders to the controller as AlterPartition.

Owns: a queue of pending ISR changes (at most one per partition: a newer proposal
replaces an older one) and one sender task that batches them into AlterPartition
requests and hands each partition's result back to its Partition.  A failed send is
reported to the partition as None; the partition clears its pending change and the
next fetch or ISR check proposes again.

Kafka concept: ``AlterPartitionManager`` (KIP-497).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.protocol.apis.alter_partition import (
    AlterPartitionRequest,
    AlterPartitionRequestPartition,
    AlterPartitionRequestTopic,
    AlterPartitionResponsePartition,
)
from kafkette.protocol.errors import Errors, KafkaError
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.partition import Partition

logger = logging.getLogger(__name__)


class AlterPartitionManager:
    """Batches AlterPartition items and routes the controller's answers.

    Args:
        broker_id: this broker's id.
        broker_epoch: callable giving the current broker epoch (from registration).
        channel: the channel to the controller.
        retry_backoff_ms: wait after a failed send before the next batch (ms).
    """

    def __init__(
        self,
        broker_id: int,
        broker_epoch: Callable[[], int],
        channel: NodeToControllerChannelManager,
        retry_backoff_ms: int = 100,
    ) -> None:
        self._broker_id = broker_id
        self._broker_epoch = broker_epoch
        self._channel = channel
        self._backoff_s = retry_backoff_ms / 1000
        self._pending: dict[TopicPartition, tuple[Partition, int, list[int], int]] = {}
        self._wakeup = asyncio.Event()
        self._task = ShutdownableTask(
            "alter-partition-manager", log_prefix=f"[AlterPartitionManager broker={broker_id}]"
        )

    def start(self) -> None:
        """Start the task that sends queued ISR changes."""
        self._task.start(self._run)

    async def stop(self) -> None:
        """Cancel the task and wait for it (bounded)."""
        await self._task.shutdown()

    def submit(
        self, partition: Partition, leader_epoch: int, new_isr: list[int], partition_epoch: int
    ) -> None:
        """Queue an ISR change for ``partition`` (replaces a queued one)."""
        self._pending[partition.tp] = (partition, leader_epoch, new_isr, partition_epoch)
        self._wakeup.set()

    async def _run(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            if not self._pending:
                continue
            batch, self._pending = self._pending, {}
            await self._send(batch)

    async def _send(self, batch: dict[TopicPartition, tuple[Partition, int, list[int], int]]) -> None:
        topics: dict[str, list[AlterPartitionRequestPartition]] = {}
        for tp, (_, leader_epoch, new_isr, partition_epoch) in batch.items():
            topics.setdefault(tp.topic, []).append(
                AlterPartitionRequestPartition(
                    partition_index=tp.partition,
                    leader_epoch=leader_epoch,
                    new_isr=new_isr,
                    partition_epoch=partition_epoch,
                )
            )
        request = AlterPartitionRequest(
            broker_id=self._broker_id,
            broker_epoch=self._broker_epoch(),
            topics=[AlterPartitionRequestTopic(topic_name=t, partitions=p) for t, p in topics.items()],
        )
        results: dict[TopicPartition, AlterPartitionResponsePartition] = {}
        try:
            response = await self._channel.send(request)
            if response.error_code != Errors.NONE:
                logger.warning(
                    "[AlterPartitionManager broker=%d] request failed with %s",
                    self._broker_id,
                    response.error_code,
                )
            for topic in response.topics:
                for part in topic.partitions:
                    results[TopicPartition(topic.topic_name, part.partition_index)] = part
        except KafkaError as exc:
            logger.warning("[AlterPartitionManager broker=%d] send failed: %s", self._broker_id, exc)
            await asyncio.sleep(self._backoff_s)
        for tp, (partition, leader_epoch, _, _) in batch.items():
            partition.handle_alter_partition_result(leader_epoch, results.get(tp))
