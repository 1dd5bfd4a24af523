"""SASL inside TLS (Kafka's SASL_SSL security protocol) on the Kafka-protocol listener, configured
as a Kafka user configures it (PEM key store, no client certificate, ``sasl.enabled.mechanisms``
PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512: PLAIN users from the JAAS config, SCRAM users created over
the wire with AlterUserScramCredentials), against Apache Kafka 4.3.1 and Kafkette alike:
librdkafka, kafka-python, aiokafka and Kafka's Java clients produce and consume over SASL_SSL with
each mechanism; a wrong password is refused with Kafka's message; a plaintext client on the TLS
port, a truncated TLS handshake and a server certificate past its ``notAfter`` get nothing, and
the broker keeps serving the others."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import (
    AdminClient,
    NewTopic,
)

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers import kafka_clients
from tests.peers.kafka_peer import KafkaPeer, PeerUnavailable, start_or_fail
from tests.sasl_ssl_clusters import (
    LOGINS,
    MECHANISMS,
    TIMEOUT_S,
    SaslSsl,
    client_conf,
    create_scram_users,
    kafka_peer_sasl_ssl,
    listener_configs,
    login_errors,
)
from tests.tls_certificates import CertificateAuthority

pytestmark = pytest.mark.timeout(900)

RECORDS = 5


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def sasl_ssl(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslSsl]:
    """A 3-node cluster with a SASL_SSL listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), Apache
    Kafka's or Kafkette's, configured alike, with the SCRAM users of SCRAM_USERS."""
    ca = CertificateAuthority(tmp_path_factory.mktemp("certs"))
    bundle = str(ca.issue("broker", "broker", server=True).bundle)
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=3,
            data_dir=tmp_path_factory.mktemp("sasl-ssl-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_SSL",
                "group.initial.rebalance.delay.ms": "0",  # as KafkaPeer sets it
                **listener_configs("KAFKA", bundle),
            },
        ) as cluster:
            served = SaslSsl("kafkette", cluster.kafka_bootstrap_servers, str(ca.files.certificate))
            create_scram_users(served)
            yield served
        return
    with kafka_peer_sasl_ssl(
        tmp_path_factory.mktemp("sasl-ssl-kafka"),
        bundle,
        str(ca.files.certificate),
        nodes=3,
        heap_mb=PEER_HEAP_MB,
        start=start_or_fail,
    ) as (_, served):
        yield served


def _served(cluster: SaslSsl) -> None:
    """A good client (the PLAIN admin) still gets the cluster's metadata, all three brokers."""
    good = AdminClient(client_conf(cluster, "admin", "admin-secret"))
    assert len(good.list_topics(timeout=TIMEOUT_S).brokers) == 3


def _create_topic(cluster: SaslSsl, topic: str) -> None:
    admin = AdminClient(client_conf(cluster, "admin", "admin-secret"))
    admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(timeout=TIMEOUT_S)


def _librdkafka(cluster: SaslSsl, mechanism: str, topic: str) -> list[bytes]:
    user, password = LOGINS[mechanism]
    producer = Producer(client_conf(cluster, user, password, mechanism, acks="all"))
    errors: list = []
    for i in range(RECORDS):
        producer.produce(topic, value=f"v{i}".encode(), on_delivery=lambda e, m: e and errors.append(e))
    assert producer.flush(TIMEOUT_S) == 0 and errors == []
    group = {"group.id": f"{topic}-g", "auto.offset.reset": "earliest"}
    consumer = Consumer(client_conf(cluster, user, password, mechanism, **group))
    consumer.subscribe([topic])
    values: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    while len(values) < RECORDS and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            values.append(msg.value())
    consumer.close()
    return values


def _kafka_python(cluster: SaslSsl, mechanism: str, topic: str) -> list[bytes]:
    from kafka import KafkaConsumer, KafkaProducer

    user, password = LOGINS[mechanism]
    login = {
        "bootstrap_servers": cluster.bootstrap,
        "security_protocol": "SASL_SSL",
        "ssl_cafile": cluster.ca,
        "sasl_mechanism": mechanism,
        "sasl_plain_username": user,
        "sasl_plain_password": password,
    }
    producer = KafkaProducer(acks="all", **login)
    try:
        for future in [producer.send(topic, f"v{i}".encode()) for i in range(RECORDS)]:
            future.get(timeout=TIMEOUT_S)
    finally:
        producer.close()
    consumer = KafkaConsumer(
        topic,
        group_id=f"{topic}-g",
        auto_offset_reset="earliest",
        consumer_timeout_ms=TIMEOUT_S * 1000,
        **login,
    )
    try:
        values: list[bytes] = []
        for message in consumer:
            values.append(message.value)
            if len(values) == RECORDS:
                break
        return values
    finally:
        consumer.close()


