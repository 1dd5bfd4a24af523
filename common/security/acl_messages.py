"""The ACL admin messages read as Kafka's ACL model and written back from it.

Owns: turning CreateAcls' creations into ``AclBinding``s, DescribeAcls' and DeleteAcls' filters
into ``AclBindingFilter``s (the int8 codes through Kafka's ``fromCode``: an unknown code is
UNKNOWN), and writing bindings back as DescribeAcls' resources (grouped by resource pattern) and
DeleteAcls' matching ACLs.  Pure: no I/O.  Does not own where ACLs are kept (the controller's
``AclControlManager``, a broker's ``AclStore``) nor the checks a creation or filter must pass
(``acl.validate_new_acl`` / ``acl.validate_filter``).

Kafka concept: ``CreateAclsRequest.aclBinding``, ``DeleteAclsRequest.aclBindingFilter``,
``DescribeAclsRequest.filter``, ``DescribeAclsResponse.aclsResources``,
``DeleteAclsResponse.matchingAcl``.
"""

from __future__ import annotations

from collections.abc import Iterable

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
from kafkette.protocol.apis.acls import (
    AclCreation,
    AclDescription,
    DeleteAclsFilter,
    DeleteAclsMatchingAcl,
    DescribeAclsRequest,
    DescribeAclsResource,
)


def acl_binding(creation: AclCreation) -> AclBinding:
    """Kafka's ``CreateAclsRequest.aclBinding``: one creation as a binding.

    Raises:
        ValueError: a code Kafka's ``ResourcePattern`` / ``AccessControlEntry`` refuse (resource
            type ANY, pattern type ANY or MATCH, operation ANY, permission type ANY); Kafka's
            controller then fails the whole request (UNKNOWN_SERVER_ERROR).
    """
    return AclBinding(
        ResourcePattern(
            ResourceType.from_code(creation.resource_type),
            creation.resource_name,
            PatternType.from_code(creation.resource_pattern_type),
        ),
        AccessControlEntry(
            creation.principal,
            creation.host,
            AclOperation.from_code(creation.operation),
            AclPermissionType.from_code(creation.permission_type),
        ),
    )


def acl_binding_filter(acl_filter: DescribeAclsRequest | DeleteAclsFilter) -> AclBindingFilter:
    """Kafka's ``DeleteAclsRequest.aclBindingFilter`` / ``DescribeAclsRequest.filter``: a
    DescribeAcls request or one DeleteAcls filter as a binding filter (null fields match any)."""
    return AclBindingFilter(
        ResourcePatternFilter(
            ResourceType.from_code(acl_filter.resource_type_filter),
            acl_filter.resource_name_filter,
            PatternType.from_code(acl_filter.pattern_type_filter),
        ),
        AccessControlEntryFilter(
            acl_filter.principal_filter,
            acl_filter.host_filter,
            AclOperation.from_code(acl_filter.operation),
            AclPermissionType.from_code(acl_filter.permission_type),
        ),
    )


def describe_resources(bindings: Iterable[AclBinding]) -> list[DescribeAclsResource]:
    """Kafka's ``DescribeAclsResponse.aclsResources``: one resource per distinct pattern with its
    distinct entries.  Kafka's order is a HashMap's; here patterns sort by (resource type, name,
    pattern type) and entries by (principal, host, operation, permission type), so that an answer
    does not depend on the order ACLs were created in."""
    by_pattern: dict[ResourcePattern, set[AccessControlEntry]] = {}
    for binding in bindings:
        by_pattern.setdefault(binding.pattern, set()).add(binding.entry)
    return [
        DescribeAclsResource(
            resource_type=int(pattern.resource_type),
            resource_name=pattern.name,
            pattern_type=int(pattern.pattern_type),
            acls=[
                AclDescription(
                    principal=entry.principal,
                    host=entry.host,
                    operation=int(entry.operation),
                    permission_type=int(entry.permission_type),
                )
                for entry in sorted(
                    by_pattern[pattern],
                    key=lambda e: (e.principal, e.host, int(e.operation), int(e.permission_type)),
                )
            ],
        )
        for pattern in sorted(by_pattern, key=lambda p: (int(p.resource_type), p.name, int(p.pattern_type)))
    ]


def matching_acl(binding: AclBinding) -> DeleteAclsMatchingAcl:
    """Kafka's ``DeleteAclsResponse.matchingAcl`` of a deleted binding: NONE with a null message
    (Kafka's ``ApiError.NONE``)."""
    pattern, entry = binding.pattern, binding.entry
    return DeleteAclsMatchingAcl(
        error_code=0,
        error_message=None,
        resource_type=int(pattern.resource_type),
        resource_name=pattern.name,
        pattern_type=int(pattern.pattern_type),
        principal=entry.principal,
        host=entry.host,
        operation=int(entry.operation),
        permission_type=int(entry.permission_type),
    )
