"""UpdateMetadata handler: the controller refreshes this broker's MetadataCache.

A request from an older controller epoch is refused with STALE_CONTROLLER_EPOCH.
Kafka concept: ``KafkaApis.handleUpdateMetadataRequest`` (seed 004).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from protocol.errors import Errors
from protocol.framing import RequestHeader

if TYPE_CHECKING:
    from broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: UpdateMetadataRequest) -> UpdateMetadataResponse:
    """Apply the update unless it comes from a stale controller epoch."""
    if request.controller_epoch < ctx.metadata_cache.controller_epoch:
        return UpdateMetadataResponse(error_code=Errors.STALE_CONTROLLER_EPOCH)
    ctx.metadata_cache.update_metadata(request)
    return UpdateMetadataResponse(error_code=Errors.NONE)
