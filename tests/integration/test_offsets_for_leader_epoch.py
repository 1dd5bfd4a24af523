"""OffsetsForLeaderEpoch on real brokers, through the follower's LeaderEndPoint.

Partition 0 of the topic has replicas [1, 2] (leader 1, epoch 0).  The leader answers
where an epoch ends in its log (undefined for an epoch it never had); the follower
answers NOT_LEADER_OR_FOLLOWER; every broker lists the API in ApiVersions.
"""

from __future__ import annotations

import asyncio

from kafkette.broker.fetcher.leader_end_point import LeaderEndPoint
from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.apis.offsets_for_leader_epoch import OffsetForLeaderPartition
from kafkette.protocol.errors import Errors

TOPIC = "epoch-end-offsets"
TP = TopicPartition(TOPIC, 0)


async def _ask(cluster, broker_id: int, current_leader_epoch: int, leader_epoch: int):
    endpoint = LeaderEndPoint(3, broker_id, "127.0.0.1", cluster.ports[broker_id], socket_timeout_ms=10000)
    try:
        answers = await endpoint.fetch_epoch_end_offsets(
            {
                TP: OffsetForLeaderPartition(
                    current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch
                )
            }
        )
    finally:
        await endpoint.close()
    return answers[TP].error_code, answers[TP].leader_epoch, answers[TP].end_offset


async def test_leader_answers_where_its_epoch_ends_and_others_refuse(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(TOPIC, replica_assignment={0: [1, 2]})])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while sorted((p := (await admin.describe_topics([TOPIC]))[TOPIC].partitions[0]).isr) != [1, 2]:
            assert loop.time() < deadline, f"ISR {p.isr}"
            await asyncio.sleep(0.1)
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(5):
            await producer.send_and_wait(TOPIC, b"v%d" % i, partition=0)
    assert await _ask(shared_cluster, 1, 0, 0) == (Errors.NONE, 0, 5)
    assert await _ask(shared_cluster, 1, -1, 7) == (Errors.NONE, -1, -1)
    assert await _ask(shared_cluster, 2, 0, 0) == (Errors.NOT_LEADER_OR_FOLLOWER, -1, -1)


async def test_every_broker_lists_offsets_for_leader_epoch_in_api_versions(shared_cluster):
    for broker_id in shared_cluster.broker_ids:
        async with BrokerConnection(
            "127.0.0.1", shared_cluster.ports[broker_id], client_id="epoch-test"
        ) as conn:
            response = await conn.send(ApiVersionsRequest(), timeout_ms=10000)
        assert ApiKey.OFFSET_FOR_LEADER_EPOCH in {k.api_key for k in response.api_keys}
