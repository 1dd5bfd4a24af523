"""How this node's own connections secure themselves: the inter-broker and the controller listener's
TLS and SASL, as a Kafka broker configures its inter-broker clients.

Owns: ``client_security_for``: the client TLS context of a TLS listener (its ``ssl.*`` trust and
key stores, ``ssl_listener_config``) and, for a SASL listener, the login the node makes there: the
mechanism of ``sasl.mechanism.inter.broker.protocol`` / ``sasl.mechanism.controller.protocol``
(Kafka's default GSSAPI is not offered, so a SASL listener the node itself uses names PLAIN or
SCRAM) with the ``username`` and ``password`` of that listener's login module for it
(``listener.name.<l>.<mechanism>.sasl.jaas.config``).  Does not own the listeners' server side.

Kafka concept: ``KafkaConfig``'s inter-broker security settings, ``ChannelBuilders`` for the
broker's clients (``BrokerToControllerChannelManager``, ``ReplicaFetcherBlockingSend``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkette.broker.sasl_listener_config import enabled_mechanisms, login_module
from kafkette.broker.ssl_listener_config import ssl_client_context_for
from kafkette.common.config_def import ConfigError
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.security.sasl_client import sasl_client
from kafkette.common.security.security_protocol_map import SASL_PROTOCOLS, listener_security_protocol

INTER_BROKER_MECHANISM_CONFIG = "sasl.mechanism.inter.broker.protocol"
CONTROLLER_MECHANISM_CONFIG = "sasl.mechanism.controller.protocol"


def client_security_for(props: Mapping[str, Any], listener: str, mechanism_config: str) -> ClientSecurity:
    """The TLS and SASL of this node's connections to ``listener``.

    Args:
        props: the node's properties as given (``KafkaConfig.originals``).
        listener: the listener the connections go to (inter-broker or controller).
        mechanism_config: ``sasl.mechanism.inter.broker.protocol`` or
            ``sasl.mechanism.controller.protocol``: which mechanism the node logs in with.

    Returns:
        A ``ClientSecurity``: no TLS unless the listener is SSL or SASL_SSL, no SASL unless it is
        SASL_PLAINTEXT or SASL_SSL.

    Raises:
        ConfigError: a bad ``ssl.*`` setting; for a SASL listener, a mechanism not among the
            listener's ``sasl.enabled.mechanisms`` (Kafka's message), or a login module without a
            ``username`` and ``password`` for the node to log in with; each names the setting.
    """
    ssl_context = ssl_client_context_for(props, listener)
    if listener_security_protocol(props, listener) not in SASL_PROTOCOLS:
        return ClientSecurity(ssl_context)
    mechanism = str(props.get(mechanism_config) or "GSSAPI")
    if mechanism not in enabled_mechanisms(props, listener):
        raise ConfigError(
            f"{mechanism_config} must be included in sasl.enabled.mechanisms when SASL is used for "
            f"{'inter-broker' if mechanism_config == INTER_BROKER_MECHANISM_CONFIG else 'controller'} "
            f"communication (listener {listener} enables {','.join(enabled_mechanisms(props, listener))}; "
            f"{mechanism_config} is {mechanism})"
        )
    entry = login_module(props, listener, mechanism)
    username, password = entry.options.get("username"), entry.options.get("password")
    if username is None or password is None:
        key = f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config"
        raise ConfigError(
            f"Invalid value for configuration {key}: the node logs in to listener {listener} with "
            f"{mechanism}, so its login module needs the username and password options"
        )
    return ClientSecurity(ssl_context, lambda: sasl_client(mechanism, username, password))
