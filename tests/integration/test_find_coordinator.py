"""FindCoordinator on real brokers: the first call creates ``__consumer_offsets`` (50
partitions, replication factor 3 capped at the live brokers, compacted, internal) and every
broker names the leader of the group's partition as its coordinator; the coordinator moves
with that leader when its broker dies.
"""

from __future__ import annotations

import pytest

from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.client import AdminClient
from kafkette.client.config_resource import ConfigResource, ConfigResourceType
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.errors import Errors
from tests.cluster_helpers import wait_for_partitions

pytestmark = pytest.mark.timeout(180)

OFFSETS_TOPIC = "__consumer_offsets"


async def test_the_first_find_coordinator_creates_the_offsets_topic_and_names_the_partition_leader(
    cluster_factory,
):
    cluster = cluster_factory(3)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        assert OFFSETS_TOPIC not in await admin.list_topics()
        coordinator = await admin.find_coordinator("my-group")
        description = (await admin.describe_topics([OFFSETS_TOPIC]))[OFFSETS_TOPIC]
        assert description.is_internal
        assert len(description.partitions) == 50
        assert all(len(p.replicas) == 3 for p in description.partitions)
        assert (
            coordinator
            == description.partitions[partition_for("my-group", 50)].leader
            == description.partitions[12].leader
        )
        resource = ConfigResource(ConfigResourceType.TOPIC, OFFSETS_TOPIC)
        configs = (await admin.describe_configs([resource]))[resource]
        assert configs["cleanup.policy"].value == "compact"
        assert configs["segment.bytes"].value == "104857600"

        for node in cluster.node_ids:  # every broker gives the same answer
            async with AdminClient(bootstrap_servers=f"127.0.0.1:{cluster.ports[node]}") as one:
                response = await one._client.send_to_any(
                    FindCoordinatorRequest(coordinator_keys=["my-group", "g"])
                )
                assert [(c.key, c.error_code) for c in response.coordinators] == [
                    ("my-group", Errors.NONE),
                    ("g", Errors.NONE),
                ]
                assert response.coordinators[0].node_id == coordinator
                assert (
                    response.coordinators[1].node_id == description.partitions[partition_for("g", 50)].leader
                )
                assert response.coordinators[0].port == cluster.ports[coordinator]

        # a transactional id's coordinator: none while __transaction_state is being created
        creating = await admin._client.send_to_any(
            FindCoordinatorRequest(key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=["tx"])
        )
        assert creating.coordinators[0].error_code == Errors.COORDINATOR_NOT_AVAILABLE
        assert "__transaction_state is being created" in creating.coordinators[0].error_message
        refused = await admin._client.send_to_any(FindCoordinatorRequest(key_type=3, coordinator_keys=["x"]))
        assert refused.coordinators[0].error_code == Errors.INVALID_REQUEST
        assert "not supported" in refused.coordinators[0].error_message

    cluster.stop_broker(coordinator, hard=True)
    partition = partition_for("my-group", 50)
    await wait_for_partitions(
        cluster.bootstrap_servers,
        OFFSETS_TOPIC,
        lambda ps: ps[partition].leader not in (-1, coordinator),
        "a new leader",
    )
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        moved = await admin.find_coordinator("my-group")
        assert moved != coordinator
        assert (
            moved
            == (await admin.describe_topics([OFFSETS_TOPIC]))[OFFSETS_TOPIC].partitions[partition].leader
        )


async def test_a_one_broker_cluster_gets_an_offsets_topic_of_replication_factor_one(cluster_factory):
    cluster = cluster_factory(1, controllers=1)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        assert await admin.find_coordinator("solo") == 1
        description = (await admin.describe_topics([OFFSETS_TOPIC]))[OFFSETS_TOPIC]
        assert len(description.partitions) == 50
        assert {len(p.replicas) for p in description.partitions} == {1}


async def test_offsets_topic_partitions_follow_the_broker_config(cluster_factory):
    cluster = cluster_factory(1, controllers=1, offsets_topic_num_partitions=5)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.find_coordinator("my-group")
        description = (await admin.describe_topics([OFFSETS_TOPIC]))[OFFSETS_TOPIC]
        assert len(description.partitions) == 5
