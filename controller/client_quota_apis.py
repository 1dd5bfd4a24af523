"""ClientQuotaApis: AlterClientQuotas at the controller (KIP-546).

Owns: the AlterClientQuotas event: the decision (``ClientQuotaControlManager``), writing its
records as one transaction, and an UpdateMetadata with the altered entities' whole quota sets to
every live broker (their ``ClientQuotaManager``s enforce them and DescribeClientQuotas reads them).
Works through ``ControllerOperations`` only.

Kafka concept: ``QuorumController.alterClientQuotas``; the brokers learn the records as Kafka's
``DynamicClientQuotaPublisher`` does.
"""

from __future__ import annotations

import logging

from kafkette.common.client_quota_entity import describe_entity, quota_entity
from kafkette.controller.client_quota_control_manager import ClientQuotaControlManager
from kafkette.controller.controller_operations import ControllerOperations
from kafkette.controller.metadata_records import ClientQuotaRecord
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntryResult,
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
)
from kafkette.protocol.errors import error_code_for, error_message

logger = logging.getLogger(__name__)


class ClientQuotaApis:
    """Client quota requests.

    Args:
        ops: the controller's operations.
        quota_control: decides alterations.
    """

    def __init__(self, ops: ControllerOperations, quota_control: ClientQuotaControlManager) -> None:
        self._ops = ops
        self._quota_control = quota_control

    async def alter_client_quotas(self, request: AlterClientQuotasRequest) -> AlterClientQuotasResponse:
        """Apply the valid alterations (see ``ClientQuotaControlManager.alter_client_quotas``);
        never raises: an error of the event answers every entry with its code."""
        try:
            return await self._ops.submit("AlterClientQuotas", lambda: self._alter(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return AlterClientQuotasResponse(
                throttle_time_ms=0,
                entries=[
                    AlterClientQuotasEntryResult(
                        error_code=error_code_for(exc), error_message=error_message(exc), entity=entry.entity
                    )
                    for entry in request.entries
                ],
            )

    async def _alter(self, request: AlterClientQuotasRequest) -> AlterClientQuotasResponse:
        result = self._quota_control.alter_client_quotas(request)
        assert result.response is not None
        if not result.records:
            return result.response
        await self._ops.write(result.records, "AlterClientQuotas")
        entities = []
        for record in result.records:
            assert isinstance(record, ClientQuotaRecord)
            entity = quota_entity((pair[0], pair[1]) for pair in record.entity)
            entities.append(entity)
            logger.info(
                "%s Client quota %s of %s %s",
                self._ops.log_prefix(),
                record.key,
                describe_entity(entity),
                "removed" if record.remove else f"set to {record.value}",
            )
        batch = self._ops.new_batch()
        batch.add_update_metadata_request_for_brokers(
            self._ops.context.live_broker_ids(), quota_entities=entities
        )
        batch.send_requests_to_brokers()
        return result.response
