"""A TLS listener's SslFactory reloads its key store as Kafka's SslFactory does: nothing rebuilt
when no reconfigurable config changed and no file was modified, the same path re-read once its
file changed, a new DN or a lost subject alternative name refused with Kafka's messages (unless
``ssl.allow.dn.changes`` / ``ssl.allow.san.changes``), an unloadable file refused, and the old
certificate kept after every refusal.  The certificate served is read from an in-memory TLS
handshake through the factory's listening context (no sockets)."""

from __future__ import annotations

import shutil
import ssl

import pytest
from cryptography import x509

from kafkette.common.config_def import ConfigError
from kafkette.common.security.listener_ssl_factory import SslFactory
from tests.tls_certificates import CertificateAuthority, Issued


@pytest.fixture
def ca(tmp_path):
    return CertificateAuthority(tmp_path)


def _props(ca: CertificateAuthority, keystore) -> dict[str, str]:
    return {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca.files.certificate),
    }


def _serial(issued: Issued) -> int:
    return x509.load_pem_x509_certificate(issued.certificate.read_bytes()).serial_number


def _handshake(factory: SslFactory, ca: CertificateAuthority, client_cert: Issued | None = None):
    """A TLS 1.2 handshake over memory BIOs through the factory's listening context, as a client
    trusting ``ca`` (presenting ``client_cert`` when given); the client's and the server's
    ``SSLObject``.

    Raises:
        ssl.SSLError: the handshake failed (on either side).
    """
    client_ctx = ssl.create_default_context(cafile=str(ca.files.certificate))
    client_ctx.maximum_version = ssl.TLSVersion.TLSv1_2  # the client certificate checked in the handshake
    if client_cert is not None:
        client_ctx.load_cert_chain(client_cert.certificate, client_cert.key)
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    client = client_ctx.wrap_bio(c_in, c_out, server_hostname="127.0.0.1")
    server = factory.context.wrap_bio(s_in, s_out, server_side=True)
    for _ in range(10):
        for side in (client, server):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
    return client, server


def _served_serial(factory: SslFactory, ca: CertificateAuthority) -> int:
    """The serial of the certificate a new connection is shown."""
    client, _ = _handshake(factory, ca)
    return x509.load_der_x509_certificate(client.getpeercert(binary_form=True)).serial_number


def test_a_new_trust_store_decides_which_client_certificates_new_connections_accept(ca, tmp_path):
    other_ca = CertificateAuthority(tmp_path, "other-ca")
    server = ca.issue("server", "broker", server=True)
    props = {**_props(ca, server.bundle), "ssl.client.auth": "required"}
    factory = SslFactory(props, "SSL")
    ours, theirs = ca.issue("ours", "alice"), other_ca.issue("theirs", "bob")
    _, accepted = _handshake(factory, ca, ours)
    assert accepted.getpeercert()["subject"][-1] == (("commonName", "alice"),)
    with pytest.raises(ssl.SSLError):
        _handshake(factory, ca, theirs)
    assert factory.reconfigure({**props, "ssl.truststore.location": str(other_ca.files.certificate)})
    _, accepted = _handshake(factory, ca, theirs)
    assert accepted.getpeercert()["subject"][-1] == (("commonName", "bob"),)
    with pytest.raises(ssl.SSLError):
        _handshake(factory, ca, ours)


def test_nothing_is_rebuilt_until_a_reconfigurable_config_or_a_file_changes(ca, tmp_path):
    first = ca.issue("first", "broker", server=True)
    props = _props(ca, first.bundle)
    factory = SslFactory(props, "SSL")
    assert _served_serial(factory, ca) == _serial(first)
    assert factory.reconfigure(props) is False
    assert factory.reconfigure({**props, "ssl.client.auth": "required"}) is False  # not reconfigurable
    second = ca.issue("second", "broker", server=True)
    assert factory.reconfigure({**props, "listener.name.ssl.ssl.keystore.location": str(second.bundle)})
    assert _served_serial(factory, ca) == _serial(second)


def test_the_same_path_is_re_read_once_its_file_changed(ca, tmp_path):
    served = tmp_path / "served.pem"
    shutil.copyfile(ca.issue("first", "broker", server=True).bundle, served)
    props = _props(ca, served)
    factory = SslFactory(props, "SSL")
    renewed = ca.issue("renewed", "broker", server=True)
    shutil.copyfile(renewed.bundle, served)
    assert factory.validate_reconfiguration(props) is not None
    assert factory.reconfigure(props) is True
    assert _served_serial(factory, ca) == _serial(renewed)
    assert factory.reconfigure(props) is False


def test_another_dn_lost_names_or_an_unloadable_file_are_refused_and_the_old_certificate_kept(ca, tmp_path):
    first = ca.issue("first", "broker", server=True)
    props = _props(ca, first.bundle)
    factory = SslFactory(props, "SSL")

    def refusal(keystore) -> str:
        with pytest.raises(ConfigError) as refused:
            factory.reconfigure({**props, "ssl.keystore.location": str(keystore)})
        return str(refused.value)

    assert refusal(ca.issue("other", "intruder", server=True).bundle) == (
        "Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.config."
        "ConfigException: Keystore DistinguishedName does not match:  existing={alias=kafka, "
        "DN=CN=broker, OU=kafkette-tests, O=Kafkette}, new={alias=kafka, DN=CN=intruder, "
        "OU=kafkette-tests, O=Kafkette}"
    )
    assert refusal(ca.issue("no-names", "broker").bundle) == (
        "Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.config."
        "ConfigException: Keystore SubjectAltNames do not match:  existing={alias=kafka, "
        "SAN=[[2, localhost], [7, 127.0.0.1]]}, new={alias=kafka, SAN=[]}"
    )
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    assert refusal(garbage).startswith(
        "Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.errors."
        f"InvalidConfigurationException: Failed to load PEM SSL keystore {garbage} ("
    )
    assert refusal(tmp_path / "missing.pem").startswith(
        "Validation of dynamic config update of SSLFactory failed: org.apache.kafka.common.errors."
        f"InvalidConfigurationException: Failed to load PEM SSL keystore {tmp_path / 'missing.pem'} ("
    )
    assert _served_serial(factory, ca) == _serial(first)


def test_ssl_allow_dn_and_san_changes_let_a_new_identity_through(ca):
    first = ca.issue("first", "broker", server=True)
    props = {**_props(ca, first.bundle), "ssl.allow.dn.changes": "true", "ssl.allow.san.changes": "true"}
    factory = SslFactory(props, "SSL")
    other = ca.issue("other", "intruder")
    assert factory.reconfigure({**props, "ssl.keystore.location": str(other.bundle)})
    assert factory.reconfigure({**props, "ssl.keystore.location": str(first.bundle)})
    assert _served_serial(factory, ca) == _serial(first)
