"""The API registry: each API once, with its messages, version range, flexible versions and
the listeners that answer it.

Kafka concept: ``ApiKeys`` (numbers are Kafka's) with ``ApiMessageType``'s listeners.  Both
listeners' ApiVersions answers and the SDK's version choice come from ``APIS``:
``API_REGISTRY`` is the msgpack listener's view, ``KAFKA_APIS`` the Kafka listener's.  An API
declared with ``NO_LISTENER`` is in neither view: its messages exist (and are checked against Kafka's
specs) but no listener answers or offers it yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

from kafkette.protocol.apis.acls import (
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
)
from kafkette.protocol.apis.alter_partition import AlterPartitionRequest, AlterPartitionResponse
from kafkette.protocol.apis.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
)
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
    DescribeClientQuotasRequest,
    DescribeClientQuotasResponse,
)
from kafkette.protocol.apis.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest, ControlledShutdownResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsResponse
from kafkette.protocol.apis.create_topics import CreateTopicsRequest, CreateTopicsResponse
from kafkette.protocol.apis.delete_records import DeleteRecordsRequest, DeleteRecordsResponse
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicsResponse
from kafkette.protocol.apis.describe_log_dirs import DescribeLogDirsRequest, DescribeLogDirsResponse
from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersResponse
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsResponse,
)
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
from kafkette.protocol.apis.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)
from kafkette.protocol.apis.stop_replica import StopReplicaRequest, StopReplicaResponse
from kafkette.protocol.apis.transactions import (
    AddOffsetsToTxnRequest,
    AddOffsetsToTxnResponse,
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnResponse,
    DescribeTransactionsRequest,
    DescribeTransactionsResponse,
    EndTxnRequest,
    EndTxnResponse,
    ListTransactionsRequest,
    ListTransactionsResponse,
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
)
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)
from kafkette.protocol.apis.write_txn_markers import WriteTxnMarkersRequest, WriteTxnMarkersResponse
from kafkette.protocol.kafka_messages.cluster import DescribeClusterRequest, DescribeClusterResponse
from kafkette.protocol.kafka_messages.configs import AlterConfigsRequest, AlterConfigsResponse
from kafkette.protocol.kafka_schema import KafkaStruct
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
    SASL_HANDSHAKE = 17
    API_VERSIONS = 18
    CREATE_TOPICS = 19
    DELETE_TOPICS = 20
    DELETE_RECORDS = 21
    INIT_PRODUCER_ID = 22
    OFFSET_FOR_LEADER_EPOCH = 23
    ADD_PARTITIONS_TO_TXN = 24
    ADD_OFFSETS_TO_TXN = 25
    END_TXN = 26
    WRITE_TXN_MARKERS = 27
    TXN_OFFSET_COMMIT = 28
    DESCRIBE_ACLS = 29
    CREATE_ACLS = 30
    DELETE_ACLS = 31
    ALTER_CONFIGS = 33
    DESCRIBE_CONFIGS = 32
    DESCRIBE_LOG_DIRS = 35
    SASL_AUTHENTICATE = 36
    CREATE_PARTITIONS = 37
    DELETE_GROUPS = 42
    ELECT_LEADERS = 43
    INCREMENTAL_ALTER_CONFIGS = 44
    OFFSET_DELETE = 47
    DESCRIBE_CLIENT_QUOTAS = 48
    ALTER_CLIENT_QUOTAS = 49
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50
    ALTER_USER_SCRAM_CREDENTIALS = 51
    VOTE = 52
    BEGIN_QUORUM_EPOCH = 53
    END_QUORUM_EPOCH = 54
    DESCRIBE_QUORUM = 55
    ALTER_PARTITION = 56
    FETCH_SNAPSHOT = 59
    DESCRIBE_CLUSTER = 60
    DESCRIBE_PRODUCERS = 61
    DESCRIBE_TRANSACTIONS = 65
    LIST_TRANSACTIONS = 66
    BROKER_REGISTRATION = 62
    BROKER_HEARTBEAT = 63
    ALLOCATE_PRODUCER_IDS = 67
    CONSUMER_GROUP_HEARTBEAT = 68
    CONSUMER_GROUP_DESCRIBE = 69
    DESCRIBE_TOPIC_PARTITIONS = 75


CLUSTER_ACTION_APIS: frozenset[ApiKey] = frozenset(
    {
        ApiKey.LEADER_AND_ISR,
        ApiKey.STOP_REPLICA,
        ApiKey.UPDATE_METADATA,
        ApiKey.CONTROLLED_SHUTDOWN,
        ApiKey.VOTE,
        ApiKey.BEGIN_QUORUM_EPOCH,
        ApiKey.END_QUORUM_EPOCH,
        ApiKey.DESCRIBE_QUORUM,
        ApiKey.ALTER_PARTITION,
        ApiKey.BROKER_REGISTRATION,
        ApiKey.BROKER_HEARTBEAT,
        ApiKey.ALLOCATE_PRODUCER_IDS,
        ApiKey.WRITE_TXN_MARKERS,
    }
)
"""The APIs Kafka marks ``clusterAction`` (``ApiKeys.clusterAction``): requests between nodes, exempt
from the request quota."""


class ListenerType(StrEnum):
    """Which listener answers an API: Kafka's ``ApiMessageType.ListenerType``, by wire protocol."""

    KAFKA = "kafka"
    """The Kafka listener: Apache Kafka's binary protocol, for Kafka's own clients and tools."""
    KAFKETTE = "kafkette"
    """The msgpack listener: the SDK's, the brokers' and the controllers'."""


