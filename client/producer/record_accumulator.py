"""The producer's RecordAccumulator: per-partition queues of batches awaiting send.

Owns: one deque of ``ProducerBatch`` per partition, the buffer bound
(``max_buffer_size`` bytes over every incomplete batch; ``wait_for_room`` awaits
space), readiness (a batch is sendable when full, when ``linger_ms`` passed, during a
flush, or when its retry backoff passed, and the partition's in-flight batches
allow it; the retry backoff grows with the batch's attempts: ``retry.backoff.ms``
doubling up to ``retry.backoff.max.ms``, with 20% jitter, KIP-580, and ends early
when the partition's leader changed since the failed attempt, KIP-951), draining
for the Sender, re-enqueueing a retried batch before every batch created after it
(so order within a partition holds), expiry after ``delivery_timeout_ms``, and
flush.  Does not own any I/O, metadata or partition choice.

Kafka concept: ``org.apache.kafka.clients.producer.internals.RecordAccumulator``.
"""

from __future__ import annotations

import asyncio
import collections
import random
import time
from collections.abc import Callable, Mapping

from kafkette.client.exponential_backoff import (
    DEFAULT_RETRY_BACKOFF_MAX_MS,
    DEFAULT_RETRY_BACKOFF_MS,
    RETRY_BACKOFF_EXP_BASE,
    RETRY_BACKOFF_JITTER,
    ExponentialBackoff,
)
from kafkette.client.producer.producer_batch import ProducerBatch, RecordMetadata
from kafkette.protocol.compression import COMPRESSION_NONE, check_codec
from kafkette.protocol.errors import (
    IllegalStateError,
    KafkaTimeoutError,
    MessageTooLargeError,
)
from kafkette.protocol.topic_partition import TopicPartition


