"""AclApis: CreateAcls and DeleteAcls at the controller (KIP-140, KIP-801).

Owns: the CreateAcls and DeleteAcls events: the decision (``AclControlManager``), writing its
records as one transaction, and an UpdateMetadata naming the created and deleted ACLs to every
live broker (their ``AclStore`` answers DescribeAcls and authorizes).  Works through
``ControllerOperations`` only.  DescribeAcls is answered by each broker from the ACLs it holds,
as Kafka's brokers answer it from their ``StandardAuthorizer``.

Kafka concept: ``QuorumController.createAcls`` / ``deleteAcls`` (reached through the controller's
``AclApis``); the brokers learn the records as Kafka's ``AclPublisher`` does.
"""

from __future__ import annotations

import logging

from kafkette.controller.acl_control_manager import AclControlManager
from kafkette.controller.controller_operations import ControllerOperations
from kafkette.controller.metadata_records import AccessControlEntryRecord, RemoveAccessControlEntryRecord
from kafkette.protocol.apis.acls import (
    AclCreationResult,
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsFilterResult,
    DeleteAclsRequest,
    DeleteAclsResponse,
)
from kafkette.protocol.errors import api_error_message, error_code_for

logger = logging.getLogger(__name__)


class AclApis:
    """ACL requests.

    Args:
        ops: the controller's operations.
        acl_control: decides creations and deletions.
    """

    def __init__(self, ops: ControllerOperations, acl_control: AclControlManager) -> None:
        self._ops = ops
        self._acl_control = acl_control

    async def create_acls(self, request: CreateAclsRequest) -> CreateAclsResponse:
        """Create the valid new ACLs (see ``AclControlManager.create_acls``); never raises: an
        error of the event (NOT_CONTROLLER, a timeout) answers every creation with its code."""
        try:
            return await self._ops.submit("CreateAcls", lambda: self._create(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            code = error_code_for(exc)
            return CreateAclsResponse(
                throttle_time_ms=0,
                results=[
                    AclCreationResult(error_code=code, error_message=api_error_message(exc, code))
                    for _ in request.creations
                ],
            )

    async def delete_acls(self, request: DeleteAclsRequest) -> DeleteAclsResponse:
        """Delete the ACLs the valid filters match (see ``AclControlManager.delete_acls``); never
        raises: an error of the event answers every filter with its code."""
        try:
            return await self._ops.submit("DeleteAcls", lambda: self._delete(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            code = error_code_for(exc)
            return DeleteAclsResponse(
                throttle_time_ms=0,
                filter_results=[
                    DeleteAclsFilterResult(
                        error_code=code, error_message=api_error_message(exc, code), matching_acls=[]
                    )
                    for _ in request.filters
                ],
            )

    async def _create(self, request: CreateAclsRequest) -> CreateAclsResponse:
        result = self._acl_control.create_acls(request)
        assert result.response is not None
        await self._publish(result.records, "CreateAcls")
        return result.response

    async def _delete(self, request: DeleteAclsRequest) -> DeleteAclsResponse:
        result = self._acl_control.delete_acls(request)
        assert result.response is not None
        await self._publish(result.records, "DeleteAcls")
        return result.response

    async def _publish(self, records: list, name: str) -> None:
        """Write ``records`` (one transaction) and tell every live broker the ACLs they name."""
        if not records:
            return
        await self._ops.write(records, name)
        acl_ids = []
        for record in records:
            assert isinstance(record, (AccessControlEntryRecord, RemoveAccessControlEntryRecord))
            acl_ids.append(record.id)
            logger.info(
                "%s %s ACL %s: %s",
                self._ops.log_prefix(),
                name,
                record.id,
                "deleted" if isinstance(record, RemoveAccessControlEntryRecord) else record,
            )
        batch = self._ops.new_batch()
        batch.add_update_metadata_request_for_brokers(self._ops.context.live_broker_ids(), acl_ids=acl_ids)
        batch.send_requests_to_brokers()
