"""ApiVersions handler: lists every API key this broker handles, with its version range."""

from __future__ import annotations

from typing import Any

from kafkette.protocol.api_keys import API_REGISTRY
from kafkette.protocol.apis.api_versions import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    ApiVersionsResponseKey,
)
from kafkette.protocol.framing import RequestHeader


async def handle(ctx: Any, header: RequestHeader, request: ApiVersionsRequest) -> ApiVersionsResponse:
    """Answer with ``API_REGISTRY``'s version ranges of handled APIs (Kafka's ApiVersionsResponse)."""
    from kafkette.broker.apis.kafka_apis import HANDLERS  # the dispatch table imports this module

    return ApiVersionsResponse(
        api_keys=[
            ApiVersionsResponseKey(
                api_key=int(key), min_version=spec.min_version, max_version=spec.max_version
            )
            for key, spec in sorted(API_REGISTRY.items())
            if key in HANDLERS
        ]
    )
