"""On real brokers: deletion refused by config, and KRaft-style deletion: DeleteTopics answers
once the topic's removal commits, even while a replica's broker is down; every broker renames
the topic's logs ``<topic>-<partition>.<uuid>-delete`` and removes them after
``log.segment.delete.delay.ms``; a broker that was down deletes its stray logs when it returns;
a name deleted and created again at once is a new, empty topic with a new topic id.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner

from kafkette.client import (
    AdminClient,
    Consumer,
    LocalCluster,
    NewTopic,
    Producer,
    TopicDeletionDisabledError,
    TopicPartition,
    UnknownTopicOrPartitionError,
)
from kafkette.client.cli.main import kafkette
from kafkette.client.kafka_client import KafkaClient
from tests.cluster_helpers import partition_dirs, wait_until

pytestmark = pytest.mark.timeout(150)


async def test_delete_topic_enable_false_refuses_deletion(cluster_factory):
    cluster = cluster_factory(1, delete_topic_enable=False)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("kept", 1, 1)])
        with pytest.raises(TopicDeletionDisabledError):
            await admin.delete_topics(["kept"])
        assert "kept" in await admin.list_topics()
    result = await asyncio.to_thread(
        CliRunner().invoke,
        kafkette,
        ["topics", "delete", "kept", "--bootstrap-server", cluster.bootstrap_servers],
    )
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code != 0 and len(lines) == 1 and "TOPIC_DELETION_DISABLED" in lines[0], result.stderr
    assert partition_dirs(cluster, "kept")


# Before, ZK-style deletion waited for StopReplica from every replica: 1.2-1.5 s per topic under
# load, and until the request timed out with a replica's broker down.
DELETE_DELAY_MS = 3000  # log.segment.delete.delay.ms of these clusters (Kafka's default: 60000)


def topic_log_dirs(cluster: LocalCluster, topic: str, broker_ids: list[int]) -> list[Path]:
    """Every log dir of ``topic`` on ``broker_ids``: ``<topic>-<p>`` and ``<topic>-<p>.<uuid>-delete``."""
    found = []
    for broker_id in broker_ids:
        logs = cluster.broker_dir(broker_id) / "logs"
        if logs.is_dir():
            found += [
                p for p in logs.iterdir() if p.is_dir() and p.name.split(".")[0].rpartition("-")[0] == topic
            ]
    return sorted(found)


def on_disk_topic_ids(cluster: LocalCluster, topic: str, broker_ids: list[int]) -> set[str]:
    """The topic ids in the ``partition.metadata`` of ``topic``'s live logs on ``broker_ids``."""
    ids = set()
    for path in partition_dirs(cluster, topic, broker_ids):
        lines = (path / "partition.metadata").read_text().splitlines()
        ids.add(dict(line.split(": ", 1) for line in lines)["topic_id"])
    return ids


async def topic_id(cluster: LocalCluster, topic: str) -> bytes:
    """The topic id a Metadata answer gives for ``topic`` (16 bytes)."""
    client = KafkaClient(cluster.bootstrap_servers)
    await client.start()
    try:
        response = await client.metadata_for([topic])
    finally:
        await client.close()
    assert response.topics[0].error_code == 0
    return response.topics[0].topic_id


async def test_deletion_answers_at_once_with_a_replica_broker_down_and_every_log_dir_goes(cluster_factory):
    cluster = cluster_factory(3, log_segment_delete_delay_ms=DELETE_DELAY_MS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("half-deleted", 2, 3)])
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(20):
            await producer.send("half-deleted", f"v{i}".encode(), partition=i % 2)
    assert len(partition_dirs(cluster, "half-deleted")) == 6

    cluster.stop_broker(3, hard=True)
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=40000) as admin:
        # a deletion that waited for the down replica (ZK-style) answers REQUEST_TIMED_OUT here
        await admin.delete_topics(["half-deleted"], timeout_ms=30000)
        assert "half-deleted" not in await admin.list_topics()
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.describe_topics(["half-deleted"])
    # live brokers rename the logs at once, and remove them after log.segment.delete.delay.ms
    await wait_until(
        lambda: not partition_dirs(cluster, "half-deleted", [1, 2]), "live brokers to rename the logs"
    )
    renamed = topic_log_dirs(cluster, "half-deleted", [1, 2])
    assert len(renamed) == 4 and all(p.name.endswith("-delete") for p in renamed), renamed
    await wait_until(
        lambda: not topic_log_dirs(cluster, "half-deleted", [1, 2]),
        "the renamed logs to be removed after log.segment.delete.delay.ms",
    )
    assert len(partition_dirs(cluster, "half-deleted", [3])) == 2  # broker 3 is down: its copy is still there

    cluster.start_broker(3)  # its logs are stray now: the topic id is not in the metadata
    await wait_until(
        lambda: not partition_dirs(cluster, "half-deleted", [3]), "broker 3 to find its stray logs"
    )
    await wait_until(
        lambda: not topic_log_dirs(cluster, "half-deleted", [3]), "broker 3 to remove its stray logs"
    )


async def test_delete_then_recreate_at_once_is_a_new_empty_topic_even_on_a_broker_that_was_down(
    cluster_factory,
):
    cluster = cluster_factory(3, log_segment_delete_delay_ms=DELETE_DELAY_MS)
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("reborn", 0)
    assignment = {0: [1, 2, 3]}
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("reborn", replica_assignment=assignment)])
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(5):
            await producer.send_and_wait("reborn", f"old-{i}".encode())
    old_id = await topic_id(cluster, "reborn")
    await wait_until(lambda: len(on_disk_topic_ids(cluster, "reborn", [1, 2, 3])) == 1, "partition.metadata")

    cluster.stop_broker(3, hard=True)
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=40000) as admin:
        await admin.delete_topics(["reborn"], timeout_ms=30000)
        await admin.create_topics([NewTopic("reborn", replica_assignment=assignment)])
    new_id = await topic_id(cluster, "reborn")
    assert new_id != old_id
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        assert await consumer.end_offsets([tp]) == {tp: 0}
    async with Producer(bootstrap_servers=bootstrap, acks="1") as producer:
        assert (await producer.send_and_wait("reborn", b"new")).offset == 0

    cluster.start_broker(3)  # holds reborn-0 of the old topic id: stray, never mixed with the new log
    new_on_disk = on_disk_topic_ids(cluster, "reborn", [1])
    await wait_until(
        lambda: on_disk_topic_ids(cluster, "reborn", [3]) == new_on_disk,
        "broker 3 to replace the old topic's log with the new topic's",
    )
    await wait_until(
        lambda: not [p for p in topic_log_dirs(cluster, "reborn", [3]) if p.name.endswith("-delete")],
        "broker 3 to remove the old topic's log",
    )
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([tp])
        records = (await consumer.getmany(timeout_ms=5000)).get(tp, [])
    assert [r.value for r in records] == [b"new"]
    await wait_until(
        lambda: (
            b"old-"
            not in b"".join(
                f.read_bytes()
                for d in partition_dirs(cluster, "reborn", [3])
                for f in d.iterdir()
                if f.is_file()
            )
        ),
        "broker 3's log of the new topic to hold none of the old records",
    )
