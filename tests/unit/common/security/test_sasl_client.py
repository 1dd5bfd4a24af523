"""The client's side of SASL against the broker's authenticator: PLAIN and SCRAM logins complete,
a forged SCRAM signature, a wrong password and an unsupported mechanism raise what Kafka's clients
raise; logins read from a client's sasl.jaas.config."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.common.security.sasl_client import login_from_jaas, sasl_authenticate, sasl_client
from kafkette.common.security.sasl_server import PlainSaslServer, ScramSaslServer
from kafkette.common.security.sasl_server_authenticator import SaslServerAuthenticator
from kafkette.common.security.scram_credential import ScramMechanism, make_credential
from kafkette.protocol.errors import KafkaError

CREDENTIALS = {"bob": make_credential("bob-pw", ScramMechanism.SCRAM_SHA_256)}


def _broker():
    authenticator = SaslServerAuthenticator(
        ["PLAIN", "SCRAM-SHA-256"],
        {
            "PLAIN": lambda: PlainSaslServer({"alice": "alice-pw"}),
            "SCRAM-SHA-256": lambda: ScramSaslServer(ScramMechanism.SCRAM_SHA_256, CREDENTIALS.get),
        },
        0,
        lambda: 0,
    )

    async def send(api_key, version, request):
        return authenticator.intercept(api_key, version, request).response

    return authenticator, send


@pytest.mark.parametrize(
    ("mechanism", "user", "password"), [("PLAIN", "alice", "alice-pw"), ("SCRAM-SHA-256", "bob", "bob-pw")]
)
def test_a_login_completes(mechanism, user, password):
    authenticator, send = _broker()
    asyncio.run(sasl_authenticate(send, sasl_client(mechanism, user, password)))
    assert authenticator.principal == f"User:{user}"


def test_refusals_raise_kafkas_errors():
    _, send = _broker()
    with pytest.raises(KafkaError, match="Invalid username or password") as caught:
        asyncio.run(sasl_authenticate(send, sasl_client("PLAIN", "alice", "nope")))
    assert type(caught.value).__name__ == "SaslAuthenticationFailedError"
    _, send = _broker()
    with pytest.raises(KafkaError, match="invalid credentials with SASL mechanism SCRAM-SHA-256"):
        asyncio.run(sasl_authenticate(send, sasl_client("SCRAM-SHA-256", "bob", "nope")))
    _, send = _broker()
    with pytest.raises(
        KafkaError,
        match=r"'SCRAM-SHA-512' not enabled in the server, enabled mechanisms are "
        r"\['PLAIN', 'SCRAM-SHA-256'\]",
    ):
        asyncio.run(sasl_authenticate(send, sasl_client("SCRAM-SHA-512", "bob", "bob-pw")))
    with pytest.raises(ValueError, match="sasl.mechanism"):
        sasl_client("GSSAPI", "a", "b")


def test_a_forged_server_signature_is_caught():
    authenticator, send = _broker()

    async def forging(api_key, version, request):
        answer = await send(api_key, version, request)
        if authenticator.authenticated:
            answer.auth_bytes = b"v=" + b"A" * 44
        return answer

    with pytest.raises(ValueError, match="SCRAM exchange failed"):
        asyncio.run(sasl_authenticate(forging, sasl_client("SCRAM-SHA-256", "bob", "bob-pw")))


def test_a_login_from_a_client_jaas_config():
    assert login_from_jaas(
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-pw";'
    ) == ("bob", "bob-pw")
    with pytest.raises(ValueError, match="no password"):
        login_from_jaas('org.apache.kafka.common.security.plain.PlainLoginModule required username="a";')
