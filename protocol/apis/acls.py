"""DescribeAcls (key 29), CreateAcls (key 30) and DeleteAcls (key 31): the admin APIs over the
cluster's ACLs (KIP-140; pattern types from v1, KIP-290; flexible from v2, KIP-482).

Declared once, in Kafka's versions (1-3 for all three, flexible from 2).  The int8 fields carry
Kafka's codes from ``kafkette.common.security.acl`` (``ResourceType``, ``PatternType``,
``AclOperation``, ``AclPermissionType``); a null name, principal or host in a filter matches any.
Both listeners answer them (``broker/apis/describe_acls``, ``create_acls``, ``delete_acls``).
Kafka concept: ``DescribeAclsRequest``/``Response``, ``CreateAclsRequest``/``Response``,
``DeleteAclsRequest``/``Response``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, String, Struct

_LITERAL = 3  # PatternType.LITERAL, Kafka's default pattern type in these messages


class DescribeAclsRequest(Struct):
    """One ACL filter: resource type / name / pattern type, principal, host, operation, permission."""

    FIELDS = (
        Field("resource_type_filter", Int8),
        Field("resource_name_filter", String, nullable="0+"),
        Field("pattern_type_filter", Int8, "1+", _LITERAL),
        Field("principal_filter", String, nullable="0+"),
        Field("host_filter", String, nullable="0+"),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class AclDescription(Struct):
    """One entry bound to a described resource pattern."""

    FIELDS = (
        Field("principal", String),
        Field("host", String),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class DescribeAclsResource(Struct):
    """A resource pattern and every matching ACL entry on it."""

    FIELDS = (
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("pattern_type", Int8, "1+", _LITERAL),
        Field("acls", Array(AclDescription)),
    )


class DescribeAclsResponse(Struct):
    """NONE with the matching ACLs grouped by pattern, or one error for the whole filter."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("resources", Array(DescribeAclsResource)),
    )


class AclCreation(Struct):
    """One ACL to create (every field specific: see ``validate_new_acl``)."""

    FIELDS = (
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("resource_pattern_type", Int8, "1+", _LITERAL),
        Field("principal", String),
        Field("host", String),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class CreateAclsRequest(Struct):
    """The ACLs to create."""

    FIELDS = (Field("creations", Array(AclCreation)),)


class AclCreationResult(Struct):
    """NONE, or the error (e.g. INVALID_REQUEST with Kafka's message) for one creation."""

    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
    )


class CreateAclsResponse(Struct):
    """One result per creation, in request order."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(AclCreationResult)),
    )


class DeleteAclsFilter(Struct):
    """One filter selecting ACLs to delete (same shape as DescribeAclsRequest)."""

    FIELDS = (
        Field("resource_type_filter", Int8),
        Field("resource_name_filter", String, nullable="0+"),
        Field("pattern_type_filter", Int8, "1+", _LITERAL),
        Field("principal_filter", String, nullable="0+"),
        Field("host_filter", String, nullable="0+"),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class DeleteAclsRequest(Struct):
    """The filters; each deletes every ACL it matches."""

    FIELDS = (Field("filters", Array(DeleteAclsFilter)),)


class DeleteAclsMatchingAcl(Struct):
    """One deleted ACL (or the error deleting it)."""

    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("pattern_type", Int8, "1+", _LITERAL),
        Field("principal", String),
        Field("host", String),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class DeleteAclsFilterResult(Struct):
    """The result of one filter: its error, or the ACLs it deleted."""

    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("matching_acls", Array(DeleteAclsMatchingAcl)),
    )


class DeleteAclsResponse(Struct):
    """One result per filter, in request order."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("filter_results", Array(DeleteAclsFilterResult)),
    )