class RecordAccumulator:
    """Batches records per partition until the Sender drains them.

    Args:
        max_batch_size: target batch size (bytes); a single larger record gets its own batch.
        linger_ms: how long a non-full batch waits for more records (ms).
        max_buffer_size: bound on bytes held by incomplete batches (bytes).
        delivery_timeout_ms: a batch not acknowledged this long after creation fails (ms).
        retry_backoff_ms: pause before a batch that failed once is sendable again (ms).
        retry_backoff_max_ms: the most that pause grows to (ms): after its n-th failed
            attempt a batch waits ``ExponentialBackoff(retry_backoff_ms, 2,
            retry_backoff_max_ms, 0.2).backoff(n - 1)``, as Kafka's RecordAccumulator.
        compression: codec id of every batch (``kafkette.protocol.compression``; Kafka's
            ``compression.type``, applied per batch).
        clock: monotonic clock in seconds (injected for tests).
        rng: the retry backoff's jitter source (seeded in tests).

    ``wakeup`` is set whenever the Sender should look again (a new batch whose linger
    ends before ``sender_looks_by_ms``, a full batch, flush, re-enqueue; the Sender sets it
    itself when a response frees a request slot); the Sender clears it before each pass.
    """

    def __init__(
        self,
        *,
        max_batch_size: int = 16384,
        linger_ms: float = 5,
        max_buffer_size: int = 32 * 1024 * 1024,
        delivery_timeout_ms: int = 120000,
        retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        compression: int = COMPRESSION_NONE,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        if max_batch_size < 1 or max_buffer_size < 1:
            raise ValueError("max_batch_size and max_buffer_size must be >= 1")
        if linger_ms < 0 or delivery_timeout_ms < 1 or retry_backoff_ms < 0 or retry_backoff_max_ms < 0:
            raise ValueError(
                "linger_ms, retry_backoff_ms and retry_backoff_max_ms must be >= 0, delivery_timeout_ms >= 1"
            )
        self.max_batch_size = max_batch_size
        self.linger_ms = linger_ms
        self.max_buffer_size = max_buffer_size
        self.delivery_timeout_ms = delivery_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._retry_backoff = ExponentialBackoff(
            retry_backoff_ms, RETRY_BACKOFF_EXP_BASE, retry_backoff_max_ms, RETRY_BACKOFF_JITTER, rng
        )
        self.compression = check_codec(compression)
        self._clock = clock
        self._batches: dict[TopicPartition, collections.deque[ProducerBatch]] = {}
        self._batches_created = 0  # creation order of batches, kept by retries (ProducerBatch.order)
        # Read-only outside: plain attributes, not properties (``Producer.send`` reads both
        # once per record).  Batches that reached ``max_batch_size`` (or could take no
        # further record) so far; bytes held by batches not yet completed.
        self.batches_filled = 0
        self.buffered_bytes = 0
        # When the Sender will look at the queues again without a wake-up (monotonic ms;
        # -inf while it is looking): a new batch whose linger ends later needs no wake-up.
        self.sender_looks_by_ms = float("-inf")
        self._incomplete: set[ProducerBatch] = set()
        # No queued batch's delivery deadline is before this (monotonic ms; a lower bound, made
        # exact by each walk of ``expire``): ``expire`` walks the queues only once it has come.
        self._earliest_deadline_ms = float("inf")
        self._room = asyncio.Event()
        self._room.set()
        self.wakeup = asyncio.Event()
        self._flushes_in_progress = 0
        self._closed = False

    def now_ms(self) -> float:
        return self._clock() * 1000.0

    @property
    def clock(self) -> Callable[[], float]:
        """The monotonic clock (seconds) the accumulator was given."""
        return self._clock

    def has_incomplete(self) -> bool:
        """True while any batch is queued or in flight."""
        return bool(self._incomplete)

    def queued_batches(self, tp: TopicPartition) -> list[ProducerBatch]:
        """The batches queued for ``tp`` (head first); for inspection and tests."""
        return list(self._batches.get(tp, ()))

    # --- appending ---------------------------------------------------------------------

    async def wait_for_room(self, size: int, timeout_ms: float) -> None:
        """Wait until ``size`` more bytes fit in the buffer.

        Raises:
            MessageTooLargeError: ``size`` exceeds ``max_buffer_size`` on its own.
            KafkaTimeoutError: no room within ``timeout_ms``.
        """
        if size > self.max_buffer_size:
            raise MessageTooLargeError(
                f"The record is {size} bytes, larger than max_buffer_size={self.max_buffer_size}"
            )
        if self.buffered_bytes + size <= self.max_buffer_size:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while self.buffered_bytes + size > self.max_buffer_size and self.buffered_bytes > 0:
            self._room.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise KafkaTimeoutError(
                    f"Failed to allocate {size} bytes within {timeout_ms} ms (max_buffer_size)"
                )
            try:
                async with asyncio.timeout(remaining):
                    await self._room.wait()
            except TimeoutError:
                pass

    def append(
        self,
        tp: TopicPartition,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes | None]] | None,
        timestamp_ms: int,
        size: int,
        *,
        abort_on_new_batch: bool = False,
    ) -> asyncio.Future[RecordMetadata] | None:
        """Add a record to the open batch of ``tp``, opening a new batch if needed.

        Args:
            size: the record's estimated size (``record_size_in_bytes``), in bytes.
            abort_on_new_batch: return None instead of opening a new batch (the sticky
                partitioner then moves to another partition and appends there).

        Returns:
            The record's future (resolves to RecordMetadata), or None when aborted.

        Raises:
            IllegalStateError: the accumulator is closed.
        """
        if self._closed:
            raise IllegalStateError("Cannot send after the producer is closed")
        dq = self._batches.get(tp)
        if dq is None:
            dq = self._batches[tp] = collections.deque()
        max_batch_size = self.max_batch_size
        if dq:
            last = dq[-1]
            fut = last.try_append(key, value, headers, timestamp_ms, size, max_batch_size)
            if fut is not None:
                self.buffered_bytes += size
                if last.size_bytes >= max_batch_size:
                    self.batches_filled += 1
                    self.wakeup.set()
                return fut
            if last.size_bytes < max_batch_size:  # not counted when it reached the size
                self.batches_filled += 1
                self.wakeup.set()
            last.closed = True
        if abort_on_new_batch:
            return None
        now = self.now_ms()
        batch = ProducerBatch(tp, now, now + self.delivery_timeout_ms, self.compression)
        batch.order = self._batches_created
        self._batches_created += 1
        fut = batch.try_append(key, value, headers, timestamp_ms, size, max_batch_size)
        dq.append(batch)
        if batch.delivery_deadline_ms < self._earliest_deadline_ms:
            self._earliest_deadline_ms = batch.delivery_deadline_ms
        self._incomplete.add(batch)
        self.buffered_bytes += batch.size_bytes
        if now + self.linger_ms < self.sender_looks_by_ms:
            self.wakeup.set()  # the Sender must arm a timer for this batch's linger
        return fut  # type: ignore[return-value]  # an empty batch accepts any record

    # --- readiness and draining ------------------------------------------------------------

    def ready(
        self,
        in_flight: Mapping[TopicPartition, int] | None = None,
        max_in_flight_per_partition: int = 1,
        leader_epoch_of: Callable[[TopicPartition], int] | None = None,
    ) -> tuple[list[TopicPartition], float]:
        """Partitions whose head batch is sendable now.

        A partition is skipped while ``max_in_flight_per_partition`` of its batches are in
        flight, and a retried head batch waits until none is (the batches sent after it
        come back first, so it is resent ahead of them and order holds; Kafka's
        ``RecordAccumulator.shouldStopDrainBatchesForPartition``), and until its retry
        backoff has passed, unless the partition's leader changed since the attempt failed
        (Kafka's ``shouldBackoff`` with ``hasLeaderChangedForTheOngoingRetry``, KIP-951).

        Args:
            in_flight: ``{partition: batches in flight}`` (absent = 0).
            max_in_flight_per_partition: 1 for Kafka's strict order
                (``max.in.flight.requests.per.connection=1`` mutes the partition), up to 5.
            leader_epoch_of: the partition's leader epoch in the metadata now (-1 unknown);
                None never cuts a retry backoff short.

        Returns:
            (ready partitions, ms until the next non-ready head batch may become
            ready; ``inf`` when nothing is waiting).
        """
        now = self.now_ms()
        flushing = self._flushes_in_progress > 0 or self._closed
        ready: list[TopicPartition] = []
        next_ms = float("inf")
        in_flight = in_flight or {}
        for tp, dq in self._batches.items():
            if not dq:
                continue
            sending = in_flight.get(tp, 0)
            if sending >= max_in_flight_per_partition:
                continue
            head = dq[0]
            if head.attempts > 0:
                if sending:
                    continue
                wait = head.retry_at_ms - now
                if wait > 0 and (leader_epoch_of is None or leader_epoch_of(tp) <= head.leader_epoch):
                    next_ms = min(next_ms, wait)
                    continue
                ready.append(tp)
                continue
            if len(dq) > 1 or flushing or head.is_full(self.max_batch_size):
                ready.append(tp)
                continue
            wait = head.created_ms + self.linger_ms - now
            if wait <= 0:
                ready.append(tp)
            else:
                next_ms = min(next_ms, wait)
        return ready, next_ms

    def drain(self, tp: TopicPartition) -> ProducerBatch | None:
        """Remove and return the head batch of ``tp`` (closed to further appends)."""
        dq = self._batches.get(tp)
        if not dq:
            return None
        batch = dq.popleft()
        if not dq:
            del self._batches[tp]  # ``ready`` walks only partitions with queued batches
        batch.closed = True
        batch.attempts += 1
        return batch

    def retry_backoff_ms_after(self, attempts: int) -> float:
        """The retry backoff of a batch that was sent ``attempts`` times, all failed (ms):
        about ``retry_backoff_ms * 2 ** (attempts - 1)``, at most ``retry_backoff_max_ms``."""
        return self._retry_backoff.backoff(attempts - 1)

    def reenqueue(self, batch: ProducerBatch) -> None:
        """Put a batch back for a retry after its backoff (growing with its attempts), ahead of
        every batch created after it (retried batches come back in any order; Kafka's
        ``insertInSequenceOrder``)."""
        batch.retry_at_ms = self.now_ms() + self._retry_backoff.backoff(batch.attempts - 1)
        dq = self._batches.get(batch.tp)
        if dq is None:
            dq = self._batches[batch.tp] = collections.deque()
        index = 0
        for queued in dq:
            if queued.order > batch.order:
                break
            index += 1
        dq.insert(index, batch)
        if batch.delivery_deadline_ms < self._earliest_deadline_ms:
            self._earliest_deadline_ms = batch.delivery_deadline_ms
        self.wakeup.set()

    def deallocate(self, batch: ProducerBatch) -> None:
        """Release the buffer space of a completed batch (once; again is a no-op)."""
        try:
            self._incomplete.remove(batch)
        except KeyError:
            return
        self.buffered_bytes -= batch.size_bytes
        room = self._room
        if not room.is_set():
            room.set()

    def expire(self) -> list[ProducerBatch]:
        """Remove and fail queued batches older than ``delivery_timeout_ms``.

        A batch that was retried fails with the error of its last attempt (for example
        NotEnoughReplicasError), as Kafka's sender does once the delivery timeout has
        passed; a batch never sent fails with KafkaTimeoutError.

        Returns:
            The batches expired (already failed and deallocated).
        """
        now = self.now_ms()
        expired: list[ProducerBatch] = []
        if now < self._earliest_deadline_ms:
            return expired  # nothing queued is due yet
        earliest = float("inf")
        for tp, dq in self._batches.items():
            while dq and dq[0].delivery_deadline_ms <= now:
                batch = dq.popleft()
                timeout = KafkaTimeoutError(
                    f"Expiring {batch.record_count} record(s) for {tp}: "
                    f"{now - batch.created_ms:.0f} ms has passed since batch creation "
                    f"(delivery.timeout.ms={self.delivery_timeout_ms})"
                )
                if batch.last_error is not None:
                    batch.last_error.__cause__ = timeout
                batch.fail(batch.last_error or timeout)
                self.deallocate(batch)
                expired.append(batch)
            # A queue is in creation order and a deadline is creation + delivery_timeout_ms (a
            # retried batch keeps its own): the head's deadline is the queue's earliest.
            if dq and dq[0].delivery_deadline_ms < earliest:
                earliest = dq[0].delivery_deadline_ms
        self._earliest_deadline_ms = earliest
        return expired

    # --- flush and close -------------------------------------------------------------

    def begin_flush(self) -> None:
        """Make every queued batch sendable immediately until ``end_flush``."""
        self._flushes_in_progress += 1
        self.wakeup.set()

    def end_flush(self) -> None:
        self._flushes_in_progress -= 1

    def incomplete_completions(self) -> list[asyncio.Future[None]]:
        """Completion futures of every batch queued or in flight right now."""
        return [b.completion for b in self._incomplete]

    def close(self) -> None:
        """Refuse further appends; every queued batch becomes sendable."""
        self._closed = True
        self.wakeup.set()

    def abort_undrained_batches(self, exc: BaseException) -> int:
        """Fail and release every queued batch, leaving those in flight to their answers (an
        aborted transaction's batches; Kafka's ``abortUndrainedBatches``).

        Returns:
            The number of batches failed.
        """
        failed = 0
        for dq in self._batches.values():
            for batch in dq:
                batch.fail(exc)
                self.deallocate(batch)
                failed += 1
        self._batches.clear()
        return failed

    def abort_batches(self, exc: BaseException) -> int:
        """Fail and release every incomplete batch (queued or in flight).

        Returns:
            The number of batches failed.
        """
        batches = list(self._incomplete)
        for batch in batches:
            batch.fail(exc)
            self.deallocate(batch)
        for dq in self._batches.values():
            dq.clear()
        return len(batches)