BOTH = frozenset({ListenerType.KAFKA, ListenerType.KAFKETTE})
KAFKETTE_ONLY = frozenset({ListenerType.KAFKETTE})
KAFKA_ONLY = frozenset({ListenerType.KAFKA})
NO_LISTENER: frozenset[ListenerType] = frozenset()
"""An API declared (and checked against Kafka's specs) that no listener answers yet."""


@dataclass(frozen=True)
class ApiSpec:
    """One API as this build speaks it, on every listener that answers it.

    Kafka concept: one ``ApiKeys`` entry with its ``ApiMessageType`` (versions, flexible
    versions, listeners).

    Attributes:
        key: Kafka's api key.
        name: Kafka's name for it (``Produce``).
        request / response: the message classes (one declaration, in Kafka's versions).
        min_version / max_version: the inclusive range answered in ApiVersions.
        flexible_from: the first flexible version on Kafka's wire (compact encoding, tagged
            fields, header v2, KIP-482), as Kafka's spec says also for an API only the msgpack
            listener speaks (there only the comparison with Kafka's specs reads it); ``None``: none.
        listeners: the listeners that answer it.
        sender_version: the version this build's own senders (the SDK, replica fetchers, KRaft
            voters) use on the msgpack listener; ``None``: ``max_version``.
    """

    key: ApiKey
    name: str
    request: type[Struct | KafkaStruct]
    response: type[Struct | KafkaStruct]
    min_version: int = 0
    max_version: int = 0
    flexible_from: int | None = None
    listeners: frozenset[ListenerType] = KAFKETTE_ONLY
    sender_version: int | None = None

    @property
    def send_version(self) -> int:
        """The version a request of this API goes out in when its sender names none."""
        return self.max_version if self.sender_version is None else self.sender_version

    def flexible(self, version: int) -> bool:
        """True when ``version`` uses KIP-482's flexible encoding on Kafka's wire."""
        return self.flexible_from is not None and version >= self.flexible_from

    def supports(self, version: int) -> bool:
        """True when ``version`` is inside ``[min_version, max_version]``."""
        return self.min_version <= version <= self.max_version


_NEVER_FLEXIBLE = 1 << 15
"""``flexible_from`` of a Kafka API without flexible versions (Kafka's ``"flexibleVersions": "none"``)."""

