"""An SSL listener's TLS context from Kafka's ``ssl.*`` configs: PEM key stores from a file or
inline, the listener prefix's precedence, client authentication, protocols; each bad setting
refused at start with the config named; a client certificate's DN in RFC 2253 form; the client side's
context (trust store, optional key store for mutual TLS, ssl.endpoint.identification.algorithm)."""

from __future__ import annotations

import ssl

import pytest

from kafkette.common.config_def import ConfigError
from kafkette.common.security.ssl_factory import distinguished_name, ssl_client_context, ssl_server_context
from tests.tls_certificates import CertificateAuthority


@pytest.fixture
def ca(tmp_path):
    return CertificateAuthority(tmp_path)


def test_a_pem_key_store_file_or_inline_pem_make_a_server_context(ca):
    server = ca.issue("broker", "broker", server=True)
    ctx = ssl_server_context({"ssl.keystore.type": "PEM", "ssl.keystore.location": str(server.bundle)}, "SSL")
    assert ctx.verify_mode == ssl.CERT_NONE and ctx.minimum_version == ssl.TLSVersion.TLSv1_2
    inline = ssl_server_context(
        {
            "listener.name.ssl.ssl.keystore.type": "PEM",
            "listener.name.ssl.ssl.keystore.key": server.key.read_text(),
            "listener.name.ssl.ssl.keystore.certificate.chain": server.certificate.read_text(),
            "listener.name.ssl.ssl.truststore.type": "PEM",
            "listener.name.ssl.ssl.truststore.certificates": ca.files.certificate.read_text(),
            "listener.name.ssl.ssl.client.auth": "required",
            "listener.name.ssl.ssl.enabled.protocols": "TLSv1.3",
            "ssl.client.auth": "none",  # the listener's own setting wins
        },
        "SSL",
    )
    assert inline.verify_mode == ssl.CERT_REQUIRED
    assert inline.minimum_version == inline.maximum_version == ssl.TLSVersion.TLSv1_3


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"ssl.keystore.type": "JKS"}, r"ssl.keystore.type\): Kafkette reads PEM key stores only"),
        (
            {"ssl.keystore.location": ""},
            "Missing required configuration listener.name.ssl.ssl.keystore.location",
        ),
        ({"ssl.keystore.location": "/nonexistent.pem"}, "cannot load the key"),
        ({"ssl.keystore.password": "x"}, "SSL key store password cannot be specified with PEM format"),
        ({"ssl.client.auth": "always"}, "String must be one of: required, requested, none"),
        ({"ssl.client.auth": "required"}, "checks client certificates against a trust store"),
        ({"ssl.enabled.protocols": "TLSv1.1"}, r"ssl.enabled.protocols\): Kafkette offers TLSv1.2, TLSv1.3"),
        ({"ssl.truststore.location": "/x", "ssl.truststore.type": "JKS"}, "PEM trust stores only"),
        ({"ssl.cipher.suites": "NO-SUCH-CIPHER"}, "ssl.cipher.suites"),
    ],
)
def test_each_bad_setting_is_refused_with_the_config_named(ca, props, message):
    server = ca.issue("broker", "broker", server=True)
    base = {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(server.bundle)}
    with pytest.raises(ConfigError, match=message):
        ssl_server_context({**base, **props}, "SSL")


def test_a_certificates_dn_reads_most_specific_first(ca):
    client = ca.issue("client", "alice", unit="clients")
    der = ssl.PEM_cert_to_DER_cert(client.certificate.read_text())
    assert distinguished_name(der) == "CN=alice,OU=clients,O=Kafkette"


def test_a_client_context_trusts_the_store_checks_host_names_and_presents_a_key_store_when_given(
    ca, tmp_path
):
    server = ca.issue("broker", "broker", server=True)
    client = ca.issue("client", "alice")
    trust = {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(ca.files.certificate)}
    ctx = ssl_client_context(trust)
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert [c["subject"] for c in ctx.get_ca_certs()] == [
        c["subject"]
        for c in ssl_client_context({**trust, "ssl.truststore.certificates": "ignored"}).get_ca_certs()
    ]
    assert not ssl_client_context({**trust, "ssl.endpoint.identification.algorithm": ""}).check_hostname
    with_key = ssl_client_context(
        {**trust, "ssl.keystore.type": "PEM", "ssl.keystore.location": str(client.bundle)}
    )
    # a handshake with a server that requires a client certificate shows the key store is presented
    server_ctx = ssl_server_context(
        {
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(server.bundle),
            **trust,
            "ssl.client.auth": "required",
        },
        "SSL",
    )
    assert _handshake(server_ctx, with_key) is None
    assert _handshake(server_ctx, ctx) is not None


def _handshake(server_ctx: ssl.SSLContext, client_ctx: ssl.SSLContext) -> BaseException | None:
    """Run a TLS handshake (and one byte each way) between the contexts in memory; the error or None."""
    c_in, c_out, s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    client = client_ctx.wrap_bio(c_in, c_out, server_hostname="127.0.0.1")
    server = server_ctx.wrap_bio(s_in, s_out, server_side=True)
    try:
        for _ in range(10):
            for end, out, peer_in in ((client, c_out, s_in), (server, s_out, c_in)):
                try:
                    end.do_handshake()
                except ssl.SSLWantReadError:
                    pass
                peer_in.write(out.read())
        client.write(b"x")
        s_in.write(c_out.read())
        assert server.read(1) == b"x"
        server.write(b"y")
        c_in.write(s_out.read())
        assert client.read(1) == b"y"
    except ssl.SSLError as exc:
        return exc
    return None


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"ssl.truststore.type": "JKS", "ssl.truststore.location": "x"}, "ssl.truststore.type"),
        (
            {"ssl.truststore.type": "PEM", "ssl.truststore.location": "/nonexistent.pem"},
            "cannot load the trusted",
        ),
        ({"ssl.endpoint.identification.algorithm": "dns"}, "ssl.endpoint.identification.algorithm"),
        ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/nonexistent.pem"}, "cannot load the key"),
    ],
)
def test_a_bad_client_setting_is_refused_naming_it(props, message):
    with pytest.raises(ConfigError, match=message):
        ssl_client_context(props)
