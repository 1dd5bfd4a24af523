"""Which authorization each API's request goes through: the table api key -> check.

Owns: ``AUTHORIZATIONS`` (every API the broker serves has one entry, the unit tests assert it for
every API of the Kafka listener) and ``authorize_request``, which ``KafkaApis`` calls when the broker
has an authorizer (``ApisContext.authorizer``; without one nothing here runs).  Fail closed: an API
without an entry is refused as a whole with CLUSTER_AUTHORIZATION_FAILED.  A check is
``async check(ctx, header, request, handler) -> response``: it may refuse the request (raise the
API's authorization error, answered by its ``getErrorResponse``), narrow it to the authorized
resources before the handler and add the refused ones to the handler's answer, or fill the
answer's authorized operations (KIP-430).  Does not own the checks (``topic_authorization``,
``metadata_authorization``, ``admin_authorization``, ``group_authorization``,
``cluster_authorization``; CreateAcls / DescribeAcls / DeleteAcls: ``acl_apis_authorization``).

Kafka concept: the ``authHelper`` calls at the top of each ``KafkaApis`` / ``ControllerApis``
handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kafkette.broker.apis import (
    admin_authorization,
    cluster_authorization,
    group_authorization,
    metadata_authorization,
    topic_authorization,
)
from kafkette.broker.apis.auth_helper import authorize_cluster_operation
from kafkette.broker.apis.cluster_authorization import cluster_operation, no_check
from kafkette.broker.apis.controller_forwarding import is_forwarded
from kafkette.common.security.acl import AclOperation
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader

Handler = Callable[[Any, RequestHeader, Any], Awaitable[Any]]
Check = Callable[[Any, RequestHeader, Any, Handler], Awaitable[Any]]

_CLUSTER_ACTION = cluster_operation(AclOperation.CLUSTER_ACTION)

AUTHORIZATIONS: dict[int, Check] = {
    ApiKey.PRODUCE: topic_authorization.check_produce,
    ApiKey.FETCH: no_check,  # READ per topic / CLUSTER_ACTION for followers: in ``fetch``'s session walk
    ApiKey.LIST_OFFSETS: topic_authorization.check_list_offsets,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: topic_authorization.check_offsets_for_leader_epoch,
    ApiKey.DELETE_RECORDS: topic_authorization.check_delete_records,
    ApiKey.DESCRIBE_PRODUCERS: topic_authorization.check_describe_producers,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: topic_authorization.check_describe_topic_partitions,
    ApiKey.METADATA: metadata_authorization.check_metadata,  # DescribeCluster reaches the broker as Metadata
    ApiKey.CREATE_TOPICS: admin_authorization.check_create_topics,
    ApiKey.DELETE_TOPICS: admin_authorization.check_delete_topics,
    ApiKey.CREATE_PARTITIONS: admin_authorization.check_create_partitions,
    ApiKey.DESCRIBE_CONFIGS: admin_authorization.check_describe_configs,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: admin_authorization.check_incremental_alter_configs,  # and AlterConfigs
    ApiKey.ELECT_LEADERS: cluster_operation(AclOperation.ALTER),
    ApiKey.DESCRIBE_LOG_DIRS: cluster_authorization.check_describe_log_dirs,
    ApiKey.DESCRIBE_QUORUM: cluster_operation(AclOperation.DESCRIBE),
    ApiKey.INIT_PRODUCER_ID: cluster_authorization.check_init_producer_id,
    # the transactional APIs: WRITE / DESCRIBE on the transactional id and the topics, in their handlers
    ApiKey.ADD_PARTITIONS_TO_TXN: no_check,
    ApiKey.ADD_OFFSETS_TO_TXN: no_check,
    ApiKey.END_TXN: no_check,
    ApiKey.DESCRIBE_TRANSACTIONS: no_check,
    ApiKey.LIST_TRANSACTIONS: no_check,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: cluster_operation(AclOperation.DESCRIBE),
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: cluster_operation(AclOperation.ALTER),
    ApiKey.DESCRIBE_CLIENT_QUOTAS: cluster_operation(AclOperation.DESCRIBE_CONFIGS),
    ApiKey.ALTER_CLIENT_QUOTAS: cluster_operation(AclOperation.ALTER_CONFIGS),
    ApiKey.FIND_COORDINATOR: group_authorization.check_find_coordinator,
    ApiKey.JOIN_GROUP: group_authorization.check_read_group,
    ApiKey.SYNC_GROUP: group_authorization.check_read_group,
    ApiKey.HEARTBEAT: group_authorization.check_read_group,
    ApiKey.LEAVE_GROUP: group_authorization.check_read_group,
    ApiKey.OFFSET_COMMIT: group_authorization.check_offset_commit,
    ApiKey.TXN_OFFSET_COMMIT: group_authorization.check_txn_offset_commit,
    ApiKey.OFFSET_FETCH: no_check,  # DESCRIBE per group and per topic: in ``offset_fetch``, per group
    ApiKey.DESCRIBE_GROUPS: group_authorization.check_describe_groups,
    ApiKey.LIST_GROUPS: group_authorization.check_list_groups,
    ApiKey.DELETE_GROUPS: group_authorization.check_delete_groups,
    ApiKey.OFFSET_DELETE: group_authorization.check_offset_delete,
    ApiKey.CONSUMER_GROUP_HEARTBEAT: group_authorization.check_consumer_group_heartbeat,
    ApiKey.CONSUMER_GROUP_DESCRIBE: group_authorization.check_consumer_group_describe,
    ApiKey.CREATE_ACLS: no_check,  # ALTER on the cluster: in ``create_acls``, answered per creation
    ApiKey.DELETE_ACLS: no_check,  # ALTER on the cluster: in ``delete_acls``, answered per filter
    ApiKey.DESCRIBE_ACLS: no_check,  # DESCRIBE on the cluster: in ``describe_acls``
    ApiKey.API_VERSIONS: no_check,
    ApiKey.SASL_HANDSHAKE: no_check,
    ApiKey.SASL_AUTHENTICATE: no_check,
    # inter-broker and controller APIs: CLUSTER_ACTION on the cluster
    ApiKey.LEADER_AND_ISR: _CLUSTER_ACTION,
    ApiKey.UPDATE_METADATA: _CLUSTER_ACTION,
    ApiKey.STOP_REPLICA: _CLUSTER_ACTION,
    ApiKey.CONTROLLED_SHUTDOWN: _CLUSTER_ACTION,
    ApiKey.ALTER_PARTITION: _CLUSTER_ACTION,
    ApiKey.BROKER_REGISTRATION: _CLUSTER_ACTION,
    ApiKey.BROKER_HEARTBEAT: _CLUSTER_ACTION,
    ApiKey.ALLOCATE_PRODUCER_IDS: _CLUSTER_ACTION,
    ApiKey.VOTE: _CLUSTER_ACTION,
    ApiKey.BEGIN_QUORUM_EPOCH: _CLUSTER_ACTION,
    ApiKey.END_QUORUM_EPOCH: _CLUSTER_ACTION,
    ApiKey.FETCH_SNAPSHOT: _CLUSTER_ACTION,
    ApiKey.WRITE_TXN_MARKERS: cluster_authorization.check_write_txn_markers,
}
"""The check of each API the broker serves, by the api key its handler is dispatched on (the
Kafka listener's AlterConfigs and DescribeCluster arrive as IncrementalAlterConfigs and Metadata)."""


async def authorize_request(ctx: Any, header: RequestHeader, request: Any, handler: Handler) -> Any:
    """Answer ``request`` through its API's check and ``handler``.

    A request another broker forwarded to this node's controller (KIP-590: its controller channel's
    client id) was authorized there for its client; here its sender needs CLUSTER_ACTION on the
    cluster, as Kafka's controller asks of an ``EnvelopeRequest``'s sender.

    Raises:
        ClusterAuthorizationFailedError: the API has no entry in ``AUTHORIZATIONS`` (fail closed),
            or a forwarded request's sender lacks CLUSTER_ACTION.
        any authorization error the API's check raises (answered by the API's ``getErrorResponse``).
    """
    if is_forwarded(header):
        authorize_cluster_operation(ctx, header, AclOperation.CLUSTER_ACTION)
        return await handler(ctx, header, request)
    check = AUTHORIZATIONS.get(header.api_key)
    if check is None:
        raise error_class(Errors.CLUSTER_AUTHORIZATION_FAILED)(
            f"No authorization is defined for api key {header.api_key}"
        )
    return await check(ctx, header, request, handler)
