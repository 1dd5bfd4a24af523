"""SASL on the brokers' own listener (the SDK's, the replica fetchers', the controller's requests'
and the metadata quorum's): a 3-node cluster whose ``PLAINTEXT`` listener is mapped to SASL_SSL
with PLAIN logs its nodes in to each other as the JAAS config's ``username`` (Kafka's
``sasl.mechanism.inter.broker.protocol``), replicates and elects over it, and serves the SDK logged
in with aiokafka's keywords or with ``--command-config``'s ``sasl.jaas.config``; a wrong password
gets Kafka's "Invalid username or password", a client that does not log in is disconnected
unanswered (as Kafka's SaslServerAuthenticator does), and the others are served.  A node whose inter-broker
mechanism the listener does not enable does not start, with Kafka's message."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import confluent_kafka.admin
import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    LocalCluster,
    LocalClusterError,
    NewTopic,
    Producer,
    SaslAuthenticationFailedError,
    TopicPartition,
    create_ssl_context,
)
from kafkette.client.client_properties import client_settings
from kafkette.protocol.errors import KafkaError
from tests.tls_certificates import CertificateAuthority

pytestmark = pytest.mark.timeout(300)

TOPIC = "over-sasl-ssl"
RECORDS = 200
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)


def _sasl_configs(mechanism: str = "PLAIN") -> dict[str, str]:
    return {
        "listener.security.protocol.map": "PLAINTEXT:SASL_SSL,KAFKA:PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.mechanism.inter.broker.protocol": mechanism,
        "listener.name.plaintext.plain.sasl.jaas.config": JAAS,
    }


@pytest.fixture(scope="module")
def sasl_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalCluster, str]]:
    """``(cluster, the CA certificate's path)``: 3 nodes, SASL_SSL with PLAIN on their own listener."""
    certs = tmp_path_factory.mktemp("certs")
    ca = CertificateAuthority(certs)
    broker = ca.issue("broker", "broker", server=True)
    configs = {
        **_sasl_configs(),
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.plaintext.scram-sha-256.sasl.jaas.config": (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        ),
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(broker.bundle),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca.files.certificate),
    }
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("sasl-brokers"),
        broker_configs=configs,
        kafka_protocol=True,
    ) as cluster:
        yield cluster, str(ca.files.certificate)


def _alice(ca: str, password: str = "alice-secret") -> dict:
    return {
        "security_protocol": "SASL_SSL",
        "ssl_context": create_ssl_context(cafile=ca),
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "alice",
        "sasl_plain_password": password,
    }


async def test_nodes_log_in_to_each_other_and_serve_a_logged_in_sdk(sasl_cluster):
    cluster, ca = sasl_cluster
    assert cluster.security_protocol == "SASL_SSL" and cluster.sasl_login == (
        "PLAIN",
        "admin",
        "admin-secret",
    )
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap, **_alice(ca)) as admin:
        await admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=3)])
    async with Producer(bootstrap_servers=bootstrap, acks="all", **_alice(ca)) as producer:
        futures = [await producer.send(TOPIC, f"record-{i}".encode()) for i in range(RECORDS)]
        await asyncio.gather(*futures)
    values = []
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", **_alice(ca)) as consumer:
        consumer.assign([TopicPartition(TOPIC, p) for p in range(3)])
        deadline = asyncio.get_running_loop().time() + 60
        while len(values) < RECORDS and asyncio.get_running_loop().time() < deadline:
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                values += [r.value for r in records]
    assert sorted(values) == sorted(f"record-{i}".encode() for i in range(RECORDS))
    async with AdminClient(**cluster.client_config) as admin:  # the brokers' own login: admin
        described = (await admin.describe_topics([TOPIC]))[TOPIC]
    assert all(sorted(p.isr) == [1, 2, 3] for p in described.partitions), described


