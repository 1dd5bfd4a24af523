"""KafkaApis: dispatches each decoded request to its API's handler module.

Owns: the table api key -> handler.  Does not own the components handlers may use
(``apis_context.ApisContext``).  Every handler has one signature,
``async handle(ctx, header, request) -> response | None``.  Internal exceptions are
turned into error codes inside the handlers, per partition; an exception escaping a
handler is logged by the socket server and answered with UNKNOWN_SERVER_ERROR.  With an authorizer
(``ApisContext.authorizer``) each request first goes through its API's authorization
(``request_authorization``).  With a ``request_percentage`` quota in force, the time each
request's handler runs is recorded against its user and client id and the answer carries the
throttle time (KIP-124), except for requests between nodes.

Kafka concept: ``KafkaApis.handle`` (kept small: one module per API, as Redpanda's
``handlers/`` and Tansu's ``service/`` do).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from kafkette.broker.apis import (
    add_offsets_to_txn,
    add_partitions_to_txn,
    allocate_producer_ids,
    alter_client_quotas,
    alter_partition,
    alter_user_scram_credentials,
    api_versions,
    broker_heartbeat,
    broker_registration,
    consumer_group_describe,
    consumer_group_heartbeat,
    controlled_shutdown,
    create_acls,
    create_partitions,
    create_topics,
    delete_acls,
    delete_groups,
    delete_records,
    delete_topics,
    describe_acls,
    describe_client_quotas,
    describe_configs,
    describe_groups,
    describe_log_dirs,
    describe_producers,
    describe_quorum,
    describe_topic_partitions,
    describe_transactions,
    describe_user_scram_credentials,
    elect_leaders,
    end_txn,
    fetch,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    init_producer_id,
    join_group,
    leader_and_isr,
    leave_group,
    list_groups,
    list_offsets,
    list_transactions,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    offsets_for_leader_epoch,
    produce,
    raft_quorum,
    sasl_after_authentication,
    stop_replica,
    sync_group,
    txn_offset_commit,
    update_metadata,
    write_txn_markers,
)
from kafkette.broker.apis.apis_context import ApisContext
from kafkette.broker.apis.request_authorization import authorize_request
from kafkette.broker.client_quota_manager import principal_name
from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.request_thread_time import TimedCoroutine
from kafkette.common.network.socket_server import CloseConnectionResponse, NoOpResponse
from kafkette.protocol.api_keys import CLUSTER_ACTION_APIS, ApiKey, ApiSpec
from kafkette.protocol.errors import UnsupportedVersionError
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.schema import Struct

Handler = Callable[
    [ApisContext, RequestHeader, Any], Awaitable[Struct | CloseConnectionResponse | NoOpResponse | None]
]

HANDLERS: dict[int, Handler] = {
    ApiKey.PRODUCE: produce.handle,
    ApiKey.FETCH: fetch.handle,
    ApiKey.LIST_OFFSETS: list_offsets.handle,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: offsets_for_leader_epoch.handle,
    ApiKey.METADATA: metadata.handle,
    ApiKey.LEADER_AND_ISR: leader_and_isr.handle,
    ApiKey.UPDATE_METADATA: update_metadata.handle,
    ApiKey.STOP_REPLICA: stop_replica.handle,
    ApiKey.CONTROLLED_SHUTDOWN: controlled_shutdown.handle,
    ApiKey.API_VERSIONS: api_versions.handle,
    ApiKey.CREATE_TOPICS: create_topics.handle,
    ApiKey.DELETE_TOPICS: delete_topics.handle,
    ApiKey.DELETE_RECORDS: delete_records.handle,
    ApiKey.CREATE_PARTITIONS: create_partitions.handle,
    ApiKey.ELECT_LEADERS: elect_leaders.handle,
    ApiKey.DESCRIBE_QUORUM: describe_quorum.handle,
    ApiKey.DESCRIBE_CONFIGS: describe_configs.handle,
    ApiKey.DESCRIBE_LOG_DIRS: describe_log_dirs.handle,
    ApiKey.DESCRIBE_PRODUCERS: describe_producers.handle,
    ApiKey.WRITE_TXN_MARKERS: write_txn_markers.handle,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: describe_topic_partitions.handle,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: incremental_alter_configs.handle,
    ApiKey.ALTER_PARTITION: alter_partition.handle,
    ApiKey.BROKER_REGISTRATION: broker_registration.handle,
    ApiKey.BROKER_HEARTBEAT: broker_heartbeat.handle,
    ApiKey.INIT_PRODUCER_ID: init_producer_id.handle,
    ApiKey.ADD_PARTITIONS_TO_TXN: add_partitions_to_txn.handle,
    ApiKey.ADD_OFFSETS_TO_TXN: add_offsets_to_txn.handle,
    ApiKey.END_TXN: end_txn.handle,
    ApiKey.DESCRIBE_TRANSACTIONS: describe_transactions.handle,
    ApiKey.LIST_TRANSACTIONS: list_transactions.handle,
    ApiKey.FIND_COORDINATOR: find_coordinator.handle,
    ApiKey.OFFSET_COMMIT: offset_commit.handle,
    ApiKey.TXN_OFFSET_COMMIT: txn_offset_commit.handle,  # no listener offers it until EndTxn exists
    ApiKey.OFFSET_FETCH: offset_fetch.handle,
    ApiKey.JOIN_GROUP: join_group.handle,
    ApiKey.SYNC_GROUP: sync_group.handle,
    ApiKey.HEARTBEAT: heartbeat.handle,
    ApiKey.LEAVE_GROUP: leave_group.handle,
    ApiKey.LIST_GROUPS: list_groups.handle,
    ApiKey.DESCRIBE_GROUPS: describe_groups.handle,
    ApiKey.DELETE_GROUPS: delete_groups.handle,
    ApiKey.OFFSET_DELETE: offset_delete.handle,
    ApiKey.SASL_HANDSHAKE: sasl_after_authentication.handle_handshake,
    ApiKey.SASL_AUTHENTICATE: sasl_after_authentication.handle_authenticate,
    ApiKey.CONSUMER_GROUP_HEARTBEAT: consumer_group_heartbeat.handle,
    ApiKey.CONSUMER_GROUP_DESCRIBE: consumer_group_describe.handle,
    ApiKey.ALLOCATE_PRODUCER_IDS: allocate_producer_ids.handle,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: describe_user_scram_credentials.handle,
    ApiKey.DESCRIBE_CLIENT_QUOTAS: describe_client_quotas.handle,
    ApiKey.ALTER_CLIENT_QUOTAS: alter_client_quotas.handle,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: alter_user_scram_credentials.handle,
    ApiKey.DESCRIBE_ACLS: describe_acls.handle,
    ApiKey.CREATE_ACLS: create_acls.handle,
    ApiKey.DELETE_ACLS: delete_acls.handle,
    ApiKey.VOTE: raft_quorum.handle,
    ApiKey.BEGIN_QUORUM_EPOCH: raft_quorum.handle,
    ApiKey.END_QUORUM_EPOCH: raft_quorum.handle,
    ApiKey.FETCH_SNAPSHOT: raft_quorum.handle,
}


class KafkaApis:
    """Routes requests by api key.

    Args:
        ctx: the components handlers use.
    """

    def __init__(self, ctx: ApisContext) -> None:
        self.ctx = ctx

    def bound_by_quota(self, header: RequestHeader) -> bool:
        """Whether a ``producer_byte_rate``, ``consumer_byte_rate`` or ``request_percentage``
        quota applies to the request's user and client id: the socket server then handles that
        connection's requests one at a time, as Kafka's muted channel does, so a throttle holds
        back the very next request."""
        ctx = self.ctx
        user, client_id = principal_name(header.principal), header.client_id or ""
        return any(
            quotas.applies_to(user, client_id)
            for quotas in (ctx.produce_quotas, ctx.fetch_quotas, ctx.request_quotas)
        )

    async def handle(
        self, header: RequestHeader, spec: ApiSpec, request: Struct
    ) -> Struct | CloseConnectionResponse | NoOpResponse | None:
        """Run the handler for ``spec.key``; returns its response (None or ``NoOpResponse``: no answer;
        ``CLOSE_CONNECTION``: close the connection instead).

        Raises:
            UnsupportedVersionError: the protocol knows the API but this broker has no
                handler for it (the socket server answers UNSUPPORTED_VERSION or closes).
        """
        handler = HANDLERS.get(spec.key)
        if handler is None:
            raise UnsupportedVersionError(f"{spec.key.name} is not handled by this broker")
        if self.ctx.authorizer is not None:  # Kafka's authHelper checks, per API
            run = authorize_request(self.ctx, header, request, handler)
        else:
            run = handler(self.ctx, header, request)
        quotas = self.ctx.request_quotas
        if not quotas.quotas_enabled or _exempt_from_request_quota(spec.key, header, request):
            return await run  # type: ignore[no-any-return]
        timed = TimedCoroutine(run)
        response = await timed
        return _with_request_throttle(quotas, header, response, timed.thread_time_ns)


def _exempt_from_request_quota(key: ApiKey, header: RequestHeader, request: Any) -> bool:
    """True for requests Kafka answers with ``sendResponseExemptThrottle``: the ``clusterAction``
    APIs and a follower's Fetch."""
    if key == ApiKey.FETCH:
        return fetch.replica_id_of(request, header.api_version) >= 0
    return key in CLUSTER_ACTION_APIS


def _with_request_throttle(
    quotas: ClientRequestQuotaManager, header: RequestHeader, response: Any, thread_time_ns: int
) -> Any:
    """Record the request's handler time against its ``request_percentage`` quota and raise the
    answer's ``throttle_time_ms`` to the request throttle when that is longer (Kafka's
    ``sendResponseMaybeThrottle``; a Produce or Fetch answer keeps the longer of its byte-rate
    throttle and this).  No answer (Produce with acks=0, exempt as in Kafka) or a closed connection:
    nothing recorded."""
    if response is None or isinstance(response, (CloseConnectionResponse, NoOpResponse)):
        return response
    throttle_ms = quotas.record_request_time(
        principal_name(header.principal), header.client_id or "", thread_time_ns, int(time.monotonic() * 1000)
    )
    if throttle_ms > getattr(response, "throttle_time_ms", throttle_ms):
        response.throttle_time_ms = throttle_ms
    return response
