"""ScramCredentialCache: the SCRAM credentials a broker's SASL/SCRAM logins check (KIP-554).

Owns: every user's credentials per mechanism as the controller sent them (UpdateMetadata's
``scram_credentials``: each listed user's whole set; a full update replaces them all), the
lookup a ``ScramSaslServer`` asks, and DescribeUserScramCredentials' answer from them, with
Kafka's rules and messages (every user when none is named; a user named twice is
DUPLICATE_RESOURCE, a user without a credential RESOURCE_NOT_FOUND).  Does not own where they
are decided and stored (the controller's ``ScramControlManager`` and the metadata log).

Kafka concept: ``CredentialCache`` (filled by ``ScramPublisher``) and ``ScramImage.describe``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafkette.common.security.scram_credential import ScramCredential, ScramMechanism
from kafkette.protocol.apis.update_metadata import UpdateMetadataScramCredentials
from kafkette.protocol.apis.user_scram_credentials import (
    CredentialInfo,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResult,
)
from kafkette.protocol.errors import Errors

DESCRIBE_DUPLICATE_USER = "Cannot describe SCRAM credentials for the same user twice in a single request: "
DESCRIBE_USER_THAT_DOES_NOT_EXIST = "Attempt to describe a user credential that does not exist: "


class ScramCredentialCache:
    """User name -> {mechanism: credential}, replaced per user by the controller's updates."""

    def __init__(self) -> None:
        self._users: dict[str, dict[ScramMechanism, ScramCredential]] = {}

    def update(self, entries: list[UpdateMetadataScramCredentials], full: bool) -> None:
        """Apply UpdateMetadata's ``scram_credentials``: each listed user's set replaces its own
        (an empty set removes the user); ``full`` first forgets every user."""
        if full:
            self._users.clear()
        for entry in entries:
            credentials = {}
            for c in entry.credentials:
                mechanism = ScramMechanism.for_type(c.mechanism)
                if mechanism is not None:
                    credentials[mechanism] = ScramCredential(c.salt, c.stored_key, c.server_key, c.iterations)
            if credentials:
                self._users[entry.user] = credentials
            else:
                self._users.pop(entry.user, None)

    def credential(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        """``user``'s credential for ``mechanism``, None when it has none (a ``ScramLookup``)."""
        return self._users.get(user, {}).get(mechanism)

    def users(self) -> Mapping[str, Mapping[ScramMechanism, ScramCredential]]:
        """Every user with a credential (read-only view)."""
        return self._users

    def describe(self, request: DescribeUserScramCredentialsRequest) -> DescribeUserScramCredentialsResponse:
        """DescribeUserScramCredentials: one result per distinct user named (every user with a
        credential when ``users`` is null or empty), in request order (sorted for all users)."""
        named = [u.name for u in request.users or []]
        duplicated = {name for name in named if named.count(name) > 1}
        users = list(dict.fromkeys(named)) if named else sorted(self._users)
        results = []
        for user in users:
            # Kafka leaves a success's message at its default, "" (not null)
            result = DescribeUserScramCredentialsResult(user=user, error_code=Errors.NONE, error_message="")
            credentials = self._users.get(user)
            if user in duplicated:
                result.error_code = Errors.DUPLICATE_RESOURCE
                result.error_message = DESCRIBE_DUPLICATE_USER + user
            elif not credentials:
                result.error_code = Errors.RESOURCE_NOT_FOUND
                result.error_message = DESCRIBE_USER_THAT_DOES_NOT_EXIST + user
            else:
                result.credential_infos = [
                    CredentialInfo(mechanism=m.type_byte, iterations=c.iterations)
                    for m, c in sorted(credentials.items(), key=lambda item: item[0].type_byte)
                ]
            results.append(result)
        return DescribeUserScramCredentialsResponse(
            throttle_time_ms=0, error_code=Errors.NONE, error_message="", results=results
        )
