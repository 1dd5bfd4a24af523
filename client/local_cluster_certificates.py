"""The TLS material of a secure local cluster, made with ``cryptography``: a certificate authority
and one broker certificate it signs, written as PEM files in the cluster's data directory.

Owns: ``write_cluster_certificates`` (the CA certificate ``ca.pem``, a trust store every client
and broker loads with ``ssl.truststore.type=PEM``; the brokers' key store ``broker.pem``, the
private key and certificate chain in one file, as ``ssl.keystore.type=PEM`` takes it) and
``write_private_file`` (a file only its owner may read, mode 0600).  The CA's own key is never
written: the cluster's certificates are made once, when its data directory is new.  Every key is
a fresh EC P-256 key; the broker certificate names ``127.0.0.1``, ``localhost`` and the cluster's
other host addresses as subject alternative names, so that clients' endpoint identification
(``ssl.endpoint.identification.algorithm=https``) passes.  Does not own the brokers' ``ssl.*``
configs (``kafkette.client.local_cluster_security``).

Kafka concept: the CA and PEM key and trust stores of Kafka's security guide (KIP-651 PEM stores).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALIDITY_DAYS = 3650  # a local cluster's certificates outlive the cluster
CA_CERTIFICATE_FILE = "ca.pem"
BROKER_KEY_STORE_FILE = "broker.pem"


@dataclass(frozen=True)
class ClusterCertificates:
    """Where a cluster's PEM files are: ``ca_certificate`` (trust store), ``broker_key_store``
    (the brokers' private key and certificate, mode 0600)."""

    ca_certificate: Path
    broker_key_store: Path

    @classmethod
    def in_directory(cls, directory: Path) -> ClusterCertificates:
        """The files' paths under ``directory`` (whether or not they exist)."""
        return cls(directory / CA_CERTIFICATE_FILE, directory / BROKER_KEY_STORE_FILE)

    def exist(self) -> bool:
        return self.ca_certificate.is_file() and self.broker_key_store.is_file()


def write_private_file(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` readable and writable by its owner only (mode 0600, also
    when the file existed with a wider mode), creating its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Kafkette"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "local-cluster"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _alternative_names(hosts: Iterable[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for host in dict.fromkeys(["127.0.0.1", *hosts]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            if host != "localhost":
                names.append(x509.DNSName(host))
    return names


def write_cluster_certificates(directory: Path, hosts: Iterable[str] = ()) -> ClusterCertificates:
    """Make a CA and a broker certificate it signs, and write them under ``directory``.

    Args:
        directory: where ``ca.pem`` and ``broker.pem`` go (created if missing).
        hosts: the addresses the brokers are reached at besides ``127.0.0.1`` and ``localhost``
            (IP addresses or DNS names), named in the certificate.

    Returns:
        The files' paths.

    Raises:
        OSError: a file could not be written.
    """
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(days=1), now + datetime.timedelta(days=VALIDITY_DAYS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("kafkette-local-cluster-ca")
    ca_certificate = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    broker_key = ec.generate_private_key(ec.SECP256R1())
    broker_certificate = (
        x509.CertificateBuilder()
        .subject_name(_name("broker"))
        .issuer_name(ca_name)
        .public_key(broker_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(_alternative_names(hosts)), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = ClusterCertificates.in_directory(directory)
    pem = serialization.Encoding.PEM
    key_pem = broker_key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    chain = broker_certificate.public_bytes(pem).decode() + ca_certificate.public_bytes(pem).decode()
    write_private_file(files.broker_key_store, key_pem + chain)
    files.ca_certificate.write_text(ca_certificate.public_bytes(pem).decode(), encoding="utf-8")
    return files
