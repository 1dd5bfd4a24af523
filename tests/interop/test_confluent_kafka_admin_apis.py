"""confluent-kafka's AdminClient (librdkafka) against Kafkette's Kafka-protocol listener, for the admin
APIs librdkafka's own test suite exercises: IncrementalAlterConfigs of broker configs Kafka updates at
run time (KIP-226), AlterConfigs (the legacy API 33, which replaces a resource's configs),
ListGroups v5's group types (KIP-848) and the authorized operations of topics and of the cluster
(KIP-430, every operation without an authorizer)."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, ConsumerGroupType, KafkaError, TopicCollection, TopicPartition
from confluent_kafka.admin import (
    AclOperation,
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)
from confluent_kafka.admin import ConfigSource as Source

from kafkette.client import LocalCluster

TIMEOUT_S = 30
TOPIC_OPERATIONS = {
    AclOperation.READ,
    AclOperation.WRITE,
    AclOperation.CREATE,
    AclOperation.DELETE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
}
CLUSTER_OPERATIONS = {
    AclOperation.CREATE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
    AclOperation.CLUSTER_ACTION,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
    AclOperation.IDEMPOTENT_WRITE,
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster(
        num_brokers=1, data_dir=tmp_path_factory.mktemp("admin-apis"), kafka_protocol=True
    ) as running:
        yield running


def _admin(cluster: LocalCluster) -> AdminClient:
    return AdminClient({"bootstrap.servers": cluster.kafka_bootstrap_servers})


def _incremental(
    admin: AdminClient, resource_type: ConfigResource.Type, name: str, key: str, value: str
) -> None:
    resource = ConfigResource(
        resource_type,
        name,
        incremental_configs=[ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)],
    )
    admin.incremental_alter_configs([resource])[resource].result(timeout=TIMEOUT_S)


@pytest.mark.timeout(120)
def test_incremental_alter_configs_sets_broker_configs_kafka_updates_at_run_time_and_refuses_read_only_ones(
    cluster,
):
    admin = _admin(cluster)

    _incremental(admin, ConfigResource.Type.BROKER, "1", "background.threads", "5")
    _incremental(admin, ConfigResource.Type.BROKER, "1", "sasl.kerberos.min.time.before.relogin", "60000")

    broker = ConfigResource(ConfigResource.Type.BROKER, "1")
    described = admin.describe_configs([broker])[broker].result(timeout=TIMEOUT_S)
    assert (described["background.threads"].value, described["background.threads"].source) == (
        "5",
        Source.DYNAMIC_BROKER_CONFIG.value,
    )
    with pytest.raises(Exception) as refused:
        _incremental(admin, ConfigResource.Type.BROKER, "1", "broker.id", "3")
    assert refused.value.args[0].code() == KafkaError.INVALID_REQUEST
    assert "Cannot update these configs dynamically: [broker.id]" in refused.value.args[0].str()


@pytest.mark.timeout(120)
def test_alter_configs_replaces_every_config_override_of_a_topic(cluster):
    admin = _admin(cluster)
    admin.create_topics(
        [NewTopic("ck-legacy-alter", 1, 1, config={"retention.ms": "1000", "segment.ms": "2000000"})],
        operation_timeout=TIMEOUT_S,
    )["ck-legacy-alter"].result(timeout=TIMEOUT_S)
    topic = ConfigResource(ConfigResource.Type.TOPIC, "ck-legacy-alter", set_config={"retention.ms": "5000"})

    admin.alter_configs([topic])[topic].result(timeout=TIMEOUT_S)

    deadline = time.monotonic() + TIMEOUT_S
    while True:
        described = admin.describe_configs([topic])[topic].result(timeout=TIMEOUT_S)
        if described["retention.ms"].value == "5000" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert described["retention.ms"].value == "5000"
    assert described["segment.ms"].source == Source.DEFAULT_CONFIG.value, "an override not listed is removed"


@pytest.mark.timeout(120)
def test_list_consumer_groups_by_type_and_authorized_operations(cluster):
    admin = _admin(cluster)
    admin.create_topics([NewTopic("ck-auth-ops", 1, 1)], operation_timeout=TIMEOUT_S)["ck-auth-ops"].result(
        timeout=TIMEOUT_S
    )

    consumer = Consumer({"bootstrap.servers": cluster.kafka_bootstrap_servers, "group.id": "ck-typed-group"})
    try:
        consumer.commit(offsets=[TopicPartition("ck-auth-ops", 0, 0)], asynchronous=False)
    finally:
        consumer.close()

    classic = admin.list_consumer_groups(types={ConsumerGroupType.CLASSIC}).result(timeout=TIMEOUT_S)
    consumer_type = admin.list_consumer_groups(types={ConsumerGroupType.CONSUMER}).result(timeout=TIMEOUT_S)
    assert [(g.group_id, g.type) for g in classic.valid if g.group_id == "ck-typed-group"] == [
        ("ck-typed-group", ConsumerGroupType.CLASSIC)
    ]
    assert [g.group_id for g in consumer_type.valid] == []

    topics = admin.describe_topics(TopicCollection(["ck-auth-ops"]), include_authorized_operations=True)
    assert set(topics["ck-auth-ops"].result(timeout=TIMEOUT_S).authorized_operations) == TOPIC_OPERATIONS
    described = admin.describe_cluster(include_authorized_operations=True).result(timeout=TIMEOUT_S)
    assert set(described.authorized_operations) == CLUSTER_OPERATIONS
