"""On real brokers: deletion refused by config, and deletion while a replica's
broker is down (completed once it returns; meanwhile the topic, queued for deletion,
refuses CreatePartitions and a new CreateTopics of its name).
"""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from kafkette.client import (
    AdminClient,
    Consumer,
    InvalidTopicError,
    NewPartitions,
    NewTopic,
    Producer,
    RequestTimedOutError,
    TopicAlreadyExistsError,
    TopicDeletionDisabledError,
    TopicPartition,
)
from kafkette.client.cli.main import kafkette
from tests.cluster_helpers import partition_dirs, wait_until

pytestmark = pytest.mark.timeout(150)


async def test_delete_topic_enable_false_refuses_deletion(cluster_factory):
    cluster = cluster_factory(1, delete_topic_enable=False)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("kept", 1, 1)])
        with pytest.raises(TopicDeletionDisabledError):
            await admin.delete_topics(["kept"])
        assert "kept" in await admin.list_topics()
    result = await asyncio.to_thread(CliRunner().invoke, kafkette,
                                     ["topics", "delete", "kept", "--bootstrap-server", cluster.bootstrap_servers])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code != 0 and len(lines) == 1 and "TOPIC_DELETION_DISABLED" in lines[0], result.stderr
    assert partition_dirs(cluster, "kept")


async def test_topic_deleted_while_a_replica_is_down_is_fully_deleted_after_it_returns(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("half-deleted", 2, 3)])
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(20):
            await producer.send("half-deleted", f"v{i}".encode(), partition=i % 2)
    assert len(partition_dirs(cluster, "half-deleted")) == 6

    cluster.stop_broker(3, hard=True)
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000) as admin:
        try:
            await admin.delete_topics(["half-deleted"], timeout_ms=3000)
        except RequestTimedOutError:
            pass  # expected: broker 3 cannot delete its replicas yet; the deletion stays queued
        assert "half-deleted" not in await admin.list_topics()
    await wait_until(lambda: not partition_dirs(cluster, "half-deleted", [1, 2]), "live brokers to delete their replicas")
    assert len(partition_dirs(cluster, "half-deleted", [3])) == 2  # broker 3 is down: its copy is still there

    # While queued for deletion the topic can be neither expanded nor created again.
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000) as admin:
        with pytest.raises(InvalidTopicError, match="queued for deletion"):
            await admin.create_partitions({"half-deleted": NewPartitions(4)})
        with pytest.raises(TopicAlreadyExistsError, match="marked for deletion"):
            await admin.create_topics([NewTopic("half-deleted", 2, 3)])
    result = await asyncio.to_thread(CliRunner().invoke, kafkette, ["topics", "alter", "half-deleted", "--partitions", "4",
                                                                    "--bootstrap-server", bootstrap])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code != 0 and len(lines) == 1 and "queued for deletion" in lines[0], result.output

    cluster.start_broker(3)
    await wait_until(lambda: not partition_dirs(cluster, "half-deleted"), "broker 3 to delete its replicas")
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        assert "half-deleted" not in await admin.list_topics()
        await admin.create_topics([NewTopic("half-deleted", 2, 3)])  # the name is free again
    tps = [TopicPartition("half-deleted", p) for p in (0, 1)]
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(tps)
        assert await consumer.end_offsets(tps) == {tp: 0 for tp in tps}
