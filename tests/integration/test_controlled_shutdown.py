"""On real brokers: controlled shutdown.

SIGTERM to a broker that leads partitions while an acks=all producer runs: the
broker asks the controller (ControlledShutdown) to move its leaderships away before
it exits — so right after it exited, long before its session would time out, no
partition names it as leader — and the producer loses nothing: every acknowledged
record is consumed exactly once.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from tests.cluster_helpers import consume_from_beginning, describe_partitions, wait_for_partitions

pytestmark = pytest.mark.timeout(150)

TOPIC = "controlled"
PARTITIONS = 6
PROPS = {
    "broker.session.timeout.ms": 15000,  # an unclean exit would leave leaders in place this long
    "broker.heartbeat.interval.ms": 500,
    "replica.lag.time.max.ms": 5000,
    "replica.fetch.backoff.ms": 200,
    "auto.leader.rebalance.enable": False,
}


async def consume_all(bootstrap: str, expected: int) -> list[bytes]:
    records = await consume_from_beginning(bootstrap, [TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
    assert len(records) >= expected, (
        f"high watermarks sum to {len(records)}, fewer than {expected} acknowledged records"
    )
    return [r.value for r in records]


async def test_sigterm_moves_leaders_away_before_exit_and_acks_all_loses_nothing(tmp_path):
    cluster = LocalCluster(num_brokers=3, data_dir=tmp_path, broker_configs=PROPS).start()
    try:
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, configs={"min.insync.replicas": "2"})])
        await wait_for_partitions(
            bootstrap, TOPIC, lambda ps: all(sorted(p.isr) == [1, 2, 3] for p in ps), "full ISRs"
        )
        victim = 2
        assert any(p.leader == victim for p in await describe_partitions(bootstrap, TOPIC))

        stop_producing = asyncio.Event()
        futures: list[asyncio.Future] = []
        async with Producer(
            bootstrap_servers=bootstrap,
            acks="all",
            linger_ms=2,
            request_timeout_ms=10000,
            delivery_timeout_ms=60000,
        ) as producer:

            async def produce() -> None:
                i = 0
                while not stop_producing.is_set():
                    futures.append(await producer.send(TOPIC, f"record-{i}".encode(), key=str(i).encode()))
                    i += 1
                    await asyncio.sleep(0.002)

            task = asyncio.create_task(produce())
            try:
                await asyncio.sleep(1.0)
                await asyncio.to_thread(cluster.stop_broker, victim, False)  # SIGTERM; returns once it exited
                leaders_after_exit = [p.leader for p in await describe_partitions(bootstrap, TOPIC)]
                await asyncio.sleep(1.5)
            finally:
                stop_producing.set()
                await task
            await producer.flush(60)

        assert victim not in leaders_after_exit, (
            f"broker {victim} still led partitions after exiting: {leaders_after_exit}"
        )
        assert all(leader in (1, 3) for leader in leaders_after_exit), leaders_after_exit
        failures = [f.exception() for f in futures if f.exception() is not None]
        assert failures == [], f"{len(failures)} sends failed, first: {failures[:1]}"
        acknowledged = [f"record-{i}".encode() for i in range(len(futures))]
        assert len(acknowledged) > 100

        consumed = await consume_all(bootstrap, len(acknowledged))
        counts = Counter(consumed)
        missing = [v for v in acknowledged if counts[v] == 0]
        duplicated = [v for v, n in counts.items() if n > 1]
        assert missing == [], f"{len(missing)} acknowledged records lost, e.g. {missing[:3]}"
        assert duplicated == [], f"{len(duplicated)} records duplicated, e.g. {duplicated[:3]}"
    finally:
        cluster.stop()
