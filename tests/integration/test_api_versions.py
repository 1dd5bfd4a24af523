"""Every broker answers ApiVersions listing the APIs it serves.

The data-path APIs (ApiVersions, Metadata, Produce, Fetch, ListOffsets, CreateTopics,
LeaderAndIsr, UpdateMetadata, BrokerRegistration, BrokerHeartbeat, AlterPartition) and
the topic-lifecycle ones (CreatePartitions, DeleteTopics, StopReplica, ElectLeaders,
ControlledShutdown, DescribeConfigs, IncrementalAlterConfigs) are listed by every broker,
each with the version range of its declarative schema.
"""

from __future__ import annotations

from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.errors import Errors

ISSUE_2_APIS = {
    ApiKey.API_VERSIONS,
    ApiKey.METADATA,
    ApiKey.PRODUCE,
    ApiKey.FETCH,
    ApiKey.LIST_OFFSETS,
    ApiKey.CREATE_TOPICS,
    ApiKey.LEADER_AND_ISR,
    ApiKey.UPDATE_METADATA,
    ApiKey.BROKER_REGISTRATION,
    ApiKey.BROKER_HEARTBEAT,
    ApiKey.ALTER_PARTITION,
}
ISSUE_3_APIS = {
    ApiKey.CREATE_PARTITIONS,
    ApiKey.DELETE_TOPICS,
    ApiKey.STOP_REPLICA,
    ApiKey.ELECT_LEADERS,
    ApiKey.CONTROLLED_SHUTDOWN,
    ApiKey.DESCRIBE_CONFIGS,
    ApiKey.INCREMENTAL_ALTER_CONFIGS,
}


async def test_every_broker_lists_the_apis_of_issues_2_and_3_with_their_schema_versions(shared_cluster):
    for broker_id in shared_cluster.broker_ids:
        async with BrokerConnection(
            "127.0.0.1", shared_cluster.ports[broker_id], client_id="api-versions-test"
        ) as conn:
            response = await conn.send(ApiVersionsRequest(), timeout_ms=10000)
        assert response.error_code == Errors.NONE
        listed = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
        missing = {key.name for key in ISSUE_2_APIS | ISSUE_3_APIS if key not in listed}
        assert not missing, f"broker {broker_id} does not list {sorted(missing)}"
        for key in ISSUE_2_APIS | ISSUE_3_APIS:
            spec = API_REGISTRY[key]
            assert listed[key] == (spec.min_version, spec.max_version), key.name
