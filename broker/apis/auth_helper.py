"""AuthHelper: the authorization questions request handlers ask the authorizer.

Owns: turning a request's principal and client address (``RequestHeader.principal`` /
``client_address``) into ``StandardAuthorizerData`` questions about one LITERAL resource, the
batch form over many names (``filter_by_authorized``), the by-resource-type question (KIP-679)
and the authorized-operations bit field (KIP-430).  With no authorizer (``ApisContext.authorizer``
None: ``authorizer.class.name`` unset) every action is allowed and every supported operation is
authorized.  Does not own the ACLs (``common/security/standard_authorizer``) nor which API asks
what (``request_authorization``).

Kafka concept: ``kafka.server.AuthHelper`` and ``AclEntry.supportedOperations``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafkette.common.security.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclOperation,
    KafkaPrincipal,
    ResourceType,
)
from kafkette.common.security.standard_authorizer import AuthorizationResult, StandardAuthorizerData
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader


def authorizer_of(ctx: Any) -> StandardAuthorizerData | None:
    """The context's authorizer, None when there is none (a context built without the field)."""
    return getattr(ctx, "authorizer", None)


def _principal(header: RequestHeader) -> KafkaPrincipal:
    return KafkaPrincipal.parse(header.principal)


def authorize(
    ctx: Any, header: RequestHeader, operation: AclOperation, resource_type: ResourceType, name: str
) -> bool:
    """May the request's principal, from its client address, do ``operation`` on the LITERAL
    resource ``(resource_type, name)``?  (Kafka's ``AuthHelper.authorize``.)

    Args:
        ctx: the ``ApisContext`` (its ``authorizer``; None allows everything).
        header: the request's header (``principal`` ``Type:name``, ``client_address``).
        operation / resource_type / name: the action; ``CLUSTER_NAME`` for the cluster.
    Returns:
        True when allowed.
    """
    authorizer = authorizer_of(ctx)
    if authorizer is None:
        return True
    result = authorizer.authorize(_principal(header), header.client_address, operation, resource_type, name)
    return result is AuthorizationResult.ALLOWED


def authorize_cluster_operation(ctx: Any, header: RequestHeader, operation: AclOperation) -> None:
    """Kafka's ``AuthHelper.authorizeClusterOperation``: the whole request needs ``operation`` on
    the cluster.

    Raises:
        ClusterAuthorizationFailedError: denied (the request is answered CLUSTER_AUTHORIZATION_FAILED,
            as the API's ``getErrorResponse`` places it).
    """
    if not authorize(ctx, header, operation, ResourceType.CLUSTER, CLUSTER_NAME):
        raise error_class(Errors.CLUSTER_AUTHORIZATION_FAILED)(f"Request needs {operation.name} permission.")


def filter_by_authorized(
    ctx: Any,
    header: RequestHeader,
    operation: AclOperation,
    resource_type: ResourceType,
    names: Iterable[str],
) -> set[str]:
    """Kafka's ``AuthHelper.filterByAuthorized``: the distinct ``names`` the principal may do
    ``operation`` on (all of them without an authorizer); each name is asked once."""
    distinct = set(names)
    if authorizer_of(ctx) is None:
        return distinct
    return {name for name in distinct if authorize(ctx, header, operation, resource_type, name)}


def authorize_by_resource_type(
    ctx: Any, header: RequestHeader, operation: AclOperation, resource_type: ResourceType
) -> bool:
    """Kafka's ``AuthHelper.authorizeByResourceType`` (KIP-679): may the principal do ``operation``
    on at least one resource of ``resource_type``?  True without an authorizer."""
    authorizer = authorizer_of(ctx)
    if authorizer is None:
        return True
    result = authorizer.authorize_by_resource_type(
        _principal(header), header.client_address, operation, resource_type
    )
    return result is AuthorizationResult.ALLOWED


def authorized_operations(ctx: Any, header: RequestHeader, resource_type: ResourceType, name: str) -> int:
    """Kafka's ``AuthHelper.authorizedOperations`` (KIP-430): the bit field with bit ``op.code``
    set for each supported operation on ``(resource_type, name)`` the principal may perform
    (every supported one without an authorizer), as ``Utils.to32BitField`` packs it.

    Returns:
        An int32 bit field (e.g. 3576, every topic operation; 0: none).
    """
    field = 0
    for operation in SUPPORTED_OPERATIONS.get(resource_type, ()):
        if authorize(ctx, header, operation, resource_type, name):
            field |= 1 << int(operation)
    return field
