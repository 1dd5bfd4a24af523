"""SASL/SCRAM on the Kafka-protocol listener (RFC 5802/7677, KIP-84, KIP-554), as a Kafka user
sets it up: a SASL_PLAINTEXT listener enabling PLAIN (the admin, from the JAAS config) and
SCRAM-SHA-256/512 (``ScramLoginModule``), SCRAM users created and deleted over the wire with
AlterUserScramCredentials, each test run against Apache Kafka 4.3.1 configured the same way and
against Kafkette.  Kafka's own ``kafka-configs.sh`` (ConfigCommand) creates and describes a SCRAM
user; confluent-kafka (librdkafka) creates, describes and deletes users with its AdminClient and
logs in with each mechanism; a wrong password, a deleted user, and a credential refused by the
controller's rules (too few iterations) get Kafka's answers; the credentials reach every broker
(a login on each node works)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AdminClient,
    NewTopic,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(900)

TIMEOUT_S = 30
PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret";'
)
ADMIN_CLIENT_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret";'
)
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
INVALID_CREDENTIALS = (
    "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"
)
MECHANISMS = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"


def _listener_configs(listener: str) -> dict[str, str]:
    prefix = f"listener.name.{listener.lower()}."
    return {
        prefix + "sasl.enabled.mechanisms": MECHANISMS,
        prefix + "plain.sasl.jaas.config": PLAIN_JAAS,
        prefix + "scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        prefix + "scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
    }


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bootstrap servers of a 3-node cluster's SASL_PLAINTEXT listener (PLAIN and SCRAM),
    configured alike on Apache Kafka 4.3.1 and on Kafkette: every test runs against both."""
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=3,
            data_dir=tmp_path_factory.mktemp("sasl-scram-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_PLAINTEXT",
                **_listener_configs("KAFKA"),
            },
        ) as cluster:
            yield cluster.kafka_bootstrap_servers
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("sasl-scram-kafka"), nodes=3, heap_mb=PEER_HEAP_MB)
    sasl_bootstrap = peer.add_listener(
        "SASL_PLAINTEXT", "SASL_PLAINTEXT", _listener_configs("SASL_PLAINTEXT")
    )
    start_or_fail(peer)
    try:
        yield sasl_bootstrap
    finally:
        peer.stop()


def _conf(bootstrap: str, mechanism: str, user: str, password: str, **extra) -> dict:
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
        **extra,
    }


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient(_conf(bootstrap, "PLAIN", "admin", "admin-secret"))


def _alter(bootstrap: str, alterations: list) -> dict[str, Exception | None]:
    """Each user's outcome: None, or the exception the broker's answer raised."""
    admin = _admin(bootstrap)  # kept alive until every future completes
    futures = admin.alter_user_scram_credentials(alterations)
    outcome: dict[str, Exception | None] = {}
    for user, future in futures.items():
        try:
            future.result(timeout=TIMEOUT_S)
            outcome[user] = None
        except Exception as exc:  # the KafkaException carrying the broker's error
            outcome[user] = exc
    return outcome


def _login_errors(conf: dict, wait_s: float = 10) -> list[KafkaError]:
    """The errors librdkafka reports (its ``error_cb``) within ``wait_s`` of connecting."""
    seen: list[KafkaError] = []
    producer = Producer({**conf, "error_cb": seen.append})
    try:
        producer.list_topics(timeout=wait_s)
    except KafkaException:
        pass  # the login failed: error_cb gets the reason on the next polls
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        producer.poll(0.2)
    return seen


def _produce_as(bootstrap: str, mechanism: str, user: str, password: str, topic: str) -> None:
    producer = Producer(_conf(bootstrap, mechanism, user, password, acks="all"))
    errors: list = []
    for i in range(5):
        producer.produce(topic, value=f"{user}-{i}".encode(), on_delivery=lambda e, m: e and errors.append(e))
    assert producer.flush(TIMEOUT_S) == 0 and errors == []


