"""DescribeAcls handler: the ACLs this broker holds that a filter matches (KIP-140).

Answered by the receiving broker from its ``AclStore`` (the controller's records, sent in
UpdateMetadata), as Kafka's brokers answer it from their ``StandardAuthorizer``.  Without an
authorizer (``authorizer.class.name`` unset) the answer is SECURITY_DISABLED with Kafka's message.
Kafka concept: ``AclApis.handleDescribeAcls``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.acl_apis_authorization import check_describe_acls
from kafkette.protocol.apis.acls import DescribeAclsRequest, DescribeAclsResponse
from kafkette.protocol.errors import Errors, KafkaError, error_message
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

NO_AUTHORIZER_ON_BROKER = "No Authorizer is configured on the broker"


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeAclsRequest
) -> DescribeAclsResponse:
    """The matching ACLs grouped by resource pattern (see ``AclStore.describe``), or
    SECURITY_DISABLED when no authorizer is configured."""
    if ctx.authorizer is None:
        return DescribeAclsResponse(
            throttle_time_ms=0,
            error_code=Errors.SECURITY_DISABLED,
            error_message=NO_AUTHORIZER_ON_BROKER,
            resources=[],
        )
    try:
        check_describe_acls(ctx, header)
    except KafkaError as exc:
        return DescribeAclsResponse(
            throttle_time_ms=0,
            error_code=Errors.CLUSTER_AUTHORIZATION_FAILED,
            error_message=error_message(exc),
            resources=[],
        )
    return ctx.authorizer.describe(request)
