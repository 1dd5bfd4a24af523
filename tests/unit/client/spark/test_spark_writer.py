"""The kafkette sink's column rules (Spark's Kafka sink)."""

from __future__ import annotations

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from kafkette.client.spark.writer import SinkColumns, sink_columns

HEADERS = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))


def schema(**columns) -> StructType:
    return StructType([StructField(name, data_type) for name, data_type in columns.items()])


def test_columns_are_located_and_other_columns_ignored():
    columns = sink_columns(
        schema(
            extra=StringType(),
            value=BinaryType(),
            key=StringType(),
            topic=StringType(),
            partition=IntegerType(),
            headers=HEADERS,
        ),
        None,
    )
    assert columns == SinkColumns(value=1, key=2, topic=3, partition=4, headers=5)


def test_topic_option_overrides_the_topic_column():
    assert sink_columns(schema(value=StringType(), topic=StringType()), "out").topic is None


@pytest.mark.parametrize(
    ("columns", "topic", "message"),
    [
        ({"key": StringType()}, "t", "Required attribute 'value' not found"),
        ({"value": StringType()}, None, "topic option required"),
        ({"value": LongType()}, "t", "value attribute type must be a string or binary"),
        ({"value": StringType(), "key": IntegerType()}, "t", "key attribute type"),
        ({"value": StringType(), "topic": BinaryType()}, None, "topic attribute type must be a string"),
        ({"value": StringType(), "partition": LongType()}, "t", "partition attribute type must be an int"),
        ({"value": StringType(), "headers": ArrayType(StringType())}, "t", "headers attribute type"),
    ],
)
def test_bad_columns_are_refused(columns, topic, message):
    with pytest.raises(ValueError, match=message):
        sink_columns(schema(**columns), topic)
