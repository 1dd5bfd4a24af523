"""The broker's side of a SASL exchange for PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802,
RFC 7677), as Kafka's SaslServers answer.

Owns: ``evaluate_response`` for each mechanism (the client's token in, the server's token out),
the authenticated user once complete, and which failures tell the client why
(``SaslAuthenticationError``, Kafka's ``SaslAuthenticationException``: its message goes to the
client) and which do not (any other failure: the client gets only ``failure_message``, so an
answer never says whether a user exists).  The SCRAM arithmetic is the ``scramp`` library's.
Does not own the Kafka requests that carry the tokens (SaslHandshake, SaslAuthenticate), where
credentials come from, nor the principal built from the user.

Kafka concept: ``PlainSaslServer`` with ``PlainServerCallbackHandler`` (``user_<name>`` options of
the listener's JAAS config), ``ScramSaslServer`` with ``ScramServerCallbackHandler``, and
``SaslServerAuthenticator``'s error answers.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Protocol

import scramp

from kafkette.common.security.scram_credential import (
    ScramCredential,
    ScramMechanism,
    username_from_sasl_name,
)

PLAIN = "PLAIN"


class SaslAuthenticationError(Exception):
    """A failed exchange whose message is sent to the client (Kafka's SaslAuthenticationException)."""


class SaslError(Exception):
    """A failed exchange whose message is kept from the client (Kafka's SaslException): the client
    gets ``failure_message`` instead."""


def failure_message(mechanism: str, reauthenticating: bool = False) -> str:
    """What the client is told of a ``SaslError`` (Kafka's ``SaslServerAuthenticator`` text)."""
    what = "re-authentication" if reauthenticating else "authentication"
    return f"Authentication failed during {what} due to invalid credentials with SASL mechanism {mechanism}"


class SaslServer(Protocol):
    """One exchange of one mechanism."""

    mechanism: str

    def evaluate_response(self, response: bytes) -> bytes:
        """The server's answer to the client's token.

        Raises:
            SaslAuthenticationError: the exchange failed; tell the client why.
            SaslError: the exchange failed; tell the client only ``failure_message``.
        """

    @property
    def complete(self) -> bool:
        """True once the client is authenticated."""

    @property
    def authorization_id(self) -> str:
        """The authenticated user's name (only once complete)."""


class _Exchange:
    """What every mechanism's exchange answers once done: ``_user`` is set when it completes."""

    _user: str | None = None

    @property
    def complete(self) -> bool:
        return self._user is not None

    @property
    def authorization_id(self) -> str:
        if self._user is None:
            raise RuntimeError("Authentication exchange has not completed")
        return self._user


class PlainSaslServer(_Exchange):
    """SASL/PLAIN against the ``user_<name>="<password>"`` options of a JAAS config.

    Args:
        users: user name -> password.
    """

    mechanism = PLAIN

    def __init__(self, users: Mapping[str, str]) -> None:
        self._users = dict(users)
        self._user: str | None = None

    @classmethod
    def from_jaas_options(cls, options: Mapping[str, str]) -> PlainSaslServer:
        """A server for the users of a PlainLoginModule entry's options (``user_alice="secret"``)."""
        return cls({k[len("user_") :]: v for k, v in options.items() if k.startswith("user_")})

    def evaluate_response(self, response: bytes) -> bytes:
        """Check ``[authzid] NUL authcid NUL passwd``; answers an empty token.

        Raises:
            SaslAuthenticationError: with Kafka's messages (no user name, no password, invalid
                user name or password, another authorization id, not 3 tokens).
        """
        text = response.decode("utf-8", errors="replace")
        tokens = text.split("\x00", 3)
        if len(tokens) != 3:
            raise SaslAuthenticationError(
                f"Invalid SASL/PLAIN response: expected 3 tokens, got {min(len(tokens), 4)}"
            )
        authzid, username, password = tokens
        if not username:
            raise SaslAuthenticationError("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationError("Authentication failed: password not specified")
        expected = self._users.get(username)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslAuthenticationError("Authentication failed: Invalid username or password")
        if authzid and authzid != username:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        self._user = username
        return b""


class ScramSaslServer(_Exchange):
    """SASL/SCRAM-SHA-256 or -512: client-first, server-first, client-final, server-final.

    Args:
        mechanism: which SCRAM.
        credentials: user name -> its credential for this mechanism, None when it has none.
        server_nonce: the server's part of the nonce; random (the library's) when None.
    """

    def __init__(
        self,
        mechanism: ScramMechanism,
        credentials: Callable[[str], ScramCredential | None],
        server_nonce: str | None = None,
    ) -> None:
        self.mechanism = mechanism.mechanism_name
        self._scram = mechanism
        self._credentials = credentials
        self._server = scramp.ScramMechanism(mechanism.mechanism_name).make_server(
            self._auth_info, s_nonce=server_nonce
        )
        self._user: str | None = None
        self._candidate: str | None = None
        self._step = 0

    def _auth_info(self, sasl_name: str) -> tuple[bytes, bytes, bytes, int]:
        try:
            username = username_from_sasl_name(sasl_name)
        except ValueError as exc:
            raise SaslError(str(exc)) from None
        credential = self._credentials(username)
        if credential is None:
            raise SaslError("Authentication failed: Invalid user credentials")
        if credential.iterations < self._scram.min_iterations:
            raise SaslError(
                f"Iterations {credential.iterations} is less than the minimum "
                f"{self._scram.min_iterations} for {self.mechanism}"
            )
        self._candidate = username
        return credential.salt, credential.stored_key, credential.server_key, credential.iterations

    def evaluate_response(self, response: bytes) -> bytes:
        """The next SCRAM message.

        Raises:
            SaslAuthenticationError: another authorization id than the user name (Kafka's message).
            SaslError: anything else (malformed message, unknown user, wrong proof, a third token).
        """
        try:
            text = response.decode("utf-8")
        except UnicodeDecodeError:
            raise SaslError("SCRAM message is not UTF-8") from None
        try:
            if self._step == 0:
                self._step = 1
                self._check_authzid(text)
                self._server.set_client_first(text)
                return self._server.get_server_first().encode()
            if self._step == 1:
                self._step = 2
                self._server.set_client_final(text)
                answer = self._server.get_server_final().encode()
                self._user = self._candidate
                return answer
        except (SaslError, SaslAuthenticationError):
            raise
        except scramp.ScramException as exc:
            raise SaslError(f"SCRAM exchange failed: {exc}") from None
        raise SaslError(f"Unexpected challenge in Sasl server state {self._step}")

    @staticmethod
    def _check_authzid(client_first: str) -> None:
        """``n,a=<authzid>,n=<user>,...``: an authorization id must name the user itself."""
        parts = client_first.split(",", 3)
        if len(parts) < 3 or not parts[1].startswith("a="):
            return
        authzid = parts[1][2:]
        user = parts[2][2:] if parts[2].startswith("n=") else ""
        if authzid and authzid != user:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
