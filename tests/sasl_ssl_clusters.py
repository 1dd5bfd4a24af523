"""SASL_SSL listeners configured as a Kafka user configures them, shared by the interop tests and
the security benchmark: PEM key store, no client certificate, ``sasl.enabled.mechanisms`` PLAIN,
SCRAM-SHA-256 and SCRAM-SHA-512 (PLAIN users from the JAAS config, SCRAM users created over the
wire with AlterUserScramCredentials), on Apache Kafka 4.3.1 (a ``KafkaPeer`` listener) or Kafkette
(its Kafka-protocol listener).

Owns: the listener's ``listener.name.<l>.*`` configs, the users and their passwords, librdkafka's
client configuration for them, the SCRAM users' creation and the Apache Kafka peer with such a
listener.  Does not own the certificates (``tests.tls_certificates``).

Kafka concept: the SASL_SSL section of Kafka's security guide (``listener.name.<l>.<mechanism>.
sasl.jaas.config``, KIP-554 ``AlterUserScramCredentials``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from tests.peers.kafka_peer import KafkaPeer

TIMEOUT_S = 30
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
SCRAM_USERS = {  # SASL mechanism -> (user, password) created with AlterUserScramCredentials
    "SCRAM-SHA-256": ("carol", "carol-secret"),
    "SCRAM-SHA-512": ("dave", "dave-secret"),
}
LOGINS = {"PLAIN": ("alice", "alice-secret"), **SCRAM_USERS}


@dataclass(frozen=True)
class SaslSsl:
    """A cluster's SASL_SSL listener: its bootstrap servers and the CA file that signed its
    certificate; ``broker`` is ``kafka`` or ``kafkette``."""

    broker: str
    bootstrap: str
    ca: str


def listener_configs(listener: str, bundle: str) -> dict[str, str]:
    """The ``listener.name.<listener>.*`` configs of a SASL_SSL listener: the PEM key store
    ``bundle`` (key and certificate chain) and the three mechanisms with their JAAS configs."""
    prefix = f"listener.name.{listener.lower()}."
    return {
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.location": bundle,
        prefix + "sasl.enabled.mechanisms": ",".join(MECHANISMS),
        prefix + "plain.sasl.jaas.config": JAAS,
        prefix + "scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        prefix + "scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
    }


def client_conf(cluster: SaslSsl, user: str, password: str, mechanism: str = "PLAIN", **extra) -> dict:
    """librdkafka's configuration for ``user`` on ``cluster``'s SASL_SSL listener, plus ``extra``."""
    return {
        "bootstrap.servers": cluster.bootstrap,
        "security.protocol": "SASL_SSL",
        "ssl.ca.location": cluster.ca,
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
        **extra,
    }


def login_errors(conf: dict, wait_s: float) -> list[KafkaError]:
    """The errors librdkafka reports (its ``error_cb``) while asking for metadata for ``wait_s``."""
    seen: list[KafkaError] = []
    producer = Producer({**conf, "error_cb": seen.append})
    try:
        producer.list_topics(timeout=wait_s)
    except KafkaException as exc:
        seen.append(exc.args[0])
    producer.poll(0.5)
    return seen


def create_scram_users(cluster: SaslSsl) -> None:
    """SCRAM_USERS created over the SASL_SSL listener as the PLAIN admin; returns once each logs in
    (the credential reached the brokers).

    Raises:
        AssertionError: the broker refused a credential, or a user cannot log in within TIMEOUT_S.
    """
    admin = AdminClient(client_conf(cluster, "admin", "admin-secret"))
    mechanisms = {
        "SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256,
        "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512,
    }
    upsertions = [
        UserScramCredentialUpsertion(user, ScramCredentialInfo(mechanisms[m], 8192), password.encode())
        for m, (user, password) in SCRAM_USERS.items()
    ]
    for future in admin.alter_user_scram_credentials(upsertions).values():
        future.result(timeout=TIMEOUT_S)
    deadline = time.monotonic() + TIMEOUT_S
    for mechanism, (user, password) in SCRAM_USERS.items():
        while errors := login_errors(client_conf(cluster, user, password, mechanism), 3):
            assert time.monotonic() < deadline, [e.str() for e in errors]


@contextmanager
def kafka_peer_sasl_ssl(
    data_dir: Path,
    bundle: str,
    ca: str,
    nodes: int,
    heap_mb: int,
    start: Callable[[KafkaPeer], KafkaPeer] = KafkaPeer.start,
) -> Iterator[tuple[KafkaPeer, SaslSsl]]:
    """An Apache Kafka peer of ``nodes`` nodes (``heap_mb`` MiB each) with a SASL_SSL listener
    beside its PLAINTEXT one (key store ``bundle``, signed by the CA file ``ca``) and the SCRAM
    users of SCRAM_USERS, started with ``start`` (tests pass ``start_or_fail``); stopped on exit.

    Raises:
        PeerUnavailable: no Java or Kafka (when ``start`` is ``KafkaPeer.start``).
        AssertionError: the SCRAM users could not be made.
    """
    peer = KafkaPeer(data_dir, nodes=nodes, heap_mb=heap_mb)
    bootstrap = peer.add_listener("SASL_SSL", "SASL_SSL", listener_configs("SASL_SSL", bundle))
    start(peer)
    try:
        served = SaslSsl("kafka", bootstrap, ca)
        create_scram_users(served)
        yield peer, served
    finally:
        peer.stop()
