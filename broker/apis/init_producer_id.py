"""InitProducerId handler: a new producer id (epoch 0) for an idempotent producer, or a
transactional producer's id and epoch from the transaction coordinator.

A request giving a producer id without an epoch, or an epoch without an id (KIP-360's bump names
both or neither), is INVALID_REQUEST before anything else, as Kafka checks it.  A request naming a
``transactional_id`` goes to the transaction coordinator (``TransactionCoordinatorService.
init_producer_id``) on either listener.

Kafka concept: ``handleInitProducerIdRequest`` (KIP-98).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.producer_ids import InitProducerIdRequest, InitProducerIdResponse
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.framing import RequestHeader

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: InitProducerIdRequest
) -> InitProducerIdResponse:
    """Allocate a producer id through the ProducerIdManager.

    Errors (in the answer): INVALID_REQUEST (a producer id and epoch not given together),
    COORDINATOR_NOT_AVAILABLE (no id block could be
    allocated), and the transaction coordinator's (NOT_COORDINATOR, CONCURRENT_TRANSACTIONS,
    PRODUCER_FENCED, INVALID_TRANSACTION_TIMEOUT ...).
    """
    if (request.producer_id == NO_PRODUCER_ID) != (request.producer_epoch == NO_PRODUCER_EPOCH):
        return InitProducerIdResponse(error_code=Errors.INVALID_REQUEST, producer_epoch=NO_PRODUCER_EPOCH)
    if request.transactional_id is not None:
        return await _transactional(ctx, header, request)
    try:
        producer_id = await ctx.producer_id_manager.generate_producer_id()
    except KafkaError as exc:
        return InitProducerIdResponse(
            error_code=int(error_code_for(exc, Errors.COORDINATOR_NOT_AVAILABLE)), producer_epoch=-1
        )
    return InitProducerIdResponse(error_code=Errors.NONE, producer_id=producer_id, producer_epoch=0)


async def _transactional(
    ctx: ApisContext, header: RequestHeader, request: InitProducerIdRequest
) -> InitProducerIdResponse:
    coordinator = getattr(ctx, "transaction_coordinator", None)
    if coordinator is None:
        return InitProducerIdResponse(
            error_code=Errors.COORDINATOR_NOT_AVAILABLE, producer_epoch=NO_PRODUCER_EPOCH
        )
    expected = (
        None if request.producer_id == NO_PRODUCER_ID else (request.producer_id, request.producer_epoch)
    )
    code, producer_id, producer_epoch = await coordinator.init_producer_id(
        request.transactional_id, request.transaction_timeout_ms, expected
    )
    return InitProducerIdResponse(
        error_code=int(code), producer_id=producer_id, producer_epoch=producer_epoch
    )
