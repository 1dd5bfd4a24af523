"""Committed offsets on real brokers (OffsetCommit and OffsetFetch at the group's coordinator):
stored in ``__consumer_offsets`` with acks=all, loaded by the partition's next leader when the
coordinator's broker is killed, and from disk after every broker restarts; bad commits get
Kafka's error and commit nothing.
"""

from __future__ import annotations

import time

import pytest

from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.client import (
    AdminClient,
    Consumer,
    IllegalGenerationError,
    InvalidGroupIdError,
    NewTopic,
    OffsetAndMetadata,
    OffsetMetadataTooLargeError,
    TopicPartition,
    UnknownTopicOrPartitionError,
)
from kafkette.client.offset_and_metadata import (
    OFFSET_COMMIT_VERSION,
    offset_commit_request,
    raise_commit_errors,
)
from kafkette.protocol.errors import Errors
from tests.cluster_helpers import wait_for_partitions, wait_until

pytestmark = pytest.mark.timeout(240)

TOPIC = "orders"
TP0, TP1, TP2 = (TopicPartition(TOPIC, p) for p in range(3))


async def test_offsets_survive_a_coordinator_kill_and_a_full_restart(cluster_factory):
    cluster = cluster_factory(3)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic(TOPIC, 3, 3)])
        await admin.alter_consumer_group_offsets("billing", {TP0: 5, TP1: OffsetAndMetadata(7, "note", 2)})
        await admin.alter_consumer_group_offsets("billing", {TP0: 6})  # a later commit replaces it
        await admin.alter_consumer_group_offsets("audit", {TP2: 11})
        expected = {TP0: OffsetAndMetadata(6, "", -1), TP1: OffsetAndMetadata(7, "note", 2)}
        assert await admin.list_consumer_group_offsets("billing") == expected
        assert await admin.list_consumer_group_offsets("billing", [TP0, TP2]) == {TP0: expected[TP0]}
        assert await admin.list_consumer_group_offsets("audit") == {TP2: OffsetAndMetadata(11)}
        assert await admin.list_consumer_group_offsets("nobody") == {}
        coordinator = await admin.find_coordinator("billing")

    cluster.stop_broker(coordinator, hard=True)
    partition = partition_for("billing", 50)
    await wait_for_partitions(
        cluster.bootstrap_servers,
        "__consumer_offsets",
        lambda ps: ps[partition].leader not in (-1, coordinator),
        "a new coordinator",
    )
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        assert await admin.find_coordinator("billing") != coordinator
        assert await admin.list_consumer_group_offsets("billing") == expected
        await admin.alter_consumer_group_offsets("billing", {TP2: 1})
        expected[TP2] = OffsetAndMetadata(1)

    cluster.start_broker(coordinator)
    cluster.stop()
    cluster.start()
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        assert await admin.list_consumer_group_offsets("billing") == expected
        assert await admin.list_consumer_group_offsets("audit") == {TP2: OffsetAndMetadata(11)}


async def test_offsets_of_a_group_without_members_expire_after_offsets_retention_minutes(cluster_factory):
    cluster = cluster_factory(
        1,
        controllers=1,
        offsets_retention_minutes=1,
        offsets_retention_check_interval_ms=500,
        group_min_session_timeout_ms=1000,
        group_initial_rebalance_delay_ms=100,
    )
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic(TOPIC, 3, 1)])
        await admin.alter_consumer_group_offsets("idle", {TP0: 5, TP1: 6})
        async with Consumer(
            bootstrap_servers=cluster.bootstrap_servers,
            group_id="busy",
            session_timeout_ms=5000,
            heartbeat_interval_ms=500,
            enable_auto_commit=False,
        ) as member:
            member.subscribe([TOPIC])
            await wait_until(
                lambda: member.assignment() != set(), "the busy group's member assigned", timeout_s=30
            )
            await member.commit({TP2: 3})
            started = time.monotonic()
            await wait_until(
                lambda: _no_offsets(admin, "idle"), "the idle group's offsets expired", timeout_s=120
            )
            waited = time.monotonic() - started
            # the group with a member keeps its offsets; the idle ones lived their minute first
            assert await admin.list_consumer_group_offsets("busy") == {TP2: OffsetAndMetadata(3)}
            assert waited > 40, f"expired after {waited:.0f} s, before offsets.retention.minutes=1"
            assert [g.group_id for g in await admin.list_consumer_groups()] == ["busy"]


async def _no_offsets(admin: AdminClient, group: str) -> bool:
    return await admin.list_consumer_group_offsets(group) == {}


async def test_bad_commits_get_kafkas_errors_and_commit_nothing(cluster_factory):
    cluster = cluster_factory(1, controllers=1)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic(TOPIC, 3, 1)])
        # the empty group id is no bad commit: Kafka keeps its offsets (backwards compatibility)
        await admin.alter_consumer_group_offsets("", {TP0: 1})
        assert await admin.list_consumer_group_offsets("") == {TP0: OffsetAndMetadata(1)}
        with pytest.raises(InvalidGroupIdError):  # but it is not a group that can delete single offsets
            await admin.delete_consumer_group_offsets("", [TP0])
        with pytest.raises(UnknownTopicOrPartitionError, match="no-such-topic-0"):
            await admin.alter_consumer_group_offsets("g", {TopicPartition("no-such-topic", 0): 3, TP0: 4})
        assert await admin.list_consumer_group_offsets("g") == {
            TP0: OffsetAndMetadata(4)
        }  # the valid one only
        with pytest.raises(UnknownTopicOrPartitionError, match=f"{TOPIC}-7"):
            await admin.alter_consumer_group_offsets("g", {TopicPartition(TOPIC, 7): 3})
        with pytest.raises(OffsetMetadataTooLargeError):
            await admin.alter_consumer_group_offsets("g", {TP1: OffsetAndMetadata(9, "x" * 4097)})
        # a commit naming a generation: of a group with only offsets, no such member; of a group
        # the coordinator does not know, no such generation (Kafka's validateOffsetCommit)
        coordinator = await admin.find_coordinator("g")
        assert coordinator == 1
        broker = admin._client.cluster.broker(coordinator)
        response = await admin._client.send_to_address(
            broker.host,
            broker.port,
            offset_commit_request(
                "g", {TP1: OffsetAndMetadata(9)}, generation_id=3, member_id="consumer-1-abc"
            ),
            api_version=OFFSET_COMMIT_VERSION,  # v9 answers the unknown group GROUP_ID_NOT_FOUND
        )
        assert response.topics[0].partitions[0].error_code == Errors.UNKNOWN_MEMBER_ID
        response = await admin._client.send_to_address(
            broker.host,
            broker.port,
            offset_commit_request(
                "nobody", {TP1: OffsetAndMetadata(9)}, generation_id=3, member_id="consumer-1-abc"
            ),
            api_version=OFFSET_COMMIT_VERSION,
        )
        assert response.topics[0].partitions[0].error_code == Errors.ILLEGAL_GENERATION
        with pytest.raises(IllegalGenerationError):
            raise_commit_errors("nobody", response)
        assert await admin.list_consumer_group_offsets("g") == {TP0: OffsetAndMetadata(4)}
