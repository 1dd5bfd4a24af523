"""SASL sessions that expire and re-authenticate on the same connection (KIP-368,
``connections.max.reauth.ms``): one broker whose Kafka listener and own listener are both
SASL_PLAINTEXT with PLAIN and a 2 s session lifetime.  A raw Kafka-protocol client is told the
lifetime, re-authenticates in place to start a new session, and is disconnected on its first
request after the session ends; a re-authentication as another user is refused with Kafka's
message and closes the connection; librdkafka (confluent-kafka), Kafka's Java producer
(``ProducerPerformance``) and Kafkette's SDK keep producing
across several lifetimes without an error and without the broker closing their connections (nor
the broker's own connections to itself)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator

import confluent_kafka
import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer
from kafkette.protocol.apis.metadata import MetadataRequest
from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafkette.protocol.errors import Errors
from tests.conformance.raw_client import RawKafkaClient
from tests.peers.kafka_peer import KafkaPeer

pytestmark = pytest.mark.timeout(180)

LIFETIME_MS = 2000
PRODUCE_FOR_S = 3 * LIFETIME_MS / 1000
USERS = {
    "admin": "admin-secret",
    "alice": "alice-secret",
    "bob": "bob-secret",
    "carol": "carol-secret",
    "dave": "dave-secret",
}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    + " ".join(['username="admin" password="admin-secret"', *(f'user_{u}="{p}"' for u, p in USERS.items())])
    + ";"
)
EXPIRED = "its SASL session expired"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("sasl-reauth"),
        kafka_protocol=True,
        broker_configs={
            "listener.security.protocol.map": "PLAINTEXT:SASL_PLAINTEXT,KAFKA:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "PLAIN",
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            "listener.name.plaintext.plain.sasl.jaas.config": JAAS,
            "listener.name.kafka.plain.sasl.jaas.config": JAAS,
            "connections.max.reauth.ms": str(LIFETIME_MS),
        },
    ) as cluster:
        yield cluster


def _raw(cluster: LocalCluster) -> RawKafkaClient:
    host, _, port = cluster.kafka_bootstrap_servers.split(",")[0].rpartition(":")
    return RawKafkaClient(host, int(port), timeout_s=5)


def _login(client: RawKafkaClient, user: str) -> object:
    """SaslHandshake v1 and SaslAuthenticate v2 with PLAIN; the SaslAuthenticate answer."""
    shake = client.call("SaslHandshake", 1, SaslHandshakeRequest(mechanism="PLAIN"))
    assert shake.error_code == Errors.NONE
    token = b"\x00" + user.encode() + b"\x00" + USERS[user].encode()
    return client.call("SaslAuthenticate", 2, SaslAuthenticateRequest(auth_bytes=token))


def _metadata(client: RawKafkaClient) -> object:
    return client.call("Metadata", 12, MetadataRequest(topics=None))


def _expired_closes(cluster: LocalCluster, user: str) -> list[str]:
    log = cluster.log_path(1).read_text()
    return [line for line in log.splitlines() if EXPIRED in line and f"User:{user}:" in line]


def test_a_session_is_renewed_in_place_and_a_client_past_it_is_disconnected(cluster):
    client = _raw(cluster)
    try:
        assert _login(client, "carol").session_lifetime_ms == LIFETIME_MS
        time.sleep(0.65 * LIFETIME_MS / 1000)
        renewed = _login(client, "carol")  # re-authentication on the same connection
        assert (renewed.error_code, renewed.session_lifetime_ms) == (Errors.NONE, LIFETIME_MS)
        time.sleep(0.65 * LIFETIME_MS / 1000)  # past the first session's end, inside the second
        assert _metadata(client).brokers
        time.sleep(0.5 * LIFETIME_MS / 1000)
        with pytest.raises(OSError):
            _metadata(client)
    finally:
        client.close()
    assert len(_expired_closes(cluster, "carol")) == 1


def test_re_authenticating_as_another_user_is_refused_and_closes_the_connection(cluster):
    client = _raw(cluster)
    try:
        assert _login(client, "alice").error_code == Errors.NONE
        changed = _login(client, "bob")
        assert changed.error_code == Errors.SASL_AUTHENTICATION_FAILED
        assert (
            changed.error_message
            == "Cannot change principals during re-authentication from User.alice: User.bob"
        )
        with pytest.raises(OSError):
            _metadata(client)
    finally:
        client.close()


def test_librdkafka_keeps_producing_across_several_session_lifetimes(cluster):
    topic = "reauth-librdkafka"
    errors: list[object] = []
    producer = confluent_kafka.Producer(
        {
            "bootstrap.servers": cluster.kafka_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": "bob",
            "sasl.password": USERS["bob"],
            "error_cb": errors.append,
        }
    )
    delivered: list[object] = []

    def on_delivery(error, message) -> None:
        delivered.append(error)

    deadline = time.monotonic() + PRODUCE_FOR_S
    sent = 0
    while time.monotonic() < deadline:
        producer.produce(topic, f"record-{sent}".encode(), on_delivery=on_delivery)
        sent += 1
        producer.poll(0.1)
    assert producer.flush(10) == 0
    assert delivered == [None] * sent and errors == []
    assert _expired_closes(cluster, "bob") == []


def test_kafkas_java_producer_keeps_producing_across_several_session_lifetimes(cluster, tmp_path):
    config = tmp_path / "producer.properties"
    config.write_text(
        f"bootstrap.servers={cluster.kafka_bootstrap_servers}\nsecurity.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=PLAIN\nacks=all\nsasl.jaas.config=org.apache.kafka.common.security.plain."
        f'PlainLoginModule required username="dave" password="{USERS["dave"]}";\n'
    )
    records = int(PRODUCE_FOR_S * 20)
    done = subprocess.run(
        [
            *KafkaPeer.tool_command("org.apache.kafka.tools.ProducerPerformance"),
            "--topic",
            "reauth-java",
            "--num-records",
            str(records),
            "--throughput",
            "20",
            "--record-size",
            "100",
            "--producer.config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert "Exception" not in done.stderr, done.stderr[-1500:]
    assert f"{records} records sent" in done.stdout, done.stdout[-1500:]
    assert _expired_closes(cluster, "dave") == []


async def test_the_sdk_and_the_brokers_own_connections_re_authenticate_across_lifetimes(cluster):
    topic = "reauth-sdk"
    login = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "alice",
        "sasl_plain_password": USERS["alice"],
    }
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, **login) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
        async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all", **login) as producer:
            deadline = asyncio.get_running_loop().time() + PRODUCE_FOR_S
            sent = 0
            while asyncio.get_running_loop().time() < deadline:
                await producer.send_and_wait(topic, f"record-{sent}".encode())
                sent += 1
                await asyncio.sleep(0.05)
        assert (await admin.describe_topics([topic]))[topic].partitions
    assert sent > 20
    assert _expired_closes(cluster, "alice") == [] and _expired_closes(cluster, "admin") == []
