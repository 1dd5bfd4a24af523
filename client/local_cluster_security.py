"""What makes a local cluster secure in one step (``LocalCluster(security="SASL_SSL")``, ``kafkette
cluster start --security sasl_ssl``): the brokers' security configs, the admin user's password and
the admin's Kafka client properties.

Owns: the security choices (``PLAINTEXT``, ``SASL_SSL``), ``secure_broker_configs`` (both
listeners SASL_SSL with PEM stores, the brokers logging in to each other as the admin with PLAIN,
the admin's SCRAM-SHA-512 credential accepted on both listeners, ``User:admin`` a super user of
the ``StandardAuthorizer`` with ``allow.everyone.if.no.acl.found=false``), the admin's client
properties (``admin_properties`` for Kafka's Java clients and Kafkette's ``--command-config``,
``librdkafka_properties`` for librdkafka), ``<data-dir>/admin.properties`` (written and read back,
mode 0600), the admin's password (random, ``secrets.token_urlsafe``; kept only in files of mode
0600) and ``create_admin_credential`` (the admin's SCRAM credential, made once the brokers run).
Does not own the certificates (``local_cluster_certificates``) nor the broker processes
(``LocalCluster``).

Why PLAIN between brokers: the brokers' own listener also carries the metadata quorum (Raft), and
SCRAM credentials live in the metadata log, so the voters could not log in to each other before
the log they are to replicate names them (Kafka, likewise, does not take SCRAM on a controller
listener).  The admin logs in with SCRAM-SHA-512 everywhere else; its credential is made with
AlterUserScramCredentials once the brokers run.

Kafka concept: the SASL_SSL setup of Kafka's security guide (``listener.security.protocol.map``,
``sasl.mechanism.inter.broker.protocol``, ``listener.name.<l>.<mechanism>.sasl.jaas.config``,
``super.users``), and ``--command-config`` client properties files.
"""

from __future__ import annotations

import os
import secrets
import ssl
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import javaproperties

from kafkette.client.blocking_requests import blocking_request, fetch_metadata
from kafkette.client.client_properties import read_properties_file
from kafkette.client.kafka_client import client_security
from kafkette.client.local_cluster_certificates import ClusterCertificates, write_private_file
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.security.sasl_client import login_from_jaas
from kafkette.common.security.scram_credential import ScramMechanism, salted_password
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    ScramCredentialUpsertion,
)
from kafkette.protocol.errors import KafkaError, error_name

PLAINTEXT = "PLAINTEXT"
SASL_SSL = "SASL_SSL"
SECURITY_CHOICES = (PLAINTEXT, SASL_SSL)
ADMIN_USER = "admin"
ADMIN_MECHANISM = "SCRAM-SHA-512"
SCRAM_ITERATIONS = 4096  # Kafka's default (ScramCredentialInfo, kafka-configs --add-config)
INTER_BROKER_MECHANISM = "PLAIN"
ADMIN_PROPERTIES_FILE = "admin.properties"
CERTIFICATES_DIR = "ssl"
STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"


def check_security(security: object) -> str:
    """``security`` in upper case when it is one of ``SECURITY_CHOICES`` (any case).

    Raises:
        ValueError: any other value (the message lists the choices).
    """
    text = security.upper() if isinstance(security, str) else None
    if text not in SECURITY_CHOICES:
        raise ValueError(f"security must be one of {', '.join(SECURITY_CHOICES)}, got {security!r}")
    return text


def cluster_certificates(data_dir: Path) -> ClusterCertificates:
    """Where the cluster's CA certificate and broker key store are: ``<data_dir>/ssl/``."""
    return ClusterCertificates.in_directory(data_dir / CERTIFICATES_DIR)


def admin_properties_path(data_dir: Path) -> Path:
    return data_dir / ADMIN_PROPERTIES_FILE


def _scram_jaas(password: str) -> str:
    return f'{SCRAM_LOGIN_MODULE} required username="{ADMIN_USER}" password="{password}";'


