"""Batch reads of the kafkette source: ``spark.read.format("kafkette")``.

Owns: planning a batch read (Spark's ``KafkaBatch``/``KafkaRelation``): resolve
``startingOffsets`` (default earliest) and ``endingOffsets`` (default latest) on the
driver, one Spark input partition per topic-partition range, each read on an executor
by ``OffsetRangeReader``.  Does not own offset lookups (``offset_reader``) nor the
reading itself (``partition_reader``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition

from kafkette.client.spark.offset_reader import KafketteOffsetReader
from kafkette.client.spark.offsets import OffsetRange
from kafkette.client.spark.options import SourceOptions
from kafkette.client.spark.partition_reader import OffsetRangeReader

logger = logging.getLogger(__name__)


class KafketteBatchReader(DataSourceReader):
    """Reads the records between two offsets of every subscribed partition once.

    Args:
        options: the parsed source options (``streaming=False``).
    """

    def __init__(self, options: SourceOptions) -> None:
        self._options = options

    def partitions(self) -> Sequence[InputPartition]:
        """Resolve the offsets (driver) and return one OffsetRange per non-empty partition.

        Returns:
            OffsetRanges sorted by topic-partition (an empty list when nothing to read).

        Raises:
            ValueError: specific offsets that miss partitions, or a start after an end.
            KafkaError: the cluster did not answer in time.
        """
        reader = KafketteOffsetReader(self._options)
        assert self._options.ending is not None  # parse() sets it for batch reads
        start = reader.resolve(self._options.starting)
        end = reader.resolve(self._options.ending)
        ranges: list[InputPartition] = []
        for tp in sorted(end):
            if tp not in start:
                logger.info("Partition %s appeared after the starting offsets were resolved; not read", tp)
                continue
            if end[tp] < start[tp]:
                raise ValueError(f"Starting offset {start[tp]} of {tp} is after its ending offset {end[tp]}")
            if end[tp] > start[tp]:
                ranges.append(OffsetRange(tp.topic, tp.partition, start[tp], end[tp]))
        return ranges

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Read one OffsetRange on an executor (Spark passes a placeholder partition when
        ``partitions`` found nothing to read).

        Raises:
            DataLossError: part of the range was deleted and ``failOnDataLoss`` is true.
            KafkaError: the cluster failed within the poll timeout.
        """
        if isinstance(partition, OffsetRange):
            yield from OffsetRangeReader(self._options, partition).read_batches()
