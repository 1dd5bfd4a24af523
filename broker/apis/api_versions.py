"""ApiVersions handler: lists every API key and version range this broker speaks."""

from __future__ import annotations

from typing import Any

from protocol.api_keys import API_REGISTRY
from protocol.apis.api_versions import ApiVersionsRequest, ApiVersionsResponse, ApiVersionsResponseKey
from protocol.framing import RequestHeader


async def handle(ctx: Any, header: RequestHeader, request: ApiVersionsRequest) -> ApiVersionsResponse:
    """Answer with ``API_REGISTRY``'s version ranges (Kafka's ApiVersionsResponse)."""
    return ApiVersionsResponse(
        api_keys=[
            ApiVersionsResponseKey(api_key=int(key), min_version=spec.min_version, max_version=spec.max_version)
            for key, spec in sorted(API_REGISTRY.items())
        ]
    )
