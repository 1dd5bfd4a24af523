"""AclStore: the ACLs a broker holds, as the controller sent them, for DescribeAcls and for
authorization (KIP-140, KIP-801).

Owns: the ACLs by id in Kafka's ``StandardAuthorizerData`` (whose ``authorize`` the request
handlers ask, with the ``super.users`` and ``allow.everyone.if.no.acl.found`` of the broker's
``StandardAuthorizerConfig``), applying UpdateMetadata's ``acls`` and ``deleted_acl_ids`` (a full
update replaces every ACL), and DescribeAcls' answer (the ACLs a filter matches, grouped by
resource pattern).  Exists only when ``authorizer.class.name`` names Kafka's StandardAuthorizer.
Does not own where ACLs are decided and stored (the controller's ``AclControlManager`` and the
metadata log) nor which request needs which permission.

Kafka concept: ``StandardAuthorizer`` on a broker, filled by ``AclPublisher`` (``loadSnapshot``,
``addAcl``, ``removeAcl``), and ``StandardAuthorizer.acls`` behind ``AclApis.handleDescribeAcls``.
"""

from __future__ import annotations

from kafkette.common.security.acl import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafkette.common.security.acl_messages import acl_binding_filter, describe_resources
from kafkette.common.security.standard_authorizer import (
    StandardAcl,
    StandardAuthorizerConfig,
    StandardAuthorizerData,
)
from kafkette.protocol.apis.acls import DescribeAclsRequest, DescribeAclsResponse
from kafkette.protocol.apis.update_metadata import UpdateMetadataAcl
from kafkette.protocol.errors import Errors

_ANY = AclBindingFilter.ANY  # type: ignore[attr-defined]


def _standard_acl(entry: UpdateMetadataAcl) -> StandardAcl:
    return StandardAcl(
        ResourceType.from_code(entry.resource_type),
        entry.resource_name,
        PatternType.from_code(entry.pattern_type),
        entry.principal,
        entry.host,
        AclOperation.from_code(entry.operation),
        AclPermissionType.from_code(entry.permission_type),
    )


class AclStore(StandardAuthorizerData):
    """A broker's ACLs by id; ``authorize`` is ``StandardAuthorizerData.authorize``.

    Args:
        config: the broker's ``super.users`` and ``allow.everyone.if.no.acl.found``.
    """

    def __init__(self, config: StandardAuthorizerConfig) -> None:
        super().__init__(config)

    def update(self, acls: list[UpdateMetadataAcl], deleted_acl_ids: list[str], full: bool) -> None:
        """Apply UpdateMetadata's ACLs: ``full`` first forgets every ACL; the ``deleted_acl_ids``
        leave (an id not held is skipped); each of ``acls`` is stored under its id (replacing an
        ACL held under the same id, as an update that arrives twice must not fail)."""
        if full:
            for acl_id in [acl_id for acl_id, _ in self.acls(_ANY)]:
                self.remove_acl(acl_id)
        for acl_id in deleted_acl_ids:
            if self.get(acl_id) is not None:
                self.remove_acl(acl_id)
        for entry in acls:
            if self.get(entry.id) is not None:
                self.remove_acl(entry.id)
            self.add_acl(entry.id, _standard_acl(entry))

    def describe(self, request: DescribeAclsRequest) -> DescribeAclsResponse:
        """DescribeAcls: NONE ("" message, Kafka's default) with every held ACL the request's
        filter matches, one resource per pattern (``describe_resources``' order)."""
        acl_filter = acl_binding_filter(request)
        return DescribeAclsResponse(
            throttle_time_ms=0,
            error_code=Errors.NONE,
            error_message="",
            resources=describe_resources(binding for _, binding in self.acls(acl_filter)),
        )
