"""Certificates for TLS tests, made with ``cryptography``: a CA, and certificates it signs for
127.0.0.1 (a broker) or a client DN, written as PEM files.  Every key is a fresh EC P-256 key."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Issued:
    """A key and its certificate as PEM files; ``bundle`` holds both (a Kafka PEM key store)."""

    key: Path
    certificate: Path
    bundle: Path


def _name(common_name: str, unit: str = "kafkette-tests") -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Kafkette"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _write(directory: Path, stem: str, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate) -> Issued:
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    paths = Issued(directory / f"{stem}.key", directory / f"{stem}.crt", directory / f"{stem}.pem")
    paths.key.write_bytes(key_pem)
    paths.certificate.write_bytes(cert_pem)
    paths.bundle.write_bytes(key_pem + cert_pem)
    return paths


class CertificateAuthority:
    """A CA whose certificate is ``<directory>/<name>.crt``; it issues server and client certificates.

    Args:
        directory: where the PEM files go.
        name: the CA's common name (and file stem).
    """

    def __init__(self, directory: Path, name: str = "test-ca") -> None:
        self.directory = directory
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self._name = _name(name)
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(self._name)
            .issuer_name(self._name)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self._key, hashes.SHA256())
        )
        self.files = _write(directory, name, self._key, self._cert)

    def issue(
        self,
        stem: str,
        common_name: str,
        unit: str = "kafkette-tests",
        server: bool = False,
        expired: bool = False,
    ) -> Issued:
        """A certificate for ``CN=<common_name>,OU=<unit>,O=Kafkette`` (with 127.0.0.1 and localhost
        as subject alternative names when ``server``), valid from yesterday for 30 days, or, when
        ``expired``, valid for one day ten days ago (``notAfter`` in the past: a TLS peer verifying
        it refuses it as expired)."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        if expired:
            now -= datetime.timedelta(days=10)
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name, unit))
            .issuer_name(self._name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1 if expired else 30))
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(IPv4Address("127.0.0.1")), x509.DNSName("localhost")]
                ),
                critical=False,
            )
        return _write(self.directory, stem, key, builder.sign(self._key, hashes.SHA256()))
