"""A secure cluster in one step: ``LocalCluster(security="SASL_SSL")`` makes its CA and broker
certificate, 3 brokers that log in to each other and replicate over SASL_SSL, the admin super
user's SCRAM-SHA-512 credential and ``admin.properties``; the SDK reaches the brokers' own listener
with ``admin_client_config`` (through ``client_settings``, as ``--command-config`` does) and
confluent-kafka (librdkafka) the Kafka-protocol listener with ``kafka_admin_client_config``,
unchanged; a client without TLS, without a login, with a wrong password, or a user the authorizer
knows no ACL for, is refused while the admin is served."""

from __future__ import annotations

import asyncio
import stat
import uuid
from collections.abc import Iterator

import confluent_kafka
import confluent_kafka.admin
import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    LocalCluster,
    NewTopic,
    Producer,
    SaslAuthenticationFailedError,
    TopicPartition,
)
from kafkette.client.client_properties import client_settings, read_properties_file
from kafkette.protocol.errors import KafkaError

pytestmark = pytest.mark.timeout(240)

RECORDS = 100


@pytest.fixture(scope="module")
def secure_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("secure-cluster"),
        security="SASL_SSL",
        kafka_protocol=True,
    ) as cluster:
        yield cluster


def _admin_settings(cluster: LocalCluster, target: type) -> dict:
    return client_settings(cluster.admin_client_config, target, source="admin_client_config")


async def test_brokers_replicate_over_sasl_ssl_and_serve_the_admin_through_the_sdk(secure_cluster):
    cluster = secure_cluster
    assert cluster.security_protocol == "SASL_SSL"
    assert cluster.sasl_login is not None and cluster.sasl_login[:2] == ("PLAIN", "admin")
    topic = "replicated-over-sasl-ssl"
    async with AdminClient(**_admin_settings(cluster, AdminClient)) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=3)])
    async with Producer(**{**_admin_settings(cluster, Producer), "acks": "all"}) as producer:
        futures = [await producer.send(topic, f"record-{i}".encode()) for i in range(RECORDS)]
        await asyncio.gather(*futures)  # acks=all: every follower fetched over SASL_SSL
    values = []
    settings = {**_admin_settings(cluster, Consumer), "auto_offset_reset": "earliest"}
    async with Consumer(**settings) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(3)])
        deadline = asyncio.get_running_loop().time() + 60
        while len(values) < RECORDS and asyncio.get_running_loop().time() < deadline:
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                values += [r.value for r in records]
    assert sorted(values) == sorted(f"record-{i}".encode() for i in range(RECORDS))
    async with AdminClient(**_admin_settings(cluster, AdminClient)) as admin:
        described = (await admin.describe_topics([topic]))[topic]
    assert all(sorted(p.isr) == [1, 2, 3] for p in described.partitions), described


def test_librdkafka_produces_and_consumes_on_the_kafka_listener_with_the_admin_config(secure_cluster):
    config = secure_cluster.kafka_admin_client_config
    assert config["security.protocol"] == "SASL_SSL" and config["sasl.mechanism"] == "SCRAM-SHA-512"
    topic = "librdkafka-over-sasl-ssl"
    admin = confluent_kafka.admin.AdminClient(config)
    admin.create_topics([confluent_kafka.admin.NewTopic(topic, 1, 3)])[topic].result(timeout=30)
    producer = confluent_kafka.Producer({**config, "acks": "all"})
    delivered = []
    for i in range(10):
        producer.produce(topic, f"value-{i}".encode(), on_delivery=lambda err, msg: delivered.append(err))
    assert producer.flush(30) == 0 and delivered == [None] * 10
    consumer = confluent_kafka.Consumer(
        {**config, "group.id": f"g-{uuid.uuid4().hex}", "auto.offset.reset": "earliest"}
    )
    try:
        consumer.subscribe([topic])
        values = []
        for _ in range(60):
            message = consumer.poll(1.0)
            if message is not None and message.error() is None:
                values.append(message.value())
            if len(values) == 10:
                break
    finally:
        consumer.close()
    assert values == [f"value-{i}".encode() for i in range(10)]


