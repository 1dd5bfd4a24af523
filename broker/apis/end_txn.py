"""EndTxn handler: commit or abort the producer's transaction.

WRITE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then the transaction
coordinator's answer once PREPARE_COMMIT/PREPARE_ABORT is written (the markers follow); version 5+
(transactions V2, KIP-890) answers the producer id and epoch the producer goes on with.

Kafka concept: ``KafkaApis.handleEndTxnRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize
from kafkette.broker.transaction.transaction_state import TransactionVersion
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.transactions import EndTxnRequest, EndTxnResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

TV2_VERSION = 5  # EndTxn v5+: the client speaks transactions V2


async def handle(ctx: ApisContext, header: RequestHeader, request: EndTxnRequest) -> EndTxnResponse:
    """End the transaction; one error code (and, v5+, the producer id and epoch)."""
    if not authorize(
        ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
    ):
        return EndTxnResponse(error_code=int(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
    coordinator = ctx.transaction_coordinator
    if coordinator is None:
        return EndTxnResponse(error_code=int(Errors.COORDINATOR_NOT_AVAILABLE))
    version = TransactionVersion.TV_2 if header.api_version >= TV2_VERSION else TransactionVersion.TV_0
    code, producer_id, producer_epoch = await coordinator.end_txn(
        request.transactional_id, request.producer_id, request.producer_epoch, request.committed, version
    )
    return EndTxnResponse(error_code=int(code), producer_id=producer_id, producer_epoch=producer_epoch)
