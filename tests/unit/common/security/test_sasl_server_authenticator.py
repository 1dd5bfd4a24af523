"""A SASL listener connection's authentication state: ApiVersions and SaslHandshake first, then
SaslAuthenticate tokens; the principal once complete; every refusal as Kafka answers it and the
connection closed after it; sessions that expire with connections.max.reauth.ms and
re-authentication on the same connection."""

from __future__ import annotations

import scramp

from kafkette.common.security.sasl_server import PlainSaslServer, ScramSaslServer
from kafkette.common.security.sasl_server_authenticator import SaslServerAuthenticator, SaslState
from kafkette.common.security.scram_credential import ScramMechanism, make_credential
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafkette.protocol.errors import Errors

CREDENTIALS = {"bob": make_credential("bob-pw", ScramMechanism.SCRAM_SHA_512)}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000

    def __call__(self) -> int:
        return self.now


def _authenticator(
    reauth_ms: int | dict[str, int] = 0, clock: Clock | None = None
) -> SaslServerAuthenticator:
    return SaslServerAuthenticator(
        ["PLAIN", "SCRAM-SHA-512"],
        {
            "PLAIN": lambda: PlainSaslServer({"alice": "alice-pw", "bob": "bob-pw"}),
            "SCRAM-SHA-512": lambda: ScramSaslServer(ScramMechanism.SCRAM_SHA_512, CREDENTIALS.get),
        },
        reauth_ms,
        clock or Clock(),
    )


def _handshake(a, mechanism: str, version: int = 1):
    return a.intercept(ApiKey.SASL_HANDSHAKE, version, SaslHandshakeRequest(mechanism=mechanism))


def _token(a, token: bytes, version: int = 2):
    return a.intercept(ApiKey.SASL_AUTHENTICATE, version, SaslAuthenticateRequest(auth_bytes=token))


def test_plain_after_api_versions_then_every_request_passes():
    a = _authenticator()
    assert a.intercept(ApiKey.API_VERSIONS, 3, None) is None
    shake = _handshake(a, "PLAIN")
    assert (shake.response.error_code, shake.response.mechanisms, shake.close) == (
        Errors.NONE,
        ["PLAIN", "SCRAM-SHA-512"],
        False,
    )
    done = _token(a, b"\x00alice\x00alice-pw")
    assert done.response.error_code == Errors.NONE and not done.close
    assert done.response.session_lifetime_ms == 0
    assert a.authenticated and a.principal == "User:alice"
    assert a.intercept(ApiKey.METADATA, 12, None) is None


def test_scram_sha_512_with_a_real_client():
    a = _authenticator()
    client = scramp.ScramClient(["SCRAM-SHA-512"], "bob", "bob-pw")
    _handshake(a, "SCRAM-SHA-512")
    first = _token(a, client.get_client_first().encode())
    client.set_server_first(bytes(first.response.auth_bytes).decode())
    final = _token(a, client.get_client_final().encode())
    client.set_server_final(bytes(final.response.auth_bytes).decode())
    assert a.principal == "User:bob" and a.state is SaslState.COMPLETE


def test_a_wrong_password_is_refused_and_closes_the_connection():
    a = _authenticator()
    _handshake(a, "PLAIN")
    refused = _token(a, b"\x00alice\x00nope")
    assert refused.close and refused.response.error_code == Errors.SASL_AUTHENTICATION_FAILED
    assert refused.response.error_message == "Authentication failed: Invalid username or password"
    assert a.principal == "User:ANONYMOUS" and not a.authenticated

    b = _authenticator()
    _handshake(b, "SCRAM-SHA-512")
    hidden = _token(b, b"n,,n=nobody,r=abc")
    assert hidden.response.error_message == (
        "Authentication failed during authentication due to invalid credentials with SASL mechanism "
        "SCRAM-SHA-512"
    )


