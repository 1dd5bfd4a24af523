"""Hands out producer ids to idempotent producers from blocks the controller allocates.

Owns: the current block ``[start, start + len)`` and the next id in it.  When the
block is used up it asks the controller for the next one (AllocateProducerIds);
concurrent callers wait for the same request.  Ids are therefore unique across the
cluster and across restarts (the controller records every block in its metadata log).

Kafka concept: ``RPCProducerIdManager`` (KIP-730).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager
from kafkette.protocol.apis.producer_ids import AllocateProducerIdsRequest
from kafkette.protocol.errors import Errors, error_class, raise_for_code

logger = logging.getLogger(__name__)


class ProducerIdManager:
    """Producer id allocation for one broker.

    Args:
        broker_id: this broker's id.
        broker_epoch: callable giving the current broker epoch.
        channel: the channel to the controller.
    """

    def __init__(
        self, broker_id: int, broker_epoch: Callable[[], int], channel: NodeToControllerChannelManager
    ) -> None:
        self._broker_id = broker_id
        self._broker_epoch = broker_epoch
        self._channel = channel
        self._next = 0
        self._end = 0
        self._lock = asyncio.Lock()

    async def generate_producer_id(self, timeout_ms: int = 30000) -> int:
        """Return a fresh producer id.

        Raises:
            KafkaError: the controller refused or could not be reached in time.
        """
        await self.ensure_available(timeout_ms)
        return self.next_producer_id()

    async def ensure_available(self, timeout_ms: int = 30000) -> None:
        """Make sure the current block has an id left, asking the controller for the next block
        when it is used up (without taking an id: ``next_producer_id`` takes it).

        Raises:
            KafkaError: the controller refused or could not be reached in time.
        """
        async with self._lock:
            if self._next >= self._end:
                response = await self._channel.send(
                    AllocateProducerIdsRequest(broker_id=self._broker_id, broker_epoch=self._broker_epoch()),
                    timeout_ms=timeout_ms,
                )
                raise_for_code(response.error_code)
                self._next = response.producer_id_start
                self._end = response.producer_id_start + response.producer_id_len
                logger.info(
                    "[ProducerIdManager broker=%d] Got producer id block [%d, %d)",
                    self._broker_id,
                    self._next,
                    self._end,
                )

    def next_producer_id(self) -> int:
        """Take the next id of the current block, without waiting (the transaction coordinator's
        ``generateProducerId``, called after ``ensure_available``).

        Raises:
            KafkaError: COORDINATOR_LOAD_IN_PROGRESS when the block is used up (retriable, as
                Kafka's ``RPCProducerIdManager`` answers while it fetches the next block).
        """
        if self._next >= self._end:
            raise error_class(Errors.COORDINATOR_LOAD_IN_PROGRESS)("Producer ID block is not available yet")
        producer_id = self._next
        self._next += 1
        return producer_id
