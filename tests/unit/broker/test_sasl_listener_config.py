"""A SASL listener's settings read with Kafka's names and per-listener precedence, refusals of what
is missing or not offered, and the authenticator each connection gets from them."""

from __future__ import annotations

import pytest

from kafkette.broker.sasl_listener_config import (
    authenticator_factory,
    enabled_mechanisms,
    login_module,
    reauth_ms,
    sasl_listener_factory,
)
from kafkette.common.config_def import ConfigError
from kafkette.common.security.scram_credential import ScramMechanism, make_credential
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafkette.protocol.errors import Errors

PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
)
SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="x";'
PROPS = {
    "sasl.enabled.mechanisms": "GSSAPI",
    "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
    "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
    "connections.max.reauth.ms": "3600000",
}


def test_per_listener_values_come_first_then_the_broker_wide_ones_then_kafkas_defaults():
    assert enabled_mechanisms(PROPS, "SASL_PLAINTEXT") == ["PLAIN", "SCRAM-SHA-256"]
    assert reauth_ms(PROPS, "SASL_PLAINTEXT") == 3_600_000
    assert reauth_ms({}, "X") == 0
    per_mechanism = {
        **PROPS,
        "listener.name.sasl_plaintext.connections.max.reauth.ms": "60000",
        "listener.name.sasl_plaintext.scram-sha-256.connections.max.reauth.ms": "5000",
    }
    assert reauth_ms(per_mechanism, "SASL_PLAINTEXT", "SCRAM-SHA-256") == 5_000
    assert reauth_ms(per_mechanism, "SASL_PLAINTEXT", "PLAIN") == 60_000
    assert reauth_ms(per_mechanism, "OTHER", "PLAIN") == 3_600_000
    assert login_module(PROPS, "SASL_PLAINTEXT", "PLAIN").options["user_alice"] == "alice-secret"
    with pytest.raises(ConfigError, match="GSSAPI not offered"):
        enabled_mechanisms(PROPS, "OTHER")  # Kafka's default GSSAPI
    with pytest.raises(ConfigError, match="GSSAPI not offered"):
        enabled_mechanisms({}, "OTHER")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"sasl.enabled.mechanisms": "PLAIN"},
            "Missing required configuration listener.name.l.plain.sasl.jaas.config",
        ),
        (
            {"sasl.enabled.mechanisms": "PLAIN", "listener.name.l.plain.sasl.jaas.config": SCRAM_JAAS},
            "needs org.apache.kafka.common.security.plain.PlainLoginModule",
        ),
        (
            {"sasl.enabled.mechanisms": "PLAIN", "listener.name.l.plain.sasl.jaas.config": "x.Y required"},
            "JAAS config entry not terminated by semi-colon",
        ),
        ({"sasl.enabled.mechanisms": "OAUTHBEARER"}, "OAUTHBEARER not offered"),
        ({"sasl.enabled.mechanisms": " , "}, "enables no SASL mechanism"),
        (
            {
                "sasl.enabled.mechanisms": "PLAIN",
                "listener.name.l.plain.sasl.jaas.config": PLAIN_JAAS,
                "connections.max.reauth.ms": "-5",
            },
            "connections.max.reauth.ms",
        ),
    ],
)
def test_what_is_missing_or_not_offered_is_refused_naming_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        authenticator_factory(props, "L", lambda user, mechanism: None, lambda: 0)


def test_each_connection_gets_its_own_authenticator_with_plain_users_and_scram_credentials():
    credential = make_credential("bob-pw", ScramMechanism.SCRAM_SHA_256)
    looked_up = []

    def lookup(user, mechanism):
        looked_up.append((user, mechanism))
        return credential if user == "bob" else None

    make = authenticator_factory(PROPS, "SASL_PLAINTEXT", lookup, lambda: 0)
    first, second = make(), make()
    assert first is not second
    first.intercept(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN"))
    done = first.intercept(
        ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=b"\x00alice\x00alice-secret")
    )
    assert done.response.error_code == Errors.NONE and first.principal == "User:alice"
    assert done.response.session_lifetime_ms == 3_600_000
    second.intercept(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="SCRAM-SHA-256"))
    second.intercept(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=b"n,,n=bob,r=abc"))
    assert looked_up == [("bob", ScramMechanism.SCRAM_SHA_256)]


def test_the_listener_security_protocol_map_decides_which_listeners_authenticate():
    props = {**PROPS, "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT"}
    props["listener.name.sasl_plaintext.sasl.enabled.mechanisms"] = "PLAIN"
    assert sasl_listener_factory(props, "PLAINTEXT", lambda u, m: None, lambda: 0) is None
    assert sasl_listener_factory(props, "UNMAPPED", lambda u, m: None, lambda: 0) is None
    assert sasl_listener_factory(props, "SASL_PLAINTEXT", lambda u, m: None, lambda: 0) is not None
    sasl_ssl = {
        k.replace("sasl_plaintext", "sasl_ssl"): v for k, v in props.items() if "protocol.map" not in k
    }
    assert sasl_listener_factory(sasl_ssl, "SASL_SSL", lambda u, m: None, lambda: 0) is not None
    with pytest.raises(ConfigError, match="GSSAPI not offered"):  # Kafka's default mechanism
        sasl_listener_factory({}, "SASL_SSL", lambda u, m: None, lambda: 0)
    assert sasl_listener_factory(PROPS, "SASL_PLAINTEXT", lambda u, m: None, lambda: 0) is not None