def _aiokafka(cluster: SaslSsl, mechanism: str, topic: str) -> list[bytes]:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.helpers import create_ssl_context

    user, password = LOGINS[mechanism]
    login = {
        "bootstrap_servers": cluster.bootstrap,
        "security_protocol": "SASL_SSL",
        "ssl_context": create_ssl_context(cafile=cluster.ca),
        "sasl_mechanism": mechanism,
        "sasl_plain_username": user,
        "sasl_plain_password": password,
    }

    async def produce_and_consume() -> list[bytes]:
        producer = AIOKafkaProducer(acks="all", **login)
        await producer.start()
        try:
            for i in range(RECORDS):
                await producer.send_and_wait(topic, f"v{i}".encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, group_id=f"{topic}-g", auto_offset_reset="earliest", **login)
        await consumer.start()
        try:
            values: list[bytes] = []
            while len(values) < RECORDS:
                batches = await consumer.getmany(timeout_ms=1000)
                values += [m.value for messages in batches.values() for m in messages]
            return values
        finally:
            await consumer.stop()

    return asyncio.run(asyncio.wait_for(produce_and_consume(), TIMEOUT_S))


def _java(cluster: SaslSsl, mechanism: str, topic: str) -> list[bytes]:
    """Kafka's KafkaProducer and KafkaConsumer in one JVM (SaslSslProduceConsume.java)."""
    user, password = LOGINS[mechanism]
    try:
        command = kafka_clients.java_command("SaslSslProduceConsume")
    except PeerUnavailable as exc:
        pytest.fail(f"Apache Kafka's Java clients cannot run here: {exc}")
    args = [cluster.bootstrap, cluster.ca, mechanism, user, password, topic, str(RECORDS)]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [f"produced={RECORDS} consumed={RECORDS} intact=true"], done.stdout
    return [f"v{i}".encode() for i in range(RECORDS)]


CLIENTS = {"librdkafka": _librdkafka, "kafka-python": _kafka_python, "aiokafka": _aiokafka, "java": _java}


# each client with each mechanism; Kafka's Java clients (a JVM of 5-10 s per run) with SCRAM-SHA-512 only
MATRIX = [
    (client, mechanism)
    for client in CLIENTS
    for mechanism in MECHANISMS
    if client != "java" or mechanism == "SCRAM-SHA-512"
]


@pytest.mark.parametrize(("client", "mechanism"), MATRIX)
def test_each_client_produces_and_consumes_over_sasl_ssl_with_each_mechanism(sasl_ssl, client, mechanism):
    topic = f"sasl-ssl-{client}-{mechanism.lower()}"
    _create_topic(sasl_ssl, topic)
    assert sorted(CLIENTS[client](sasl_ssl, mechanism, topic)) == [f"v{i}".encode() for i in range(RECORDS)]


def test_a_wrong_password_is_refused_with_kafkas_message(sasl_ssl):
    seen: list[KafkaError] = []
    producer = Producer({**client_conf(sasl_ssl, "alice", "wrong"), "error_cb": seen.append})
    deadline = time.monotonic() + 10
    while not seen and time.monotonic() < deadline:
        producer.poll(0.2)
    messages = [e.str() for e in seen]
    assert any("Authentication failed: Invalid username or password" in m for m in messages), messages
    _served(sasl_ssl)


def _first_port(cluster: SaslSsl) -> tuple[str, int]:
    host, port = cluster.bootstrap.split(",")[0].rsplit(":", 1)
    return host, int(port)


# ApiVersionsRequest v0 (api_key 18), correlation id 7, client id "x", as a plaintext client sends it
API_VERSIONS_V0 = b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x07\x00\x01x"


