"""One producer batch: the records bound for one partition and their futures.

Owns: ``RecordMetadata`` (what a send resolves to) and ``ProducerBatch`` (records kept
as the wire rows ``(offset_delta, timestamp_delta, key, value, headers)`` from the
moment they are appended, so encoding is one msgpack call; one future per record,
size accounting, attempt bookkeeping, and completion).  Does not own the queueing of
batches (RecordAccumulator) nor the network (Sender).

Kafka concept: ``ProducerBatch`` and ``RecordMetadata`` of the Java producer.
"""

from __future__ import annotations

import asyncio
import threading
from typing import NamedTuple

import msgpack

from kafkette.protocol.record_batch import (
    COMPRESSION_NONE,
    HEADER_SIZE,
    RECORDS_MSGPACK_MASK,
    TRANSACTIONAL_MASK,
    build_batch_from_payload,
    compress,
)
from kafkette.protocol.topic_partition import TopicPartition

# Approximate msgpack overhead of one record row: array header, offset and
# timestamp deltas, nil markers and the headers array.
RECORD_OVERHEAD_BYTES = 12

_packers = threading.local()


def _packer() -> msgpack.Packer:
    """This thread's reusable msgpack Packer (``msgpack.packb`` builds and frees a Packer
    with a fresh 1 MiB buffer on every call: about 30% of a 256 KiB batch's encoding)."""
    packer = getattr(_packers, "packer", None)
    if packer is None:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True, autoreset=True)
    return packer


_NO_HEADERS: tuple[()] = ()  # packed as an empty msgpack array, shared by every header-less row
_new_tuple = tuple.__new__


class RecordMetadata(NamedTuple):
    """Where an acknowledged record landed.

    Attributes:
        topic, partition: the destination.
        offset: the record's offset in the partition (-1 with acks=0).
        timestamp: the record's timestamp in ms (the broker's LogAppendTime when set).
    """

    topic: str
    partition: int
    offset: int
    timestamp: int


def record_size_in_bytes(
    key: bytes | None, value: bytes | None, headers: list[tuple[str, bytes | None]] | None
) -> int:
    """Estimated encoded size of one record (bytes), used for batch and buffer limits."""
    size = (
        RECORD_OVERHEAD_BYTES
        + (len(key) if key is not None else 0)
        + (len(value) if value is not None else 0)
    )
    if headers:
        for hkey, hvalue in headers:
            size += len(hkey) + (len(hvalue) if hvalue is not None else 0) + 4
    return size


