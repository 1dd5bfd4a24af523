"""ScramControlManager: the AlterUserScramCredentials decision (KIP-554).

Owns: validating each user's deletions and upsertions with Kafka's rules and messages (a user
altered twice in one request is DUPLICATE_RESOURCE; an empty name UNACCEPTABLE_CREDENTIAL; an
unknown mechanism UNSUPPORTED_SASL_MECHANISM; iterations below the mechanism's minimum (4096) or
above 16384 UNACCEPTABLE_CREDENTIAL; deleting a credential that does not exist
RESOURCE_NOT_FOUND) and turning the accepted ones into ``UserScramCredentialRecord`` /
``RemoveUserScramCredentialRecord`` (the stored key and server key derived from the salted
password; the password itself never reaches the controller).  Does not own the credentials
(``ControllerContext.scram_credentials``, changed by replay) nor propagation (``ScramApis``).

Kafka concept: KRaft's ``ScramControlManager.alterCredentials``.
"""

from __future__ import annotations

from kafkette.common.security.scram_credential import ScramMechanism, credential_from_salted_password
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ControllerResult,
    MetadataRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from kafkette.protocol.errors import Errors

MAX_ITERATIONS = 16384  # Kafka's ScramControlManager.MAX_ITERATIONS, for every mechanism
ALTERED_TWICE = "A user credential cannot be altered twice in the same request"

_Refusal = tuple[Errors, str]


def _check_name_and_mechanism(name: str, mechanism: int) -> _Refusal | None:
    if not name:
        return Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    if ScramMechanism.for_type(mechanism) is None:
        return Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"
    return None


class ScramControlManager:
    """Decides AlterUserScramCredentials against the replayed credentials.

    Args:
        context: the controller's state (``scram_credentials``: user -> {mechanism type: record}).
    """

    def __init__(self, context: ControllerContext) -> None:
        self._context = context

    def _check_deletion(self, deletion: ScramCredentialDeletion) -> _Refusal | None:
        refusal = _check_name_and_mechanism(deletion.name, deletion.mechanism)
        if refusal is None and deletion.mechanism not in self._context.scram_credentials.get(
            deletion.name, {}
        ):
            return Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
        return refusal

    @staticmethod
    def _check_upsertion(upsertion: ScramCredentialUpsertion) -> _Refusal | None:
        refusal = _check_name_and_mechanism(upsertion.name, upsertion.mechanism)
        if refusal is not None:
            return refusal
        mechanism = ScramMechanism.for_type(upsertion.mechanism)
        assert mechanism is not None
        if upsertion.iterations < mechanism.min_iterations:
            return Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"
        if upsertion.iterations > MAX_ITERATIONS:
            return Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"
        return None

    def alter_credentials(
        self, request: AlterUserScramCredentialsRequest
    ) -> ControllerResult[AlterUserScramCredentialsResponse]:
        """The records of every user whose alterations are all valid, and one result per user.

        A user is refused whole when any of its alterations is refused, and when it is named
        twice (deletions first, then upsertions, as Kafka reads them).  Results: the accepted
        deletions' users, then the accepted upsertions', then the refused users, each in request
        order.  The records form one atomic batch.
        """
        deletions: dict[str, ScramCredentialDeletion] = {}
        upsertions: dict[str, ScramCredentialUpsertion] = {}
        refused: dict[str, _Refusal] = {}
        for deletion in request.deletions:
            if deletion.name in refused:
                continue
            if deletions.pop(deletion.name, None) is not None:
                refused[deletion.name] = (Errors.DUPLICATE_RESOURCE, ALTERED_TWICE)
            elif (refusal := self._check_deletion(deletion)) is not None:
                refused[deletion.name] = refusal
            else:
                deletions[deletion.name] = deletion
        for upsertion in request.upsertions:
            if upsertion.name in refused:
                continue
            if (
                deletions.pop(upsertion.name, None) is not None
                or upsertions.pop(upsertion.name, None) is not None
            ):
                refused[upsertion.name] = (Errors.DUPLICATE_RESOURCE, ALTERED_TWICE)
            elif (refusal := self._check_upsertion(upsertion)) is not None:
                refused[upsertion.name] = refusal
            else:
                upsertions[upsertion.name] = upsertion
        records: list[MetadataRecord] = []
        results = []
        for name, deletion in deletions.items():
            records.append(RemoveUserScramCredentialRecord(name, deletion.mechanism))
            results.append(
                AlterUserScramCredentialsResult(user=name, error_code=Errors.NONE, error_message=None)
            )
        for name, upsertion in upsertions.items():
            mechanism = ScramMechanism.for_type(upsertion.mechanism)
            assert mechanism is not None
            credential = credential_from_salted_password(
                upsertion.salted_password, upsertion.salt, upsertion.iterations, mechanism
            )
            records.append(
                UserScramCredentialRecord(
                    name,
                    upsertion.mechanism,
                    credential.salt,
                    credential.stored_key,
                    credential.server_key,
                    credential.iterations,
                )
            )
            results.append(
                AlterUserScramCredentialsResult(user=name, error_code=Errors.NONE, error_message=None)
            )
        results += [
            AlterUserScramCredentialsResult(user=name, error_code=code, error_message=message)
            for name, (code, message) in refused.items()
        ]
        return ControllerResult(
            records, AlterUserScramCredentialsResponse(throttle_time_ms=0, results=results)
        )
