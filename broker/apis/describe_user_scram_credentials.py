"""DescribeUserScramCredentials handler: the SCRAM users this broker holds (KIP-554).

Answered by the receiving broker from its ``ScramCredentialCache`` (the controller's records, sent
in UpdateMetadata), as Kafka's brokers answer it from their metadata image: each user's
mechanisms and iteration counts, never a salt or key.
Kafka concept: ``KafkaApis.handleDescribeUserScramCredentialsRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.user_scram_credentials import (
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    """One result per distinct user named, or per user with a credential (see
    ``ScramCredentialCache.describe``)."""
    return ctx.scram_credentials.describe(request)
