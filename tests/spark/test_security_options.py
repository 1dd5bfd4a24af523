"""The kafkette format over a secured listener: Spark's Kafka connector options
(``kafka.security.protocol``, ``kafka.sasl.mechanism``, ``kafka.sasl.jaas.config``,
``kafka.ssl.truststore.location`` (PEM) ...) reach the SDK's Consumer, Producer and AdminClient on
the driver and the executors, against a 1-broker cluster whose own listener is SASL_SSL with SCRAM;
a wrong password fails the query with Kafka's SASL_AUTHENTICATION_FAILED ("... invalid credentials
with SASL mechanism SCRAM-SHA-512"), not a hang."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.client.client_properties import client_settings

pytestmark = pytest.mark.timeout(300)

TOPIC = "spark-over-sasl-ssl"


@pytest.fixture(scope="module")
def secure_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """One broker whose own listener is SASL_SSL (SCRAM-SHA-512 admin, PEM trust store)."""
    with LocalCluster(
        num_brokers=1, data_dir=tmp_path_factory.mktemp("spark-secure"), security="SASL_SSL"
    ) as cluster:

        async def create() -> None:
            settings = client_settings(cluster.admin_client_config, AdminClient)
            async with AdminClient(**settings) as admin:
                await admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1)])

        asyncio.run(create())
        yield cluster


def _spark_options(cluster: LocalCluster) -> dict[str, str]:
    """The admin's Kafka client properties as Spark's Kafka connector takes them (``kafka.`` prefix);
    ``ssl.ca.location`` is librdkafka's name, which Java clients (and Spark) do not take."""
    return {f"kafka.{k}": v for k, v in cluster.admin_client_config.items() if k != "ssl.ca.location"}


def test_write_and_read_over_sasl_ssl_with_kafka_option_names(spark, secure_cluster):
    options = _spark_options(secure_cluster)
    rows = [(f"k{i}", f"value-{i}") for i in range(40)]
    spark.createDataFrame(rows, "key string, value string").write.format("kafkette").mode("append").options(
        **options
    ).option("topic", TOPIC).save()

    read = spark.read.format("kafkette").options(**options).option("subscribe", TOPIC).load()
    got = sorted((r.key.decode(), r.value.decode()) for r in read.select("key", "value").collect())
    assert got == sorted(rows)

    wrong = {
        **options,
        "kafka.sasl.jaas.config": options["kafka.sasl.jaas.config"].replace('password="', 'password="wrong-'),
    }
    started = time.monotonic()
    with pytest.raises(Exception, match="SaslAuthenticationFailedError.*invalid credentials"):
        spark.read.format("kafkette").options(**wrong).option("subscribe", TOPIC).load().collect()
    assert time.monotonic() - started < 60
