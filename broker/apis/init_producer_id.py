"""InitProducerId handler: a new producer id (epoch 0) for an idempotent producer.

Transactions are out of scope: a request naming a ``transactional_id`` is refused
with INVALID_REQUEST.  Kafka concept: ``handleInitProducerIdRequest`` (KIP-98).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.producer_ids import InitProducerIdRequest, InitProducerIdResponse
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: InitProducerIdRequest
) -> InitProducerIdResponse:
    """Allocate a producer id through the ProducerIdManager."""
    if request.transactional_id is not None:
        return InitProducerIdResponse(error_code=Errors.INVALID_REQUEST, producer_epoch=-1)
    try:
        producer_id = await ctx.producer_id_manager.generate_producer_id()
    except KafkaError as exc:
        return InitProducerIdResponse(
            error_code=int(error_code_for(exc, Errors.COORDINATOR_NOT_AVAILABLE)), producer_epoch=-1
        )
    return InitProducerIdResponse(error_code=Errors.NONE, producer_id=producer_id, producer_epoch=0)
