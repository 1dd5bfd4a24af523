"""Broker side of the topic lifecycle on real processes: auto topic creation through a
broker that is not the controller, and dynamic broker configs (describe and alter),
with raw requests over BrokerConnection."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.configs import (
    OP_SET,
    RESOURCE_BROKER,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_BROKER_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.errors import Errors

pytestmark = pytest.mark.timeout(120)


async def metadata(conn: BrokerConnection, *names: str, allow: bool = True):
    response = await conn.send(
        MetadataRequest(topics=[MetadataRequestTopic(name=n) for n in names], allow_auto_topic_creation=allow)
    )
    return {t.name: t for t in response.topics}


async def test_metadata_on_a_non_controller_broker_auto_creates_a_topic(shared_cluster):
    async with BrokerConnection("127.0.0.1", shared_cluster.ports[2]) as conn:
        first = await metadata(conn, "auto-created", "not allowed", "no-auto", allow=True)
        assert first["auto-created"].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
        assert first["not allowed"].error_code == Errors.INVALID_TOPIC_EXCEPTION

        deadline = asyncio.get_running_loop().time() + 30
        while True:
            topic = (await metadata(conn, "auto-created"))["auto-created"]
            if topic.error_code == Errors.NONE and all(p.leader_id >= 0 for p in topic.partitions):
                break
            assert asyncio.get_running_loop().time() < deadline, f"topic never got leaders: {topic}"
            await asyncio.sleep(0.1)
        assert len(topic.partitions) == 1  # num.partitions default

        refused = await metadata(conn, "no-auto-2", allow=False)
        assert refused["no-auto-2"].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
        everything = await conn.send(MetadataRequest(topics=None))
        assert "no-auto-2" not in {t.name for t in everything.topics}


async def test_a_broker_describes_and_alters_its_own_dynamic_configs(shared_cluster):
    port = shared_cluster.ports[3]
    async with BrokerConnection("127.0.0.1", port) as conn:
        altered = await conn.send(
            IncrementalAlterConfigsRequest(
                resources=[
                    AlterConfigsResource(
                        resource_type=RESOURCE_BROKER,
                        resource_name="3",
                        configs=[
                            AlterableConfig(name="log.retention.ms", config_operation=OP_SET, value="3600000")
                        ],
                    ),
                    AlterConfigsResource(
                        resource_type=RESOURCE_BROKER,
                        resource_name="3",
                        configs=[AlterableConfig(name="num.partitions", config_operation=OP_SET, value="4")],
                    ),
                ]
            )
        )
        assert [r.error_code for r in altered.responses] == [Errors.NONE, Errors.INVALID_REQUEST]

        described = await conn.send(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsResource(
                        resource_type=RESOURCE_BROKER, resource_name="3", configuration_keys=None
                    ),
                    DescribeConfigsResource(
                        resource_type=RESOURCE_BROKER, resource_name="1", configuration_keys=None
                    ),
                ]
            )
        )
        mine, other = described.results
        configs = {c.name: c for c in mine.configs}
        assert (configs["log.retention.ms"].value, configs["log.retention.ms"].config_source) == (
            "3600000",
            SOURCE_DYNAMIC_BROKER_CONFIG,
        )
        assert (
            configs["node.id"].config_source == SOURCE_STATIC_BROKER_CONFIG and configs["node.id"].read_only
        )
        assert configs["num.partitions"].config_source == SOURCE_DEFAULT_CONFIG
        assert other.error_code == Errors.INVALID_REQUEST
