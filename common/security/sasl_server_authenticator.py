"""SaslServerAuthenticator: the SASL exchange a connection to a SASL listener goes through before
any other request, and again when its session expires (KIP-152, KIP-368).

Owns the connection's authentication state: which requests are allowed in each state (ApiVersions
and SaslHandshake first, then SaslAuthenticate tokens), the handshake's answer (the listener's
enabled mechanisms; UNSUPPORTED_SASL_MECHANISM for another), each token's evaluation by the
mechanism's ``SaslServer``, the answers to failures (SASL_AUTHENTICATION_FAILED with the message
Kafka gives, ILLEGAL_SASL_STATE for a request out of turn during the exchange; a request out of
turn before the handshake is closed unanswered, as Kafka does) after which the connection is closed,
the authenticated principal (``User:<name>``) and the session's expiry with
``connections.max.reauth.ms`` (a v1+ client re-authenticates on the same connection; once the
session is over, any other request closes it).  Does not own reading or writing frames (the
socket server asks ``intercept`` about each decoded request), the mechanisms' arithmetic
(``sasl_server``) nor where credentials come from (the factories given).

Kafka concept: ``org.apache.kafka.common.security.authenticator.SaslServerAuthenticator`` (its
``SaslState`` and ``ReauthInfo``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kafkette.common.security.sasl_server import (
    SaslAuthenticationError,
    SaslError,
    SaslServer,
    failure_message,
)
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)

ANONYMOUS = "User:ANONYMOUS"


class SaslState(enum.Enum):
    """Kafka's ``SaslServerAuthenticator.SaslState`` (the states a Kafka-framed client meets)."""

    INITIAL_REQUEST = "INITIAL_REQUEST"  # ApiVersions or SaslHandshake
    HANDSHAKE_REQUEST = "HANDSHAKE_REQUEST"  # after ApiVersions: SaslHandshake
    AUTHENTICATE = "AUTHENTICATE"  # SaslAuthenticate tokens
    REAUTH_BAD_MECHANISM = "REAUTH_BAD_MECHANISM"  # re-authentication asked another mechanism
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


@dataclass(frozen=True)
class Intercepted:
    """What the connection does with a request during authentication.

    Attributes:
        response: the answer to send (None: ``error_code``'s answer, or none at all).
        error_code: with ``response`` None, the code of the request's whole-request error answer;
            both None: nothing is answered.
        error_message: that answer's message.
        close: close the connection once the answer is written.
    """

    response: Struct | None = None
    error_code: Errors | None = None
    error_message: str | None = None
    close: bool = False


DEFAULT_MAX_RECEIVE_SIZE = 524288
"""``sasl.server.max.receive.size``'s default (bytes): the largest frame read before authentication."""

PASS = None
"""``intercept``'s answer for a request the broker's handlers take as usual."""


