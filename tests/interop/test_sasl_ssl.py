"""SASL inside TLS (Kafka's SASL_SSL security protocol) on the Kafka-protocol listener, configured
as a Kafka user configures it (PEM key store, no client certificate, SASL/PLAIN users from the JAAS
config), against Apache Kafka 4.3.1 and Kafkette alike: librdkafka over SASL_SSL produces and
consumes as its user, and a wrong password is refused with Kafka's message while the others are
served."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers.kafka_peer import KafkaPeer, start_or_fail
from tests.tls_certificates import CertificateAuthority

pytestmark = pytest.mark.timeout(900)

TIMEOUT_S = 30
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)


def _listener_configs(listener: str, bundle: str) -> dict[str, str]:
    prefix = f"listener.name.{listener.lower()}."
    return {
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.location": bundle,
        prefix + "sasl.enabled.mechanisms": "PLAIN",
        prefix + "plain.sasl.jaas.config": JAAS,
    }


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def sasl_ssl(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """(bootstrap servers, CA file) of a 3-node cluster with a SASL_SSL listener, Apache Kafka's or
    Kafkette's, configured alike."""
    ca = CertificateAuthority(tmp_path_factory.mktemp("certs"))
    bundle = str(ca.issue("broker", "broker", server=True).bundle)
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=3,
            data_dir=tmp_path_factory.mktemp("sasl-ssl-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_SSL",
                **_listener_configs("KAFKA", bundle),
            },
        ) as cluster:
            yield cluster.kafka_bootstrap_servers, str(ca.files.certificate)
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("sasl-ssl-kafka"), nodes=3, heap_mb=PEER_HEAP_MB)
    bootstrap = peer.add_listener("SASL_SSL", "SASL_SSL", _listener_configs("SASL_SSL", bundle))
    start_or_fail(peer)
    try:
        yield bootstrap, str(ca.files.certificate)
    finally:
        peer.stop()


def _conf(sasl_ssl: tuple[str, str], user: str, password: str, **extra) -> dict:
    bootstrap, ca = sasl_ssl
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_SSL",
        "ssl.ca.location": ca,
        "sasl.mechanism": "PLAIN",
        "sasl.username": user,
        "sasl.password": password,
        **extra,
    }


def test_a_user_produces_and_consumes_over_sasl_ssl(sasl_ssl):
    admin = AdminClient(_conf(sasl_ssl, "admin", "admin-secret"))
    admin.create_topics([NewTopic("sasl-ssl-events", 1, 3)])["sasl-ssl-events"].result(timeout=TIMEOUT_S)
    producer = Producer(_conf(sasl_ssl, "alice", "alice-secret", acks="all"))
    errors: list = []
    for i in range(10):
        producer.produce(
            "sasl-ssl-events", value=f"v{i}".encode(), on_delivery=lambda e, m: e and errors.append(e)
        )
    assert producer.flush(TIMEOUT_S) == 0 and errors == []
    consumer = Consumer(
        _conf(
            sasl_ssl, "alice", "alice-secret", **{"group.id": "sasl-ssl-g", "auto.offset.reset": "earliest"}
        )
    )
    consumer.subscribe(["sasl-ssl-events"])
    values = set()
    deadline = time.monotonic() + TIMEOUT_S
    while len(values) < 10 and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            values.add(msg.value())
    consumer.close()
    assert values == {f"v{i}".encode() for i in range(10)}


def test_a_wrong_password_is_refused_with_kafkas_message(sasl_ssl):
    seen: list[KafkaError] = []
    producer = Producer({**_conf(sasl_ssl, "alice", "wrong"), "error_cb": seen.append})
    deadline = time.monotonic() + 10
    while not seen and time.monotonic() < deadline:
        producer.poll(0.2)
    messages = [e.str() for e in seen]
    assert any("Authentication failed: Invalid username or password" in m for m in messages), messages
    good = AdminClient(_conf(sasl_ssl, "admin", "admin-secret"))
    assert len(good.list_topics(timeout=TIMEOUT_S).brokers) == 3
