"""The broker's SASL exchanges: PLAIN against a JAAS config's users and SCRAM-SHA-256/512 against
stored credentials (RFC 7677's test vector, and a real SCRAM client), with Kafka's answers to
every failure; SCRAM credentials in Kafka's text form."""

from __future__ import annotations

import base64

import pytest
import scramp

from kafkette.common.security.sasl_server import (
    PlainSaslServer,
    SaslAuthenticationError,
    SaslError,
    ScramSaslServer,
    failure_message,
)
from kafkette.common.security.scram_credential import (
    ScramCredential,
    ScramMechanism,
    credential_from_string,
    credential_to_string,
    make_credential,
    username_from_sasl_name,
)


def _plain() -> PlainSaslServer:
    return PlainSaslServer.from_jaas_options(
        {"username": "admin", "password": "admin-secret", "user_admin": "admin-secret", "user_alice": "pw"}
    )


def test_plain_authenticates_a_configured_user():
    server = _plain()
    assert not server.complete
    assert server.evaluate_response(b"\x00alice\x00pw") == b""
    assert server.complete and server.authorization_id == "alice"
    assert _plain().evaluate_response(b"admin\x00admin\x00admin-secret") == b""


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (b"\x00alice\x00wrong", "Authentication failed: Invalid username or password"),
        (b"\x00bob\x00pw", "Authentication failed: Invalid username or password"),
        (b"\x00username\x00pw", "Authentication failed: Invalid username or password"),  # not user_username
        (b"\x00\x00pw", "Authentication failed: username not specified"),
        (b"\x00alice\x00", "Authentication failed: password not specified"),
        (
            b"admin\x00alice\x00pw",
            "Authentication failed: Client requested an authorization id that is different from username",
        ),
        (b"alice\x00pw", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"),
        (b"a\x00b\x00c\x00d", "Invalid SASL/PLAIN response: expected 3 tokens, got 4"),
    ],
)
def test_plain_refusals_carry_kafkas_messages(token, message):
    server = _plain()
    with pytest.raises(SaslAuthenticationError, match=f"^{message}$"):
        server.evaluate_response(token)
    assert not server.complete


def test_scram_sha_256_with_rfc_7677s_test_vector():
    salt = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
    credential = make_credential("pencil", ScramMechanism.SCRAM_SHA_256, 4096, salt)
    server = ScramSaslServer(
        ScramMechanism.SCRAM_SHA_256,
        {"user": credential}.get,
        server_nonce="%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
    )
    first = server.evaluate_response(b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
    assert first == (
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    final = server.evaluate_response(
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    assert final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    assert server.complete and server.authorization_id == "user"


@pytest.mark.parametrize("mechanism", list(ScramMechanism))
def test_scram_against_a_real_client_and_a_wrong_password(mechanism):
    credential = make_credential("s3cret", mechanism, 8192)

    def exchange(password: str) -> ScramSaslServer:
        client = scramp.ScramClient([mechanism.mechanism_name], "alice", password)
        server = ScramSaslServer(mechanism, {"alice": credential}.get)
        client.set_server_first(server.evaluate_response(client.get_client_first().encode()).decode())
        client.set_server_final(server.evaluate_response(client.get_client_final().encode()).decode())
        return server

    assert exchange("s3cret").authorization_id == "alice"
    with pytest.raises(SaslError):
        exchange("wrong")


def test_scram_unknown_users_and_weak_credentials_are_not_told_apart_from_wrong_passwords():
    weak = ScramCredential(b"s", b"k" * 32, b"v" * 32, 1000)
    server = ScramSaslServer(ScramMechanism.SCRAM_SHA_256, {"weak": weak}.get)
    with pytest.raises(SaslError):
        server.evaluate_response(b"n,,n=nobody,r=abc")
    with pytest.raises(SaslError):
        ScramSaslServer(ScramMechanism.SCRAM_SHA_256, {"weak": weak}.get).evaluate_response(
            b"n,,n=weak,r=abc"
        )
    assert failure_message("SCRAM-SHA-256") == (
        "Authentication failed during authentication due to invalid credentials with SASL mechanism "
        "SCRAM-SHA-256"
    )
    assert failure_message("PLAIN", reauthenticating=True).startswith(
        "Authentication failed during re-authentication"
    )


def test_scram_refuses_another_authorization_id_with_kafkas_message():
    credential = make_credential("pw", ScramMechanism.SCRAM_SHA_512)
    server = ScramSaslServer(ScramMechanism.SCRAM_SHA_512, {"alice": credential}.get)
    with pytest.raises(SaslAuthenticationError, match="different from username"):
        server.evaluate_response(b"n,a=admin,n=alice,r=abc")


def test_credentials_in_kafkas_text_form_and_sasl_names():
    credential = make_credential("pw", ScramMechanism.SCRAM_SHA_256, 4096, b"0123456789abcdef")
    text = credential_to_string(credential)
    assert text.startswith("salt=MDEyMzQ1Njc4OWFiY2RlZg==,stored_key=") and text.endswith(",iterations=4096")
    assert credential_from_string(text) == credential
    for bad in ("salt=AA==", "salt=AA==,stored_key=AA==,server_key=AA==,iterations=x", "junk"):
        with pytest.raises(ValueError, match="^Credentials not valid: "):
            credential_from_string(bad)
    with pytest.raises(ValueError, match="outside"):
        make_credential("pw", ScramMechanism.SCRAM_SHA_256, 100)
    assert username_from_sasl_name("a=2Cb=3Dc") == "a,b=c"
    with pytest.raises(ValueError, match="^Invalid username: a=b$"):
        username_from_sasl_name("a=b")
    assert ScramMechanism.for_name("SCRAM-SHA-512").type_byte == 2
    assert ScramMechanism.for_type(1) is ScramMechanism.SCRAM_SHA_256 and ScramMechanism.for_type(0) is None
