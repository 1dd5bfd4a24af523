"""ACLs enforced on the Kafka-protocol listener, each test run against Apache Kafka 4.3.1 and against
Kafkette configured alike (Kafka's StandardAuthorizer, ``super.users`` the admin and the nodes'
own ``User:ANONYMOUS``, ``allow.everyone.if.no.acl.found=false``, SASL/PLAIN users), with
librdkafka unchanged: a user without an ACL cannot write a topic (TOPIC_AUTHORIZATION_FAILED), a
WRITE ACL made with CreateAcls lets it, its consumer needs READ on the group as well as on the
topic (GROUP_AUTHORIZATION_FAILED before), Metadata hides the topics it may not describe, and
CreateTopics without CREATE is refused; the outcomes are the same on both."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(600)

TIMEOUT_S = 30
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)
AUTHORIZER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:admin;User:ANONYMOUS",
    "allow.everyone.if.no.acl.found": "false",
}


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The SASL_PLAINTEXT listener of a one-node cluster with the authorizer, Apache Kafka's or
    Kafkette's."""
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=1,
            data_dir=tmp_path_factory.mktemp("acl-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_PLAINTEXT",
                "listener.name.kafka.sasl.enabled.mechanisms": "PLAIN",
                "listener.name.kafka.plain.sasl.jaas.config": JAAS,
                **AUTHORIZER,
            },
        ) as cluster:
            yield cluster.kafka_bootstrap_servers
        return
    peer = KafkaPeer(
        tmp_path_factory.mktemp("acl-kafka"), nodes=1, heap_mb=PEER_HEAP_MB, broker_configs=AUTHORIZER
    )
    sasl = peer.add_listener(
        "SASL_PLAINTEXT",
        "SASL_PLAINTEXT",
        {
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        },
    )
    start_or_fail(peer)
    try:
        yield sasl
    finally:
        peer.stop()


def _conf(bootstrap: str, user: str, **extra) -> dict:
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": user,
        "sasl.password": f"{user}-secret",
        **extra,
    }


def _admin(bootstrap: str, user: str = "admin") -> AdminClient:
    return AdminClient(_conf(bootstrap, user))


def _produce_one(bootstrap: str, topic: str) -> KafkaError | None:
    """alice's delivery error for one record (None: delivered)."""
    outcome: list = []
    producer = Producer(
        _conf(bootstrap, "alice", **{"message.timeout.ms": 10000, "enable.idempotence": False})
    )
    producer.produce(topic, b"v", on_delivery=lambda err, msg: outcome.append(err))
    producer.flush(TIMEOUT_S)
    assert outcome, "no delivery report"
    return outcome[0]


def _allow(bootstrap: str, resource_type: ResourceType, name: str, operation: AclOperation) -> None:
    binding = AclBinding(
        resource_type,
        name,
        ResourcePatternType.LITERAL,
        "User:alice",
        "*",
        operation,
        AclPermissionType.ALLOW,
    )
    admin = _admin(bootstrap)  # kept alive until its future completes
    admin.create_acls([binding])[binding].result(timeout=TIMEOUT_S)
    time.sleep(1)  # the ACL reaches the broker's authorizer


def test_a_write_acl_lets_a_user_produce_and_metadata_hides_what_it_may_not_describe(bootstrap):
    admin = _admin(bootstrap)
    for name in ("secured", "hidden"):
        admin.create_topics([NewTopic(name, 1, 1)])[name].result(timeout=TIMEOUT_S)
    refused = _produce_one(bootstrap, "secured")
    assert refused is not None and refused.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, refused
    _allow(bootstrap, ResourceType.TOPIC, "secured", AclOperation.WRITE)
    assert _produce_one(bootstrap, "secured") is None
    listed = set(_admin(bootstrap, "alice").list_topics(timeout=TIMEOUT_S).topics)
    assert "secured" in listed and "hidden" not in listed, listed  # WRITE implies DESCRIBE


def test_a_consumer_needs_read_on_its_group_and_on_the_topic(bootstrap):
    conf = _conf(bootstrap, "alice", **{"group.id": "alice-group", "auto.offset.reset": "earliest"})

    def first_error_or_record(wait_s: float = 15) -> KafkaError | bytes | None:
        consumer = Consumer(conf)
        consumer.subscribe(["secured"])
        deadline = time.monotonic() + wait_s
        try:
            while time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is not None:
                    return msg.error() if msg.error() is not None else msg.value()
            return None
        finally:
            consumer.close()

    _allow(bootstrap, ResourceType.TOPIC, "secured", AclOperation.READ)
    refused = first_error_or_record()
    assert isinstance(refused, KafkaError) and refused.code() == KafkaError.GROUP_AUTHORIZATION_FAILED, (
        refused
    )
    _allow(bootstrap, ResourceType.GROUP, "alice-group", AclOperation.READ)
    assert first_error_or_record() == b"v"


def test_create_topics_without_create_is_refused(bootstrap):
    alice = _admin(bootstrap, "alice")  # kept alive until its future completes
    future = alice.create_topics([NewTopic("alices-own", 1, 1)])["alices-own"]
    with pytest.raises(Exception) as raised:
        future.result(timeout=TIMEOUT_S)
    assert raised.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, raised.value


def test_a_regex_subscription_gets_only_the_topics_the_member_may_describe(bootstrap):
    """KIP-848: the coordinator resolves a member's regex with the heartbeat's principal, leaving out
    the topics it may not DESCRIBE (Kafka's ``TopicRegexResolver``)."""
    admin = _admin(bootstrap)
    producer = Producer(_conf(bootstrap, "admin"))
    for name in ("regex-visible", "regex-hidden"):
        admin.create_topics([NewTopic(name, 1, 1)])[name].result(timeout=TIMEOUT_S)
        producer.produce(name, name.encode())
    assert producer.flush(TIMEOUT_S) == 0
    _allow(bootstrap, ResourceType.TOPIC, "regex-visible", AclOperation.READ)
    _allow(bootstrap, ResourceType.GROUP, "alice-regex-group", AclOperation.READ)
    group = {"group.id": "alice-regex-group", "group.protocol": "consumer", "auto.offset.reset": "earliest"}
    consumer = Consumer(_conf(bootstrap, "alice", **group))
    consumer.subscribe(["^regex-.*"])
    values, errors = [], []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while time.monotonic() < deadline and not values:
            msg = consumer.poll(0.5)
            if msg is not None:
                (errors if msg.error() is not None else values).append(msg.error() or msg.value())
        assigned = {tp.topic for tp in consumer.assignment()}
    finally:
        consumer.close()
    assert values == [b"regex-visible"] and errors == [], (values, errors)
    assert assigned == {"regex-visible"}, assigned
