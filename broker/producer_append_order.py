"""The order in which one producer's transactional Produce requests are verified and appended.

Kafka handles one request of a connection at a time (the channel is muted until the answer is
sent), so a producer's pipelined Produce requests (``max.in.flight.requests.per.connection`` up to
5) reach the log in the order they were sent even when the first waits for its transaction's
verification with the coordinator (KIP-890).  Kafkette handles a connection's requests
concurrently; ``ProducerAppendOrder`` gives each transactional producer's requests their arrival
order back: a request holds its producer's turn from before its verification until its append is
done, and the next waits for it (FIFO), so a later batch never reaches the log (or the coordinator)
before an earlier one and fails with OUT_OF_ORDER_SEQUENCE_NUMBER.

Owns: one ``asyncio.Lock`` per producer id with requests in progress (dropped when none is left).

Kafka concept: ``SocketServer``'s channel muting (``Processor``, ``KafkaChannel.mute``), for the
transactional Produce path of ``ReplicaManager.handleProduceAppend``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ProducerAppendOrder:
    """Per-producer-id turns, taken in arrival order."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._holders: dict[int, int] = {}  # producer id -> requests holding or awaiting its turn

    @asynccontextmanager
    async def turn(self, producer_id: int) -> AsyncIterator[None]:
        """Wait (FIFO) until no earlier request of ``producer_id`` (a producer id, int) is being
        verified or appended, and hold the turn for the ``async with`` body.  The wait is bounded
        by the earlier requests' own timeouts (their verification and append are)."""
        lock = self._locks.setdefault(producer_id, asyncio.Lock())
        self._holders[producer_id] = self._holders.get(producer_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._holders[producer_id] -= 1
            if not self._holders[producer_id]:
                del self._holders[producer_id]
                del self._locks[producer_id]

    def __len__(self) -> int:
        """The number of producer ids with a request holding or awaiting its turn."""
        return len(self._locks)
