"""Streaming reads through the kafkette format: checkpoints, admission control,
discovery of new partitions and topics, failOnDataLoss, streaming writes."""

from __future__ import annotations

import shutil

import pytest

from .cluster_io import add_partitions, consume_all, create_topic, produce, recreate_topic
from .streaming import kafkette_stream, wait_for


def _values(rows) -> list[bytes]:
    return sorted(bytes(r.value) for r in rows)


def test_restarted_query_resumes_from_checkpoint_exactly_once(spark, spark_cluster, tmp_path):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "stream-restart", partitions=3)
    sink, checkpoint = str(tmp_path / "sink"), str(tmp_path / "checkpoint")

    def start():
        return (
            kafkette_stream(
                spark,
                bootstrap,
                subscribe="stream-restart",
                startingOffsets="earliest",
                maxOffsetsPerTrigger="40",
            )
            .selectExpr("CAST(value AS STRING) AS value", "partition", "offset")
            .writeStream.format("parquet")
            .option("path", sink)
            .option("checkpointLocation", checkpoint)
            .trigger(processingTime="200 milliseconds")
            .start()
        )

    produce(bootstrap, "stream-restart", [(None, f"a{i}".encode(), i % 3) for i in range(120)])
    query = start()
    wait_for(lambda: (query.lastProgress or {}).get("batchId", -1) >= 1, query, what="two micro-batches")
    produce(bootstrap, "stream-restart", [(None, f"b{i}".encode(), i % 3) for i in range(120)])
    query.stop()  # mid-stream: some of the records are not read yet
    produce(bootstrap, "stream-restart", [(None, f"c{i}".encode(), i % 3) for i in range(60)])

    query = start()
    query.processAllAvailable()
    query.stop()

    rows = spark.read.parquet(sink).collect()
    assert len(rows) == 300
    assert len({(r.partition, r.offset) for r in rows}) == 300
    assert sorted(r.value for r in rows) == sorted(
        [f"a{i}" for i in range(120)] + [f"b{i}" for i in range(120)] + [f"c{i}" for i in range(60)]
    )


def test_max_offsets_per_trigger_bounds_available_now_batches(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "stream-limit", partitions=2)
    produce(bootstrap, "stream-limit", [(None, f"v{i}".encode(), i % 2) for i in range(100)])

    query = (
        kafkette_stream(
            spark, bootstrap, subscribe="stream-limit", startingOffsets="earliest", maxOffsetsPerTrigger="30"
        )
        .writeStream.format("memory")
        .queryName("stream_limit")
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)

    assert not query.isActive and query.exception() is None
    sizes = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    assert sum(sizes) == 100 and max(sizes) <= 30 and len(sizes) == 4
    assert _values(spark.table("stream_limit").collect()) == sorted(f"v{i}".encode() for i in range(100))
    assert query.recentProgress[-1]["sources"][0]["latestOffset"] is not None


def test_new_partitions_and_matching_topics_are_picked_up(spark, spark_cluster):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "grow-a", partitions=1)
    produce(bootstrap, "grow-a", [(None, f"a{i}".encode(), 0) for i in range(10)])
    query = (
        kafkette_stream(spark, bootstrap, subscribePattern="grow-.*", startingOffsets="earliest")
        .writeStream.format("memory")
        .queryName("grow")
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        query.processAllAvailable()
        add_partitions(bootstrap, "grow-a", 3)
        create_topic(bootstrap, "grow-b", partitions=2)
        produce(bootstrap, "grow-a", [(None, f"a-new{i}".encode(), 1 + i % 2) for i in range(10)])
        produce(bootstrap, "grow-b", [(None, f"b{i}".encode(), i % 2) for i in range(10)])
        wait_for(lambda: spark.table("grow").count() >= 30, query, what="30 rows")
        query.processAllAvailable()
    finally:
        query.stop()
    rows = spark.table("grow").collect()
    assert _values(rows) == sorted(
        [f"a{i}".encode() for i in range(10)]
        + [f"a-new{i}".encode() for i in range(10)]
        + [f"b{i}".encode() for i in range(10)]
    )
    assert {(r.topic, r.partition) for r in rows} == {
        ("grow-a", 0),
        ("grow-a", 1),
        ("grow-a", 2),
        ("grow-b", 0),
        ("grow-b", 1),
    }


def test_offsets_gone_fail_the_query_or_are_skipped_per_fail_on_data_loss(spark, spark_cluster, tmp_path):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "lossy", partitions=1)
    produce(bootstrap, "lossy", [(None, f"old{i}".encode(), 0) for i in range(50)])
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"

    def start(fail_on_data_loss: str, checkpoint_dir):
        return (
            kafkette_stream(
                spark,
                bootstrap,
                subscribe="lossy",
                startingOffsets="earliest",
                failOnDataLoss=fail_on_data_loss,
            )
            .select("value")
            .writeStream.format("parquet")
            .option("path", str(sink))
            .option("checkpointLocation", str(checkpoint_dir))
            .start()
        )

    query = start("true", checkpoint)
    query.processAllAvailable()
    query.stop()
    recreate_topic(bootstrap, "lossy", partitions=1)  # offsets 0..49 are gone; the new log restarts at 0
    produce(bootstrap, "lossy", [(None, f"new{i}".encode(), 0) for i in range(10)])
    shutil.copytree(checkpoint, tmp_path / "checkpoint-copy")

    query = start("true", checkpoint)
    with pytest.raises(Exception, match="failOnDataLoss"):
        query.awaitTermination(120)
    assert not query.isActive

    query = start("false", tmp_path / "checkpoint-copy")
    try:
        query.processAllAvailable()  # skips the lost range, with a warning
        produce(bootstrap, "lossy", [(None, f"later{i}".encode(), 0) for i in range(5)])
        query.processAllAvailable()
        assert query.exception() is None
    finally:
        query.stop()
    assert _values(spark.read.parquet(str(sink)).collect()) == sorted(
        [f"old{i}".encode() for i in range(50)] + [f"later{i}".encode() for i in range(5)]
    )


def test_streaming_write_copies_a_topic_at_least_once(spark, spark_cluster, tmp_path):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "copy-in", partitions=2)
    create_topic(bootstrap, "copy-out", partitions=2)
    produce(
        bootstrap,
        "copy-in",
        [(f"k{i}".encode(), f"v{i}".encode(), None) for i in range(100)],
        headers=[("h", b"1")],
    )

    query = (
        kafkette_stream(
            spark, bootstrap, subscribe="copy-in", startingOffsets="earliest", includeHeaders="true"
        )
        .selectExpr("key", "upper(CAST(value AS STRING)) AS value", "headers")
        .writeStream.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("topic", "copy-out")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)

    assert query.exception() is None
    copied = consume_all(bootstrap, "copy-out")
    assert sorted((r.key, r.value, r.headers) for r in copied) == sorted(
        (f"k{i}".encode(), f"V{i}".encode(), [("h", b"1")]) for i in range(100)
    )
