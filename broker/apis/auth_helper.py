"""AuthHelper: the authorization questions request handlers ask the authorizer.

Owns: turning a request's principal and client address (``RequestHeader.principal`` /
``client_address``) into ``StandardAuthorizerData`` questions about one LITERAL resource, the
batch form over many names (``filter_by_authorized``), the by-resource-type question (KIP-679)
and the authorized-operations bit field (KIP-430), and the audit log of each decision
(``kafka.authorizer.logger``).  With no authorizer (``ApisContext.authorizer``
None: ``authorizer.class.name`` unset) every action is allowed and every supported operation is
authorized.  Does not own the ACLs (``common/security/standard_authorizer``) nor which API asks
what (``request_authorization``).

Kafka concept: ``kafka.server.AuthHelper`` and ``AclEntry.supportedOperations``.
"""

from __future__ import annotations

import logging
from collections import Counter
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
from kafkette.protocol.api_keys import APIS
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader

audit_log = logging.getLogger("kafka.authorizer.logger")
"""Kafka's authorizer audit log (its log4j logger ``kafka.authorizer.logger``)."""
TRACE = 5
"""log4j's TRACE, below logging.DEBUG: decisions that only filter or fall back."""
_API_NAMES = {spec.key: spec.name for spec in APIS}


def authorizer_of(ctx: Any) -> StandardAuthorizerData | None:
    """The context's authorizer, None when there is none (a context built without the field)."""
    return getattr(ctx, "authorizer", None)


def _principal(header: RequestHeader) -> KafkaPrincipal:
    return KafkaPrincipal.parse(header.principal)


def authorize(
    ctx: Any,
    header: RequestHeader,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    *,
    log_if_allowed: bool = True,
    log_if_denied: bool = True,
    ref_count: int = 1,
) -> bool:
    """May the request's principal, from its client address, do ``operation`` on the LITERAL
    resource ``(resource_type, name)``?  (Kafka's ``AuthHelper.authorize``.)  The decision goes to
    the ``kafka.authorizer.logger`` audit log as Kafka writes it: a denial at INFO, an allowed
    action at DEBUG, each only when its ``log_if_*`` says the action was really asked for (else at
    TRACE, level 5).

    Args:
        ctx: the ``ApisContext`` (its ``authorizer``; None allows everything, nothing logged).
        header: the request's header (``principal`` ``Type:name``, ``client_address``, ``api_key``).
        operation / resource_type / name: the action; ``CLUSTER_NAME`` for the cluster.
        log_if_allowed / log_if_denied: Kafka's ``Action.logIfAllowed`` / ``logIfDenied`` (False
            for checks that only filter or fall back, e.g. the cluster-wide CREATE before the
            per-topic one).
        ref_count: how many times the request names the resource (``resourceReferenceCount``).
    Returns:
        True when allowed.
    """
    authorizer = authorizer_of(ctx)
    if authorizer is None:
        return True
    principal = _principal(header)
    rule = authorizer.matching_rule(principal, header.client_address, operation, resource_type, name)
    allowed = rule.result is AuthorizationResult.ALLOWED
    if allowed:
        level = logging.DEBUG if log_if_allowed else TRACE
    else:
        level = logging.INFO if log_if_denied else TRACE
    if audit_log.isEnabledFor(level):
        audit_log.log(
            level,
            "Principal = %s is %s operation = %s from host = %s on resource = %s:LITERAL:%s for request = %s "
            "with resourceRefCount = %d based on rule %s",
            principal,
            "Allowed" if allowed else "Denied",
            operation.name,
            header.client_address,
            _pascal_case(resource_type.name),
            name,
            _API_NAMES.get(header.api_key, str(header.api_key)),
            ref_count,
            rule.description,
        )
    return allowed


def _pascal_case(name: str) -> str:
    """``TRANSACTIONAL_ID`` -> ``TransactionalId`` (Kafka's ``SecurityUtils.resourceTypeName``)."""
    return "".join(part.capitalize() for part in name.split("_"))


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
    *,
    log_if_allowed: bool = True,
    log_if_denied: bool = True,
) -> set[str]:
    """Kafka's ``AuthHelper.filterByAuthorized``: the distinct ``names`` the principal may do
    ``operation`` on (all of them without an authorizer); each name is asked once, with the number
    of times the request names it as its reference count (``log_if_*``: see ``authorize``)."""
    counts = Counter(names)
    if authorizer_of(ctx) is None:
        return set(counts)
    return {
        name
        for name, count in counts.items()
        if authorize(
            ctx,
            header,
            operation,
            resource_type,
            name,
            log_if_allowed=log_if_allowed,
            log_if_denied=log_if_denied,
            ref_count=count,
        )
    }


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
        if authorize(ctx, header, operation, resource_type, name, log_if_allowed=False, log_if_denied=False):
            field |= 1 << int(operation)
    return field
