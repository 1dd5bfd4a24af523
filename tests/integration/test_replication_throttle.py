"""Replication throttles (KIP-73) with real brokers: a follower out of the ISR catches up no faster
than ``follower.replication.throttled.rate`` for a topic whose ``follower.replication.throttled.replicas``
names it, and no faster than the leader's ``leader.replication.throttled.rate`` (set at run time with
IncrementalAlterConfigs) for a topic whose ``leader.replication.throttled.replicas`` names the leader;
an unthrottled topic beside them catches up at once, and a replica in sync is never held back.

Each topic's only partition has broker 1 as leader and broker 2 as follower; broker 2 is stopped
while 3 MB go into each, then started again, and the time until it is back in each ISR is
measured (printed).  At 500 kB/s, 3 MB take at least 3 s beyond what a quota window lets through.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer
from kafkette.client.config_resource import ConfigResource, ConfigResourceType
from tests.cluster_configs import FAST_FAILOVER

pytestmark = pytest.mark.timeout(240)

RATE = 500_000  # bytes/s
DATA = 3_000_000  # bytes per topic while the follower is away
IN_SYNC_DATA = 2_000_000  # bytes per topic while it is in sync: at least 3 s each if it were throttled
VALUE = b"r" * 10_000
THROTTLE_WINDOW = {"replication.quota.window.num": "2", "replication.quota.window.size.seconds": "1"}
FOLLOWER_THROTTLED, LEADER_THROTTLED, FREE = "follower-throttled", "leader-throttled", "unthrottled"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """3 brokers; the follower rate is a static config of every broker, the leader's is set later."""
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("replication-throttle"),
        broker_configs={**FAST_FAILOVER, **THROTTLE_WINDOW, "follower.replication.throttled.rate": RATE},
    ) as cluster:
        yield cluster


async def _isr(admin: AdminClient, topic: str) -> list[int]:
    return list((await admin.describe_topics([topic]))[topic].partitions[0].isr)


async def _wait_isr(
    admin: AdminClient, topics: list[str], isr: list[int], timeout_s: float
) -> dict[str, float]:
    """Seconds until each topic's ISR is ``isr`` (from now)."""
    start = time.monotonic()
    reached: dict[str, float] = {}
    while len(reached) < len(topics):
        assert time.monotonic() - start < timeout_s, f"ISR not {isr} in {timeout_s} s: {reached}"
        for topic in topics:
            if topic not in reached and sorted(await _isr(admin, topic)) == isr:
                reached[topic] = time.monotonic() - start
        await asyncio.sleep(0.1)
    return reached


async def test_an_out_of_sync_follower_catches_up_at_the_throttled_rates(cluster):
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    FOLLOWER_THROTTLED,
                    replica_assignment=[[1, 2]],
                    configs={"follower.replication.throttled.replicas": "*"},
                ),
                NewTopic(
                    LEADER_THROTTLED,
                    replica_assignment=[[1, 2]],
                    configs={"leader.replication.throttled.replicas": "0:1"},
                ),
                NewTopic(FREE, replica_assignment=[[1, 2]]),
            ]
        )
        await admin.alter_configs(
            {ConfigResource(ConfigResourceType.BROKER, "1"): {"leader.replication.throttled.rate": str(RATE)}}
        )
        topics = [FOLLOWER_THROTTLED, LEADER_THROTTLED, FREE]
        await _wait_isr(admin, topics, [1, 2], 30)
        # in sync, the throttled topics replicate as fast as the others: a replica in sync is never held back
        async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
            start = time.monotonic()
            for topic in topics:
                for _ in range(IN_SYNC_DATA // len(VALUE)):
                    await producer.send(topic, VALUE)
            await producer.flush(timeout=60)
            in_sync_s = time.monotonic() - start
        cluster.stop_broker(2)
        await _wait_isr(admin, topics, [1], 30)
        async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
            for topic in topics:
                for _ in range(DATA // len(VALUE)):
                    await producer.send(topic, VALUE)
            await producer.flush(timeout=60)
        cluster.start_broker(2)
        cluster.wait_for_broker(2, timeout_s=60)
        caught_up = await _wait_isr(admin, topics, [1, 2], 120)
    print(f"acks=all in sync: 6 MB in {in_sync_s:.1f} s; back in the ISR after (s): {caught_up}")
    assert in_sync_s < 2.5  # not held to 500 kB/s on either throttled topic
    assert caught_up[FOLLOWER_THROTTLED] >= 3.0
    assert caught_up[LEADER_THROTTLED] >= 3.0
    assert caught_up[FREE] < min(caught_up[FOLLOWER_THROTTLED], caught_up[LEADER_THROTTLED])
