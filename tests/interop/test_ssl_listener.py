"""TLS on the Kafka-protocol listener (Kafka's SSL security protocol), as a Kafka user configures
it: a listener mapped to ``SSL`` with a PEM key store and trust store (``ssl.keystore.type=PEM``,
``ssl.keystore.location``, ``ssl.truststore.type=PEM``, ``ssl.truststore.location``) and
``ssl.client.auth=required``, each test run against Apache Kafka 4.3.1 configured the same way and
against Kafkette, with the clients unchanged: confluent-kafka (librdkafka) and kafka-python with a
client certificate produce and consume; a client without a certificate, a client that does not
trust the brokers' CA, and a plaintext client on the TLS port are refused, and the broker keeps
serving the others.  The certificates are made for the test (``tests/tls_certificates.py``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers.kafka_peer import KafkaPeer, start_or_fail
from tests.tls_certificates import CertificateAuthority, Issued

pytestmark = pytest.mark.timeout(900)

TIMEOUT_S = 30


@dataclass(frozen=True)
class TlsCluster:
    bootstrap: str
    ca: Path
    client: Issued
    other_ca: Path
    expired_client: Issued


def _listener_configs(listener: str, ca: CertificateAuthority, server: Issued) -> dict[str, str]:
    prefix = f"listener.name.{listener.lower()}."
    return {
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.location": str(server.bundle),
        prefix + "ssl.truststore.type": "PEM",
        prefix + "ssl.truststore.location": str(ca.files.certificate),
        prefix + "ssl.client.auth": "required",
    }


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def tls(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsCluster]:
    """A 3-node cluster with an SSL listener (client certificates required), Apache Kafka 4.3.1's
    or Kafkette's, configured alike."""
    certs = tmp_path_factory.mktemp("certs")
    ca = CertificateAuthority(certs)
    server = ca.issue("broker", "broker", server=True)
    client = ca.issue("client", "alice", unit="clients")
    expired_client = ca.issue("expired-client", "bob", unit="clients", expired=True)
    other_ca = CertificateAuthority(certs, "other-ca").files.certificate
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=3,
            data_dir=tmp_path_factory.mktemp("ssl-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SSL",
                **_listener_configs("KAFKA", ca, server),
            },
        ) as cluster:
            yield TlsCluster(
                cluster.kafka_bootstrap_servers, ca.files.certificate, client, other_ca, expired_client
            )
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("ssl-kafka"), nodes=3, heap_mb=PEER_HEAP_MB)
    bootstrap = peer.add_listener("SSL", "SSL", _listener_configs("SSL", ca, server))
    start_or_fail(peer)
    try:
        yield TlsCluster(bootstrap, ca.files.certificate, client, other_ca, expired_client)
    finally:
        peer.stop()


def _conf(
    tls: TlsCluster, certificate: bool = True, ca: Path | None = None, client: Issued | None = None, **extra
) -> dict:
    conf = {
        "bootstrap.servers": tls.bootstrap,
        "security.protocol": "SSL",
        "ssl.ca.location": str(ca or tls.ca),
        **extra,
    }
    if certificate:
        conf["ssl.certificate.location"] = str((client or tls.client).certificate)
        conf["ssl.key.location"] = str((client or tls.client).key)
    return conf


def _connects(conf: dict, wait_s: float = 8) -> bool:
    admin = AdminClient(conf)
    try:
        admin.list_topics(timeout=wait_s)
        return True
    except KafkaException:
        return False


def test_clients_with_a_certificate_produce_and_consume_over_tls(tls):
    admin = AdminClient(_conf(tls))
    admin.create_topics([NewTopic("tls-events", 2, 3)])["tls-events"].result(timeout=TIMEOUT_S)
    producer = Producer(_conf(tls, acks="all"))
    errors: list = []
    for i in range(20):
        producer.produce(
            "tls-events", value=f"v{i}".encode(), on_delivery=lambda e, m: e and errors.append(e)
        )
    assert producer.flush(TIMEOUT_S) == 0 and errors == []
    consumer = Consumer(_conf(tls, **{"group.id": "tls-g", "auto.offset.reset": "earliest"}))
    consumer.subscribe(["tls-events"])
    values = set()
    deadline = time.monotonic() + TIMEOUT_S
    while len(values) < 20 and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            values.add(msg.value())
    consumer.close()
    assert values == {f"v{i}".encode() for i in range(20)}


def test_kafka_python_with_a_certificate_reads_the_cluster_over_tls(tls):
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(
        bootstrap_servers=tls.bootstrap,
        security_protocol="SSL",
        ssl_cafile=str(tls.ca),
        ssl_certfile=str(tls.client.certificate),
        ssl_keyfile=str(tls.client.key),
        request_timeout_ms=TIMEOUT_S * 1000,
    )
    try:
        assert len(admin.describe_cluster()["brokers"]) == 3
    finally:
        admin.close()


@pytest.mark.parametrize(
    "refused",
    [
        "no client certificate",
        "a CA the client does not trust",
        "plaintext on the TLS port",
        "an expired client certificate",
    ],
)
def test_a_client_the_listener_cannot_trust_is_refused_and_the_others_are_served(tls, refused):
    if refused == "no client certificate":
        conf = _conf(tls, certificate=False)
    elif refused == "an expired client certificate":
        # refused in the handshake with a TLS alert saying why, as Apache Kafka does (librdkafka:
        # "SSL alert number 46", certificate unknown, from Java; 45, certificate expired, from OpenSSL)
        seen: list[KafkaError] = []
        producer = Producer({**_conf(tls, client=tls.expired_client), "error_cb": seen.append})
        with pytest.raises(KafkaException):
            producer.list_topics(timeout=3)
        producer.poll(0.5)
        refusals = (KafkaError._TRANSPORT, KafkaError._SSL, KafkaError._ALL_BROKERS_DOWN)
        assert seen and all(e.code() in refusals for e in seen), [e.str() for e in seen]
        assert any("SSL alert number 4" in e.str() for e in seen), [e.str() for e in seen]
        assert _connects(_conf(tls), TIMEOUT_S)
        return
    elif refused == "a CA the client does not trust":
        conf = _conf(tls, ca=tls.other_ca)
    else:
        conf = {"bootstrap.servers": tls.bootstrap}
    assert not _connects(conf)
    assert _connects(_conf(tls), TIMEOUT_S)
