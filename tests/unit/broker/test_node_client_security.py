"""The TLS and SASL a node's own connections use, from the listener they go to: nothing for a
PLAINTEXT listener, the login of ``sasl.mechanism.inter.broker.protocol`` with the JAAS config's
username and password for a SASL one, and Kafka's refusals; the SDK's keywords give the same."""

from __future__ import annotations

import pytest

from kafkette.broker.node_client_security import (
    CONTROLLER_MECHANISM_CONFIG,
    INTER_BROKER_MECHANISM_CONFIG,
    client_security_for,
)
from kafkette.client.kafka_client import client_security
from kafkette.common.config_def import ConfigError
from kafkette.common.security.sasl_client import PlainSaslClient, ScramSaslClient

JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret";'
)
SASL = {
    "listener.security.protocol.map": "INTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN",
    "sasl.mechanism.inter.broker.protocol": "PLAIN",
    "listener.name.internal.plain.sasl.jaas.config": JAAS,
}


def test_a_plaintext_listener_needs_nothing_and_a_sasl_one_the_nodes_login():
    assert (
        client_security_for(SASL, "CONTROLLER", CONTROLLER_MECHANISM_CONFIG).security_protocol == "PLAINTEXT"
    )
    security = client_security_for(SASL, "INTERNAL", INTER_BROKER_MECHANISM_CONFIG)
    assert security.security_protocol == "SASL_PLAINTEXT" and security.ssl_context is None
    client = security.sasl()
    assert isinstance(client, PlainSaslClient) and client.next_token(None) == b"\0admin\0admin-secret"
    assert security.sasl() is not client  # a fresh exchange per connection


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"sasl.mechanism.inter.broker.protocol": None},
            "sasl.mechanism.inter.broker.protocol must be included in",
        ),
        (
            {"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256"},
            "must be included in sasl.enabled.mechanisms",
        ),
        (
            {"listener.name.internal.plain.sasl.jaas.config": JAAS.replace('password="admin-secret" ', "")},
            "needs the username and password options",
        ),
        ({"listener.name.internal.plain.sasl.jaas.config": None}, "Missing required configuration"),
    ],
)
def test_a_node_that_cannot_log_in_is_refused_naming_the_setting(change, message):
    props = {k: v for k, v in {**SASL, **change}.items() if v is not None}
    with pytest.raises(ConfigError, match=message):
        client_security_for(props, "INTERNAL", INTER_BROKER_MECHANISM_CONFIG)


def test_the_sdk_keywords_make_the_same_security():
    security = client_security("SASL_PLAINTEXT", None, "SCRAM-SHA-512", "alice", "secret")
    assert security.security_protocol == "SASL_PLAINTEXT" and isinstance(security.sasl(), ScramSaslClient)
    assert client_security().security_protocol == "PLAINTEXT"
    with pytest.raises(ValueError, match="sasl_mechanism"):
        client_security("SASL_PLAINTEXT", None, "GSSAPI", "alice", "secret")
    with pytest.raises(ValueError, match="security_protocol"):
        client_security("TLS")
