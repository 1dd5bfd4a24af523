"""The APIs the Kafka listener speaks: Kafka's API key, message classes, version range and
first flexible version (KIP-482) of each.

The ranges start where Kafka 4.0 starts them (KIP-896: Produce 3, Fetch 4, ListOffsets 1,
OffsetCommit 2, OffsetFetch 1, CreateTopics 2, DeleteTopics 1, DescribeConfigs 1) and end at
the last version whose fields the broker can answer: Fetch 12 (13 and up name topics by id),
Produce 9, FindCoordinator 4 (a batch of keys).  Every other API is absent from the
ApiVersions answer.  An API both listeners speak and declared once (``kafkette.protocol.apis``,
in Kafka's versions) has its classes from there; the modules here hold the rest.  Kafka concept:
``ApiKeys`` and ``ApiVersionsResponse``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.protocol.apis import (
    api_versions,
    create_partitions,
    create_topics,
    delete_records,
    delete_topics,
    describe_log_dirs,
    elect_leaders,
    fetch,
    find_coordinator,
    group_admin,
    group_membership,
    list_offsets,
    metadata,
    offsets,
    offsets_for_leader_epoch,
    produce,
)
from kafkette.protocol.apis import configs as shared_configs
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest, InitProducerIdResponse
from kafkette.protocol.apis.raft import DescribeQuorumRequest, DescribeQuorumResponse
from kafkette.protocol.kafka_messages import (
    cluster,
    configs,
)
from kafkette.protocol.kafka_schema import KafkaStruct

API_VERSIONS_KEY = 18
DESCRIBE_CLUSTER_KEY = 60
ALTER_CONFIGS_KEY = 33
"""AlterConfigs, the Kafka listener's only: answered by the IncrementalAlterConfigs handler."""


