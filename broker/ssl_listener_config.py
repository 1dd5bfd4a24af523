"""An SSL or SASL_SSL listener's TLS settings from the broker's properties: its TLS context and
how a connection's principal is named from its client certificate.

Owns: which listeners are TLS (``listener.security.protocol.map``: SSL and SASL_SSL), building
the client context the node's own connections to such a listener use (the inter-broker and the
controller listener, configured by the same ``listener.name.<l>.ssl.*`` properties) and
their server context (``SslFactory``: reloaded by a dynamic config update or when the PEM files
change, polled every ``ssl.store.watch.interval.ms``) and their principal maker: ``User:`` and
the client certificate's distinguished name through ``ssl.principal.mapping.rules``
(``SslPrincipalMapper``), ``User:ANONYMOUS`` without a client certificate, and a connection whose
DN no rule maps refused (logged with Kafka's "No rules apply to ..." message).  Does not own the
listener (``SocketServer``) nor SASL (``sasl_listener_config``).

Kafka concept: ``ChannelBuilders`` / ``SslChannelBuilder``, ``DefaultKafkaPrincipalBuilder``
(SSL principals, KIP-371).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping
from typing import Any

from kafkette.common.config_def import ConfigError
from kafkette.common.security.listener_ssl_factory import SslFactory
from kafkette.common.security.security_protocol_map import TLS_PROTOCOLS, listener_security_protocol
from kafkette.common.security.ssl_factory import (
    distinguished_name,
    listener_config,
    ssl_client_context,
)
from kafkette.common.security.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper

logger = logging.getLogger(__name__)

ANONYMOUS = "User:ANONYMOUS"
STORE_WATCH_INTERVAL_CONFIG = "ssl.store.watch.interval.ms"
"""Kafkette's (Kafka has none): how often a TLS listener polls its PEM store files for a change."""
STORE_WATCH_INTERVAL_DEFAULT_MS = 5000


def ssl_listener_options(props: Mapping[str, Any], listener: str) -> dict[str, Any] | None:
    """``SocketServer``'s ``ssl_factory`` (the reloadable TLS context, ``SslFactory``),
    ``ssl_store_watch_interval_ms`` and ``ssl_principal`` for an SSL or SASL_SSL listener, checked
    now; None for a listener without TLS.

    Raises:
        ConfigError: a bad ``ssl.*`` setting (named: see ``ssl_server_context``) or
            ``ssl.principal.mapping.rules`` Kafka would not parse.
    """
    if listener_security_protocol(props, listener) not in TLS_PROTOCOLS:
        return None
    factory = SslFactory(props, listener)
    rules = listener_config(props, listener, "ssl.principal.mapping.rules")
    try:
        mapper = SslPrincipalMapper(None if rules is None else str(rules))
    except ValueError as exc:
        raise ConfigError(
            f"Invalid value {rules} for configuration ssl.principal.mapping.rules: {exc}"
        ) from None

    def principal(certificate: bytes | None) -> str | None:
        if not certificate:
            return ANONYMOUS
        try:
            return "User:" + mapper.name(distinguished_name(certificate))
        except (NoMatchingRule, ValueError) as exc:
            logger.warning("[SslChannelBuilder listener=%s] Failed authentication: %s", listener, exc)
            return None

    watch_ms = int(props.get(STORE_WATCH_INTERVAL_CONFIG, STORE_WATCH_INTERVAL_DEFAULT_MS))
    return {"ssl_factory": factory, "ssl_store_watch_interval_ms": watch_ms, "ssl_principal": principal}


def ssl_client_context_for(props: Mapping[str, Any], listener: str) -> ssl.SSLContext | None:
    """The client TLS context this node's own connections to ``listener`` use (replica fetchers
    and the controller's requests to the inter-broker listener, the quorum's and the brokers'
    requests to the controller listener), from the same ``listener.name.<listener>.ssl.*`` /
    ``ssl.*`` properties as the listener's server side, as a Kafka broker configures its clients;
    None when ``listener`` is not SSL or SASL_SSL.

    Raises:
        ConfigError: a bad ``ssl.*`` setting (named: see ``ssl_client_context``).
    """
    if listener_security_protocol(props, listener) not in TLS_PROTOCOLS:
        return None
    return ssl_client_context(props, listener)
