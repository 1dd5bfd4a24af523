"""A SASL listener's settings from the broker's properties: its enabled mechanisms, each
mechanism's JAAS login module, the session lifetime, and the authenticator each connection gets.

Owns reading Kafka's names with Kafka's per-listener precedence (KIP-103):
``listener.name.<listener>.sasl.enabled.mechanisms`` over ``sasl.enabled.mechanisms`` (Kafka's
default GSSAPI), ``listener.name.<listener>.<mechanism>.sasl.jaas.config`` (a broker reads its
server login modules only from that per-listener, per-mechanism form, as Kafka's
``JaasContext.loadServerContext`` does without a static JAAS file),
``listener.name.<listener>.<mechanism>.connections.max.reauth.ms`` over
``listener.name.<listener>.connections.max.reauth.ms`` over ``connections.max.reauth.ms`` (0);
refusing, with Kafka's names, what Kafkette does not offer (GSSAPI, OAUTHBEARER) or what is
missing; and building the per-connection ``SaslServerAuthenticator``.  Does not own the exchange
(``kafkette.common.security``) nor where SCRAM credentials come from (the caller's lookup).

Kafka concept: ``ChannelBuilders`` / ``SaslChannelBuilder`` (per-listener SASL configuration),
``JaasContext``, ``PlainServerCallbackHandler``, ``ScramServerCallbackHandler``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kafkette.common.config_def import ConfigError
from kafkette.common.security.jaas_config import LoginModuleEntry, parse_jaas_config
from kafkette.common.security.sasl_server import PLAIN, PlainSaslServer, SaslServer, ScramSaslServer
from kafkette.common.security.sasl_server_authenticator import (
    DEFAULT_MAX_RECEIVE_SIZE,
    SaslServerAuthenticator,
)
from kafkette.common.security.scram_credential import ScramCredential, ScramMechanism
from kafkette.common.security.security_protocol_map import SASL_PROTOCOLS, listener_security_protocol

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
OFFERED = (PLAIN, *(m.mechanism_name for m in ScramMechanism))

ScramLookup = Callable[[str, ScramMechanism], ScramCredential | None]
"""(user name, mechanism) -> the user's credential for it, None when it has none."""


def _listener_value(props: Mapping[str, Any], listener: str, name: str, default: Any) -> Any:
    prefixed = f"listener.name.{listener.lower()}.{name}"
    if prefixed in props:
        return props[prefixed]
    return props.get(name, default)


def sasl_listener_factory(
    props: Mapping[str, Any], listener: str, scram_credentials: ScramLookup, clock_ms: Callable[[], int]
) -> Callable[[], SaslServerAuthenticator] | None:
    """``authenticator_factory`` of a SASL_PLAINTEXT or SASL_SSL listener, None for a listener
    without SASL.

    Raises:
        ConfigError: see ``authenticator_factory``.
    """
    if listener_security_protocol(props, listener) not in SASL_PROTOCOLS:
        return None
    return authenticator_factory(props, listener, scram_credentials, clock_ms)


def enabled_mechanisms(props: Mapping[str, Any], listener: str) -> list[str]:
    """The listener's ``sasl.enabled.mechanisms`` (Kafka's default GSSAPI), in order.

    Raises:
        ConfigError: empty, or a mechanism Kafkette does not offer (GSSAPI, OAUTHBEARER, others).
    """
    value = _listener_value(props, listener, "sasl.enabled.mechanisms", "GSSAPI")
    mechanisms = [m.strip() for m in value.split(",")] if isinstance(value, str) else list(value)
    mechanisms = [m for m in mechanisms if m]
    if not mechanisms:
        raise ConfigError(
            f"Invalid value for configuration sasl.enabled.mechanisms: listener {listener} enables no "
            f"SASL mechanism"
        )
    refused = [m for m in mechanisms if m not in OFFERED]
    if refused:
        raise ConfigError(
            f"Invalid value {','.join(mechanisms)} for configuration sasl.enabled.mechanisms of listener "
            f"{listener}: {', '.join(refused)} not offered (Kafkette offers {', '.join(OFFERED)}; "
            f"Kafka's default is GSSAPI, so set it)"
        )
    return mechanisms


