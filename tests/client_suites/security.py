"""The suite's security mode: librdkafka's SASL, SSL and ACL tests against an Apache Kafka and a
Kafkette cluster that both serve a SASL_SSL listener behind Kafka's StandardAuthorizer.

Owns: the brokers' security settings (``security_broker_configs``, ``listener_configs``: PEM key
store, ``sasl.enabled.mechanisms`` PLAIN and SCRAM-SHA-512 with the admin and the test user PLAIN
users of the listener's JAAS config, ``authorizer.class.name`` StandardAuthorizer with
``super.users`` the admin and the nodes' own ``User:ANONYMOUS`` of their PLAINTEXT inter-broker
listener, ``allow.everyone.if.no.acl.found=true``, ``connections.max.reauth.ms`` so that 0142's
KIP-368 re-authentication tests run), the clients' settings librdkafka's ``test.conf`` carries
(``client_conf``: ``security.protocol``, ``sasl.mechanisms``, ``sasl.username``/``password``,
``ssl.ca.location``), the tests the mode runs (``SECURITY_TESTS``) and starting both clusters
(``secure_clusters``).  Does not own the runner (``librdkafka_suite``) nor the report (``run``).

Kafka concept: Kafka's security guide (``listener.security.protocol.map``,
``listener.name.<l>.<mechanism>.sasl.jaas.config``, ``super.users``), KIP-368.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from tests.conformance.run import clusters
from tests.tls_certificates import CertificateAuthority

ADMIN_USER = "admin"
ADMIN_PASSWORD = "admin-secret"
# The tests' login: not a super user, as in librdkafka's own trivup clusters (``testuser``, every
# operation allowed while no ACL names a resource): 0081_admin's DescribeTopics/DescribeCluster
# sub-tests expect all operations authorized, then only those of the ACL they add for this user.
TEST_USER = "testuser"
TEST_PASSWORD = "testpass"
TEST_MECHANISM = "PLAIN"
MECHANISMS = ("PLAIN", "SCRAM-SHA-512")
STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
# 0142_reauthentication runs each of its cases for about one re-authentication interval (ms).
REAUTH_MS = 10000
# The security tests of librdkafka's runner (TESTS: numbers, a test runs when its number is in
# the list), and one plain produce/consume test as a check that the listener serves at all.
SECURITY_TESTS = ("0001", "0081", "0097", "0109", "0115", "0119", "0133", "0135", "0142")
# The runner's flags: all tests of SECURITY_TESTS, local ones too (0097_ssl_verify_local,
# 0133_ssl_keys need no broker and pass alike on both sides).
SECURITY_RUNNER_FLAGS: tuple[str, ...] = ()


def security_broker_configs(base: dict[str, object]) -> dict[str, object]:
    """``base`` with the StandardAuthorizer (``super.users`` the admin and ``User:ANONYMOUS``,
    the principal of the nodes' own PLAINTEXT listener; a resource no ACL names is open to all)
    and ``connections.max.reauth.ms`` = ``REAUTH_MS`` (KIP-368), for every node of either
    cluster."""
    return {
        **base,
        "authorizer.class.name": STANDARD_AUTHORIZER,
        "super.users": f"User:{ADMIN_USER};User:ANONYMOUS",
        "allow.everyone.if.no.acl.found": "true",
        "connections.max.reauth.ms": REAUTH_MS,
    }


def listener_configs(listener: str, key_store: str) -> dict[str, str]:
    """The ``listener.name.<listener>.*`` settings of the SASL_SSL listener: a PEM key store
    (``key_store``: key and certificate in one file), PLAIN (the admin and the test user in the
    JAAS config) and SCRAM-SHA-512."""
    prefix = f"listener.name.{listener.lower()}."
    return {
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.location": key_store,
        prefix + "sasl.enabled.mechanisms": ",".join(MECHANISMS),
        prefix + "plain.sasl.jaas.config": (
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="{ADMIN_USER}" password="{ADMIN_PASSWORD}" '
            f'user_{ADMIN_USER}="{ADMIN_PASSWORD}" user_{TEST_USER}="{TEST_PASSWORD}";'
        ),
        prefix + "scram-sha-512.sasl.jaas.config": (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        ),
    }


def client_conf(ca_location: str) -> dict[str, str]:
    """What librdkafka's ``test.conf`` adds for the SASL_SSL listener: the test user's login
    (``sasl.mechanisms``, the name librdkafka's tests read back) and the CA that signed the
    brokers' certificate (``ca_location``, a PEM file)."""
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": TEST_MECHANISM,
        "sasl.username": TEST_USER,
        "sasl.password": TEST_PASSWORD,
        "ssl.ca.location": ca_location,
    }


@contextlib.contextmanager
def secure_clusters(
    work_dir: Path, broker_configs: dict[str, object]
) -> Iterator[tuple[dict[str, str], str]]:
    """A 3-node Apache Kafka and a 3-broker Kafkette, each with ``security_broker_configs`` of
    ``broker_configs`` and a SASL_SSL listener (``listener_configs``) whose certificate one CA
    signed.

    Yields:
        ``({"kafka": bootstrap, "kafkette": bootstrap}, CA certificate path)`` of the SASL_SSL
        listeners.

    Raises:
        PeerUnavailable: Apache Kafka cannot run here.
        RuntimeError, LocalClusterError: a cluster did not start.
    """
    (work_dir / "certs").mkdir(parents=True, exist_ok=True)
    ca = CertificateAuthority(work_dir / "certs")
    key_store = str(ca.issue("broker", "broker", server=True).bundle)
    with clusters(
        work_dir,
        security_broker_configs(broker_configs),
        "SASL_SSL",
        lambda listener: listener_configs(listener, key_store),
    ) as targets:
        yield {name: target.bootstrap for name, target in targets.items()}, str(ca.files.certificate)
