"""The authorization of the ACL APIs: CreateAcls and DeleteAcls need ALTER on the cluster,
DescribeAcls DESCRIBE on the cluster; a refused request fails as a whole with
CLUSTER_AUTHORIZATION_FAILED.

Owns: those three checks, for the ACL API handlers to call before touching the ACLs.  Does not
own the handlers nor the ACL store.

Kafka concept: ``AclApis.handleCreateAcls`` / ``handleDeleteAcls`` / ``handleDescribeAcls``
(``authHelper.authorizeClusterOperation``).
"""

from __future__ import annotations

from typing import Any

from kafkette.broker.apis.auth_helper import authorize_cluster_operation
from kafkette.common.security.acl import AclOperation
from kafkette.protocol.framing import RequestHeader


def check_create_acls(ctx: Any, header: RequestHeader) -> None:
    """CreateAcls needs ALTER on the cluster.

    Raises:
        ClusterAuthorizationFailedError: denied.
    """
    authorize_cluster_operation(ctx, header, AclOperation.ALTER)


def check_delete_acls(ctx: Any, header: RequestHeader) -> None:
    """DeleteAcls needs ALTER on the cluster.

    Raises:
        ClusterAuthorizationFailedError: denied.
    """
    authorize_cluster_operation(ctx, header, AclOperation.ALTER)


def check_describe_acls(ctx: Any, header: RequestHeader) -> None:
    """DescribeAcls needs DESCRIBE on the cluster.

    Raises:
        ClusterAuthorizationFailedError: denied.
    """
    authorize_cluster_operation(ctx, header, AclOperation.DESCRIBE)
