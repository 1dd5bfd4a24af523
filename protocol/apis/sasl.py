"""SaslHandshake (key 17) and SaslAuthenticate (key 36): the SASL exchange of a connection to a
SASL listener, before any other request (KIP-43, KIP-152; SaslAuthenticate v1's session lifetime
for re-authentication, KIP-368).

Declared once, in Kafka's versions (SaslHandshake 0-1, never flexible; SaslAuthenticate 0-2,
flexible from 2), for both listeners.  On a connection that is not authenticating (a listener
without SASL, or after the exchange) Kafka's ``KafkaApis`` answers both ILLEGAL_SASL_STATE.
Kafka concept: ``SaslHandshakeRequest``/``SaslHandshakeResponse``,
``SaslAuthenticateRequest``/``SaslAuthenticateResponse``.
"""

from kafkette.protocol.schema import Array, Bytes, Field, Int16, Int64, String, Struct


class SaslHandshakeRequest(Struct):
    """The mechanism the client chose (``PLAIN``, ``SCRAM-SHA-256`` ...)."""

    FIELDS = (Field("mechanism", String),)


class SaslHandshakeResponse(Struct):
    """NONE, or UNSUPPORTED_SASL_MECHANISM / ILLEGAL_SASL_STATE; the mechanisms the listener enables."""

    FIELDS = (
        Field("error_code", Int16),
        Field("mechanisms", Array(String)),
    )


class SaslAuthenticateRequest(Struct):
    """One token of the exchange, as the mechanism defines it."""

    FIELDS = (Field("auth_bytes", Bytes),)


class SaslAuthenticateResponse(Struct):
    """The server's token; ``session_lifetime_ms`` (v1+): after it the connection must
    re-authenticate before any other request (0: no limit, ``connections.max.reauth.ms`` unset)."""

    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),  # "" when not set, as Kafka's success answer
        Field("auth_bytes", Bytes),
        Field("session_lifetime_ms", Int64, "1+", 0),
    )
