"""Executor-side reading of one offset range into Arrow batches (Spark's
``KafkaBatchPartitionReader`` / ``KafkaDataConsumer``).

Owns: the schema of the kafkette source (Spark's Kafka source schema), turning
``ConsumerRecord`` lists into ``pyarrow.RecordBatch`` es of exactly that schema, and
reading ``[from_offset, until_offset)`` of one topic-partition with the SDK's Consumer
on an event loop of its own (created for the Spark task, closed when the task's
iterator ends).  Detects lost data (the log start offset passed the range, or the
range stays unavailable past the high watermark) and hands it to ``report_data_loss``.
Does not plan ranges (``batch_reader``, ``stream_reader``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence

import pyarrow as pa
import uvloop

from kafkette.client.consumer import Consumer, ConsumerRecord
from kafkette.client.spark.data_loss import report_data_loss
from kafkette.client.spark.offsets import OffsetRange
from kafkette.client.spark.options import SourceOptions
from kafkette.protocol.errors import KafkaTimeoutError, OffsetOutOfRangeError

logger = logging.getLogger(__name__)

SOURCE_SCHEMA = (
    "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
    "timestampType INT"
)
HEADERS_COLUMN = "headers ARRAY<STRUCT<key: STRING, value: BINARY>>"

# Arrow types Spark expects for the schema above (timestamps in microseconds, UTC).
_HEADERS_TYPE = pa.list_(pa.field("element", pa.struct([("key", pa.string()), ("value", pa.binary())])))
_ARROW_FIELDS = [
    pa.field("key", pa.binary()),
    pa.field("value", pa.binary()),
    pa.field("topic", pa.string()),
    pa.field("partition", pa.int32()),
    pa.field("offset", pa.int64()),
    pa.field("timestamp", pa.timestamp("us", tz="UTC")),
    pa.field("timestampType", pa.int32()),
]
ROWS_PER_ARROW_BATCH = 10000
_POLL_MS = 1000


def source_schema(include_headers: bool) -> str:
    """The DDL schema of a kafkette read (``headers`` only with ``includeHeaders``)."""
    return f"{SOURCE_SCHEMA}, {HEADERS_COLUMN}" if include_headers else SOURCE_SCHEMA


def arrow_schema(include_headers: bool) -> pa.Schema:
    """The Arrow schema matching ``source_schema``."""
    fields = list(_ARROW_FIELDS)
    if include_headers:
        fields.append(pa.field("headers", _HEADERS_TYPE))
    return pa.schema(fields)


def records_to_arrow(records: Sequence[ConsumerRecord], include_headers: bool) -> pa.RecordBatch:
    """One Arrow batch of ``records`` in the source schema.

    ``timestamp`` is the record's timestamp (ms) in microseconds; ``headers`` is null for
    a record without headers, as in Spark's Kafka source.

    Args:
        records: consumed records.
        include_headers: add the ``headers`` column.

    Returns:
        A RecordBatch of ``arrow_schema(include_headers)``.
    """
    columns = [
        pa.array([r.key for r in records], pa.binary()),
        pa.array([r.value for r in records], pa.binary()),
        pa.array([r.topic for r in records], pa.string()),
        pa.array([r.partition for r in records], pa.int32()),
        pa.array([r.offset for r in records], pa.int64()),
        pa.array([r.timestamp * 1000 for r in records], pa.timestamp("us", tz="UTC")),
        pa.array([r.timestamp_type for r in records], pa.int32()),
    ]
    if include_headers:
        columns.append(
            pa.array(
                [[{"key": k, "value": v} for k, v in r.headers] if r.headers else None for r in records],
                _HEADERS_TYPE,
            )
        )
    return pa.RecordBatch.from_arrays(columns, schema=arrow_schema(include_headers))


class OffsetRangeReader:
    """Reads one OffsetRange on the executor.

    Args:
        options: the source options (bootstrap servers, consumer settings,
            ``failOnDataLoss``, ``includeHeaders``, ``kafkaConsumer.pollTimeoutMs``).
        offset_range: the records to read, ``[from_offset, until_offset)``.
        consumer_factory: builds the consumer from Consumer's keyword arguments (the
            SDK's ``Consumer``; unit tests pass a fake log).

    ``read_batches`` yields every record of the range once, in offset order, and stops at
    ``until_offset``.  Offsets deleted before it could read them are reported as data
    loss; a range that stays short of ``until_offset`` for ``pollTimeoutMs`` is lost when
    the high watermark is below it, otherwise a ``KafkaTimeoutError``.
    """

    def __init__(
        self,
        options: SourceOptions,
        offset_range: OffsetRange,
        consumer_factory: Callable[..., Consumer] = Consumer,
    ) -> None:
        self._options = options
        self._consumer_factory = consumer_factory
        self._range = offset_range
        self._tp = offset_range.topic_partition

    def read_batches(self) -> Iterator[pa.RecordBatch]:
        """Yield Arrow batches (at most ``ROWS_PER_ARROW_BATCH`` rows each) of the range.

        Raises:
            DataLossError: offsets are gone and ``failOnDataLoss`` is true.
            KafkaError: the cluster failed (timeouts are bounded by the poll timeout).
        """
        if self._range.size <= 0:
            return
        loop = uvloop.new_event_loop()
        consumer = self._consumer_factory(
            bootstrap_servers=self._options.bootstrap_servers,
            auto_offset_reset="none",
            allow_auto_create_topics=False,
            **self._options.consumer_settings,
        )
        try:
            loop.run_until_complete(consumer.start())
            consumer.assign([self._tp])
            position = loop.run_until_complete(self._first_position(consumer))
            while position is not None:
                records, position = loop.run_until_complete(self._next_records(consumer, position))
                if records:
                    yield records_to_arrow(records, self._options.include_headers)
        finally:
            loop.run_until_complete(consumer.stop())
            loop.close()

    async def _first_position(self, consumer: Consumer) -> int | None:
        """Where to start: ``from_offset``, or the log start offset when retention already
        deleted the beginning of the range (data loss).  None: nothing left to read."""
        earliest = (await consumer.beginning_offsets([self._tp]))[self._tp]
        position = self._range.from_offset
        if earliest > position:
            self._lost(
                position, min(earliest, self._range.until_offset), f"the log start offset is {earliest}"
            )
            position = earliest
        if position >= self._range.until_offset:
            return None
        consumer.seek(self._tp, position)
        return position

    def _lost(self, first: int, end: int, why: str) -> None:
        report_data_loss(
            f"Cannot fetch offsets {first}..{end - 1} of {self._tp} (the query needs "
            f"{self._range.from_offset}..{self._range.until_offset - 1}): {why}.",
            self._options.fail_on_data_loss,
            logger,
        )

    async def _next_records(
        self, consumer: Consumer, position: int
    ) -> tuple[list[ConsumerRecord], int | None]:
        """The records of the next fetch from ``position`` (at most ``ROWS_PER_ARROW_BATCH``)
        and the next position (None once the range is done)."""
        until = self._range.until_offset
        deadline = time.monotonic() + self._options.poll_timeout_ms / 1000
        while True:
            try:
                fetched = await consumer.getmany(
                    self._tp, timeout_ms=_POLL_MS, max_records=ROWS_PER_ARROW_BATCH
                )
            except OffsetOutOfRangeError:
                earliest = (await consumer.beginning_offsets([self._tp]))[self._tp]
                if earliest <= position:
                    latest = (await consumer.end_offsets([self._tp]))[self._tp]
                    if latest >= position:
                        raise
                    self._lost(position, until, f"the high watermark went back to {latest}")
                    return [], None
                self._lost(position, min(earliest, until), f"the log start offset moved to {earliest}")
                if earliest >= until:
                    return [], None
                position = earliest
                consumer.seek(self._tp, position)
                continue
            records = fetched.get(self._tp, [])
            if records:
                inside = [r for r in records if r.offset < until]
                following = records[-1].offset + 1
                return inside, None if following >= until or len(inside) < len(records) else following
            position = max(position, await consumer.position(self._tp))
            if position >= until:
                return [], None
            if time.monotonic() >= deadline:
                return [], self._timed_out((await consumer.end_offsets([self._tp]))[self._tp], position)

    def _timed_out(self, latest: int, position: int) -> None:
        if latest < self._range.until_offset and latest <= position:
            self._lost(position, self._range.until_offset, f"the high watermark is {latest}")
            return None
        raise KafkaTimeoutError(
            f"Cannot fetch records of {self._tp} from offset {position} (up to "
            f"{self._range.until_offset - 1}) within kafkaConsumer.pollTimeoutMs="
            f"{self._options.poll_timeout_ms} ms"
        )