async def test_clients_without_tls_or_a_valid_login_are_refused(secure_cluster):
    cluster = secure_cluster
    admin_settings = _admin_settings(cluster, AdminClient)
    bootstrap = cluster.bootstrap_servers
    with pytest.raises(KafkaError):  # plaintext to a TLS listener: no answer
        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000) as client:
            await client.describe_cluster()
    tls_only = {"security_protocol": "SSL", "ssl_context": admin_settings["ssl_context"]}
    with pytest.raises(KafkaError):  # Kafka closes a request before the handshake unanswered
        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000, **tls_only) as client:
            await client.describe_cluster()
    with pytest.raises(SaslAuthenticationFailedError):
        async with AdminClient(**{**admin_settings, "sasl_plain_password": "wrong"}) as client:
            await client.describe_cluster()
    librdkafka_errors: list = []
    no_login = {k: v for k, v in cluster.kafka_admin_client_config.items() if not k.startswith("sasl.")} | {
        "security.protocol": "SSL",
        "error_cb": librdkafka_errors.append,
        "socket.timeout.ms": 3000,
    }
    with pytest.raises(confluent_kafka.KafkaException):
        confluent_kafka.admin.AdminClient(no_login).list_topics(timeout=5)
    async with AdminClient(**admin_settings) as admin:
        assert len((await admin.describe_cluster())["brokers"]) == 3


def test_a_user_without_acls_is_not_authorized_as_the_admin_is(secure_cluster):
    """``allow.everyone.if.no.acl.found=false``: a SCRAM user the admin made sees no topic and
    cannot create one, while the admin (``super.users``) can."""
    config = secure_cluster.kafka_admin_client_config
    admin = confluent_kafka.admin.AdminClient(config)
    info = confluent_kafka.admin.ScramCredentialInfo(confluent_kafka.admin.ScramMechanism.SCRAM_SHA_512, 4096)
    upsert = confluent_kafka.admin.UserScramCredentialUpsertion("bob", info, b"bob-secret")
    admin.alter_user_scram_credentials([upsert])["bob"].result(timeout=30)
    bob = confluent_kafka.admin.AdminClient({**config, "sasl.username": "bob", "sasl.password": "bob-secret"})
    metadata = None
    for _ in range(20):  # the credential reaches every broker through the metadata log
        try:
            metadata = bob.list_topics(timeout=5)
            break
        except confluent_kafka.KafkaException:
            continue
    assert metadata is not None and admin.list_topics(timeout=10).topics
    assert not metadata.topics  # described only to who may describe them
    with pytest.raises(confluent_kafka.KafkaException, match="TOPIC_AUTHORIZATION_FAILED"):
        bob.create_topics([confluent_kafka.admin.NewTopic("bobs", 1, 1)])["bobs"].result(timeout=30)


def test_admin_properties_are_kafkas_client_properties_readable_by_their_owner_only(secure_cluster):
    cluster = secure_cluster
    path = cluster.admin_properties_path
    assert path == cluster.data_dir / "admin.properties"
    properties = read_properties_file(str(path))
    assert properties == cluster.admin_client_config
    password = cluster.kafka_admin_client_config["sasl.password"]
    assert properties["sasl.jaas.config"] == (
        "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="admin" password="{password}";'
    )
    assert properties["ssl.truststore.type"] == "PEM"
    assert properties["ssl.truststore.location"] == str(cluster.data_dir / "ssl" / "ca.pem")
    assert properties["bootstrap.servers"] == cluster.bootstrap_servers
    assert len(password) >= 32
    configs = [cluster.config_path(n) for n in cluster.node_ids]
    for secret in [path, cluster.data_dir / "ssl" / "broker.pem", *configs]:
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600, secret
    holding_password = [
        p for p in cluster.data_dir.rglob("*") if p.is_file() and password.encode() in p.read_bytes()
    ]
    assert sorted(holding_password) == sorted([path, *configs])


def test_security_other_than_plaintext_or_sasl_ssl_is_refused_with_the_choices(tmp_path):
    with pytest.raises(ValueError, match="security must be one of PLAINTEXT, SASL_SSL, got 'SSL'"):
        LocalCluster(num_brokers=1, data_dir=tmp_path, security="SSL")
    plain = LocalCluster(num_brokers=1, data_dir=tmp_path)
    with pytest.raises(ValueError, match="no admin user"):
        plain.admin_client_config  # noqa: B018
