"""The AdminClient's SCRAM user calls: DescribeUserScramCredentials and AlterUserScramCredentials
(KIP-554).

Owns: ``ScramAdminCalls`` (the two calls, mixed into ``kafkette.client.admin.AdminClient``) and
Kafka's value types for them: ``ScramCredentialInfo``, ``UserScramCredentialUpsertion`` and
``UserScramCredentialDeletion``.  An upsertion's password never leaves the client: as Kafka's
AdminClient does, the client draws a random salt and sends the salted password (PBKDF2 of the
password, ``kafkette.common.security.scram_credential.salted_password``).  Alterations reach the
active controller; descriptions are answered by any broker from the credentials it holds, so a
change shows there once the controller has sent it.  Does not own the mechanisms
(``ScramMechanism``) nor the SASL exchange.

Kafka concept: ``Admin.describeUserScramCredentials``, ``Admin.alterUserScramCredentials``,
``ScramCredentialInfo``, ``UserScramCredentialUpsertion``, ``UserScramCredentialDeletion``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafkette.common.security.scram_credential import ScramMechanism, salted_password
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
    ScramUserName,
)
from kafkette.protocol.errors import Errors, KafkaError, error_class

__all__ = [
    "ScramAdminCalls",
    "ScramCredentialInfo",
    "ScramMechanism",
    "UserScramCredentialDeletion",
    "UserScramCredentialUpsertion",
]

SALT_BYTES = 32
"""Bytes of the random salt drawn for each upsertion."""


@dataclass(frozen=True)
class ScramCredentialInfo:
    """One mechanism a user has a credential for, with its PBKDF2 iteration count."""

    mechanism: ScramMechanism
    iterations: int


@dataclass(frozen=True)
class UserScramCredentialUpsertion:
    """Set ``user``'s credential for ``mechanism`` from ``password`` (UTF-8) over ``iterations``
    PBKDF2 rounds (Kafka's default 4096; 4096..16384 for both mechanisms); ``salt`` is drawn at
    random when None.  The password is not shown by ``repr``."""

    user: str
    mechanism: ScramMechanism
    iterations: int = 4096
    password: str = field(default="", repr=False)
    salt: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class UserScramCredentialDeletion:
    """Remove ``user``'s credential for ``mechanism``."""

    user: str
    mechanism: ScramMechanism


def _check_user(user: Any) -> None:
    if not isinstance(user, str) or not user:
        raise ValueError(f"A SCRAM user name must be a non-empty string, got {user!r}")


def alteration_request(
    alterations: Iterable[UserScramCredentialUpsertion | UserScramCredentialDeletion],
) -> AlterUserScramCredentialsRequest:
    """The AlterUserScramCredentials request of ``alterations`` (salts drawn, passwords salted).

    Raises:
        TypeError: an element is neither an upsertion nor a deletion, or names no ScramMechanism.
        ValueError: an empty user name or password.
    """
    deletions: list[ScramCredentialDeletion] = []
    upsertions: list[ScramCredentialUpsertion] = []
    for alteration in alterations:
        if not isinstance(alteration, (UserScramCredentialUpsertion, UserScramCredentialDeletion)):
            raise TypeError(
                f"alter_user_scram_credentials takes upsertions and deletions, not {alteration!r}"
            )
        if not isinstance(alteration.mechanism, ScramMechanism):
            raise TypeError(f"mechanism must be a ScramMechanism, not {alteration.mechanism!r}")
        _check_user(alteration.user)
        if isinstance(alteration, UserScramCredentialDeletion):
            deletions.append(
                ScramCredentialDeletion(name=alteration.user, mechanism=alteration.mechanism.type_byte)
            )
            continue
        if not alteration.password:
            raise ValueError(f"The password of SCRAM user {alteration.user!r} must not be empty")
        salt = os.urandom(SALT_BYTES) if alteration.salt is None else alteration.salt
        upsertions.append(
            ScramCredentialUpsertion(
                name=alteration.user,
                mechanism=alteration.mechanism.type_byte,
                iterations=alteration.iterations,
                salt=salt,
                salted_password=salted_password(
                    alteration.password, salt, alteration.iterations, alteration.mechanism
                ),
            )
        )
    return AlterUserScramCredentialsRequest(deletions=deletions, upsertions=upsertions)


def _user_error(code: int, message: str | None, user: str) -> KafkaError:
    cls = error_class(code)
    return cls(message) if message else cls(f"User '{user}': {cls.message}")


class ScramAdminCalls:
    """The SCRAM calls of ``AdminClient`` (a mixin: it uses the client's ``_client`` and
    ``_send_to_controller``)."""

    _client: Any

    _send_to_controller: Any  # AdminClient._send_to_controller

    async def describe_user_scram_credentials(
        self, users: Iterable[str] | None = None
    ) -> dict[str, list[ScramCredentialInfo]]:
        """Each user's SCRAM mechanisms and iteration counts (DescribeUserScramCredentials at any
        broker; never a salt or key).

        Args:
            users: the users to describe; None: every user with a credential.

        Returns:
            ``{user: [ScramCredentialInfo]}`` in the broker's order.

        Raises:
            ResourceNotFoundError: a named user has no credential.
            DuplicateResourceError: a user is named twice.
            ClusterAuthorizationFailedError, ...: the broker's error.
            KafkaConnectionError: no broker could be reached.
        """
        names = None if users is None else list(users)
        for name in names or ():
            _check_user(name)
        request = DescribeUserScramCredentialsRequest(
            users=None if names is None else [ScramUserName(name=n) for n in names]
        )
        response: DescribeUserScramCredentialsResponse = await self._client.send_to_any(request)
        if response.error_code != Errors.NONE:
            cls = error_class(response.error_code)
            raise cls(response.error_message or f"DescribeUserScramCredentials: {cls.message}")
        out: dict[str, list[ScramCredentialInfo]] = {}
        for result in response.results:
            if result.error_code != Errors.NONE:
                raise _user_error(result.error_code, result.error_message, result.user)
            out[result.user] = [
                ScramCredentialInfo(mechanism, info.iterations)
                for info in result.credential_infos
                if (mechanism := ScramMechanism.for_type(info.mechanism)) is not None
            ]
        return out

    async def alter_user_scram_credentials(
        self, alterations: Iterable[UserScramCredentialUpsertion | UserScramCredentialDeletion]
    ) -> None:
        """Upsert and delete SCRAM credentials (AlterUserScramCredentials at the controller; each
        user's alterations succeed or fail together).

        Args:
            alterations: ``UserScramCredentialUpsertion(user, ScramMechanism.SCRAM_SHA_512, 8192,
                "secret")`` / ``UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_256)``.

        Raises:
            TypeError / ValueError: malformed alterations.
            UnacceptableCredentialError (iterations out of bounds), ResourceNotFoundError (deleting
                a credential that does not exist), DuplicateResourceError (a user and mechanism
                named twice), UnsupportedSaslMechanismError, ...: the first user's error, with the
                server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        request = alteration_request(alterations)
        if not request.deletions and not request.upsertions:
            return
        response: AlterUserScramCredentialsResponse = await self._send_to_controller(
            lambda: request,
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.results),
            0,
            "AlterUserScramCredentials",
        )
        for result in response.results:
            if result.error_code != Errors.NONE:
                raise _user_error(result.error_code, result.error_message, result.user)
