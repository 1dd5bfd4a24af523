"""DescribeTransactions handler: the state of each transactional id this broker coordinates.

DESCRIBE on each transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for it); the
partitions of topics the caller may not DESCRIBE are left out of its answer, as Kafka leaves them.

Kafka concept: ``KafkaApis.handleDescribeTransactionsRequest`` (KIP-664).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize, filter_by_authorized
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.transactions import (
    DescribeTransactionsRequest,
    DescribeTransactionsResponse,
    DescribeTransactionsState,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeTransactionsRequest
) -> DescribeTransactionsResponse:
    """One state per requested id, in the request's order."""
    states: list[DescribeTransactionsState] = []
    coordinator = ctx.transaction_coordinator
    for transactional_id in request.transactional_ids:
        if not authorize(ctx, header, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactional_id):
            states.append(_error(transactional_id, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
            continue
        if coordinator is None:
            states.append(_error(transactional_id, Errors.COORDINATOR_NOT_AVAILABLE))
            continue
        (state,) = coordinator.describe_transactions([transactional_id])
        described = filter_by_authorized(
            ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, [t.topic for t in state.topics]
        )
        state.topics = [t for t in state.topics if t.topic in described]
        states.append(state)
    return DescribeTransactionsResponse(transaction_states=states)


def _error(transactional_id: str, code: Errors) -> DescribeTransactionsState:
    return DescribeTransactionsState(
        error_code=int(code),
        transactional_id=transactional_id,
        transaction_state="",
        producer_id=-1,
        producer_epoch=-1,
    )
