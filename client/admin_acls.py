"""The AdminClient's ACL calls: CreateAcls, DescribeAcls and DeleteAcls (KIP-140, KIP-290).

Owns: ``AclAdminCalls`` (the three calls, mixed into ``kafkette.client.admin.AdminClient``) and the
conversion of Kafka's ACL value types to and from the wire.  The value types themselves are Kafka's
(``ResourcePattern``, ``AccessControlEntry``, ``AclBinding``, their filters and the four enums),
re-exported here from ``kafkette.common.security.acl`` where the brokers keep them.  CreateAcls and
DeleteAcls reach the active controller (any broker forwards them; NOT_CONTROLLER and lost
connections are retried); DescribeAcls is answered by any broker from the ACLs it holds, so a
change shows there once the controller has sent it (a few ms on loopback).

Kafka concept: ``Admin.createAcls``, ``Admin.describeAcls``, ``Admin.deleteAcls``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafkette.common.security.acl import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)
from kafkette.common.security.acl_messages import acl_binding
from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
)
from kafkette.protocol.errors import Errors, KafkaError, error_class

__all__ = [
    "AccessControlEntry",
    "AccessControlEntryFilter",
    "AclAdminCalls",
    "AclBinding",
    "AclBindingFilter",
    "AclOperation",
    "AclPermissionType",
    "PatternType",
    "ResourcePattern",
    "ResourcePatternFilter",
    "ResourceType",
]


def _error(code: int, message: str | None, what: str) -> KafkaError:
    """The exception for ``code``: the server's message, else ``what`` with the code's text."""
    cls = error_class(code)
    return cls(message) if message else cls(f"{what}: {cls.message}")


def _creation(binding: AclBinding) -> AclCreation:
    pattern, entry = binding.pattern, binding.entry
    return AclCreation(
        resource_type=int(pattern.resource_type),
        resource_name=pattern.name,
        resource_pattern_type=int(pattern.pattern_type),
        principal=entry.principal,
        host=entry.host,
        operation=int(entry.operation),
        permission_type=int(entry.permission_type),
    )


def _filter_fields(acl_filter: AclBindingFilter) -> dict[str, Any]:
    """DescribeAcls' / DeleteAcls' filter fields of ``acl_filter`` (None matches any)."""
    pattern, entry = acl_filter.pattern_filter, acl_filter.entry_filter
    return {
        "resource_type_filter": int(pattern.resource_type),
        "resource_name_filter": pattern.name,
        "pattern_type_filter": int(pattern.pattern_type),
        "principal_filter": entry.principal,
        "host_filter": entry.host,
        "operation": int(entry.operation),
        "permission_type": int(entry.permission_type),
    }


def _check_all(items: Iterable[Any], cls: type, call: str) -> list[Any]:
    out = list(items)
    bad = [x for x in out if not isinstance(x, cls)]
    if bad:
        raise TypeError(f"{call} takes {cls.__name__} objects, not {bad[0]!r}")
    return out


class AclAdminCalls:
    """The ACL calls of ``AdminClient`` (a mixin: it uses the client's ``_client`` and
    ``_send_to_controller``)."""

    _client: Any
    _request_timeout_ms: int

    _send_to_controller: Any  # AdminClient._send_to_controller

    async def create_acls(self, bindings: Iterable[AclBinding]) -> None:
        """Create ACLs (CreateAcls at the controller; one that exists already is no error).

        Args:
            bindings: ``AclBinding(ResourcePattern(ResourceType.TOPIC, "t", PatternType.LITERAL),
                AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW))``.

        Raises:
            TypeError: an element is not an AclBinding.
            SecurityDisabledError: the cluster has no authorizer (``authorizer.class.name``).
            InvalidRequestError, ClusterAuthorizationFailedError, ...: the first binding's error,
                with the server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        wanted = _check_all(bindings, AclBinding, "create_acls")
        if not wanted:
            return
        response: CreateAclsResponse = await self._send_to_controller(
            lambda: CreateAclsRequest(creations=[_creation(b) for b in wanted]),
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.results),
            0,
            "CreateAcls",
        )
        for binding, result in zip(wanted, response.results, strict=False):
            if result.error_code != Errors.NONE:
                raise _error(result.error_code, result.error_message, f"Creating ACL {binding}")

    async def describe_acls(self, acl_filter: AclBindingFilter = AclBindingFilter.ANY) -> list[AclBinding]:  # type: ignore[attr-defined]
        """The ACLs ``acl_filter`` matches (DescribeAcls at any broker).

        Args:
            acl_filter: e.g. ``AclBindingFilter(ResourcePatternFilter(ResourceType.TOPIC, "t",
                PatternType.MATCH), AccessControlEntryFilter.ANY)``; default every ACL.

        Returns:
            The bindings, grouped by resource pattern as the broker sent them.

        Raises:
            TypeError: ``acl_filter`` is not an AclBindingFilter.
            SecurityDisabledError: the cluster has no authorizer.
            InvalidRequestError, ClusterAuthorizationFailedError, ...: the broker's error.
            KafkaConnectionError: no broker could be reached.
        """
        if not isinstance(acl_filter, AclBindingFilter):
            raise TypeError(f"describe_acls takes an AclBindingFilter, not {acl_filter!r}")
        response: DescribeAclsResponse = await self._client.send_to_any(
            DescribeAclsRequest(**_filter_fields(acl_filter))
        )
        if response.error_code != Errors.NONE:
            raise _error(response.error_code, response.error_message, "DescribeAcls")
        return [
            _binding(resource.resource_type, resource.resource_name, resource.pattern_type, acl)
            for resource in response.resources
            for acl in resource.acls
        ]

    async def delete_acls(self, filters: Iterable[AclBindingFilter]) -> list[list[AclBinding]]:
        """Delete every ACL each filter matches (DeleteAcls at the controller).

        Args:
            filters: ``AclBindingFilter`` objects (see ``describe_acls``).

        Returns:
            Per filter, in order, the ACLs it deleted.

        Raises:
            TypeError: an element is not an AclBindingFilter.
            SecurityDisabledError: the cluster has no authorizer.
            InvalidRequestError, ...: the first filter's (or deleted ACL's) error, with the
                server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        wanted = _check_all(filters, AclBindingFilter, "delete_acls")
        if not wanted:
            return []
        response: DeleteAclsResponse = await self._send_to_controller(
            lambda: DeleteAclsRequest(filters=[DeleteAclsFilter(**_filter_fields(f)) for f in wanted]),
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.filter_results),
            0,
            "DeleteAcls",
        )
        out: list[list[AclBinding]] = []
        for acl_filter, result in zip(wanted, response.filter_results, strict=False):
            if result.error_code != Errors.NONE:
                raise _error(result.error_code, result.error_message, f"Deleting ACLs matching {acl_filter}")
            deleted = []
            for matching in result.matching_acls:
                if matching.error_code != Errors.NONE:
                    raise _error(matching.error_code, matching.error_message, "Deleting an ACL")
                deleted.append(
                    _binding(matching.resource_type, matching.resource_name, matching.pattern_type, matching)
                )
            out.append(deleted)
        return out


def _binding(resource_type: int, resource_name: str, pattern_type: int, acl: Any) -> AclBinding:
    """The binding of a described or deleted ACL (``acl`` has principal, host, operation and
    permission type), read as CreateAcls' creations are (``acl_binding``)."""
    return acl_binding(
        AclCreation(
            resource_type=resource_type,
            resource_name=resource_name,
            resource_pattern_type=pattern_type,
            principal=acl.principal,
            host=acl.host,
            operation=acl.operation,
            permission_type=acl.permission_type,
        )
    )
