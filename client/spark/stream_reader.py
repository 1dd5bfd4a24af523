"""Streaming reads of the kafkette source: ``spark.readStream.format("kafkette")``.

Owns: the micro-batch planning of Spark's ``KafkaMicroBatchStream`` on PySpark's
admission-control API (4.2+): the initial offset from ``startingOffsets`` (default
latest; used only for a new checkpoint), ``latestOffset(start, limit)`` with
``maxOffsetsPerTrigger`` as ``ReadMaxRows``, ``Trigger.AvailableNow`` through
``SupportsTriggerAvailableNow`` (reads up to the offsets found when the trigger was
prepared, in rate-limited batches), ``reportLatestOffset`` for progress reports,
partitions and topics discovered while running (they start at earliest), and the
driver-side data-loss checks (vanished partitions, offsets that went backwards).
Offsets are ``offsets.offsets_to_json`` dicts, so a restart resumes from the
checkpoint.  ``commit`` does nothing, as in Spark: progress lives in the checkpoint,
never in consumer-group offsets.

Spark runs planning in one long-lived driver process and ``read`` on executors with a
second instance: everything ``read`` needs travels in the OffsetRange or the options.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)

from kafkette.client.spark.data_loss import report_data_loss
from kafkette.client.spark.offset_reader import KafketteOffsetReader
from kafkette.client.spark.offsets import (
    OffsetRange,
    offset_ranges,
    offsets_from_json,
    offsets_to_json,
    rate_limit,
)
from kafkette.client.spark.options import EARLIEST, SourceOptions
from kafkette.client.spark.partition_reader import OffsetRangeReader
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

BEHIND_START_WAIT_S = 5.0
BEHIND_START_POLL_S = 0.25


class KafketteStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Plans and reads the micro-batches of a streaming kafkette query.

    Args:
        options: the parsed source options (``streaming=True``).
    """

    def __init__(self, options: SourceOptions) -> None:
        self._options = options
        self._offset_reader = KafketteOffsetReader(options)
        self._latest: dict[TopicPartition, int] | None = None
        self._available_now: dict[TopicPartition, int] | None = None

    def initialOffset(self) -> dict:
        """The offsets a new query starts from (``startingOffsets``: earliest, latest or
        JSON with -2/-1), as ``{"topic": {"partition": offset}}``.

        Raises:
            ValueError: specific offsets that do not name every subscribed partition.
            KafkaError: the cluster did not answer in time.
        """
        return offsets_to_json(self._offset_reader.resolve(self._options.starting))

    def getDefaultReadLimit(self) -> ReadLimit:
        """``ReadMaxRows(maxOffsetsPerTrigger)``, or ``ReadAllAvailable`` without it."""
        limit = self._options.max_offsets_per_trigger
        return ReadMaxRows(limit) if limit is not None else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """Remember the latest offsets now: an AvailableNow query reads up to them and stops."""
        partitions = self._offset_reader.list_partitions()
        self._available_now = self._offset_reader.list_offsets(dict.fromkeys(partitions, -1))
        logger.info("Trigger.AvailableNow reads up to %s", offsets_to_json(self._available_now))

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        """The end offset of the next micro-batch.

        Discovers partitions (new ones start at their log start offset), fetches their
        high watermarks (capped at the AvailableNow target when prepared) and applies
        ``limit`` (``ReadMaxRows``: about that many records, shared by backlog).

        Args:
            start: the previous batch's end offset (or the initial offset).
            limit: ``getDefaultReadLimit()`` or ``ReadAllAvailable`` (e.g. Trigger.Once).

        Returns:
            ``{"topic": {"partition": offset}}``; equal to ``start`` when nothing is new.
        """
        start_offsets = offsets_from_json(start)
        latest, new_earliest = self._latest_offsets(start_offsets)
        self._latest = latest
        if self._available_now is not None:
            latest = dict(self._available_now)
        from_offsets = {**new_earliest, **start_offsets}
        if isinstance(limit, ReadMaxRows):
            end = rate_limit(from_offsets, latest, limit.max_rows)
        else:
            end = latest
        return offsets_to_json(end)

    def _latest_offsets(
        self, start: dict[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
        """High watermarks (and log start offsets of new partitions), looked up again for up
        to ``BEHIND_START_WAIT_S`` while one is below ``start``: a newly elected leader
        answers its own high watermark, which catches up once its followers fetch.  Still
        behind after that, the offsets went backwards for good (``partitions`` reports it)."""
        deadline = time.monotonic() + BEHIND_START_WAIT_S
        while True:
            latest, new_earliest = self._offset_reader.latest_and_new_earliest(start)
            behind = sorted(tp for tp, offset in latest.items() if tp in start and offset < start[tp])
            if not behind or time.monotonic() >= deadline:
                return latest, new_earliest
            logger.info(
                "High watermark of %s is below the query's offset; looking again", ", ".join(map(str, behind))
            )
            time.sleep(BEHIND_START_POLL_S)

    def reportLatestOffset(self) -> dict | None:
        """The high watermarks seen by the last ``latestOffset`` (progress reports)."""
        return None if self._latest is None else offsets_to_json(self._latest)

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        """One OffsetRange per partition with records between ``start`` and ``end``.

        Partitions in ``end`` only (new ones) start at their log start offset; a
        vanished partition or an offset that went backwards is data loss (fail or
        skip per ``failOnDataLoss``).

        Raises:
            DataLossError: data loss with ``failOnDataLoss`` true.
        """
        start_offsets = offsets_from_json(start)
        end_offsets = offsets_from_json(end)
        new = [tp for tp in end_offsets if tp not in start_offsets]
        if new:
            earliest = self._offset_reader.list_offsets(dict.fromkeys(new, EARLIEST))
            for tp, offset in sorted(earliest.items()):
                if offset != 0:
                    report_data_loss(
                        f"Added partition {tp} starts from {offset} instead of 0.",
                        self._options.fail_on_data_loss,
                        logger,
                    )
            start_offsets.update(earliest)
        gone = sorted(tp for tp in start_offsets if tp not in end_offsets)
        if gone:
            report_data_loss(
                f"{', '.join(map(str, gone))} are gone.", self._options.fail_on_data_loss, logger
            )
        for tp in sorted(end_offsets):
            if end_offsets[tp] < start_offsets[tp]:
                report_data_loss(
                    f"Partition {tp}'s offset was changed from {start_offsets[tp]} to "
                    f"{end_offsets[tp]}, some data may have been missed.",
                    self._options.fail_on_data_loss,
                    logger,
                )
        return list(offset_ranges(start_offsets, end_offsets))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Read one OffsetRange on an executor.

        Raises:
            DataLossError: part of the range was deleted and ``failOnDataLoss`` is true.
            KafkaError: the cluster failed within the poll timeout.
        """
        if isinstance(partition, OffsetRange):
            yield from OffsetRangeReader(self._options, partition).read_batches()

    def commit(self, end: dict) -> None:
        """Nothing to do: Spark's Kafka source commits no offsets to the cluster."""

    def stop(self) -> None:
        """Nothing to release: every lookup closes its own clients."""