def test_an_unsupported_mechanism_or_a_request_out_of_turn_is_refused():
    a = _authenticator()
    refused = _handshake(a, "GSSAPI")
    assert refused.close and refused.response.error_code == Errors.UNSUPPORTED_SASL_MECHANISM
    assert refused.response.mechanisms == ["PLAIN", "SCRAM-SHA-512"]

    b = _authenticator()
    early = b.intercept(ApiKey.METADATA, 12, None)  # Kafka closes it unanswered
    assert (early.response, early.error_code, early.close) == (None, None, True)

    c = _authenticator()
    _handshake(c, "PLAIN")
    mid = c.intercept(ApiKey.PRODUCE, 9, None)
    assert mid.error_message == "Unexpected Kafka request of type PRODUCE during SASL authentication."
    first = _authenticator().intercept(ApiKey.SASL_AUTHENTICATE, 2, None)
    assert (first.response, first.error_code, first.close) == (None, None, True)


def test_a_session_expires_after_connections_max_reauth_ms_and_re_authenticates_in_place():
    clock = Clock()
    a = _authenticator(reauth_ms=60_000, clock=clock)
    _handshake(a, "PLAIN")
    done = _token(a, b"\x00alice\x00alice-pw", version=1)
    assert done.response.session_lifetime_ms == 60_000
    clock.now += 30_000
    assert a.intercept(ApiKey.FETCH, 12, None) is None
    assert _handshake(a, "PLAIN").response.error_code == Errors.NONE  # re-authentication
    assert _token(a, b"\x00alice\x00alice-pw", version=1).response.error_code == Errors.NONE
    clock.now += 59_000
    assert a.intercept(ApiKey.FETCH, 12, None) is None  # the new session runs from its own start
    clock.now += 2_000
    expired = a.intercept(ApiKey.FETCH, 12, None)
    assert expired.close and expired.response is None and expired.error_code is None


def test_re_authentication_may_not_change_the_principal():
    a = _authenticator(reauth_ms=60_000)
    _handshake(a, "PLAIN")
    _token(a, b"\x00alice\x00alice-pw", version=1)
    assert _handshake(a, "PLAIN").response.error_code == Errors.NONE
    changed = _token(a, b"\x00bob\x00bob-pw", version=1)
    assert changed.close and changed.response.error_code == Errors.SASL_AUTHENTICATION_FAILED
    assert changed.response.error_message == (
        "Cannot change principals during re-authentication from User.alice: User.bob"
    )


def test_re_authentication_may_not_change_the_mechanism():
    a = _authenticator(reauth_ms=60_000)
    _handshake(a, "SCRAM-SHA-512")
    client = scramp.ScramClient(["SCRAM-SHA-512"], "bob", "bob-pw")
    first = _token(a, client.get_client_first().encode(), version=1)
    client.set_server_first(bytes(first.response.auth_bytes).decode())
    assert _token(a, client.get_client_final().encode(), version=1).response.error_code == Errors.NONE
    assert _handshake(a, "PLAIN").response.error_code == Errors.NONE  # answered, as Kafka does
    refused = _token(a, b"\x00bob\x00bob-pw", version=1)
    assert refused.close and refused.response.error_code == Errors.SASL_AUTHENTICATION_FAILED
    assert refused.response.error_message == (
        "SASL mechanism 'PLAIN' requested by client is not supported for re-authentication of "
        "mechanism 'SCRAM-SHA-512'"
    )


def test_a_v0_client_is_told_no_lifetime_but_is_closed_when_its_session_expires():
    clock = Clock()
    a = _authenticator(reauth_ms=5_000, clock=clock)
    _handshake(a, "PLAIN")
    assert _token(a, b"\x00alice\x00alice-pw", version=0).response.error_code == Errors.NONE
    clock.now += 4_999
    assert a.intercept(ApiKey.PRODUCE, 9, None) is None
    clock.now += 1
    assert a.intercept(ApiKey.PRODUCE, 9, None).close


def test_each_mechanism_has_its_own_session_lifetime():
    a = _authenticator(reauth_ms={"PLAIN": 0, "SCRAM-SHA-512": 7_000})
    _handshake(a, "PLAIN")
    assert _token(a, b"\x00alice\x00alice-pw", version=2).response.session_lifetime_ms == 0


def test_without_a_session_lifetime_a_second_handshake_goes_to_the_handlers():
    a = _authenticator()  # connections.max.reauth.ms unset: no re-authentication, as Kafka's KafkaChannel
    _handshake(a, "PLAIN")
    assert _token(a, b"\x00alice\x00alice-pw").response.error_code == Errors.NONE
    assert _handshake(a, "PLAIN") is None  # KafkaApis answers it ILLEGAL_SASL_STATE
    assert a.authenticated