@dataclass(frozen=True)
class KafkaApi:
    """One API of Kafka's protocol as this listener speaks it.

    Attributes:
        key: Kafka's api key.
        name: Kafka's name for it (``Produce``).
        request / response: the message classes.
        min_version / max_version: the inclusive range answered in ApiVersions.
        flexible_from: the first flexible version (compact encoding, tagged fields, header v2).
    """

    key: int
    name: str
    request: type[KafkaStruct]
    response: type[KafkaStruct]
    min_version: int
    max_version: int
    flexible_from: int

    def flexible(self, version: int) -> bool:
        """True when ``version`` uses KIP-482's flexible encoding."""
        return version >= self.flexible_from

    def supports(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


KAFKA_APIS: dict[int, KafkaApi] = {
    api.key: api
    for api in (
        KafkaApi(0, "Produce", produce.ProduceRequest, produce.ProduceResponse, 3, 9, 9),
        KafkaApi(1, "Fetch", fetch.FetchRequest, fetch.FetchResponse, 4, 12, 12),
        KafkaApi(
            2, "ListOffsets", list_offsets.ListOffsetsRequest, list_offsets.ListOffsetsResponse, 1, 7, 6
        ),
        KafkaApi(3, "Metadata", metadata.MetadataRequest, metadata.MetadataResponse, 0, 12, 9),
        KafkaApi(8, "OffsetCommit", offsets.OffsetCommitRequest, offsets.OffsetCommitResponse, 2, 8, 8),
        KafkaApi(9, "OffsetFetch", offsets.OffsetFetchRequest, offsets.OffsetFetchResponse, 1, 7, 6),
        KafkaApi(
            10,
            "FindCoordinator",
            find_coordinator.FindCoordinatorRequest,
            find_coordinator.FindCoordinatorResponse,
            0,
            4,
            3,
        ),
        KafkaApi(
            11, "JoinGroup", group_membership.JoinGroupRequest, group_membership.JoinGroupResponse, 0, 7, 6
        ),
        KafkaApi(
            12, "Heartbeat", group_membership.HeartbeatRequest, group_membership.HeartbeatResponse, 0, 4, 4
        ),
        KafkaApi(
            13, "LeaveGroup", group_membership.LeaveGroupRequest, group_membership.LeaveGroupResponse, 0, 4, 4
        ),
        KafkaApi(
            14, "SyncGroup", group_membership.SyncGroupRequest, group_membership.SyncGroupResponse, 0, 5, 4
        ),
        KafkaApi(
            15,
            "DescribeGroups",
            group_admin.DescribeGroupsRequest,
            group_admin.DescribeGroupsResponse,
            0,
            5,
            5,
        ),
        KafkaApi(16, "ListGroups", group_admin.ListGroupsRequest, group_admin.ListGroupsResponse, 0, 5, 3),
        KafkaApi(
            API_VERSIONS_KEY,
            "ApiVersions",
            api_versions.ApiVersionsRequest,
            api_versions.ApiVersionsResponse,
            0,
            4,
            3,
        ),
        KafkaApi(
            19, "CreateTopics", create_topics.CreateTopicsRequest, create_topics.CreateTopicsResponse, 2, 7, 5
        ),
        KafkaApi(
            20, "DeleteTopics", delete_topics.DeleteTopicsRequest, delete_topics.DeleteTopicsResponse, 1, 5, 4
        ),
        KafkaApi(
            21,
            "DeleteRecords",
            delete_records.DeleteRecordsRequest,
            delete_records.DeleteRecordsResponse,
            0,
            2,
            2,
        ),
        KafkaApi(22, "InitProducerId", InitProducerIdRequest, InitProducerIdResponse, 0, 4, 2),
        KafkaApi(
            23,
            "OffsetForLeaderEpoch",
            offsets_for_leader_epoch.OffsetsForLeaderEpochRequest,
            offsets_for_leader_epoch.OffsetsForLeaderEpochResponse,
            2,
            4,
            4,
        ),
        KafkaApi(
            32,
            "DescribeConfigs",
            shared_configs.DescribeConfigsRequest,
            shared_configs.DescribeConfigsResponse,
            1,
            4,
            4,
        ),
        KafkaApi(
            ALTER_CONFIGS_KEY,
            "AlterConfigs",
            configs.AlterConfigsRequest,
            configs.AlterConfigsResponse,
            0,
            2,
            2,
        ),
        KafkaApi(
            35,
            "DescribeLogDirs",
            describe_log_dirs.DescribeLogDirsRequest,
            describe_log_dirs.DescribeLogDirsResponse,
            1,
            4,
            2,
        ),
        KafkaApi(
            37,
            "CreatePartitions",
            create_partitions.CreatePartitionsRequest,
            create_partitions.CreatePartitionsResponse,
            0,
            3,
            2,
        ),
        KafkaApi(
            42, "DeleteGroups", group_admin.DeleteGroupsRequest, group_admin.DeleteGroupsResponse, 0, 2, 2
        ),
        KafkaApi(
            43, "ElectLeaders", elect_leaders.ElectLeadersRequest, elect_leaders.ElectLeadersResponse, 0, 2, 2
        ),
        KafkaApi(
            44,
            "IncrementalAlterConfigs",
            shared_configs.IncrementalAlterConfigsRequest,
            shared_configs.IncrementalAlterConfigsResponse,
            0,
            1,
            1,
        ),
        KafkaApi(
            47,
            "OffsetDelete",
            group_admin.OffsetDeleteRequest,
            group_admin.OffsetDeleteResponse,
            0,
            0,
            1 << 15,
        ),
        KafkaApi(55, "DescribeQuorum", DescribeQuorumRequest, DescribeQuorumResponse, 0, 1, 0),
        KafkaApi(
            DESCRIBE_CLUSTER_KEY,
            "DescribeCluster",
            cluster.DescribeClusterRequest,
            cluster.DescribeClusterResponse,
            0,
            1,
            0,
        ),
    )
}
