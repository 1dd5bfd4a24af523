"""Spark's own Kafka connector (``spark-sql-kafka-0-10``, ``format("kafka")``) against Kafkette's
Kafka listener, unchanged, and against Apache Kafka: the same code on both, with confluent-kafka
producing and consuming on the other side.  The connector is 4.2.0 on PySpark 4.3.0 (4.3.0 is not
on Maven Central); when it cannot be resolved these tests fail with the reason."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructField, StructType

from kafkette.client import LocalCluster
from tests.peers.kafka_peer import KafkaPeer

QUERY_TIMEOUT_S = 120
# the record fields compared on both sides: key, value, partition, headers (None when there are none)
Record = tuple[bytes | None, bytes, int, tuple[tuple[str, bytes], ...] | None]


@pytest.fixture(scope="module", params=["apache-kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``bootstrap.servers`` of a one-node Apache Kafka peer, or of a one-broker Kafkette's Kafka
    listener; each is up for this module only."""
    data_dir = tmp_path_factory.mktemp(f"spark-kafka-{request.param}")
    if request.param == "apache-kafka":
        with KafkaPeer(data_dir, nodes=1, heap_mb=384) as peer:
            yield peer.bootstrap_servers
    else:
        with LocalCluster(num_brokers=1, data_dir=data_dir, kafka_protocol=True) as cluster:
            yield cluster.kafka_bootstrap_servers


@pytest.fixture
def kafka_spark(spark, spark_kafka_connector):
    """The session's SparkSession, failing the test when Spark's Kafka connector is not on it."""
    if spark_kafka_connector.missing:
        pytest.fail(
            f"Spark's Kafka connector is not on spark.jars: {spark_kafka_connector.missing}", pytrace=False
        )
    return spark


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create ``topic`` (replication factor 1) with confluent-kafka's AdminClient."""
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept referenced until the result arrives
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=partitions, replication_factor=1)], operation_timeout=30
    )
    futures[topic].result(timeout=60)


def produce(bootstrap: str, topic: str, records: list[Record], timestamp_ms: int | None = None) -> list[dict]:
    """Produce ``records`` with confluent-kafka (acks=all) and wait for every delivery report.

    Returns:
        Per record, in order: ``key``, ``value``, ``partition``, ``headers``, ``offset`` and
        ``timestamp_ms`` (CreateTime, as the broker stored it).
    """
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    delivered: list[dict] = [{} for _ in records]

    def report(index: int):
        def on_delivery(err, msg) -> None:
            if err is not None:
                raise KafkaException(err)
            delivered[index].update(offset=msg.offset(), timestamp_ms=msg.timestamp()[1])

        return on_delivery

    for index, (key, value, partition, headers) in enumerate(records):
        delivered[index].update(key=key, value=value, partition=partition, headers=headers)
        producer.produce(
            topic,
            value,
            key=key,
            partition=partition,
            headers=list(headers) if headers else None,
            timestamp=(timestamp_ms + index) if timestamp_ms is not None else 0,
            on_delivery=report(index),
        )
        producer.poll(0)
    if producer.flush(60) != 0:
        raise AssertionError(f"confluent-kafka: records to {topic} still undelivered after 60 s")
    assert all("offset" in d for d in delivered)
    return delivered


