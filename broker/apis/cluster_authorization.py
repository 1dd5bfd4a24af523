"""The authorization of the cluster-level APIs: the inter-broker and controller APIs
(CLUSTER_ACTION), InitProducerId, DescribeLogDirs, ElectLeaders, the SCRAM credential and client
quota APIs, DescribeQuorum.

Owns: each API's action on the cluster (or on a transactional id) and its refusal: most fail as a
whole (raised, answered by the API's ``getErrorResponse``), DescribeLogDirs answers its top-level
CLUSTER_AUTHORIZATION_FAILED with no log directory.  Does not own the handlers.

Kafka concept: ``KafkaApis`` / ``ControllerApis`` ``authorizeClusterOperation`` callers,
``KafkaApis.handleInitProducerIdRequest`` (KIP-679), ``handleDescribeLogDirsRequest``.
"""

from __future__ import annotations

from typing import Any

from kafkette.broker.apis.auth_helper import (
    CLUSTER_NAME,
    authorize,
    authorize_by_resource_type,
    authorize_cluster_operation,
)
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.describe_log_dirs import DescribeLogDirsResponse
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader


def cluster_operation(operation: AclOperation) -> Any:
    """The check of an API that needs ``operation`` on the cluster for the whole request
    (CLUSTER_AUTHORIZATION_FAILED otherwise)."""

    async def check(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
        authorize_cluster_operation(ctx, header, operation)
        return await handler(ctx, header, request)

    check.__doc__ = (
        f"{operation.name} on the cluster, else the whole request is CLUSTER_AUTHORIZATION_FAILED."
    )
    return check


async def no_check(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """ApiVersions and the SASL exchange: answered whoever asks (Kafka authorizes neither), and the
    APIs whose handler makes its own checks (Fetch, OffsetFetch)."""
    return await handler(ctx, header, request)


async def check_write_txn_markers(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """WriteTxnMarkers: ALTER on the cluster (checked without a denial log line), else CLUSTER_ACTION
    (CLUSTER_AUTHORIZATION_FAILED), as Kafka's ``handleWriteTxnMarkersRequest``."""
    if not authorize(
        ctx, header, AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False
    ):
        authorize_cluster_operation(ctx, header, AclOperation.CLUSTER_ACTION)
    return await handler(ctx, header, request)


async def check_init_producer_id(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """InitProducerId: a transactional producer needs WRITE on its transactional id
    (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent one IDEMPOTENT_WRITE on the cluster or,
    as Kafka 3+ decides (KIP-679), WRITE on at least one topic (CLUSTER_AUTHORIZATION_FAILED)."""
    transactional_id = request.transactional_id
    if transactional_id is not None:
        if not authorize(ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
            raise error_class(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)()
    elif not authorize(
        ctx, header, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME
    ) and not authorize_by_resource_type(ctx, header, AclOperation.WRITE, ResourceType.TOPIC):
        raise error_class(Errors.CLUSTER_AUTHORIZATION_FAILED)()
    return await handler(ctx, header, request)


async def check_describe_log_dirs(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """DescribeLogDirs: DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED at the top level
    and no log directory."""
    if not authorize(ctx, header, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME):
        return DescribeLogDirsResponse(error_code=int(Errors.CLUSTER_AUTHORIZATION_FAILED), results=[])
    return await handler(ctx, header, request)
