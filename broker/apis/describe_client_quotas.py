"""DescribeClientQuotas handler: the client quotas this broker holds (KIP-546).

Answered by the receiving broker from its ``ClientQuotaCache`` (the controller's records, sent in
UpdateMetadata), as Kafka's brokers answer it from their metadata image.
Kafka concept: ``KafkaApis.handleDescribeClientQuotasRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.client_quotas import DescribeClientQuotasRequest, DescribeClientQuotasResponse
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeClientQuotasRequest
) -> DescribeClientQuotasResponse:
    """The entities matching the filter, with their quotas (see ``ClientQuotaCache.describe``)."""
    return ctx.client_quotas.describe(request)
