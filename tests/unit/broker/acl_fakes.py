"""Helpers of the authorization tests: a StandardAuthorizerData holding given ACLs and a request
header carrying a principal and client address."""

from __future__ import annotations

from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.common.security.standard_authorizer import (
    StandardAcl,
    StandardAuthorizerConfig,
    StandardAuthorizerData,
)
from kafkette.protocol.framing import RequestHeader

ALICE = "User:alice"


def acl(
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    *,
    principal: str = ALICE,
    permission: AclPermissionType = AclPermissionType.ALLOW,
    pattern: PatternType = PatternType.LITERAL,
    host: str = "*",
) -> StandardAcl:
    """One ACL (ALLOW, LITERAL, any host, alice unless told)."""
    return StandardAcl(resource_type, name, pattern, principal, host, operation, permission)


def authorizer(
    *acls: StandardAcl, super_users: tuple[str, ...] = (), allow_everyone_if_no_acl_found: bool = False
) -> StandardAuthorizerData:
    """A StandardAuthorizerData holding ``acls`` (ids 0, 1, ...)."""
    data = StandardAuthorizerData(
        StandardAuthorizerConfig(frozenset(super_users), allow_everyone_if_no_acl_found)
    )
    for acl_id, entry in enumerate(acls):
        data.add_acl(acl_id, entry)
    return data


def header(api_key: int, version: int, principal: str = ALICE, address: str = "10.0.0.1") -> RequestHeader:
    """A Kafka listener request header from ``principal`` at ``address``."""
    return RequestHeader(api_key, version, 7, "client", "KAFKA", address, principal)
