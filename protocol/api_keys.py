"""The API registry: api key -> request/response schema and supported versions.

Kafka concept: ``ApiKeys`` (numbers are Kafka's).  The broker's ApiVersions answer
and the client's version choice both come from ``API_REGISTRY``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from kafkette.protocol.apis.alter_partition import AlterPartitionRequest, AlterPartitionResponse
from kafkette.protocol.apis.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
)
from kafkette.protocol.apis.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest, ControlledShutdownResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsResponse
from kafkette.protocol.apis.create_topics import CreateTopicsRequest, CreateTopicsResponse
from kafkette.protocol.apis.delete_records import DeleteRecordsRequest, DeleteRecordsResponse
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicsResponse
from kafkette.protocol.apis.describe_log_dirs import DescribeLogDirsRequest, DescribeLogDirsResponse
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.apis.fetch import FetchRequest, FetchResponse
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse
from kafkette.protocol.apis.group_admin import (
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    ListGroupsRequest,
    ListGroupsResponse,
    OffsetDeleteRequest,
    OffsetDeleteResponse,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrRequest, LeaderAndIsrResponse
from kafkette.protocol.apis.list_offsets import ListOffsetsRequest, ListOffsetsResponse
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataResponse
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
)
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    OffsetsForLeaderEpochRequest,
    OffsetsForLeaderEpochResponse,
)
from kafkette.protocol.apis.produce import ProduceRequest, ProduceResponse
from kafkette.protocol.apis.producer_ids import (
    AllocateProducerIdsRequest,
    AllocateProducerIdsResponse,
    InitProducerIdRequest,
    InitProducerIdResponse,
)
from kafkette.protocol.apis.raft import (
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    DescribeQuorumRequest,
    DescribeQuorumResponse,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    VoteRequest,
    VoteResponse,
)
from kafkette.protocol.apis.stop_replica import StopReplicaRequest, StopReplicaResponse
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from kafkette.protocol.schema import Struct


class ApiKey(IntEnum):
    """Kafka's API keys."""

    PRODUCE = 0
    FETCH = 1
    LIST_OFFSETS = 2
    METADATA = 3
    LEADER_AND_ISR = 4
    STOP_REPLICA = 5
    UPDATE_METADATA = 6
    CONTROLLED_SHUTDOWN = 7
    OFFSET_COMMIT = 8
    OFFSET_FETCH = 9
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14
    DESCRIBE_GROUPS = 15
    LIST_GROUPS = 16
    API_VERSIONS = 18
    CREATE_TOPICS = 19
    DELETE_TOPICS = 20
    DELETE_RECORDS = 21
    INIT_PRODUCER_ID = 22
    OFFSET_FOR_LEADER_EPOCH = 23
    DESCRIBE_CONFIGS = 32
    DESCRIBE_LOG_DIRS = 35
    CREATE_PARTITIONS = 37
    DELETE_GROUPS = 42
    ELECT_LEADERS = 43
    INCREMENTAL_ALTER_CONFIGS = 44
    OFFSET_DELETE = 47
    VOTE = 52
    BEGIN_QUORUM_EPOCH = 53
    END_QUORUM_EPOCH = 54
    DESCRIBE_QUORUM = 55
    ALTER_PARTITION = 56
    FETCH_SNAPSHOT = 59
    BROKER_REGISTRATION = 62
    BROKER_HEARTBEAT = 63
    ALLOCATE_PRODUCER_IDS = 67


@dataclass(frozen=True)
class ApiSpec:
    """One API: its key, schemas and the inclusive version range this build speaks."""

    key: ApiKey
    request: type[Struct]
    response: type[Struct]
    min_version: int = 0
    max_version: int = 0