async def test_a_wrong_password_gets_kafkas_message_and_a_client_without_login_gets_nothing(sasl_cluster):
    cluster, ca = sasl_cluster
    bootstrap = cluster.bootstrap_servers
    with pytest.raises(SaslAuthenticationFailedError, match="Invalid username or password"):
        async with AdminClient(
            bootstrap_servers=bootstrap, request_timeout_ms=5000, **_alice(ca, "wrong")
        ) as admin:
            await admin.describe_cluster()
    tls_only = {"security_protocol": "SSL", "ssl_context": create_ssl_context(cafile=ca)}
    with pytest.raises(KafkaError):  # Kafka closes a request before the handshake unanswered
        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=4000, **tls_only) as admin:
            await admin.describe_cluster()
    async with AdminClient(bootstrap_servers=bootstrap, **_alice(ca)) as admin:
        assert len((await admin.describe_cluster())["brokers"]) == 3


async def test_a_scram_user_made_with_kafkas_admin_api_logs_the_sdk_in(sasl_cluster):
    cluster, ca = sasl_cluster
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": cluster.kafka_bootstrap_servers})
    info = confluent_kafka.admin.ScramCredentialInfo(confluent_kafka.admin.ScramMechanism.SCRAM_SHA_256, 4096)
    upsert = confluent_kafka.admin.UserScramCredentialUpsertion("bob", info, b"bob-secret")
    admin.alter_user_scram_credentials([upsert])["bob"].result(timeout=30)
    bob = {**_alice(ca), "sasl_mechanism": "SCRAM-SHA-256", "sasl_plain_username": "bob"}
    deadline = asyncio.get_running_loop().time() + 30
    while True:  # the credential reaches every broker through the controller
        try:
            async with AdminClient(
                bootstrap_servers=cluster.bootstrap_servers, **{**bob, "sasl_plain_password": "bob-secret"}
            ) as logged_in:
                assert len((await logged_in.describe_cluster())["brokers"]) == 3
            break
        except SaslAuthenticationFailedError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.5)
    refused = "invalid credentials with SASL mechanism SCRAM-SHA-256"
    with pytest.raises(SaslAuthenticationFailedError, match=refused):
        async with AdminClient(
            bootstrap_servers=cluster.bootstrap_servers, **{**bob, "sasl_plain_password": "wrong"}
        ) as refused_client:
            await refused_client.describe_cluster()


async def test_command_config_sasl_properties_log_the_sdk_in(sasl_cluster):
    cluster, ca = sasl_cluster
    properties = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": JAAS.replace(
            'username="admin" password="admin-secret"', 'username="alice" password="alice-secret"'
        ),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": ca,
    }
    settings = client_settings(properties, AdminClient, source="client.properties")
    assert (settings["sasl_plain_username"], settings["sasl_mechanism"]) == ("alice", "PLAIN")
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, **settings) as admin:
        assert len((await admin.describe_cluster())["brokers"]) == 3


def test_a_node_whose_inter_broker_mechanism_is_not_enabled_does_not_start(tmp_path):
    configs = {**_sasl_configs("SCRAM-SHA-512"), "listener.security.protocol.map": "PLAINTEXT:SASL_PLAINTEXT"}
    with pytest.raises(LocalClusterError, match="sasl.mechanism.inter.broker.protocol must be included in"):
        with LocalCluster(num_brokers=1, data_dir=tmp_path, broker_configs=configs, startup_timeout_s=30):
            pass


def test_the_sdk_refuses_sasl_without_a_login_and_sasl_ssl_without_tls():
    with pytest.raises(ValueError, match="sasl_plain_username and sasl_plain_password required"):
        Producer(bootstrap_servers="127.0.0.1:1", security_protocol="SASL_PLAINTEXT")
    with pytest.raises(ValueError, match="ssl_context"):
        Producer(
            bootstrap_servers="127.0.0.1:1",
            security_protocol="SASL_SSL",
            sasl_plain_username="a",
            sasl_plain_password="b",
        )
