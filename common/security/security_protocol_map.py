"""Which security protocol a listener speaks: Kafka's ``listener.security.protocol.map``.

Owns: reading the map (Kafka's default map when unset) and the protocol of a listener name.
Used by the broker (which listeners are TLS or SASL) and by the SDK's ``LocalCluster`` (how to
reach the brokers' listener it configured).  Does not own the TLS or SASL settings themselves.

Kafka concept: ``KafkaConfig.effectiveListenerSecurityProtocolMap``, ``SecurityProtocol``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KAFKA_DEFAULT_SECURITY_PROTOCOL_MAP = (
    "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"
)
TLS_PROTOCOLS = frozenset({"SSL", "SASL_SSL"})
SASL_PROTOCOLS = frozenset({"SASL_PLAINTEXT", "SASL_SSL"})


def listener_security_protocol(props: Mapping[str, Any], listener: str) -> str:
    """The security protocol ``listener.security.protocol.map`` (Kafka's default map) gives
    ``listener`` (upper case: ``PLAINTEXT``, ``SSL``, ``SASL_PLAINTEXT``, ``SASL_SSL``); a listener
    it does not name is PLAINTEXT.

    Args:
        props: broker (or LocalCluster broker) properties, ``{name: value}``.
        listener: the listener's name.
    """
    text = props.get("listener.security.protocol.map") or KAFKA_DEFAULT_SECURITY_PROTOCOL_MAP
    pairs = (item.split(":", 1) for item in str(text).split(",") if ":" in item)
    return {name.strip().upper(): protocol.strip().upper() for name, protocol in pairs}.get(
        listener.upper(), "PLAINTEXT"
    )