def secure_broker_configs(data_dir: Path, admin_password: str) -> dict[str, str]:
    """The ``server.properties`` entries of a SASL_SSL cluster in ``data_dir``.

    The brokers' own listener (``PLAINTEXT``) and the Kafka-protocol one (``KAFKA``) are SASL_SSL
    with the PEM stores of ``cluster_certificates``; the brokers log in to each other as the admin
    with PLAIN (the JAAS config's ``user_admin`` entry is the only PLAIN user); SCRAM-SHA-512 logs
    in the users of the metadata log's credentials (the admin's among them) on both listeners.

    Args:
        data_dir: the cluster's data directory.
        admin_password: the admin user's password.

    Returns:
        ``{property: value}``.
    """
    certificates = cluster_certificates(data_dir)
    plain_jaas = (
        f'{PLAIN_LOGIN_MODULE} required username="{ADMIN_USER}" password="{admin_password}" '
        f'user_{ADMIN_USER}="{admin_password}";'
    )
    scram_jaas = f"{SCRAM_LOGIN_MODULE} required;"
    scram = ADMIN_MECHANISM.lower()
    return {
        "listener.security.protocol.map": f"PLAINTEXT:{SASL_SSL},KAFKA:{SASL_SSL}",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certificates.broker_key_store),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certificates.ca_certificate),
        "sasl.enabled.mechanisms": f"{INTER_BROKER_MECHANISM},{ADMIN_MECHANISM}",
        "sasl.mechanism.inter.broker.protocol": INTER_BROKER_MECHANISM,
        "listener.name.plaintext.plain.sasl.jaas.config": plain_jaas,
        f"listener.name.plaintext.{scram}.sasl.jaas.config": scram_jaas,
        "listener.name.kafka.sasl.enabled.mechanisms": ADMIN_MECHANISM,
        f"listener.name.kafka.{scram}.sasl.jaas.config": scram_jaas,
        "super.users": f"User:{ADMIN_USER}",
        "authorizer.class.name": STANDARD_AUTHORIZER,
        "allow.everyone.if.no.acl.found": "false",
    }


def admin_properties(bootstrap_servers: str, data_dir: Path, admin_password: str) -> dict[str, str]:
    """The admin's Kafka client properties, Java clients' names (``--command-config`` of Kafka's
    tools and of Kafkette's CLI, ``client_settings``); ``ssl.ca.location`` too, librdkafka's name of
    the trust store, which Java clients ignore.

    Args:
        bootstrap_servers: ``"host:port,..."`` of the listener the properties are for.
        data_dir: the cluster's data directory (for the CA certificate's path).
        admin_password: the admin user's password.
    """
    ca = str(cluster_certificates(data_dir).ca_certificate)
    return {
        "bootstrap.servers": bootstrap_servers,
        "security.protocol": SASL_SSL,
        "sasl.mechanism": ADMIN_MECHANISM,
        "sasl.jaas.config": _scram_jaas(admin_password),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": ca,
        "ssl.ca.location": ca,
    }


def librdkafka_properties(bootstrap_servers: str, data_dir: Path, admin_password: str) -> dict[str, str]:
    """The admin's client configuration under librdkafka's names (confluent-kafka, kcat):
    ``sasl.username`` / ``sasl.password`` and ``ssl.ca.location``, no Java-only property."""
    return {
        "bootstrap.servers": bootstrap_servers,
        "security.protocol": SASL_SSL,
        "sasl.mechanism": ADMIN_MECHANISM,
        "sasl.username": ADMIN_USER,
        "sasl.password": admin_password,
        "ssl.ca.location": str(cluster_certificates(data_dir).ca_certificate),
    }


def write_admin_properties(path: Path, properties: dict[str, str]) -> None:
    """Write ``properties`` to ``path`` as a Java properties file, mode 0600 (it holds the password)."""
    header = (
        "# The admin user (a super user) of the cluster in this directory: "
        "--command-config of Kafka's tools and of kafkette\n"
    )
    lines = [f"{javaproperties.escape(key)}={_escape_value(value)}" for key, value in properties.items()]
    write_private_file(path, header + "\n".join(lines) + "\n")


