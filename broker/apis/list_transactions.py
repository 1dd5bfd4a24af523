"""ListTransactions handler: the transactions this broker coordinates, filtered.

Filters by state names (an unknown name is answered in ``unknown_state_filters``), producer ids,
minimum running time (v1+, KIP-994) and a transactional id regular expression (v2+, KIP-1152; a bad
one is INVALID_REQUEST); only the ids the caller may DESCRIBE are listed (the rest silently left
out, as Kafka does).

Kafka concept: ``KafkaApis.handleListTransactionsRequest`` (KIP-664).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import filter_by_authorized
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.transactions import (
    ListTransactionsRequest,
    ListTransactionsResponse,
    ListTransactionsState,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: ListTransactionsRequest
) -> ListTransactionsResponse:
    """The matching transactions of this coordinator."""
    coordinator = ctx.transaction_coordinator
    if coordinator is None:
        return ListTransactionsResponse(error_code=int(Errors.COORDINATOR_NOT_AVAILABLE))
    error, unknown, listed = coordinator.list_transactions(
        set(request.producer_id_filters),
        set(request.state_filters),
        request.duration_filter,
        request.transactional_id_pattern,
    )
    allowed = filter_by_authorized(
        ctx, header, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, [t for t, _, _ in listed]
    )
    return ListTransactionsResponse(
        error_code=int(error),
        unknown_state_filters=unknown,
        transaction_states=[
            ListTransactionsState(transactional_id=t, producer_id=p, transaction_state=s)
            for t, p, s in listed
            if t in allowed
        ],
    )