def login_module(props: Mapping[str, Any], listener: str, mechanism: str) -> LoginModuleEntry:
    """The server login module of ``mechanism`` on ``listener``
    (``listener.name.<listener>.<mechanism>.sasl.jaas.config``).

    Raises:
        ConfigError: missing, unparseable, or not the mechanism's login module.
    """
    key = f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config"
    text = props.get(key)
    if not text:
        raise ConfigError(
            f"Missing required configuration {key}: SASL/{mechanism} on listener {listener} needs its "
            f"server login module (Kafka reads it from this per-listener, per-mechanism key or a "
            f"static JAAS file, which Kafkette does not read)"
        )
    try:
        entries = parse_jaas_config(str(text))
    except ValueError as exc:
        raise ConfigError(f"Invalid value for configuration {key}: {exc}") from None
    expected = PLAIN_LOGIN_MODULE if mechanism == PLAIN else SCRAM_LOGIN_MODULE
    entry = next((e for e in entries if e.login_module == expected), None)
    if entry is None:
        raise ConfigError(
            f"Invalid value for configuration {key}: SASL/{mechanism} needs {expected}, found "
            f"{', '.join(e.login_module for e in entries)}"
        )
    return entry


def reauth_ms(props: Mapping[str, Any], listener: str, mechanism: str | None = None) -> int:
    """The listener's ``connections.max.reauth.ms`` in ms (0: sessions never expire), for
    ``mechanism`` when given: ``listener.name.<listener>.<mechanism>.connections.max.reauth.ms``
    first (Kafka's ``SaslChannelBuilder.createConnectionsMaxReauthMsMap``).

    Raises:
        ConfigError: not a non-negative integer.
    """
    key = f"listener.name.{listener.lower()}.{(mechanism or '').lower()}.connections.max.reauth.ms"
    if mechanism is not None and key in props:
        value = props[key]
    else:
        value = _listener_value(props, listener, "connections.max.reauth.ms", 0)
    try:
        ms = int(value)
    except (TypeError, ValueError):
        ms = -1
    if ms < 0:
        raise ConfigError(f"Invalid value {value} for configuration connections.max.reauth.ms")
    return ms


def authenticator_factory(
    props: Mapping[str, Any], listener: str, scram_credentials: ScramLookup, clock_ms: Callable[[], int]
) -> Callable[[], SaslServerAuthenticator]:
    """A maker of one ``SaslServerAuthenticator`` per connection of a SASL listener, checked now.

    Args:
        props: the broker's properties as given (``KafkaConfig.originals``).
        listener: the listener's name (``SASL_PLAINTEXT``, ``INTERNAL`` ...).
        scram_credentials: where SCRAM users' credentials are looked up (the metadata log's).
        clock_ms: monotonic clock in ms (session expiry).

    Raises:
        ConfigError: see ``enabled_mechanisms``, ``login_module`` and ``reauth_ms``.
    """
    mechanisms = enabled_mechanisms(props, listener)
    servers: dict[str, Callable[[], SaslServer]] = {}
    for mechanism in mechanisms:
        entry = login_module(props, listener, mechanism)
        if mechanism == PLAIN:
            users = dict(entry.options)
            servers[PLAIN] = lambda users=users: PlainSaslServer.from_jaas_options(users)  # type: ignore[misc]
        else:
            scram = ScramMechanism.for_name(mechanism)
            assert scram is not None
            servers[mechanism] = lambda scram=scram: ScramSaslServer(  # type: ignore[misc]
                scram, lambda user: scram_credentials(user, scram)
            )
    lifetime_ms = {mechanism: reauth_ms(props, listener, mechanism) for mechanism in mechanisms}
    max_receive = int(props.get("sasl.server.max.receive.size", DEFAULT_MAX_RECEIVE_SIZE))
    return lambda: SaslServerAuthenticator(mechanisms, servers, lifetime_ms, clock_ms, max_receive)