# The Kafka listener's ranges start where Kafka 4.0 starts them (KIP-896: Produce 3, Fetch 4,
# ListOffsets 1, OffsetCommit 2, OffsetFetch 1, CreateTopics 2, DeleteTopics 1, DescribeConfigs 1)
# and end at Kafka 4.3's last version. The msgpack listener speaks the same ranges, its SDK the top
# version but where a newer one names topics by id (KIP-516) or asks several groups at once: Produce
# and Fetch, which Kafkette's own clients (the SDK producer and consumer, replica fetchers, KRaft
# voters) send at v12, OffsetCommit at v8 and OffsetFetch at v7 (one group, topics by name).
APIS: tuple[ApiSpec, ...] = (
    ApiSpec(ApiKey.PRODUCE, "Produce", ProduceRequest, ProduceResponse, 3, 13, 9, BOTH, sender_version=12),
    ApiSpec(ApiKey.FETCH, "Fetch", FetchRequest, FetchResponse, 4, 18, 12, BOTH, sender_version=12),
    ApiSpec(ApiKey.LIST_OFFSETS, "ListOffsets", ListOffsetsRequest, ListOffsetsResponse, 1, 11, 6, BOTH),
    ApiSpec(ApiKey.METADATA, "Metadata", MetadataRequest, MetadataResponse, 0, 13, 9, BOTH),
    ApiSpec(ApiKey.LEADER_AND_ISR, "LeaderAndIsr", LeaderAndIsrRequest, LeaderAndIsrResponse),
    ApiSpec(ApiKey.STOP_REPLICA, "StopReplica", StopReplicaRequest, StopReplicaResponse),
    ApiSpec(ApiKey.UPDATE_METADATA, "UpdateMetadata", UpdateMetadataRequest, UpdateMetadataResponse),
    ApiSpec(
        ApiKey.CONTROLLED_SHUTDOWN,
        "ControlledShutdown",
        ControlledShutdownRequest,
        ControlledShutdownResponse,
    ),
    ApiSpec(
        ApiKey.OFFSET_COMMIT,
        "OffsetCommit",
        OffsetCommitRequest,
        OffsetCommitResponse,
        2,
        10,
        8,
        BOTH,
        sender_version=8,
    ),
    ApiSpec(
        ApiKey.OFFSET_FETCH,
        "OffsetFetch",
        OffsetFetchRequest,
        OffsetFetchResponse,
        1,
        10,
        6,
        BOTH,
        sender_version=7,
    ),
    ApiSpec(
        ApiKey.FIND_COORDINATOR,
        "FindCoordinator",
        FindCoordinatorRequest,
        FindCoordinatorResponse,
        0,
        6,
        3,
        BOTH,
    ),
    ApiSpec(ApiKey.JOIN_GROUP, "JoinGroup", JoinGroupRequest, JoinGroupResponse, 0, 9, 6, BOTH),
    ApiSpec(ApiKey.HEARTBEAT, "Heartbeat", HeartbeatRequest, HeartbeatResponse, 0, 4, 4, BOTH),
    ApiSpec(ApiKey.LEAVE_GROUP, "LeaveGroup", LeaveGroupRequest, LeaveGroupResponse, 0, 5, 4, BOTH),
    ApiSpec(ApiKey.SYNC_GROUP, "SyncGroup", SyncGroupRequest, SyncGroupResponse, 0, 5, 4, BOTH),
    ApiSpec(
        ApiKey.DESCRIBE_GROUPS, "DescribeGroups", DescribeGroupsRequest, DescribeGroupsResponse, 0, 6, 5, BOTH
    ),
    ApiSpec(ApiKey.LIST_GROUPS, "ListGroups", ListGroupsRequest, ListGroupsResponse, 0, 5, 3, BOTH),
    ApiSpec(
        ApiKey.SASL_HANDSHAKE,
        "SaslHandshake",
        SaslHandshakeRequest,
        SaslHandshakeResponse,
        0,
        1,
        _NEVER_FLEXIBLE,
        BOTH,
    ),
    ApiSpec(ApiKey.API_VERSIONS, "ApiVersions", ApiVersionsRequest, ApiVersionsResponse, 0, 4, 3, BOTH),
    ApiSpec(ApiKey.CREATE_TOPICS, "CreateTopics", CreateTopicsRequest, CreateTopicsResponse, 2, 7, 5, BOTH),
    ApiSpec(ApiKey.DELETE_TOPICS, "DeleteTopics", DeleteTopicsRequest, DeleteTopicsResponse, 1, 6, 4, BOTH),
    ApiSpec(
        ApiKey.DELETE_RECORDS, "DeleteRecords", DeleteRecordsRequest, DeleteRecordsResponse, 0, 2, 2, BOTH
    ),
    ApiSpec(
        ApiKey.INIT_PRODUCER_ID,
        "InitProducerId",
        InitProducerIdRequest,
        InitProducerIdResponse,
        0,
        5,
        2,
        BOTH,
    ),
    ApiSpec(
        ApiKey.OFFSET_FOR_LEADER_EPOCH,
        "OffsetForLeaderEpoch",
        OffsetsForLeaderEpochRequest,
        OffsetsForLeaderEpochResponse,
        2,
        4,
        4,
        BOTH,
    ),
    ApiSpec(
        ApiKey.ADD_PARTITIONS_TO_TXN,
        "AddPartitionsToTxn",
        AddPartitionsToTxnRequest,
        AddPartitionsToTxnResponse,
        0,
        5,
        3,
        BOTH,
        sender_version=3,  # v4+ are brokers' batches (KIP-890)
    ),
    ApiSpec(
        ApiKey.ADD_OFFSETS_TO_TXN,
        "AddOffsetsToTxn",
        AddOffsetsToTxnRequest,
        AddOffsetsToTxnResponse,
        0,
        4,
        3,
        BOTH,
    ),
    ApiSpec(
        ApiKey.END_TXN, "EndTxn", EndTxnRequest, EndTxnResponse, 0, 5, 3, BOTH, sender_version=4
    ),  # v5 is transactions V2 (KIP-890), with transaction.version 2
    ApiSpec(
        ApiKey.TXN_OFFSET_COMMIT,
        "TxnOffsetCommit",
        TxnOffsetCommitRequest,
        TxnOffsetCommitResponse,
        0,
        5,
        3,
        BOTH,
    ),
    ApiSpec(
        ApiKey.WRITE_TXN_MARKERS,
        "WriteTxnMarkers",
        WriteTxnMarkersRequest,
        WriteTxnMarkersResponse,
        1,
        2,
        1,
        BOTH,
    ),
    ApiSpec(ApiKey.DESCRIBE_ACLS, "DescribeAcls", DescribeAclsRequest, DescribeAclsResponse, 1, 3, 2, BOTH),
    ApiSpec(ApiKey.CREATE_ACLS, "CreateAcls", CreateAclsRequest, CreateAclsResponse, 1, 3, 2, BOTH),
    ApiSpec(ApiKey.DELETE_ACLS, "DeleteAcls", DeleteAclsRequest, DeleteAclsResponse, 1, 3, 2, BOTH),
    ApiSpec(
        ApiKey.DESCRIBE_CONFIGS,
        "DescribeConfigs",
        DescribeConfigsRequest,
        DescribeConfigsResponse,
        1,
        4,
        4,
        BOTH,
    ),
    ApiSpec(
        ApiKey.ALTER_CONFIGS, "AlterConfigs", AlterConfigsRequest, AlterConfigsResponse, 0, 2, 2, KAFKA_ONLY
    ),
    ApiSpec(
        ApiKey.DESCRIBE_LOG_DIRS,
        "DescribeLogDirs",
        DescribeLogDirsRequest,
        DescribeLogDirsResponse,
        1,
        5,
        2,
        BOTH,
    ),
    ApiSpec(
        ApiKey.SASL_AUTHENTICATE,
        "SaslAuthenticate",
        SaslAuthenticateRequest,
        SaslAuthenticateResponse,
        0,
        2,
        2,
        BOTH,
    ),
    ApiSpec(
        ApiKey.CREATE_PARTITIONS,
        "CreatePartitions",
        CreatePartitionsRequest,
        CreatePartitionsResponse,
        0,
        3,
        2,
        BOTH,
    ),
    ApiSpec(ApiKey.DELETE_GROUPS, "DeleteGroups", DeleteGroupsRequest, DeleteGroupsResponse, 0, 2, 2, BOTH),
    ApiSpec(ApiKey.ELECT_LEADERS, "ElectLeaders", ElectLeadersRequest, ElectLeadersResponse, 0, 2, 2, BOTH),
    ApiSpec(
        ApiKey.INCREMENTAL_ALTER_CONFIGS,
        "IncrementalAlterConfigs",
        IncrementalAlterConfigsRequest,
        IncrementalAlterConfigsResponse,
        0,
        1,
        1,
        BOTH,
    ),
    ApiSpec(
        ApiKey.OFFSET_DELETE,
        "OffsetDelete",
        OffsetDeleteRequest,
        OffsetDeleteResponse,
        0,
        0,
        _NEVER_FLEXIBLE,
        BOTH,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_CLIENT_QUOTAS,
        "DescribeClientQuotas",
        DescribeClientQuotasRequest,
        DescribeClientQuotasResponse,
        0,
        1,
        1,
        BOTH,
    ),
    ApiSpec(
        ApiKey.ALTER_CLIENT_QUOTAS,
        "AlterClientQuotas",
        AlterClientQuotasRequest,
        AlterClientQuotasResponse,
        0,
        1,
        1,
        BOTH,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
        "DescribeUserScramCredentials",
        DescribeUserScramCredentialsRequest,
        DescribeUserScramCredentialsResponse,
        0,
        0,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        "AlterUserScramCredentials",
        AlterUserScramCredentialsRequest,
        AlterUserScramCredentialsResponse,
        0,
        0,
        0,
        BOTH,
    ),
    ApiSpec(ApiKey.VOTE, "Vote", VoteRequest, VoteResponse, flexible_from=0),
    ApiSpec(
        ApiKey.BEGIN_QUORUM_EPOCH,
        "BeginQuorumEpoch",
        BeginQuorumEpochRequest,
        BeginQuorumEpochResponse,
        flexible_from=1,
    ),
    ApiSpec(
        ApiKey.END_QUORUM_EPOCH,
        "EndQuorumEpoch",
        EndQuorumEpochRequest,
        EndQuorumEpochResponse,
        flexible_from=1,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_QUORUM, "DescribeQuorum", DescribeQuorumRequest, DescribeQuorumResponse, 0, 2, 0, BOTH
    ),
    ApiSpec(
        ApiKey.ALTER_PARTITION,
        "AlterPartition",
        AlterPartitionRequest,
        AlterPartitionResponse,
        flexible_from=0,
    ),
    ApiSpec(
        ApiKey.FETCH_SNAPSHOT, "FetchSnapshot", FetchSnapshotRequest, FetchSnapshotResponse, flexible_from=0
    ),
    ApiSpec(
        ApiKey.DESCRIBE_CLUSTER,
        "DescribeCluster",
        DescribeClusterRequest,
        DescribeClusterResponse,
        0,
        2,
        0,
        KAFKA_ONLY,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_PRODUCERS,
        "DescribeProducers",
        DescribeProducersRequest,
        DescribeProducersResponse,
        0,
        0,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_TRANSACTIONS,
        "DescribeTransactions",
        DescribeTransactionsRequest,
        DescribeTransactionsResponse,
        0,
        0,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.LIST_TRANSACTIONS,
        "ListTransactions",
        ListTransactionsRequest,
        ListTransactionsResponse,
        0,
        2,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.BROKER_REGISTRATION,
        "BrokerRegistration",
        BrokerRegistrationRequest,
        BrokerRegistrationResponse,
        flexible_from=0,
    ),
    ApiSpec(
        ApiKey.BROKER_HEARTBEAT,
        "BrokerHeartbeat",
        BrokerHeartbeatRequest,
        BrokerHeartbeatResponse,
        0,
        1,
        flexible_from=0,
    ),
    ApiSpec(
        ApiKey.ALLOCATE_PRODUCER_IDS,
        "AllocateProducerIds",
        AllocateProducerIdsRequest,
        AllocateProducerIdsResponse,
        flexible_from=0,
    ),
    ApiSpec(
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        "ConsumerGroupHeartbeat",
        ConsumerGroupHeartbeatRequest,
        ConsumerGroupHeartbeatResponse,
        0,
        1,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.CONSUMER_GROUP_DESCRIBE,
        "ConsumerGroupDescribe",
        ConsumerGroupDescribeRequest,
        ConsumerGroupDescribeResponse,
        0,
        1,
        0,
        BOTH,
    ),
    ApiSpec(
        ApiKey.DESCRIBE_TOPIC_PARTITIONS,
        "DescribeTopicPartitions",
        DescribeTopicPartitionsRequest,
        DescribeTopicPartitionsResponse,
        0,
        0,
        0,
        BOTH,
    ),
)
"""Every API, declared once; the two listeners' tables below are views of it."""

API_REGISTRY: dict[int, ApiSpec] = {
    spec.key: spec for spec in APIS if ListenerType.KAFKETTE in spec.listeners
}
"""The msgpack listener's APIs by key (the SDK's version choice and that listener's ApiVersions)."""

KAFKA_APIS: dict[int, ApiSpec] = {spec.key: spec for spec in APIS if ListenerType.KAFKA in spec.listeners}
"""The Kafka listener's APIs by key (its ApiVersions answer)."""

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
