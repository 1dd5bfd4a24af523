"""Batch and streaming writes of the kafkette sink: ``df.write`` / ``df.writeStream``
``.format("kafkette")``.

Owns: checking a DataFrame's columns against Spark's Kafka sink rules (``value``
string or binary, required; ``key`` string or binary; ``topic`` string, required
unless the ``topic`` option is set, which wins; ``partition`` int; ``headers``
``array<struct<key: string, value: binary>>``; other columns ignored), and producing
each Spark task's rows with the SDK's Producer on an event loop of its own.  Delivery
is at-least-once: a task returns its commit message only after every record was
acknowledged (``acks`` default ``all``); the first failed record fails the task with
its Kafkette error.  Does not own the options (``options.SinkOptions``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import dataclass

import uvloop
from pyspark.sql import Row
from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter, WriterCommitMessage
from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructType

from kafkette.client.producer import Producer
from kafkette.client.spark.options import SinkOptions

logger = logging.getLogger(__name__)

_CHECK_EVERY_RECORDS = 1000
_CLOSE_TIMEOUT_S = 10.0


@dataclass
class KafketteCommitMessage(WriterCommitMessage):
    """What one Spark task wrote: ``records`` acknowledged records."""

    records: int


@dataclass(frozen=True)
class SinkColumns:
    """Positions of the sink's columns in a row (None: absent)."""

    value: int
    key: int | None
    topic: int | None
    partition: int | None
    headers: int | None


def sink_columns(schema: StructType, topic_option: str | None) -> SinkColumns:
    """Check ``schema`` against the kafkette sink's rules and locate its columns.

    Args:
        schema: the DataFrame's schema.
        topic_option: the ``topic`` option (overrides a ``topic`` column).

    Returns:
        The columns' positions.

    Raises:
        ValueError: a missing ``value``, no topic at all, or a column of the wrong type.
    """
    names = {f.name.lower(): (i, f.dataType) for i, f in enumerate(schema.fields)}

    def column(name: str, allowed: tuple[type, ...], what: str) -> int | None:
        if name not in names:
            return None
        index, data_type = names[name]
        if not isinstance(data_type, allowed):
            raise ValueError(f"{name} attribute type must be {what}, got {data_type.simpleString()}")
        return index

    value = column("value", (StringType, BinaryType), "a string or binary")
    if value is None:
        raise ValueError("Required attribute 'value' not found")
    topic = column("topic", (StringType,), "a string")
    if topic is None and topic_option is None:
        raise ValueError(
            "topic option required when no 'topic' attribute is present. Use the topic option "
            "for setting a topic."
        )
    headers = column("headers", (ArrayType,), "array<struct<key:string,value:binary>>")
    if headers is not None:
        element = schema.fields[headers].dataType.elementType
        if (
            not isinstance(element, StructType)
            or [f.name for f in element.fields] != ["key", "value"]
            or not isinstance(element.fields[0].dataType, StringType)
            or not isinstance(element.fields[1].dataType, BinaryType)
        ):
            raise ValueError(
                f"headers attribute type must be array<struct<key:string,value:binary>>, got "
                f"{schema.fields[headers].dataType.simpleString()}"
            )
    return SinkColumns(
        value=value,
        key=column("key", (StringType, BinaryType), "a string or binary"),
        topic=None if topic_option is not None else topic,
        partition=column("partition", (IntegerType,), "an int"),
        headers=headers,
    )


async def _produce(rows: Iterator[Row], options: SinkOptions, columns: SinkColumns) -> int:
    producer = Producer(bootstrap_servers=options.bootstrap_servers, **options.producer_settings)
    await producer.start()
    pending: list[asyncio.Future] = []
    count = 0
    try:
        for row in rows:
            topic = options.topic if columns.topic is None else row[columns.topic]
            if topic is None:
                raise ValueError("Null topic present in the data. Use the topic option for setting a topic.")
            headers = None
            if columns.headers is not None and row[columns.headers] is not None:
                headers = [(h[0], h[1]) for h in row[columns.headers]]
            pending.append(
                await producer.send(
                    topic,
                    row[columns.value],
                    key=None if columns.key is None else row[columns.key],
                    partition=None if columns.partition is None else row[columns.partition],
                    headers=headers,
                )
            )
            count += 1
            if len(pending) >= _CHECK_EVERY_RECORDS:
                for future in pending:  # fail fast on a record that already failed
                    if future.done():
                        future.result()
                pending = [f for f in pending if not f.done()]
        await asyncio.gather(*pending)
    finally:
        await producer.stop(timeout=_CLOSE_TIMEOUT_S)
        for future in pending:  # every future is done once the producer stopped
            if future.done() and not future.cancelled():
                future.exception()
    return count


def write_rows(rows: Iterator[Row], options: SinkOptions, columns: SinkColumns) -> KafketteCommitMessage:
    """Produce ``rows`` (one Spark task) and wait until every record is acknowledged.

    Runs a fresh event loop for the task and closes it, with the producer, before
    returning.

    Args:
        rows: the task's rows.
        options: sink options (bootstrap servers, topic, producer settings).
        columns: where the sink's columns are in each row.

    Returns:
        A commit message with the number of records written.

    Raises:
        KafkaError: a record failed (e.g. ``MessageTooLargeError``, or a retriable error
            past ``delivery.timeout.ms``).
        ValueError / TypeError: a row Kafkette cannot take (null topic, bad partition).
    """
    loop = uvloop.new_event_loop()
    try:
        return KafketteCommitMessage(loop.run_until_complete(_produce(rows, options, columns)))
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


class _RowsToRecords:
    """What the batch and the streaming writer share: the sink columns checked on the
    driver, and each task's rows produced as records on the executor.

    Args:
        options: parsed sink options.
        schema: the DataFrame's schema (checked on the driver).

    Raises:
        ValueError: the schema breaks the sink's rules.
    """

    def __init__(self, options: SinkOptions, schema: StructType) -> None:
        self._options = options
        self._columns = sink_columns(schema, options.topic)

    def write(self, iterator: Iterator[Row]) -> KafketteCommitMessage:
        """Produce one task's rows (executor); see ``write_rows``."""
        return write_rows(iterator, self._options, self._columns)


class KafketteBatchWriter(_RowsToRecords, DataSourceWriter):
    """``df.write.format("kafkette").mode("append")``: every row becomes one record
    (arguments and errors: ``_RowsToRecords``).
    """

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """Log what the job wrote (records are already acknowledged)."""
        total = sum(m.records for m in messages if isinstance(m, KafketteCommitMessage))
        logger.info("Kafkette batch write committed %d records", total)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """Log a failed job: records of tasks that succeeded stay written (at-least-once)."""
        written = sum(m.records for m in messages if isinstance(m, KafketteCommitMessage))
        logger.warning("Kafkette batch write aborted; %d records of successful tasks remain written", written)


class KafketteStreamWriter(_RowsToRecords, DataSourceStreamWriter):
    """``df.writeStream.format("kafkette")``: every row of every micro-batch becomes one
    record (at-least-once: a retried micro-batch may write its records again; arguments
    and errors: ``_RowsToRecords``).
    """

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Log what the micro-batch wrote."""
        total = sum(m.records for m in messages if isinstance(m, KafketteCommitMessage))
        logger.info("Kafkette stream write committed batch %d: %d records", batchId, total)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Log a failed micro-batch."""
        logger.warning("Kafkette stream write aborted batch %d", batchId)
