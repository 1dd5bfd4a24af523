"""One producer's transactional Produce requests are verified and appended in the order they
arrived, although each may await its coordinator's verification first (KIP-890) and a connection's
requests are handled concurrently: a request's verification starts once the one before it appended.

Owns: the tail of each producer id's chain of Produce requests between their arrival and their
append.  Does not own the verification nor the append (``ReplicaManager.handle_produce_append``).

A producer pipelines up to ``max.in.flight.requests.per.connection`` Produce requests to a leader,
with consecutive sequence numbers.  Kafka's broker handles a connection's requests one at a time
(the ``Processor`` mutes the channel until the answer is sent), so they append in order; Kafkette
handles them concurrently, and without this order a request verified sooner than the one before it
would append first and be refused with OUT_OF_ORDER_SEQUENCE_NUMBER (and two questions of one
transactional id queued together answer the earlier NETWORK_EXCEPTION).  Once the first request
appended, the producer's transaction is open on the partition and the next ones need no question.

Kafka concept: ``SocketServer``'s channel muting, as it orders one producer's appends.
"""

from __future__ import annotations

import asyncio


class AppendTurn:
    """One Produce request's place in its producer's chain: it appends after ``wait_for_previous``
    and lets the next one go with ``release`` (always called, in a ``finally``)."""

    def __init__(self, order: ProducerAppendOrder, producer_id: int, previous: asyncio.Future[None] | None):
        self._order = order
        self._producer_id = producer_id
        self._previous = previous
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def wait_for_previous(self, timeout_ms: int) -> None:
        """Wait until the producer's previous request has appended (or failed).

        Args:
            timeout_ms: the longest wait, ms; past it this request goes ahead (its sequence number
                check still refuses a batch out of order).
        """
        if self._previous is not None and not self._previous.done():
            await asyncio.wait([self._previous], timeout=timeout_ms / 1000)

    def release(self) -> None:
        """Let the producer's next request append (this one appended, failed or was cancelled)."""
        if not self.done.done():
            self.done.set_result(None)
        self._order.forget(self._producer_id, self.done)


class ProducerAppendOrder:
    """The chains of Produce requests per producer id (see the module docstring)."""

    def __init__(self) -> None:
        self._tails: dict[int, asyncio.Future[None]] = {}

    def take_turn(self, producer_id: int) -> AppendTurn:
        """The next place in ``producer_id``'s chain; call it as the request arrives, before any await.

        Args:
            producer_id: the request's transactional producer id.

        Returns:
            The request's ``AppendTurn``.
        """
        turn = AppendTurn(self, producer_id, self._tails.get(producer_id))
        self._tails[producer_id] = turn.done
        return turn

    def forget(self, producer_id: int, done: asyncio.Future[None]) -> None:
        """Drop ``producer_id``'s chain when ``done`` is its last request (nothing waits behind it)."""
        if self._tails.get(producer_id) is done:
            del self._tails[producer_id]

    def __len__(self) -> int:
        """The number of producers with a request between arrival and append."""
        return len(self._tails)
