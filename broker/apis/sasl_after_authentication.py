"""SaslHandshake and SaslAuthenticate handlers for a connection that is not authenticating: a
listener without SASL, or a SASL connection past its exchange (the exchange itself is answered
by the connection's authenticator before requests reach the handlers).  Both are refused
ILLEGAL_SASL_STATE, SaslAuthenticate with Kafka's message.

Kafka concept: ``KafkaApis.handleSaslHandshakeRequest`` / ``handleSaslAuthenticateRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

AFTER_AUTHENTICATION = "SaslAuthenticate request received after successful authentication"


async def handle_handshake(
    ctx: ApisContext, header: RequestHeader, request: SaslHandshakeRequest
) -> SaslHandshakeResponse:
    """ILLEGAL_SASL_STATE, no mechanisms."""
    return SaslHandshakeResponse(error_code=Errors.ILLEGAL_SASL_STATE, mechanisms=[])


async def handle_authenticate(
    ctx: ApisContext, header: RequestHeader, request: SaslAuthenticateRequest
) -> SaslAuthenticateResponse:
    """ILLEGAL_SASL_STATE with Kafka's message, no token, no session lifetime."""
    return SaslAuthenticateResponse(
        error_code=Errors.ILLEGAL_SASL_STATE,
        error_message=AFTER_AUTHENTICATION,
        auth_bytes=b"",
        session_lifetime_ms=0,
    )