class SaslServerAuthenticator:
    """One connection's SASL authentication.

    Args:
        mechanisms: the listener's enabled mechanisms (``sasl.enabled.mechanisms``), in order.
        servers: mechanism -> a factory of a fresh ``SaslServer`` for one exchange.
        reauth_ms: ``connections.max.reauth.ms`` in ms, one for every mechanism or by mechanism
            (``listener.name.<l>.<mechanism>.connections.max.reauth.ms`` first); 0 or absent: the
            sessions of that mechanism never expire.
        clock_ms: monotonic clock in ms.

    A session expires ``connections.max.reauth.ms`` after its authentication ended, whatever the
    client's SaslAuthenticate version (a v0 client, which cannot re-authenticate, is closed then,
    as KIP-368 says); a v1+ client is told the lifetime (``session_lifetime_ms``) and may
    re-authenticate on the same connection (SaslHandshake then SaslAuthenticate again) with the
    same mechanism and principal, which starts a new session.
    """

    def __init__(
        self,
        mechanisms: Sequence[str],
        servers: Mapping[str, Callable[[], SaslServer]],
        reauth_ms: int | Mapping[str, int],
        clock_ms: Callable[[], int],
        max_receive_size: int = DEFAULT_MAX_RECEIVE_SIZE,
    ) -> None:
        self.mechanisms = list(mechanisms)
        self.max_receive_size = max_receive_size
        self._servers = dict(servers)
        self._reauth_ms_by_mechanism = (
            dict(reauth_ms) if isinstance(reauth_ms, Mapping) else dict.fromkeys(self.mechanisms, reauth_ms)
        )
        self._mechanism: str | None = None
        self._bad_mechanism_message = ""
        self._clock_ms = clock_ms
        self.state = SaslState.INITIAL_REQUEST
        self.principal = ANONYMOUS
        self._server: SaslServer | None = None
        self._session_expires_ms: int | None = None
        self._reauthenticating = False
        self._supports_reauth = False

    @property
    def authenticated(self) -> bool:
        """True once an exchange completed (and the connection is not re-authenticating)."""
        return self.state is SaslState.COMPLETE

    def intercept(self, api_key: int, api_version: int, request: Struct | None) -> Intercepted | None:
        """What to do with one decoded request.

        Args:
            api_key / api_version: the request's.
            request: the decoded request body.

        Returns:
            ``PASS`` (None) when the broker's handlers take it (ApiVersions before authentication,
            any request after it), else what to answer and whether to close.
        """
        if self.state is SaslState.COMPLETE:
            # Kafka's KafkaChannel.maybeBeginServerReauthentication: no session expiry
            # (connections.max.reauth.ms unset), no re-authentication; KafkaApis answers the
            # handshake ILLEGAL_SASL_STATE
            if (
                api_key == ApiKey.SASL_HANDSHAKE
                and self._supports_reauth
                and self._session_expires_ms is not None
            ):
                self._reauthenticating = True
                self.state = SaslState.HANDSHAKE_REQUEST
                return self._handshake(api_version, request)
            if self._expired():
                logger.info(
                    "Closing connection of %s: its SASL session expired (connections.max.reauth.ms=%d) "
                    "before it re-authenticated",
                    self.principal,
                    self._reauth_ms_by_mechanism.get(self._mechanism or "", 0),
                )
                return Intercepted(close=True)  # closed unanswered, as Kafka's SocketServer does
            return PASS
        if self.state is SaslState.FAILED:
            return Intercepted(error_code=Errors.ILLEGAL_SASL_STATE, close=True)
        if api_key == ApiKey.API_VERSIONS and self.state is SaslState.INITIAL_REQUEST:
            self.state = SaslState.HANDSHAKE_REQUEST
            return PASS
        if api_key == ApiKey.SASL_HANDSHAKE and self.state in (
            SaslState.INITIAL_REQUEST,
            SaslState.HANDSHAKE_REQUEST,
        ):
            return self._handshake(api_version, request)
        if api_key == ApiKey.SASL_AUTHENTICATE and self.state is SaslState.AUTHENTICATE:
            return self._authenticate(api_version, request)
        if api_key == ApiKey.SASL_AUTHENTICATE and self.state is SaslState.REAUTH_BAD_MECHANISM:
            return self._failed(self._bad_mechanism_message)
        if self.state is not SaslState.AUTHENTICATE:
            # Kafka's handleKafkaRequest throws IllegalSaslStateException ("Unexpected Kafka request of
            # type ... during SASL handshake.") with no answer built: the connection is closed unanswered
            logger.info(
                "Closing connection: unexpected Kafka request of type %s during SASL handshake",
                _api_name(api_key),
            )
            self.state = SaslState.FAILED
            return Intercepted(close=True)
        self.state = SaslState.FAILED
        return Intercepted(
            error_code=Errors.ILLEGAL_SASL_STATE,
            error_message=(
                f"Unexpected Kafka request of type {_api_name(api_key)} during SASL authentication."
            ),
            close=True,
        )

    def _handshake(self, version: int, request: Struct | None) -> Intercepted:
        mechanism = getattr(request, "mechanism", "")
        assert isinstance(request, SaslHandshakeRequest)
        factory = self._servers.get(mechanism) if mechanism in self.mechanisms else None
        if factory is None:
            self.state = SaslState.FAILED
            logger.info("SASL handshake refused: unsupported mechanism %r", mechanism)
            return Intercepted(
                SaslHandshakeResponse(
                    error_code=Errors.UNSUPPORTED_SASL_MECHANISM, mechanisms=self.mechanisms
                ),
                close=True,
            )
        if version == 0:
            # v0 would be followed by raw SASL tokens without Kafka's framing (pre-KIP-152 clients)
            self.state = SaslState.FAILED
            return Intercepted(
                SaslHandshakeResponse(error_code=Errors.UNSUPPORTED_VERSION, mechanisms=self.mechanisms),
                close=True,
            )
        if self._reauthenticating and mechanism != self._mechanism:
            # answered, then the next SaslAuthenticate is refused (Kafka's REAUTH_BAD_MECHANISM)
            self._bad_mechanism_message = (
                f"SASL mechanism '{mechanism}' requested by client is not supported for re-authentication "
                f"of mechanism '{self._mechanism}'"
            )
            self.state = SaslState.REAUTH_BAD_MECHANISM
        else:
            self._mechanism = mechanism
            self._server = factory()
            self.state = SaslState.AUTHENTICATE
        return Intercepted(SaslHandshakeResponse(error_code=Errors.NONE, mechanisms=self.mechanisms))

    def _authenticate(self, version: int, request: Struct | None) -> Intercepted:
        assert isinstance(request, SaslAuthenticateRequest) and self._server is not None
        if version > 0:
            self._supports_reauth = True
        server = self._server
        try:
            token = server.evaluate_response(bytes(request.auth_bytes))
        except SaslAuthenticationError as exc:
            return self._failed(str(exc))
        except SaslError as exc:
            logger.info("SASL/%s authentication failed: %s", server.mechanism, exc)
            return self._failed(failure_message(server.mechanism, self._reauthenticating))
        lifetime_ms = 0
        if server.complete:
            principal = f"User:{server.authorization_id}"
            if self._reauthenticating and principal != self.principal:
                before, after = (p.replace(":", ".", 1) for p in (self.principal, principal))
                return self._failed(
                    f"Cannot change principals during re-authentication from {before}: {after}"
                )
            self.principal = principal
            self.state = SaslState.COMPLETE
            self._reauthenticating = False
            reauth_ms = self._reauth_ms_by_mechanism.get(server.mechanism, 0)
            if reauth_ms > 0:  # Kafka's ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs
                lifetime_ms = reauth_ms
                self._session_expires_ms = self._clock_ms() + lifetime_ms
        return Intercepted(
            SaslAuthenticateResponse(
                error_code=Errors.NONE, auth_bytes=token, session_lifetime_ms=lifetime_ms
            )
        )

    def _failed(self, message: str) -> Intercepted:
        self.state = SaslState.FAILED
        return Intercepted(
            SaslAuthenticateResponse(
                error_code=Errors.SASL_AUTHENTICATION_FAILED, error_message=message, auth_bytes=b""
            ),
            close=True,
        )

    def _expired(self) -> bool:
        return self._session_expires_ms is not None and self._clock_ms() >= self._session_expires_ms


def _api_name(api_key: int) -> str:
    try:
        return ApiKey(api_key).name
    except ValueError:
        return str(api_key)
