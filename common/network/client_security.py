"""ClientSecurity: how one client connection secures itself (TLS, SASL, both or neither).

Owns: the pair a connection needs from Kafka's ``security.protocol`` and its settings: the client
TLS context (``SSL`` / ``SASL_SSL``) and the maker of the SASL exchange run right after connecting
(``SASL_PLAINTEXT`` / ``SASL_SSL``: a fresh ``SaslClient`` per connection, since a SCRAM exchange
has state).  Does not own reading the settings (the broker's ``KafkaConfig``, the SDK's
``KafkaClient``) nor the exchange itself (``sasl_client.sasl_authenticate``).

Kafka concept: what ``ChannelBuilders.clientChannelBuilder`` makes of a client's
``security.protocol`` (``SslChannelBuilder`` / ``SaslChannelBuilder``).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.common.security.sasl_client import SaslClient


@dataclass(frozen=True)
class ClientSecurity:
    """A connection's security.

    Attributes:
        ssl_context: the client TLS context; None: no TLS.
        sasl: makes the ``SaslClient`` of one connection's login; None: no SASL.
    """

    ssl_context: ssl.SSLContext | None = None
    sasl: Callable[[], SaslClient] | None = None

    @property
    def security_protocol(self) -> str:
        """Kafka's name for it: ``PLAINTEXT``, ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``."""
        if self.sasl is None:
            return "PLAINTEXT" if self.ssl_context is None else "SSL"
        return "SASL_PLAINTEXT" if self.ssl_context is None else "SASL_SSL"


PLAINTEXT = ClientSecurity()
"""No TLS, no SASL."""
