"""``KafketteDataSource``: the PySpark Python data source registered as format ``kafkette``.

Owns: the entry points Spark calls (``name``, ``schema``, ``reader``, ``streamReader``,
``writer``, ``streamWriter``), each parsing and checking its options before handing
over to the reader or writer of its mode.  The schema is Spark's Kafka source schema;
a user-supplied schema is refused, as Spark's Kafka source does.  Does not read or
write anything itself.

Use: ``spark.dataSource.register(KafketteDataSource)`` then
``spark.read.format("kafkette").option("kafkette.bootstrap.servers", ...)``.
"""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from kafkette.client.spark.batch_reader import KafketteBatchReader
from kafkette.client.spark.options import SinkOptions, SourceOptions
from kafkette.client.spark.partition_reader import arrow_schema, source_schema
from kafkette.client.spark.stream_reader import KafketteStreamReader
from kafkette.client.spark.writer import KafketteBatchWriter, KafketteStreamWriter


class KafketteDataSource(DataSource):
    """Spark's Kafka source and sink, for Kafkette.

    Options: see ``kafkette.client.spark.options`` (``kafkette.bootstrap.servers``, ``subscribe`` |
    ``subscribePattern`` | ``assign``, ``startingOffsets``, ``endingOffsets``,
    ``maxOffsetsPerTrigger``, ``failOnDataLoss``, ``includeHeaders``, ``topic``,
    ``kafkette.<client property>``).
    """

    @classmethod
    def name(cls) -> str:
        """The format name: ``kafkette``."""
        return "kafkette"

    def _include_headers(self) -> bool:
        return str(self.options.get("includeHeaders", "false")).strip().lower() == "true"

    def schema(self) -> str:
        """Spark's Kafka source schema (``headers`` with ``includeHeaders=true``)."""
        return source_schema(self._include_headers())

    def _check_schema(self, schema: StructType) -> None:
        expected = [f.name for f in arrow_schema(self._include_headers())]
        if [f.name for f in schema.fields] != expected:
            raise ValueError("Kafkette source has a fixed schema and does not support user-specified schema")

    def reader(self, schema: StructType) -> DataSourceReader:
        """The batch reader (``spark.read``).

        Raises:
            ValueError: bad options or a user-specified schema.
        """
        self._check_schema(schema)
        return KafketteBatchReader(SourceOptions.parse(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        """The streaming reader (``spark.readStream``).

        Raises:
            ValueError: bad options or a user-specified schema.
        """
        self._check_schema(schema)
        return KafketteStreamReader(SourceOptions.parse(self.options, streaming=True))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        """The batch writer (``df.write.mode("append")``).

        Raises:
            ValueError: bad options or columns, or ``overwrite`` mode (a topic cannot be
                overwritten, as in Spark's Kafka sink).
        """
        if overwrite:
            raise ValueError("Save mode overwrite not allowed for Kafkette. Allowed save mode is append.")
        return KafketteBatchWriter(SinkOptions.parse(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        """The streaming writer (``df.writeStream``; output modes append, update, complete).

        Raises:
            ValueError: bad options or columns.
        """
        return KafketteStreamWriter(SinkOptions.parse(self.options), schema)
