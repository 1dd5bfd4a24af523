"""Internal topics on real brokers: a client cannot write into ``__consumer_offsets`` (Produce and
DeleteRecords are INVALID_TOPIC_EXCEPTION, as Kafka's ``ReplicaManager`` answers a client), while the
group coordinator's own writes go on and are what it loads back after a restart; a Kafka client on
the Kafka listener gets the same error codes; and ``__cluster_metadata``, the metadata log's name,
cannot be created as a topic (INVALID_REQUEST, as Kafka's ``ControllerApis``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import confluent_kafka
import confluent_kafka.admin
import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    InvalidTopicError,
    LocalCluster,
    NewTopic,
    Producer,
    TopicPartition,
)

pytestmark = pytest.mark.timeout(180)

OFFSETS = "__consumer_offsets"
KAFKETTE = Path(sys.executable).parent / "kafkette"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster(
        num_brokers=1, data_dir=tmp_path_factory.mktemp("internal-topics"), kafka_protocol=True
    ) as c:
        yield c


async def test_a_produce_to_consumer_offsets_fails_and_the_group_coordinator_still_commits_and_loads(cluster):
    orders = TopicPartition("orders", 0)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic("orders", 1, 1)])
    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, group_id="billing") as consumer:
        consumer.assign([orders])
        await consumer.commit({orders: 5})  # creates __consumer_offsets

    async with Producer(bootstrap_servers=cluster.bootstrap_servers) as producer:
        with pytest.raises(InvalidTopicError, match="Cannot append to internal topic __consumer_offsets"):
            await producer.send_and_wait(OFFSETS, b"not a group record", key=b"forged", partition=0)

    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, group_id="billing") as consumer:
        consumer.assign([orders])
        assert await consumer.committed(orders) == 5
        await consumer.commit({orders: 7})
    cluster.stop_broker(1, hard=False)
    cluster.start_broker(1)
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, group_id="billing", request_timeout_ms=30000
    ) as consumer:
        consumer.assign([orders])
        assert await consumer.committed(orders) == 7, "the coordinator loaded what it wrote, and nothing else"


async def test_delete_records_of_consumer_offsets_is_refused_with_invalid_topic(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic("audit-src", 1, 1)])
        await admin.alter_consumer_group_offsets("audit", {TopicPartition("audit-src", 0): 1})
        with pytest.raises(InvalidTopicError):
            await admin.delete_records({TopicPartition(OFFSETS, 0): -1})


def test_a_kafka_client_on_the_kafka_listener_gets_kafkas_error_codes(cluster):
    bootstrap = cluster.kafka_bootstrap_servers
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([confluent_kafka.admin.NewTopic("orders-k", 1, 1)])["orders-k"].result(timeout=30)
    consumer = confluent_kafka.Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "kafka-client-group", "enable.auto.commit": False}
    )
    try:  # the group's commit creates __consumer_offsets if no other test has
        consumer.commit(offsets=[confluent_kafka.TopicPartition("orders-k", 0, 3)], asynchronous=False)
    finally:
        consumer.close()

    producer = confluent_kafka.Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0, "message.timeout.ms": 20000}
    )
    delivered: list[confluent_kafka.KafkaError | None] = []
    producer.produce(
        OFFSETS,
        b"not a group record",
        key=b"forged",
        partition=0,
        on_delivery=lambda err, msg: delivered.append(err),
    )
    assert producer.flush(30) == 0
    assert [e.code() if e is not None else None for e in delivered] == [
        confluent_kafka.KafkaError.TOPIC_EXCEPTION
    ]

    result = admin.delete_records([confluent_kafka.TopicPartition(OFFSETS, 0, 0)])
    future = next(iter(result.values()))
    with pytest.raises(confluent_kafka.KafkaException) as raised:
        future.result(timeout=30)
    assert raised.value.args[0].code() == confluent_kafka.KafkaError.TOPIC_EXCEPTION


def test_the_cli_cannot_create_a_topic_named_cluster_metadata(cluster):
    created = subprocess.run(
        [
            str(KAFKETTE),
            "topics",
            "create",
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--topic",
            "__cluster_metadata",
            "--partitions",
            "1",
            "--replication-factor",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert created.returncode == 1
    [line] = created.stderr.strip().splitlines()
    assert line.startswith("Error: ") and "INVALID_REQUEST" in line
    assert line.endswith("Creation of internal topic __cluster_metadata is prohibited.")
    listed = subprocess.run(
        [str(KAFKETTE), "topics", "list", "--bootstrap-server", cluster.bootstrap_servers],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert listed.returncode == 0 and "__cluster_metadata" not in listed.stdout.split()