def test_a_plaintext_client_on_the_tls_port_gets_nothing_and_the_others_are_served(sasl_ssl):
    errors = login_errors({"bootstrap.servers": sasl_ssl.bootstrap}, 3)
    assert errors and all(e.code() != KafkaError.NO_ERROR for e in errors)
    with socket.create_connection(_first_port(sasl_ssl), timeout=5) as raw:
        raw.sendall(API_VERSIONS_V0)
        answer = _read_until_closed(raw, 5)
    # no Kafka response (its first bytes would be a size then correlation id 7): at most a TLS alert
    assert answer == b"" or answer[0] == 0x15, answer
    _served(sasl_ssl)


def _read_until_closed(sock: socket.socket, wait_s: float) -> bytes:
    """What the peer sends before it closes, or within ``wait_s`` seconds."""
    received = b""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        received += chunk
    return received


def _client_hello() -> bytes:
    """A real TLS ClientHello, as Python's ssl module writes it for 127.0.0.1."""
    context = ssl.create_default_context()
    context.check_hostname = False
    tls = context.wrap_bio(ssl.MemoryBIO(), outgoing := ssl.MemoryBIO())
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


@pytest.mark.parametrize("sent", ["half a ClientHello", "a whole ClientHello"])
def test_a_truncated_tls_handshake_gets_no_kafka_data_and_the_others_are_served(sasl_ssl, sent):
    hello = _client_hello()
    with socket.create_connection(_first_port(sasl_ssl), timeout=5) as raw:
        raw.sendall(hello[: len(hello) // 2] if sent == "half a ClientHello" else hello)
        _served(sasl_ssl)  # while the handshake hangs
        answer = _read_until_closed(raw, 2)
    # half: nothing; whole: the server's TLS handshake records (content type 22) or an alert (21)
    assert answer == b"" or answer[0] in (0x15, 0x16), answer[:16]
    assert b"\x00\x00\x00\x07" not in answer[:8]
    _served(sasl_ssl)


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def expired_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SaslSsl]:
    """A 1-node cluster whose SSL listener's certificate expired (``notAfter`` nine days ago),
    Apache Kafka's or Kafkette's, configured alike; both start with it."""
    ca = CertificateAuthority(tmp_path_factory.mktemp("certs"))
    bundle = str(ca.issue("expired-broker", "broker", server=True, expired=True).bundle)
    configs = {"ssl.keystore.type": "PEM", "ssl.keystore.location": bundle}
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=1,
            data_dir=tmp_path_factory.mktemp("expired-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SSL",
                **{f"listener.name.kafka.{k}": v for k, v in configs.items()},
            },
        ) as cluster:
            yield SaslSsl("kafkette", cluster.kafka_bootstrap_servers, str(ca.files.certificate))
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("expired-kafka"), nodes=1, heap_mb=PEER_HEAP_MB)
    bootstrap = peer.add_listener("SSL", "SSL", {f"listener.name.ssl.{k}": v for k, v in configs.items()})
    start_or_fail(peer)
    try:
        yield SaslSsl("kafka", bootstrap, str(ca.files.certificate))
    finally:
        peer.stop()


def test_a_client_refuses_an_expired_server_certificate_and_the_broker_keeps_serving(expired_server):
    conf = {"bootstrap.servers": expired_server.bootstrap, "security.protocol": "SSL"}
    errors = login_errors({**conf, "ssl.ca.location": expired_server.ca}, 3)
    messages = [e.str() for e in errors]
    assert any("SSL handshake failed" in m and "certificate verify failed" in m for m in messages), messages
    # OpenSSL's reason, which librdkafka's message leaves out, as Python's ssl module reports it
    context = ssl.create_default_context(cafile=expired_server.ca)
    with (
        socket.create_connection(_first_port(expired_server), timeout=5) as raw,
        pytest.raises(ssl.SSLCertVerificationError) as refused,
    ):
        context.wrap_socket(raw, server_hostname="127.0.0.1")
    assert refused.value.verify_message == "certificate has expired"
    # the broker keeps serving: a client that does not verify its certificate gets the metadata
    lenient = AdminClient({**conf, "enable.ssl.certificate.verification": False})
    assert len(lenient.list_topics(timeout=TIMEOUT_S).brokers) == 1
