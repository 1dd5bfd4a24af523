"""The client's side of SASL: PLAIN and SCRAM-SHA-256/512 tokens, and the SaslHandshake v1 +
SaslAuthenticate exchange over any connection that can send a request and await its answer
(KIP-152).

Owns: the tokens a client sends (``PlainSaslClient``, ``ScramSaslClient``; ``scramp`` does the
SCRAM arithmetic and checks the server's signature), the login a client config names
(``sasl.jaas.config``'s ``username`` / ``password``, or aiokafka's ``sasl_plain_username`` /
``sasl_plain_password``), and ``sasl_authenticate``: the handshake, the tokens until the
mechanism completes, and the errors Kafka's clients raise (UNSUPPORTED_SASL_MECHANISM,
SASL_AUTHENTICATION_FAILED with the broker's message).  Does not own the connection.

Kafka concept: ``SaslClientAuthenticator`` (its ``SEND_HANDSHAKE_REQUEST`` ... ``COMPLETE``
states), ``PlainLoginModule`` / ``ScramLoginModule`` options, ``ScramSaslClient``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import scramp

from kafkette.common.security.jaas_config import parse_jaas_config
from kafkette.common.security.sasl_server import PLAIN
from kafkette.common.security.scram_credential import ScramMechanism
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafkette.protocol.errors import Errors, error_class

HANDSHAKE_VERSION = 1
AUTHENTICATE_VERSION = 2


class SaslClient(Protocol):
    """One exchange of one mechanism, on the client's side."""

    mechanism: str

    def next_token(self, challenge: bytes | None) -> bytes | None:
        """The token to send after ``challenge`` (None first), None when there is nothing more to send.

        Raises:
            ValueError: the server's token is wrong (a forged SCRAM signature).
        """


class PlainSaslClient:
    """SASL/PLAIN: one token, ``NUL user NUL password``."""

    mechanism = PLAIN

    def __init__(self, username: str, password: str) -> None:
        self._token: bytes | None = b"\x00" + username.encode() + b"\x00" + password.encode()

    def next_token(self, challenge: bytes | None) -> bytes | None:
        token, self._token = self._token, None
        return token


class ScramSaslClient:
    """SASL/SCRAM-SHA-256 or -512: client-first, then client-final, then the server's signature checked."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str) -> None:
        self.mechanism = mechanism.mechanism_name
        self._client = scramp.ScramClient([mechanism.mechanism_name], username, password)
        self._step = 0

    def next_token(self, challenge: bytes | None) -> bytes | None:
        self._step += 1
        try:
            if self._step == 1:
                return self._client.get_client_first().encode()
            if self._step == 2:
                assert challenge is not None
                self._client.set_server_first(challenge.decode())
                return self._client.get_client_final().encode()
            if self._step == 3:
                assert challenge is not None
                self._client.set_server_final(challenge.decode())
                return None
        except scramp.ScramException as exc:
            raise ValueError(f"SCRAM exchange failed: {exc}") from None
        return None


def sasl_client(mechanism: str, username: str, password: str) -> SaslClient:
    """The client of ``mechanism`` for this login.

    Raises:
        ValueError: a mechanism other than PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.
    """
    if mechanism == PLAIN:
        return PlainSaslClient(username, password)
    scram = ScramMechanism.for_name(mechanism)
    if scram is None:
        raise ValueError(
            f"Invalid value {mechanism} for configuration sasl.mechanism: PLAIN, SCRAM-SHA-256 or "
            f"SCRAM-SHA-512"
        )
    return ScramSaslClient(scram, username, password)


def login_from_jaas(text: str) -> tuple[str, str]:
    """The ``username`` and ``password`` of a client's ``sasl.jaas.config``.

    Raises:
        ValueError: unparseable, or without a username or password.
    """
    entry = parse_jaas_config(text)[0]
    try:
        return entry.options["username"], entry.options["password"]
    except KeyError as exc:
        raise ValueError(f"sasl.jaas.config has no {exc.args[0]} option") from None


Send = Callable[[int, int, Any], Awaitable[Any]]
"""(api key, api version, request) -> the answer."""


async def sasl_authenticate(send: Send, client: SaslClient) -> int:
    """Authenticate a fresh connection, or re-authenticate one whose session is ending (KIP-368):
    SaslHandshake v1 naming the mechanism, then SaslAuthenticate v2 tokens until the mechanism is
    done.

    Returns:
        The session lifetime the broker gave (``session_lifetime_ms`` of its last answer, ms; 0:
        the session does not expire): the client re-authenticates before it ends.

    Raises:
        UnsupportedSaslMechanismError: the listener does not enable the mechanism (its list named).
        SaslAuthenticationFailedError: the broker refused the login (its message kept).
        IllegalSaslStateError: the listener is not a SASL one, or answered out of turn.
        ValueError: the broker's SCRAM signature did not check out.
    """
    shake = await send(
        ApiKey.SASL_HANDSHAKE, HANDSHAKE_VERSION, SaslHandshakeRequest(mechanism=client.mechanism)
    )
    if shake.error_code == Errors.UNSUPPORTED_SASL_MECHANISM:
        raise error_class(shake.error_code)(
            f"Client SASL mechanism '{client.mechanism}' not enabled in the server, enabled mechanisms are "
            f"{list(shake.mechanisms)}"
        )
    if shake.error_code != Errors.NONE:
        raise error_class(shake.error_code)(f"SaslHandshake refused: {Errors(shake.error_code).name}")
    token = client.next_token(None)
    lifetime_ms = 0
    while token is not None:
        answer = await send(
            ApiKey.SASL_AUTHENTICATE, AUTHENTICATE_VERSION, SaslAuthenticateRequest(auth_bytes=token)
        )
        if answer.error_code != Errors.NONE:
            raise error_class(answer.error_code)(answer.error_message or Errors(answer.error_code).name)
        lifetime_ms = int(answer.session_lifetime_ms or 0)
        token = client.next_token(bytes(answer.auth_bytes))
    return lifetime_ms
