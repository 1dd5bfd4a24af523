"""ScramApis: AlterUserScramCredentials at the controller (KIP-554).

Owns: the AlterUserScramCredentials event: the decision (``ScramControlManager``), writing its
records as one transaction, and an UpdateMetadata with the altered users' whole credential sets
to every live broker (their SASL/SCRAM logins read them).  Works through ``ControllerOperations``
only.  DescribeUserScramCredentials is answered by each broker from the credentials it holds, as
Kafka's brokers answer it from their metadata image.

Kafka concept: ``QuorumController.alterUserScramCredentials``; the brokers learn the records as
Kafka's ``ScramPublisher`` does.
"""

from __future__ import annotations

import logging

from kafkette.controller.controller_operations import ControllerOperations
from kafkette.controller.metadata_records import RemoveUserScramCredentialRecord, UserScramCredentialRecord
from kafkette.controller.scram_control_manager import ScramControlManager
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
)
from kafkette.protocol.errors import error_code_for, error_message

logger = logging.getLogger(__name__)


class ScramApis:
    """SCRAM credential requests.

    Args:
        ops: the controller's operations.
        scram_control: decides alterations.
    """

    def __init__(self, ops: ControllerOperations, scram_control: ScramControlManager) -> None:
        self._ops = ops
        self._scram_control = scram_control

    async def alter_user_scram_credentials(
        self, request: AlterUserScramCredentialsRequest
    ) -> AlterUserScramCredentialsResponse:
        """Apply the valid alterations (see ``ScramControlManager.alter_credentials``); never
        raises: an error of the event answers every named user with its code."""
        try:
            return await self._ops.submit("AlterUserScramCredentials", lambda: self._alter(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            users = dict.fromkeys([d.name for d in request.deletions] + [u.name for u in request.upsertions])
            return AlterUserScramCredentialsResponse(
                throttle_time_ms=0,
                results=[
                    AlterUserScramCredentialsResult(
                        user=user, error_code=error_code_for(exc), error_message=error_message(exc)
                    )
                    for user in users
                ],
            )

    async def _alter(self, request: AlterUserScramCredentialsRequest) -> AlterUserScramCredentialsResponse:
        result = self._scram_control.alter_credentials(request)
        assert result.response is not None
        if not result.records:
            return result.response
        await self._ops.write(result.records, "AlterUserScramCredentials")
        users = []
        for record in result.records:
            assert isinstance(record, (UserScramCredentialRecord, RemoveUserScramCredentialRecord))
            users.append(record.name)
            logger.info(
                "%s SCRAM credential of user %s for mechanism %d %s",
                self._ops.log_prefix(),
                record.name,
                record.mechanism,
                "deleted" if isinstance(record, RemoveUserScramCredentialRecord) else "set",
            )
        batch = self._ops.new_batch()
        batch.add_update_metadata_request_for_brokers(self._ops.context.live_broker_ids(), scram_users=users)
        batch.send_requests_to_brokers()
        return result.response