def _escape_value(value: str) -> str:
    """A Java properties value, readable: only what the format needs escaped (``=`` and ``:`` need
    not be after the key, so a JAAS config stays as Kafka's documentation writes it)."""
    escaped = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "\\" + escaped if escaped[:1] in (" ", "\t", "\f") else escaped


def read_admin_password(data_dir: Path) -> str | None:
    """The admin's password from ``<data_dir>/admin.properties``, None when there is no such file.

    Raises:
        ValueError: the file has no readable ``sasl.jaas.config`` (the message names the file).
    """
    path = admin_properties_path(data_dir)
    if not path.is_file():
        return None
    jaas = read_properties_file(str(path)).get("sasl.jaas.config")
    if not jaas:
        raise ValueError(f"{path} has no sasl.jaas.config")
    try:
        return login_from_jaas(jaas)[1]
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def new_admin_password() -> str:
    """A random password for the admin user (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def _admin_credential_request(admin_password: str) -> AlterUserScramCredentialsRequest:
    """The AlterUserScramCredentials request that gives the admin its SCRAM-SHA-512 credential
    (a fresh salt, Kafka's default 4096 iterations; the password itself never travels)."""
    mechanism = ScramMechanism.SCRAM_SHA_512
    salt = os.urandom(32)
    upsertion = ScramCredentialUpsertion(
        name=ADMIN_USER,
        mechanism=mechanism.type_byte,
        iterations=SCRAM_ITERATIONS,
        salt=salt,
        salted_password=salted_password(admin_password, salt, SCRAM_ITERATIONS, mechanism),
    )
    return AlterUserScramCredentialsRequest(deletions=[], upsertions=[upsertion])


def create_admin_credential(
    brokers: Sequence[tuple[str, int]],
    broker_login: ClientSecurity,
    ssl_context: ssl.SSLContext | None,
    admin_password: str,
    deadline: float,
    check_nodes: Callable[[], None] = lambda: None,
) -> str | None:
    """Give the admin its SCRAM-SHA-512 credential with AlterUserScramCredentials (sent to the first
    of ``brokers``, logged in as the brokers log in to each other), then wait until each of
    ``brokers`` logs the admin in with it (the credential reaches them through the metadata log).

    Args:
        brokers: ``(host, port)`` of the running brokers' own listeners.
        broker_login: the brokers' TLS and PLAIN login (``LocalCluster``'s ``client_config``).
        ssl_context: the client TLS context trusting the cluster's CA.
        admin_password: the admin user's password.
        deadline: when to give up (``time.monotonic()`` seconds).
        check_nodes: called before each try; raises to end the wait (a node exited).

    Returns:
        None once every broker logs the admin in; else, at the deadline, what was last refused.
    """
    admin = client_security(
        security_protocol=SASL_SSL,
        ssl_context=ssl_context,
        sasl_mechanism=ADMIN_MECHANISM,
        sasl_plain_username=ADMIN_USER,
        sasl_plain_password=admin_password,
    )
    pending = list(brokers)
    created, problem, pause = False, "not tried yet", 0.05
    while pending:
        check_nodes()
        host, port = pending[0]
        try:
            if not created:
                timeout_s = min(max(deadline - time.monotonic(), 1.0), 10.0)
                request = _admin_credential_request(admin_password)
                response = blocking_request(
                    port, ApiKey.ALTER_USER_SCRAM_CREDENTIALS, request, timeout_s, host, broker_login
                )
                (result,) = response.results
                created = result.error_code == 0
                problem = f"AlterUserScramCredentials: {error_name(result.error_code)} "
                problem += result.error_message or ""
            if created:
                fetch_metadata(port, host=host, security=admin)
                pending.pop(0)
                continue
        except (OSError, ValueError, KafkaError) as exc:
            problem = f"{host}:{port}: {exc}"
        if time.monotonic() >= deadline:
            return problem.strip()
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
    return None