@pytest.mark.parametrize(
    ("mechanism", "confluent_mechanism"),
    [("SCRAM-SHA-256", ScramMechanism.SCRAM_SHA_256), ("SCRAM-SHA-512", ScramMechanism.SCRAM_SHA_512)],
)
def test_a_user_created_over_the_wire_logs_in_with_scram_and_produces(
    bootstrap, mechanism, confluent_mechanism
):
    user = f"alice-{mechanism.lower()}"
    info = ScramCredentialInfo(confluent_mechanism, 8192)
    assert _alter(bootstrap, [UserScramCredentialUpsertion(user, info, b"alice-secret")]) == {user: None}
    admin = _admin(bootstrap)
    described = admin.describe_user_scram_credentials([user])[user].result(timeout=TIMEOUT_S)
    assert [(c.mechanism, c.iterations) for c in described.scram_credential_infos] == [
        (confluent_mechanism, 8192)
    ]
    topic = f"scram-{mechanism.lower()}"
    admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(timeout=TIMEOUT_S)
    deadline = (
        time.monotonic() + TIMEOUT_S
    )  # every broker learns the credential (Kafka: from the metadata log)
    while (
        errors := _login_errors(_conf(bootstrap, mechanism, user, "alice-secret"), 3)
    ) and time.monotonic() < deadline:
        pass
    assert errors == []
    _produce_as(bootstrap, mechanism, user, "alice-secret", topic)


def test_a_wrong_password_and_a_deleted_user_are_refused_with_kafkas_message(bootstrap):
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)
    assert _alter(bootstrap, [UserScramCredentialUpsertion("bob", info, b"bob-secret")]) == {"bob": None}
    time.sleep(1)  # the credential reaches every broker
    seen = _login_errors(_conf(bootstrap, "SCRAM-SHA-256", "bob", "wrong"))
    messages = [e.str() for e in seen]
    assert any(e.code() == KafkaError._AUTHENTICATION for e in seen), messages
    assert any(INVALID_CREDENTIALS in m for m in messages), messages
    assert _alter(bootstrap, [UserScramCredentialDeletion("bob", ScramMechanism.SCRAM_SHA_256)]) == {
        "bob": None
    }
    time.sleep(1)
    seen = _login_errors(_conf(bootstrap, "SCRAM-SHA-256", "bob", "bob-secret"))
    assert any(e.code() == KafkaError._AUTHENTICATION for e in seen), [e.str() for e in seen]
    # the broker keeps serving everyone else
    assert len(_admin(bootstrap).list_topics(timeout=TIMEOUT_S).brokers) == 3


def test_the_controllers_rules_refuse_bad_alterations_as_kafka_does(bootstrap):
    too_few = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000)
    outcome = _alter(bootstrap, [UserScramCredentialUpsertion("carol", too_few, b"carol-secret")])
    assert "Too few iterations" in str(outcome["carol"]), outcome
    missing = _alter(bootstrap, [UserScramCredentialDeletion("nobody", ScramMechanism.SCRAM_SHA_512)])
    assert "Attempt to delete a user credential that does not exist" in str(missing["nobody"]), missing
    admin = _admin(bootstrap)
    described = admin.describe_user_scram_credentials(["nobody"])["nobody"]
    with pytest.raises(Exception, match="Attempt to describe a user credential that does not exist: nobody"):
        described.result(timeout=TIMEOUT_S)


def test_kafkas_config_command_creates_and_describes_a_scram_user(bootstrap, tmp_path):
    command_config = tmp_path / "admin.properties"
    command_config.write_text(
        f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={ADMIN_CLIENT_JAAS}\n"
    )
    base = [
        *KafkaPeer.tool_command("kafka.admin.ConfigCommand"),
        "--bootstrap-server",
        bootstrap.split(",")[0],
        "--command-config",
        str(command_config),
        "--entity-type",
        "users",
        "--entity-name",
        "dave",
    ]

    def run(*args: str) -> str:
        done = subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-1500:]
        return done.stdout

    altered = run("--alter", "--add-config", "SCRAM-SHA-512=[iterations=8192,password=dave-secret]")
    assert altered == "Completed updating config for user dave.\n"
    described = run("--describe")
    assert "SCRAM-SHA-512=iterations=8192" in described, described
    time.sleep(1)
    assert _login_errors(_conf(bootstrap, "SCRAM-SHA-512", "dave", "dave-secret")) == []
