"""DescribeAcls, CreateAcls and DeleteAcls messages round-trip through the msgpack codec at each of
Kafka's versions (1-3), keeping null filters null and Kafka's codes."""

from __future__ import annotations

import pytest

from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.protocol.apis.acls import (
    AclCreation,
    AclCreationResult,
    AclDescription,
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsFilter,
    DeleteAclsFilterResult,
    DeleteAclsMatchingAcl,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResource,
    DescribeAclsResponse,
)

VERSIONS = (1, 2, 3)

MESSAGES = [
    DescribeAclsRequest(
        resource_type_filter=ResourceType.ANY,
        resource_name_filter=None,
        pattern_type_filter=PatternType.MATCH,
        principal_filter=None,
        host_filter="*",
        operation=AclOperation.ANY,
        permission_type=AclPermissionType.ANY,
    ),
    DescribeAclsResponse(
        throttle_time_ms=5,
        error_code=0,
        error_message=None,
        resources=[
            DescribeAclsResource(
                resource_type=ResourceType.TOPIC,
                resource_name="pay",
                pattern_type=PatternType.PREFIXED,
                acls=[AclDescription(principal="User:alice", host="*", operation=3, permission_type=3)],
            )
        ],
    ),
    CreateAclsRequest(
        creations=[
            AclCreation(
                resource_type=ResourceType.GROUP,
                resource_name="g",
                resource_pattern_type=PatternType.LITERAL,
                principal="User:*",
                host="10.0.0.1",
                operation=AclOperation.DESCRIBE,
                permission_type=AclPermissionType.DENY,
            )
        ]
    ),
    CreateAclsResponse(
        throttle_time_ms=0,
        results=[
            AclCreationResult(error_code=0, error_message=None),
            AclCreationResult(error_code=42, error_message="Resource name should not be empty"),
        ],
    ),
    DeleteAclsRequest(
        filters=[
            DeleteAclsFilter(
                resource_type_filter=ResourceType.TOPIC,
                resource_name_filter="foo",
                pattern_type_filter=PatternType.ANY,
                principal_filter="User:bob",
                host_filter=None,
                operation=AclOperation.ANY,
                permission_type=AclPermissionType.ALLOW,
            )
        ]
    ),
    DeleteAclsResponse(
        throttle_time_ms=1,
        filter_results=[
            DeleteAclsFilterResult(
                error_code=0,
                error_message=None,
                matching_acls=[
                    DeleteAclsMatchingAcl(
                        error_code=0,
                        error_message=None,
                        resource_type=ResourceType.TOPIC,
                        resource_name="foo",
                        pattern_type=PatternType.LITERAL,
                        principal="User:bob",
                        host="*",
                        operation=AclOperation.WRITE,
                        permission_type=AclPermissionType.ALLOW,
                    )
                ],
            )
        ],
    ),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_acl_messages_round_trip(message, version):
    assert type(message).from_wire(message.to_wire(version), version) == message


def test_pattern_type_defaults_to_literal_as_in_kafka():
    assert DescribeAclsRequest().pattern_type_filter == PatternType.LITERAL
    assert AclCreation().resource_pattern_type == PatternType.LITERAL


def test_a_null_filter_stays_null_and_differs_from_empty():
    request = DescribeAclsRequest(resource_name_filter=None, principal_filter="")
    decoded = DescribeAclsRequest.from_wire(request.to_wire(3), 3)
    assert decoded.resource_name_filter is None
    assert decoded.principal_filter == ""