def consume_all(bootstrap: str, topic: str, partitions: int, timeout_s: float = 60) -> list[Record]:
    """Every record of ``topic`` up to the high watermarks, read with a confluent-kafka consumer."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"read-back-{topic}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
            for p in range(partitions)
        }
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[Record] = []
        read = dict.fromkeys(range(partitions), 0)
        deadline = time.monotonic() + timeout_s
        while any(read[p] < ends[p] for p in read):
            if time.monotonic() > deadline:
                raise AssertionError(f"read {read} of {ends} records of {topic} in {timeout_s} s")
            for msg in consumer.consume(num_messages=500, timeout=1.0):
                if msg.error() is not None:
                    raise KafkaException(msg.error())
                read[msg.partition()] = msg.offset() + 1
                out.append(
                    (msg.key(), msg.value(), msg.partition(), tuple(msg.headers()) if msg.headers() else None)
                )
        return out
    finally:
        consumer.close()


def kafka_read(spark, bootstrap: str, topic: str, stream: bool = False, **options: str):
    """``spark.read`` (or ``readStream``) ``.format("kafka")`` of ``topic`` from the earliest offsets."""
    reader = (
        (spark.readStream if stream else spark.read)
        .format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
    )
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load()


def test_batch_read_returns_the_produced_records(kafka_spark, bootstrap):
    create_topic(bootstrap, "connector-read", partitions=3)
    records: list[Record] = [
        (
            f"k{i}".encode(),
            f"value-{i}".encode(),
            i % 3,
            (("source", b"test"), ("n", str(i).encode())) if i % 2 else None,
        )
        for i in range(150)
    ]
    records += [(None, f"no-key-{i}".encode(), i % 3, None) for i in range(30)]
    produced = produce(bootstrap, "connector-read", records, timestamp_ms=1_764_000_000_000)

    rows = (
        kafka_read(kafka_spark, bootstrap, "connector-read", includeHeaders="true")
        .selectExpr(
            "key",
            "value",
            "topic",
            "partition",
            "offset",
            "unix_millis(timestamp) AS timestamp_ms",
            "timestampType",
            "headers",
        )
        .collect()
    )

    assert len(rows) == len(produced)
    got = {(r.partition, r.offset): r for r in rows}
    assert len(got) == len(produced)
    for record in produced:
        row = got[(record["partition"], record["offset"])]
        assert (row.key, row.value, row.topic, row.timestamp_ms, row.timestampType) == (
            record["key"],
            record["value"],
            "connector-read",
            record["timestamp_ms"],
            0,
        )
        assert record["timestamp_ms"] >= 1_764_000_000_000
        headers = tuple((h.key, bytes(h.value)) for h in row.headers) if row.headers else None
        assert headers == record["headers"]
    for partition in range(3):
        assert sorted(o for p, o in got if p == partition) == list(
            range(sum(1 for r in records if r[2] == partition))
        )


def test_stream_restarted_on_its_checkpoint_writes_every_record_once(kafka_spark, bootstrap, tmp_path):
    create_topic(bootstrap, "connector-stream", partitions=3)
    sink, checkpoint = str(tmp_path / "sink"), str(tmp_path / "checkpoint")

    def run_available_now() -> None:
        query = (
            kafka_read(kafka_spark, bootstrap, "connector-stream", stream=True, maxOffsetsPerTrigger="50")
            .selectExpr("CAST(value AS STRING) AS value", "partition", "offset")
            .writeStream.format("parquet")
            .option("path", sink)
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        try:
            finished = query.awaitTermination(QUERY_TIMEOUT_S)
            assert query.exception() is None, query.exception()
            assert finished, (
                f"the query did not finish in {QUERY_TIMEOUT_S} s; last progress: {query.lastProgress}"
            )
        finally:
            query.stop()

    produce(bootstrap, "connector-stream", [(None, f"a{i}".encode(), i % 3, None) for i in range(150)])
    run_available_now()
    assert kafka_spark.read.parquet(sink).count() == 150
    produce(bootstrap, "connector-stream", [(None, f"b{i}".encode(), i % 3, None) for i in range(90)])
    run_available_now()

    rows = kafka_spark.read.parquet(sink).collect()
    assert len(rows) == 240
    assert len({(r.partition, r.offset) for r in rows}) == 240
    assert sorted(r.value for r in rows) == sorted(
        [f"a{i}" for i in range(150)] + [f"b{i}" for i in range(90)]
    )


def test_batch_write_is_read_back_identical_by_confluent_kafka(kafka_spark, bootstrap):
    create_topic(bootstrap, "connector-write", partitions=3)
    header = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
    schema = StructType(
        [
            StructField("key", BinaryType()),
            StructField("value", BinaryType()),
            StructField("partition", IntegerType()),
            StructField("headers", header),
        ]
    )
    data: list[Record] = [
        (
            f"k{i}".encode() if i % 5 else None,
            f"written-{i}".encode(),
            i % 3,
            (("n", str(i).encode()),) if i % 2 else None,
        )
        for i in range(200)
    ]

    (
        kafka_spark.createDataFrame([(k, v, p, list(h) if h else None) for k, v, p, h in data], schema)
        .write.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", "connector-write")
        .save()
    )

    def order(r: Record):
        return r[2], r[1]

    assert sorted(consume_all(bootstrap, "connector-write", partitions=3), key=order) == sorted(
        data, key=order
    )
