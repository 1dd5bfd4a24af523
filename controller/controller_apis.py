"""ControllerApis: the requests a controller-only node (``process.roles=controller``) answers.

Owns: the table api key -> handler of a node that runs no broker: ApiVersions (the keys of
this table), the metadata quorum's Vote, BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot and
Fetch of ``__cluster_metadata-0`` (the voter's), DescribeQuorum, and the controller APIs the
brokers send or forward (BrokerRegistration, BrokerHeartbeat, AlterPartition,
ControlledShutdown, AllocateProducerIds, CreateTopics, DeleteTopics, CreatePartitions,
ElectLeaders, DescribeConfigs and IncrementalAlterConfigs of topics, AlterUserScramCredentials,
AlterClientQuotas, CreateAcls, DeleteAcls).  Any other API gets
UNSUPPORTED_VERSION from the socket server; a Fetch of any other partition, or a quorum request
the voter cannot read, gets INVALID_REQUEST.  Does not own what the requests do
(``QuorumController``).

Kafka concept: ``ControllerApis`` (the controller listener of a KRaft controller).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.controller.quorum_controller import QuorumController
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey, ApiSpec
from kafkette.protocol.apis.api_versions import ApiVersionsResponse, ApiVersionsResponseKey
from kafkette.protocol.errors import Errors, UnsupportedVersionError, error_class
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.schema import Struct

Handler = Callable[[QuorumController, Any], Awaitable[Any]]


async def _raft(quorum: QuorumController, request: Any) -> Any:
    try:
        return await quorum.handle_raft_request(request)
    except (ValueError, TypeError) as exc:
        raise error_class(Errors.INVALID_REQUEST)(f"bad metadata quorum request: {exc}") from None


async def _fetch(quorum: QuorumController, request: Any) -> Any:
    if not request.topics or request.topics[0].topic != CLUSTER_METADATA_TOPIC_NAME:
        raise error_class(Errors.INVALID_REQUEST)(
            f"a controller-only node serves no partition but {CLUSTER_METADATA_TOPIC_NAME}-0"
        )
    return await _raft(quorum, request)


async def _describe_quorum(quorum: QuorumController, request: Any) -> Any:
    return await quorum.describe_quorum(request)


# the controller APIs: each calls the method of the same name of the voter's current controller
_CONTROLLER_METHODS = {
    ApiKey.BROKER_REGISTRATION: "register_broker",
    ApiKey.BROKER_HEARTBEAT: "broker_heartbeat",
    ApiKey.ALTER_PARTITION: "alter_partition",
    ApiKey.CONTROLLED_SHUTDOWN: "controlled_shutdown",
    ApiKey.ALLOCATE_PRODUCER_IDS: "allocate_producer_ids",
    ApiKey.CREATE_TOPICS: "create_topics",
    ApiKey.DELETE_TOPICS: "delete_topics",
    ApiKey.CREATE_PARTITIONS: "create_partitions",
    ApiKey.ELECT_LEADERS: "elect_leaders",
    ApiKey.DESCRIBE_CONFIGS: "describe_configs",
    ApiKey.INCREMENTAL_ALTER_CONFIGS: "incremental_alter_configs",
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: "alter_user_scram_credentials",
    ApiKey.ALTER_CLIENT_QUOTAS: "alter_client_quotas",
    ApiKey.CREATE_ACLS: "create_acls",
    ApiKey.DELETE_ACLS: "delete_acls",
}


def _calls(method: str) -> Handler:
    async def handle(quorum: QuorumController, request: Any) -> Any:
        return await getattr(quorum.controller, method)(request)

    return handle


HANDLERS: dict[int, Handler] = {
    ApiKey.VOTE: _raft,
    ApiKey.BEGIN_QUORUM_EPOCH: _raft,
    ApiKey.END_QUORUM_EPOCH: _raft,
    ApiKey.FETCH_SNAPSHOT: _raft,
    ApiKey.FETCH: _fetch,
    ApiKey.DESCRIBE_QUORUM: _describe_quorum,
    **{key: _calls(method) for key, method in _CONTROLLER_METHODS.items()},
}


class ControllerApis:
    """Routes a controller-only node's requests to its ``QuorumController``.

    Args:
        quorum: the node's voter (and, while it leads, the active controller).
    """

    def __init__(self, quorum: QuorumController) -> None:
        self.quorum = quorum

    async def handle(self, header: RequestHeader, spec: ApiSpec, request: Struct) -> Struct | None:
        """Answer one request (the socket server's handler).

        Raises:
            UnsupportedVersionError: an API a controller-only node does not answer.
            InvalidRequestError: a Fetch of another partition or an unreadable quorum request.
        """
        if spec.key == ApiKey.API_VERSIONS:
            return ApiVersionsResponse(
                api_keys=[
                    ApiVersionsResponseKey(
                        api_key=int(key), min_version=s.min_version, max_version=s.max_version
                    )
                    for key, s in sorted(API_REGISTRY.items())
                    if key in HANDLERS or key == ApiKey.API_VERSIONS
                ]
            )
        handler = HANDLERS.get(spec.key)
        if handler is None:
            raise UnsupportedVersionError(f"{spec.key.name} is not answered by a controller-only node")
        return await handler(self.quorum, request)  # type: ignore[no-any-return]
