"""kill -9 of the active controller never stops the cluster (KIP-500, KIP-595, KIP-631).

Three nodes, each a broker and a voter of the metadata quorum.  A topic with three
partitions, replication factor 3 and ``min.insync.replicas=2`` takes acks=all writes; the
node that is the active controller (the Raft leader) is killed with SIGKILL.  Within a
bounded time another voter is the active controller in a higher epoch, the dead node leads
no partition and has left every ISR, CreateTopics works, acks=all writes succeed on every
partition (also those the dead node led) and every record acknowledged before or after the
kill is read back once.  With one voter of three left, no controller acts: CreateTopics
fails with a timeout instead of hanging, and nothing it asked for is created.  Restarted, the node rejoins the
quorum as a follower, catches up with the metadata log and its replicas rejoin the ISRs.  A second kill of the
next active controller works the same way.  The failover times are printed.
"""

from __future__ import annotations

import time

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.protocol.errors import KafkaTimeoutError
from tests.cluster_helpers import (
    consume_from_beginning,
    wait_for_partitions,
    wait_for_quorum_leader,
    wait_until,
)

pytestmark = pytest.mark.timeout(240)

TOPIC = "orders"
PARTITIONS = 3


async def _produce(bootstrap: str, tag: str, count: int) -> list[bytes]:
    values = [f"{tag}-{i}".encode() for i in range(count)]
    async with Producer(
        bootstrap_servers=bootstrap, acks="all", request_timeout_ms=5000, delivery_timeout_ms=60000
    ) as producer:
        for i, value in enumerate(values):
            await producer.send_and_wait(TOPIC, value, partition=i % PARTITIONS)
    return values


async def _kill_active_controller(
    cluster, admin: AdminClient, before: tuple[int, int]
) -> tuple[int, int, float]:
    victim, epoch = before
    killed_at = time.monotonic()
    cluster.stop_broker(victim, hard=True)
    leader, new_epoch = await wait_for_quorum_leader(admin, victim)
    elected_s = time.monotonic() - killed_at
    assert new_epoch > epoch
    await wait_for_partitions(
        cluster.bootstrap_servers,
        TOPIC,
        lambda parts: all(p.leader not in (-1, victim) and victim not in p.isr for p in parts),
        f"partitions led elsewhere and ISRs without node {victim}",
        timeout_s=30,
    )
    moved_s = time.monotonic() - killed_at
    print(
        f"killed active controller {victim} (epoch {epoch}): node {leader} active in epoch {new_epoch} "
        f"after {elected_s:.2f} s; its partitions moved after {moved_s:.2f} s"
    )
    return leader, new_epoch, moved_s


async def test_killing_the_active_controller_twice_never_stops_the_cluster(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000) as admin:
        first = await wait_for_quorum_leader(admin)
        assert sorted(v.replica_id for v in (await admin.describe_metadata_quorum()).voters) == [1, 2, 3]
        await admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, configs={"min.insync.replicas": "2"})])
        await wait_for_partitions(
            bootstrap, TOPIC, lambda parts: all(len(p.isr) == 3 for p in parts), "full ISRs"
        )
        acked = await _produce(bootstrap, "before", 30)

        second = await _kill_active_controller(cluster, admin, first)
        await admin.create_topics([NewTopic("created-after-failover", 2, 2)])
        acked += await _produce(bootstrap, "after-first-kill", 30)

        cluster.start_broker(first[0])
        await wait_for_partitions(
            bootstrap,
            TOPIC,
            lambda parts: all(len(p.isr) == 3 for p in parts),
            f"node {first[0]} back in every ISR",
            timeout_s=60,
        )

        async def caught_up() -> bool:
            quorum = await admin.describe_metadata_quorum(timeout_ms=2000)
            ends = {v.replica_id: v.log_end_offset for v in quorum.voters}
            return ends.get(first[0], -1) >= quorum.high_watermark > 0

        await wait_until(caught_up, f"node {first[0]} caught up with the metadata log", timeout_s=30)

        await _kill_active_controller(cluster, admin, second[:2])
        acked += await _produce(bootstrap, "after-second-kill", 30)
        assert "created-after-failover" in await admin.list_topics()

    records = await consume_from_beginning(
        bootstrap, [TopicPartition(TOPIC, p) for p in range(PARTITIONS)], count=len(acked), timeout_s=60
    )
    values = [r.value for r in records]
    assert sorted(values) == sorted(acked), "acknowledged records lost or duplicated across the failovers"


async def test_with_one_voter_of_three_left_no_controller_acts_and_create_topics_fails_in_time(
    cluster_factory,
):
    cluster = cluster_factory(3)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=2000) as admin:
        leader, _ = await wait_for_quorum_leader(admin)
    survivor = next(b for b in cluster.broker_ids if b != leader)
    for node in cluster.broker_ids:
        if node != survivor:
            cluster.stop_broker(node, hard=True)
    alone = f"127.0.0.1:{cluster.ports[survivor]}"
    async with AdminClient(bootstrap_servers=alone, request_timeout_ms=2000) as admin:
        started = time.monotonic()
        with pytest.raises(KafkaTimeoutError):
            await admin.create_topics([NewTopic("without-a-majority", 1, 1)], timeout_ms=3000)
        waited = time.monotonic() - started
        assert waited < 30, f"CreateTopics hung for {waited:.1f} s without a controller"
        with pytest.raises(KafkaTimeoutError):
            await admin.describe_metadata_quorum(timeout_ms=1000)  # no leader to describe it

    for node in cluster.broker_ids:
        if node != survivor:
            cluster.start_broker(node)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        await wait_for_quorum_leader(admin)
        await admin.create_topics([NewTopic("with-a-majority-again", 1, 3)])
        assert "without-a-majority" not in await admin.list_topics()