API_REGISTRY: dict[int, ApiSpec] = {
    spec.key: spec
    for spec in (
        ApiSpec(ApiKey.PRODUCE, ProduceRequest, ProduceResponse, 3, 9),
        ApiSpec(ApiKey.FETCH, FetchRequest, FetchResponse, 4, 12),
        ApiSpec(ApiKey.LIST_OFFSETS, ListOffsetsRequest, ListOffsetsResponse, 1, 7),
        ApiSpec(ApiKey.METADATA, MetadataRequest, MetadataResponse, 0, 12),
        ApiSpec(ApiKey.LEADER_AND_ISR, LeaderAndIsrRequest, LeaderAndIsrResponse),
        ApiSpec(ApiKey.UPDATE_METADATA, UpdateMetadataRequest, UpdateMetadataResponse),
        ApiSpec(ApiKey.STOP_REPLICA, StopReplicaRequest, StopReplicaResponse),
        ApiSpec(ApiKey.CONTROLLED_SHUTDOWN, ControlledShutdownRequest, ControlledShutdownResponse),
        ApiSpec(ApiKey.FIND_COORDINATOR, FindCoordinatorRequest, FindCoordinatorResponse, 0, 4),
        ApiSpec(ApiKey.OFFSET_COMMIT, OffsetCommitRequest, OffsetCommitResponse, 2, 8),
        ApiSpec(ApiKey.OFFSET_FETCH, OffsetFetchRequest, OffsetFetchResponse, 1, 7),
        ApiSpec(ApiKey.JOIN_GROUP, JoinGroupRequest, JoinGroupResponse, 0, 7),
        ApiSpec(ApiKey.HEARTBEAT, HeartbeatRequest, HeartbeatResponse, 0, 4),
        ApiSpec(ApiKey.LEAVE_GROUP, LeaveGroupRequest, LeaveGroupResponse, 0, 4),
        ApiSpec(ApiKey.SYNC_GROUP, SyncGroupRequest, SyncGroupResponse, 0, 5),
        ApiSpec(ApiKey.DESCRIBE_GROUPS, DescribeGroupsRequest, DescribeGroupsResponse, 0, 5),
        ApiSpec(ApiKey.LIST_GROUPS, ListGroupsRequest, ListGroupsResponse, 0, 5),
        ApiSpec(ApiKey.DELETE_GROUPS, DeleteGroupsRequest, DeleteGroupsResponse, 0, 2),
        ApiSpec(ApiKey.OFFSET_DELETE, OffsetDeleteRequest, OffsetDeleteResponse),
        ApiSpec(ApiKey.DESCRIBE_CONFIGS, DescribeConfigsRequest, DescribeConfigsResponse, 1, 4),
        ApiSpec(ApiKey.DESCRIBE_LOG_DIRS, DescribeLogDirsRequest, DescribeLogDirsResponse, 1, 4),
        ApiSpec(
            ApiKey.INCREMENTAL_ALTER_CONFIGS,
            IncrementalAlterConfigsRequest,
            IncrementalAlterConfigsResponse,
            0,
            1,
        ),
        ApiSpec(ApiKey.ELECT_LEADERS, ElectLeadersRequest, ElectLeadersResponse, 0, 2),
        ApiSpec(ApiKey.API_VERSIONS, ApiVersionsRequest, ApiVersionsResponse, 0, 4),
        ApiSpec(ApiKey.CREATE_TOPICS, CreateTopicsRequest, CreateTopicsResponse, 2, 7),
        ApiSpec(ApiKey.DELETE_TOPICS, DeleteTopicsRequest, DeleteTopicsResponse, 1, 5),
        ApiSpec(ApiKey.DELETE_RECORDS, DeleteRecordsRequest, DeleteRecordsResponse, 0, 2),
        ApiSpec(ApiKey.CREATE_PARTITIONS, CreatePartitionsRequest, CreatePartitionsResponse, 0, 3),
        ApiSpec(ApiKey.ALTER_PARTITION, AlterPartitionRequest, AlterPartitionResponse),
        ApiSpec(ApiKey.BROKER_REGISTRATION, BrokerRegistrationRequest, BrokerRegistrationResponse),
        ApiSpec(ApiKey.BROKER_HEARTBEAT, BrokerHeartbeatRequest, BrokerHeartbeatResponse, 0, 1),
        ApiSpec(ApiKey.INIT_PRODUCER_ID, InitProducerIdRequest, InitProducerIdResponse, 0, 4),
        ApiSpec(
            ApiKey.OFFSET_FOR_LEADER_EPOCH, OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse, 2, 4
        ),
        ApiSpec(ApiKey.ALLOCATE_PRODUCER_IDS, AllocateProducerIdsRequest, AllocateProducerIdsResponse),
        ApiSpec(ApiKey.VOTE, VoteRequest, VoteResponse),
        ApiSpec(ApiKey.BEGIN_QUORUM_EPOCH, BeginQuorumEpochRequest, BeginQuorumEpochResponse),
        ApiSpec(ApiKey.END_QUORUM_EPOCH, EndQuorumEpochRequest, EndQuorumEpochResponse),
        ApiSpec(ApiKey.DESCRIBE_QUORUM, DescribeQuorumRequest, DescribeQuorumResponse, 0, 1),
        ApiSpec(ApiKey.FETCH_SNAPSHOT, FetchSnapshotRequest, FetchSnapshotResponse),
    )
}

_BY_REQUEST: dict[type[Struct], ApiSpec] = {spec.request: spec for spec in API_REGISTRY.values()}


def spec_for_request(request: Struct) -> ApiSpec:
    """Return the ApiSpec of a request instance.

    Raises:
        TypeError: the object is not a registered request.
    """
    spec = _BY_REQUEST.get(type(request))
    if spec is None:
        raise TypeError(f"{type(request).__name__} is not a registered request")
    return spec
