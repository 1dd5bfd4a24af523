"""SASL/PLAIN on the Kafka-protocol listener, as a Kafka user configures it
(``listener.security.protocol.map``, ``listener.name.<l>.sasl.enabled.mechanisms``,
``listener.name.<l>.plain.sasl.jaas.config``), each test run against Apache Kafka 4.3.1 configured
the same way and against Kafkette, with the clients unchanged: with confluent-kafka (librdkafka) a
user of the JAAS config produces and consumes, a wrong password and an unknown user are refused with
Kafka's message, a client that does not authenticate gets nothing, and the broker keeps serving
everyone else; kafka-python and aiokafka log in too."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

TIMEOUT_S = 30
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)
SASL_BROKER_CONFIGS = {
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_PLAINTEXT",
    "listener.name.kafka.sasl.enabled.mechanisms": "PLAIN",
    "listener.name.kafka.plain.sasl.jaas.config": JAAS,
}


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def sasl_bootstrap(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bootstrap servers of a 3-node cluster's SASL_PLAINTEXT listener, configured alike on
    Apache Kafka 4.3.1 (a third listener, ``SASL_PLAINTEXT``) and on Kafkette (its Kafka-protocol
    listener mapped to ``SASL_PLAINTEXT``): every test runs against both."""
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=3,
            data_dir=tmp_path_factory.mktemp("sasl-plain-kafkette"),
            kafka_protocol=True,
            broker_configs=SASL_BROKER_CONFIGS,
        ) as cluster:
            yield cluster.kafka_bootstrap_servers
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("sasl-plain-kafka"), nodes=3, heap_mb=PEER_HEAP_MB)
    sasl_bootstrap = peer.add_listener(
        "SASL_PLAINTEXT",
        "SASL_PLAINTEXT",
        {
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        },
    )
    start_or_fail(peer)
    try:
        yield sasl_bootstrap
    finally:
        peer.stop()


def _conf(bootstrap: str, user: str | None, password: str | None, **extra) -> dict:
    conf = {"bootstrap.servers": bootstrap, **extra}
    if user is not None:
        conf.update(
            {
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "PLAIN",
                "sasl.username": user,
                "sasl.password": password,
            }
        )
    return conf


def test_a_user_of_the_jaas_config_produces_and_consumes(sasl_bootstrap):
    admin = AdminClient(_conf(sasl_bootstrap, "admin", "admin-secret"))
    admin.create_topics([NewTopic("sasl-events", 2, 3)])["sasl-events"].result(timeout=TIMEOUT_S)
    producer = Producer(_conf(sasl_bootstrap, "alice", "alice-secret", acks="all"))
    errors: list = []
    for i in range(20):
        producer.produce(
            "sasl-events",
            key=str(i).encode(),
            value=f"v{i}".encode(),
            on_delivery=lambda e, m: e and errors.append(e),
        )
    assert producer.flush(TIMEOUT_S) == 0 and errors == []
    consumer = Consumer(
        _conf(
            sasl_bootstrap, "alice", "alice-secret", **{"group.id": "sasl-g", "auto.offset.reset": "earliest"}
        )
    )
    consumer.subscribe(["sasl-events"])
    values = set()
    deadline = time.monotonic() + TIMEOUT_S
    while len(values) < 20 and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            values.add(msg.value())
    consumer.close()
    assert values == {f"v{i}".encode() for i in range(20)}


def _errors_seen(conf: dict, wait_s: float = 10) -> list[KafkaError]:
    """The errors librdkafka reports (its ``error_cb``, served by ``poll``) within ``wait_s``."""
    seen: list[KafkaError] = []
    producer = Producer({**conf, "error_cb": seen.append})
    deadline = time.monotonic() + wait_s
    while not seen and time.monotonic() < deadline:
        producer.poll(0.2)
    return seen


@pytest.mark.parametrize(("user", "password"), [("alice", "wrong"), ("mallory", "alice-secret")])
def test_a_wrong_password_or_an_unknown_user_is_refused_with_kafkas_message(sasl_bootstrap, user, password):
    seen = _errors_seen(_conf(sasl_bootstrap, user, password))
    messages = [e.str() for e in seen]
    assert any(e.code() == KafkaError._AUTHENTICATION for e in seen), messages
    assert any("Authentication failed: Invalid username or password" in m for m in messages), messages
    # the broker keeps serving everyone else
    good = AdminClient(_conf(sasl_bootstrap, "admin", "admin-secret"))
    assert len(good.list_topics(timeout=TIMEOUT_S).brokers) == 3


def test_a_client_that_does_not_authenticate_gets_nothing(sasl_bootstrap):
    admin = AdminClient(_conf(sasl_bootstrap, None, None))
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=5)
    good = AdminClient(_conf(sasl_bootstrap, "admin", "admin-secret"))
    assert len(good.list_topics(timeout=TIMEOUT_S).brokers) == 3


def test_kafka_python_and_aiokafka_log_in_with_plain(sasl_bootstrap):
    import asyncio

    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from kafka import KafkaConsumer, KafkaProducer
    from kafka.errors import KafkaError as KafkaPythonError

    bootstrap = sasl_bootstrap.split(",")
    login = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "alice",
        "sasl_plain_password": "alice-secret",
    }
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **login)
    producer.send("sasl-python", b"from-kafka-python").get(timeout=TIMEOUT_S)
    producer.close()

    async def aio() -> list[bytes]:
        aio_producer = AIOKafkaProducer(bootstrap_servers=bootstrap, **login)
        await aio_producer.start()
        try:
            await aio_producer.send_and_wait("sasl-python", b"from-aiokafka")
        finally:
            await aio_producer.stop()
        consumer = AIOKafkaConsumer(
            "sasl-python", bootstrap_servers=bootstrap, auto_offset_reset="earliest", **login
        )
        await consumer.start()
        try:
            batches = await consumer.getmany(timeout_ms=10_000, max_records=10)
            return sorted(m.value for msgs in batches.values() for m in msgs)
        finally:
            await consumer.stop()

    assert asyncio.run(asyncio.wait_for(aio(), TIMEOUT_S)) == [b"from-aiokafka", b"from-kafka-python"]

    with pytest.raises(KafkaPythonError):
        KafkaConsumer(bootstrap_servers=bootstrap, **{**login, "sasl_plain_password": "wrong"})
