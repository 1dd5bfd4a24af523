"""Metadata handler: answered from the MetadataCache on any broker.

Auto-creation of unknown topics is a later issue; ``allow_auto_topic_creation`` is
accepted and currently creates nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.apis.metadata import MetadataRequest, MetadataResponse
from protocol.framing import RequestHeader

if TYPE_CHECKING:
    from broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: MetadataRequest) -> MetadataResponse:
    """Build the response from the cache (``topics`` None: every topic)."""
    topics = None if request.topics is None else [t.name for t in request.topics]
    return ctx.metadata_cache.metadata_response(topics)