class ProducerBatch:
    """Records for one partition, sent together as one record batch.

    States: open (accepting appends) -> closed (drained by the Sender; may be
    re-enqueued for a retry) -> done (every future completed exactly once).

    Args:
        tp: destination partition.
        created_ms: creation time on the producer's monotonic clock (ms).
        delivery_deadline_ms: created_ms + ``delivery.timeout.ms``.
        compression: codec id (``kafkette.protocol.compression``) the records array is compressed
            with when the batch is encoded; sizes are counted uncompressed.
    """

    __slots__ = (
        "tp",
        "rows",
        "futures",
        "size_bytes",
        "created_ms",
        "delivery_deadline_ms",
        "attempts",
        "last_error",
        "retry_at_ms",
        "closed",
        "done",
        "_completion",
        "_encoded",
        "_loop",
        "producer_id",
        "producer_epoch",
        "base_sequence",
        "compression",
        "base_timestamp",
        "max_timestamp",
        "order",
        "leader_epoch",
        "transactional",
    )

    def __init__(
        self,
        tp: TopicPartition,
        created_ms: float,
        delivery_deadline_ms: float,
        compression: int = COMPRESSION_NONE,
    ) -> None:
        self.tp = tp
        self.compression = compression
        # Wire rows (offset_delta, timestamp_delta, key, value, headers), see protocol.record_batch.
        self.rows: list[tuple[int, int, bytes | None, bytes | None, object]] = []
        self.base_timestamp = -1  # first record's timestamp (ms)
        self.max_timestamp = -1  # largest record timestamp (ms)
        self.futures: list[asyncio.Future[RecordMetadata]] = []
        self.size_bytes = HEADER_SIZE
        self.created_ms = created_ms
        self.delivery_deadline_ms = delivery_deadline_ms
        self.attempts = 0
        self.last_error: BaseException | None = None  # the retriable error of the last attempt
        self.retry_at_ms = 0.0
        self.closed = False
        self.done = False
        self._loop = asyncio.get_running_loop()
        self._completion: asyncio.Future[None] | None = None  # made when first asked for (flush)
        self._encoded: bytes | None = None
        self.producer_id = -1  # idempotence stamp, set by TransactionManager.stamp
        self.producer_epoch = -1
        self.base_sequence = -1
        self.order = 0  # creation order among the accumulator's batches (retries keep it)
        # Leader epoch of the partition when its last attempt failed (-1 unknown): a newer leader
        # ends the retry backoff at once (KIP-951, Kafka's hasLeaderChangedForTheOngoingRetry).
        self.leader_epoch = -1
        self.transactional = False  # Kafka's transactional bit (4), set with the stamp

    @property
    def completion(self) -> asyncio.Future[None]:
        """A future done once every record's future is (made on first use: only a flush
        waits on it, and most batches complete before anyone asks)."""
        if self._completion is None:
            self._completion = self._loop.create_future()
            if self.done:
                self._completion.set_result(None)
        return self._completion

    def __repr__(self) -> str:
        return (
            f"ProducerBatch({self.tp}, records={len(self.rows)}, bytes={self.size_bytes}, "
            f"attempts={self.attempts})"
        )

    def try_append(
        self,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes | None]] | None,
        timestamp_ms: int,
        size: int,
        max_batch_size: int,
    ) -> asyncio.Future[RecordMetadata] | None:
        """Append one record when it fits (an empty batch takes any record).

        The record is stored as its wire row at once (offset delta = its index, timestamp
        delta from the batch's first record), so ``encoded`` does no per-record work.

        Args:
            key, value: bytes or None.
            headers: ``[(str, bytes | None)]`` or None.
            timestamp_ms: CreateTime (ms).
            size: the record's estimated size (``record_size_in_bytes``), in bytes.
            max_batch_size: the batch size limit (bytes).

        Returns:
            The record's future, or None when the batch is closed or full.
        """
        rows = self.rows
        if rows:
            if self.closed or self.size_bytes + size > max_batch_size:
                return None
            if timestamp_ms > self.max_timestamp:
                self.max_timestamp = timestamp_ms
        elif self.closed:
            return None
        else:
            self.base_timestamp = self.max_timestamp = timestamp_ms
        fut: asyncio.Future[RecordMetadata] = self._loop.create_future()
        rows.append((len(rows), timestamp_ms - self.base_timestamp, key, value, headers or _NO_HEADERS))
        self.futures.append(fut)
        self.size_bytes += size
        return fut

    def is_full(self, max_batch_size: int) -> bool:
        return self.size_bytes >= max_batch_size

    @property
    def record_count(self) -> int:
        return len(self.rows)

    def encoded(self) -> bytes:
        """The record batch bytes (built once with one msgpack call and at most one codec
        call, reused on retries): Kafkette's msgpack records (``RECORDS_MSGPACK_MASK``), the
        same bytes ``kafkette.protocol.record_batch.build_batch`` gives.

        Raises:
            ValueError: the batch holds no record.
        """
        if self._encoded is None:
            if not self.rows:
                raise ValueError("a batch needs at least one record")
            payload = _packer().pack(self.rows)
            if self.compression != COMPRESSION_NONE:
                payload = compress(self.compression, payload)
            self._encoded = build_batch_from_payload(
                payload,
                record_count=len(self.rows),
                base_timestamp=self.base_timestamp,
                max_timestamp=self.max_timestamp,
                attributes=self.compression
                | RECORDS_MSGPACK_MASK
                | (TRANSACTIONAL_MASK if self.transactional else 0),
                producer_id=self.producer_id,
                producer_epoch=self.producer_epoch,
                base_sequence=self.base_sequence,
            )
        return self._encoded

    def stamp(
        self, producer_id: int, producer_epoch: int, base_sequence: int, transactional: bool = False
    ) -> None:
        """Set the idempotence stamp (a new stamp after a producer id reset drops the
        encoded bytes, which carry the old one); ``transactional`` marks the batch as part of a
        transaction (KIP-98)."""
        self.transactional = transactional
        if self._encoded is not None and (
            producer_id != self.producer_id
            or producer_epoch != self.producer_epoch
            or base_sequence != self.base_sequence
        ):
            self._encoded = None
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.base_sequence = base_sequence

    def complete(self, base_offset: int, log_append_time_ms: int = -1) -> None:
        """Resolve every future with its RecordMetadata (offset = base_offset + index).

        Args:
            base_offset: offset of the first record, or -1 when unknown (acks=0).
            log_append_time_ms: the broker's append time when the topic uses it, else -1.
        """
        if self.done:
            return
        self.done = True
        topic, partition = self.tp
        base_timestamp = self.base_timestamp
        # One tight loop, RecordMetadata built with tuple.__new__ (a NamedTuple's own
        # constructor is a Python-level function): this runs once per record.
        if base_offset >= 0 and log_append_time_ms < 0:
            for fut, row in zip(self.futures, self.rows, strict=True):
                if not fut.done():
                    fut.set_result(
                        _new_tuple(
                            RecordMetadata, (topic, partition, base_offset + row[0], base_timestamp + row[1])
                        )
                    )
        else:
            for fut, row in zip(self.futures, self.rows, strict=True):
                if not fut.done():
                    offset = base_offset + row[0] if base_offset >= 0 else -1
                    timestamp = log_append_time_ms if log_append_time_ms >= 0 else base_timestamp + row[1]
                    fut.set_result(_new_tuple(RecordMetadata, (topic, partition, offset, timestamp)))
        if self._completion is not None and not self._completion.done():
            self._completion.set_result(None)

    def fail(self, exc: BaseException) -> None:
        """Fail every future of the batch with ``exc`` (once)."""
        if self.done:
            return
        self.done = True
        for fut in self.futures:
            if not fut.done():
                fut.set_exception(exc)
                # The caller may never await a fire-and-forget send; mark it retrieved.
                fut.exception()
        if self._completion is not None and not self._completion.done():
            self._completion.set_result(None)
