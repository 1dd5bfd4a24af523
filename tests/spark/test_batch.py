"""Batch reads and writes through the kafkette format against a real 3-broker cluster."""

from __future__ import annotations

import datetime

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

from .cluster_io import consume_all, create_topic, produce


def test_batch_read_equals_produced_records(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "batch-read", partitions=3)
    produce(
        bootstrap,
        "batch-read",
        [(f"k{i}".encode(), f"v{i}".encode(), i % 3) for i in range(200)],
        headers=[("source", b"test"), ("empty", None)],
    )
    produce(bootstrap, "batch-read", [(None, f"plain{i}".encode(), None) for i in range(100)])
    produced = consume_all(bootstrap, "batch-read")
    assert len(produced) == 300

    rows = (
        spark.read.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("subscribe", "batch-read")
        .option("includeHeaders", "true")
        .load()
        .collect()
    )

    assert len(rows) == 300
    got = {(r.topic, r.partition, r.offset): r for r in rows}
    assert len(got) == 300
    for record in produced:
        row = got[(record.topic, record.partition, record.offset)]
        assert (row.key, row.value, row.timestampType) == (record.key, record.value, record.timestamp_type)
        assert row.timestamp == datetime.datetime.fromtimestamp(
            record.timestamp / 1000, datetime.UTC
        ).replace(tzinfo=None)
        if record.headers:
            assert [(h.key, h.value) for h in row.headers] == record.headers
        else:
            assert row.headers is None


def test_batch_read_schema_is_sparks_kafka_source_schema(spark, spark_cluster):
    def reader():
        return spark.read.format("kafkette").option(
            "kafkette.bootstrap.servers", spark_cluster.bootstrap_servers
        )

    plain = reader().option("subscribe", "batch-read").load().schema
    assert [(f.name, f.dataType.simpleString()) for f in plain.fields] == [
        ("key", "binary"),
        ("value", "binary"),
        ("topic", "string"),
        ("partition", "int"),
        ("offset", "bigint"),
        ("timestamp", "timestamp"),
        ("timestampType", "int"),
    ]
    with_headers = reader().option("subscribe", "batch-read").option("includeHeaders", "true").load().schema
    assert with_headers.fields[-1].dataType.simpleString() == "array<struct<key:string,value:binary>>"


def test_batch_read_honours_json_starting_and_ending_offsets(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "batch-range", partitions=2)
    produce(bootstrap, "batch-range", [(None, f"p{i % 2}-{i // 2}".encode(), i % 2) for i in range(20)])

    df = (
        spark.read.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("assign", '{"batch-range":[0,1]}')
        .option("startingOffsets", '{"batch-range":{"0":3,"1":-2}}')
        .option("endingOffsets", '{"batch-range":{"0":-1,"1":4}}')
        .load()
    )

    got = sorted((r.partition, r.offset, r.value) for r in df.collect())
    assert got == (
        [(0, o, f"p0-{o}".encode()) for o in range(3, 10)] + [(1, o, f"p1-{o}".encode()) for o in range(0, 4)]
    )


def test_batch_write_then_consume_round_trips(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "batch-write", partitions=3)
    schema = StructType(
        [
            StructField("key", StringType()),
            StructField("value", BinaryType()),
            StructField("partition", IntegerType()),
            StructField(
                "headers",
                ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())])),
            ),
            StructField("ignored", StringType()),
        ]
    )
    data = [
        (f"k{i}", f"value-{i}".encode(), i % 3, [("n", str(i).encode())] if i % 2 else None, "x")
        for i in range(150)
    ]

    spark.createDataFrame(data, schema).write.format("kafkette").mode("append").option(
        "kafkette.bootstrap.servers", bootstrap
    ).option("topic", "batch-write").save()

    records = consume_all(bootstrap, "batch-write")
    assert sorted((r.key, r.value, r.partition, r.headers) for r in records) == sorted(
        (k.encode(), v, p, h or []) for k, v, p, h, _ in data
    )


def test_batch_write_routes_rows_by_topic_column(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    for topic in ("route-a", "route-b"):
        create_topic(bootstrap, topic, partitions=1)
    df = spark.createDataFrame(
        [("route-a" if i % 3 else "route-b", f"v{i}") for i in range(30)], "topic string, value string"
    )

    df.write.format("kafkette").mode("append").option("kafkette.bootstrap.servers", bootstrap).save()

    assert sorted(r.value for r in consume_all(bootstrap, "route-a")) == sorted(
        f"v{i}".encode() for i in range(30) if i % 3
    )
    assert sorted(r.value for r in consume_all(bootstrap, "route-b")) == sorted(
        f"v{i}".encode() for i in range(30) if not i % 3
    )


def test_failed_write_fails_the_task_with_kafkettes_error(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "small-records", partitions=1, configs={"max.message.bytes": "2048"})
    df = spark.createDataFrame([("x" * 10000,)], "value string")

    with pytest.raises(Exception, match="MessageTooLargeError"):
        df.write.format("kafkette").mode("append").option("kafkette.bootstrap.servers", bootstrap).option(
            "topic", "small-records"
        ).option("kafkette.delivery.timeout.ms", "20000").save()


def test_bad_options_fail_with_a_message_naming_the_option(spark, spark_cluster):
    with pytest.raises(Exception, match="kafkette.bootstrap.servers"):
        spark.read.format("kafkette").option("subscribe", "t").load().collect()
    with pytest.raises(Exception, match="subscribe, subscribePattern, assign"):
        spark.read.format("kafkette").option(
            "kafkette.bootstrap.servers", spark_cluster.bootstrap_servers
        ).load().collect()
    with pytest.raises(Exception, match="startingOffsets' can't be 'latest'"):
        spark.read.format("kafkette").option(
            "kafkette.bootstrap.servers", spark_cluster.bootstrap_servers
        ).option("subscribe", "t").option("startingOffsets", "latest").load().collect()
    df = spark.createDataFrame([("v",)], "value string")
    with pytest.raises(Exception, match="topic option required"):
        df.write.format("kafkette").mode("append").option("kafkette.bootstrap.servers", "127.0.0.1:1").save()
