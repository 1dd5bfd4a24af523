"""Offset expiry of a KIP-848 consumer group on a real broker (Kafka's ``cleanupGroupMetadata`` for
consumer groups): while a member heartbeats, the offsets of a topic it does not subscribe to expire
after ``offsets.retention.minutes`` and those of its subscribed topic stay; once it leaves, the Empty
group's last offsets expire and the group is deleted."""

from __future__ import annotations

import asyncio
import time

import pytest

from kafkette.client import AdminClient, NewTopic, OffsetAndMetadata, TopicPartition
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatRequest
from kafkette.protocol.errors import Errors
from tests.cluster_helpers import wait_until

pytestmark = pytest.mark.timeout(240)

SUBSCRIBED, UNSUBSCRIBED = TopicPartition("orders", 0), TopicPartition("payments", 0)
MEMBER_ID = "AAAAAAAAAAAAAAAAAAAAAA"


async def _heartbeat(admin: AdminClient, epoch: int) -> int:
    request = ConsumerGroupHeartbeatRequest(group_id="modern", member_id=MEMBER_ID, member_epoch=epoch)
    if epoch == 0:
        request.rebalance_timeout_ms = 30000
        request.subscribed_topic_names = [SUBSCRIBED.topic]
        request.subscribed_topic_regex = ""
        request.topic_partitions = []
    response = await admin._client.send_to_any(request)
    assert response.error_code == Errors.NONE, response
    return response.member_epoch


async def test_a_consumer_groups_unsubscribed_offsets_expire_while_it_has_members(cluster_factory):
    cluster = cluster_factory(
        1, controllers=1, offsets_retention_minutes=1, offsets_retention_check_interval_ms=500
    )
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic(SUBSCRIBED.topic, 1, 1), NewTopic(UNSUBSCRIBED.topic, 1, 1)])
        await admin.alter_consumer_group_offsets("modern", {SUBSCRIBED: 5, UNSUBSCRIBED: 6})
        committed = time.monotonic()
        epoch = await _heartbeat(admin, 0)  # the Empty group of offsets becomes a consumer group

        async def unsubscribed_expired() -> bool:
            nonlocal epoch
            epoch = await _heartbeat(admin, epoch)
            offsets = await admin.list_consumer_group_offsets("modern")
            return UNSUBSCRIBED not in offsets

        await wait_until(unsubscribed_expired, "the unsubscribed topic's offset expired", timeout_s=120)
        waited = time.monotonic() - committed
        assert waited > 40, f"expired after {waited:.0f} s, before offsets.retention.minutes=1"
        await asyncio.sleep(2)  # a few more cleanups: the subscribed topic's offset stays
        assert await admin.list_consumer_group_offsets("modern") == {SUBSCRIBED: OffsetAndMetadata(5)}
        assert [g.group_id for g in await admin.list_consumer_groups()] == ["modern"]

        assert await _heartbeat(admin, -1) == -1  # the group is Empty: its last offset has expired too

        async def group_deleted() -> bool:
            return [g.group_id for g in await admin.list_consumer_groups()] == []

        await wait_until(group_deleted, "the Empty consumer group deleted", timeout_s=30)
        assert await admin.list_consumer_group_offsets("modern") == {}
