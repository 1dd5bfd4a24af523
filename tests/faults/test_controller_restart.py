"""A lone controller (node 1, the quorum's only voter) survives kill -9 by replaying its metadata log.

While node 1 is down, brokers 2 and 3 keep serving consumers (and producers) of the
partitions they lead.  After the restart the controller is node 1 again, every topic
comes back with the same replica assignment, its topic configs still reach the
brokers (``segment.bytes`` is seen in the restarted broker's segment files), a new
CreateTopics succeeds, and old and new topics take and return data.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from tests.cluster_configs import QUICK_STOP
from tests.cluster_helpers import consume_from_beginning

pytestmark = pytest.mark.timeout(180)

SERVED = "ctl-served"  # led by brokers 2 and 3 only: must stay readable without the controller
CONFIGURED = "ctl-config"  # on brokers [1, 2] with a tiny segment.bytes
SPREAD = "ctl-spread"  # automatic assignment over all three brokers
NEW = "ctl-new"  # created after the controller restart
SEGMENT_BYTES = 1024
RECORDS = 60


async def _describe(bootstrap: str, names: list[str]) -> dict[str, list]:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        return {name: d.partitions for name, d in (await admin.describe_topics(names)).items()}


async def _wait_all_led_with_full_isr(
    bootstrap: str, names: list[str], timeout_s: float = 30
) -> dict[str, list]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        described = await _describe(bootstrap, names)
        if all(
            p.leader in p.replicas and sorted(p.isr) == sorted(p.replicas)
            for parts in described.values()
            for p in parts
        ):
            return described
        assert loop.time() < deadline, f"partitions not led with full ISR: {described}"
        await asyncio.sleep(0.2)


def _assignment(described: dict[str, list]) -> dict[str, dict[int, list[int]]]:
    return {name: {p.partition: p.replicas for p in parts} for name, parts in described.items()}


async def _produce(
    bootstrap: str, topic: str, tag: str, partitions: int, idempotent: bool = True
) -> list[bytes]:
    values = []
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=0,
        delivery_timeout_ms=30000,
        enable_idempotence=idempotent,
    ) as producer:
        for i in range(RECORDS):
            value = f"{topic}-{tag}-{i:04d}-".encode() + b"x" * 80
            await producer.send_and_wait(topic, value, partition=i % partitions)
            values.append(value)
    return values


async def _consume(bootstrap: str, topic: str, partitions: list[int]) -> list[bytes]:
    return [
        r.value
        for r in await consume_from_beginning(bootstrap, [TopicPartition(topic, p) for p in partitions])
    ]


def _segment_bases(cluster, broker_id: int, topic: str) -> list[int]:
    log_dir = Path(cluster.data_dir) / f"broker-{broker_id}" / "logs" / f"{topic}-0"
    return sorted(int(p.stem) for p in log_dir.glob("*.log"))


async def test_controller_killed_and_restarted_replays_its_metadata_log(cluster_factory):
    cluster = cluster_factory(3, controllers=1, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    SERVED, replica_assignment={0: [2, 3], 1: [3, 2]}, configs={"min.insync.replicas": "2"}
                ),
                NewTopic(
                    CONFIGURED, replica_assignment={0: [1, 2]}, configs={"segment.bytes": str(SEGMENT_BYTES)}
                ),
                NewTopic(SPREAD, num_partitions=4, replication_factor=3),
            ]
        )
    old_topics = [SERVED, CONFIGURED, SPREAD]
    before = await _wait_all_led_with_full_isr(bootstrap, old_topics)
    partitions = {name: len(parts) for name, parts in before.items()}
    sent = {name: await _produce(bootstrap, name, "before", partitions[name]) for name in old_topics}

    cluster.stop_broker(1, hard=True)
    others = ",".join(f"127.0.0.1:{cluster.ports[b]}" for b in (2, 3))
    # Without the controller, brokers 2 and 3 still serve the partitions they lead.  (An
    # idempotent producer would wait for a producer id, which only the controller hands out.)
    assert sorted(await _consume(others, SERVED, [0, 1])) == sorted(sent[SERVED])
    sent[SERVED] += await _produce(others, SERVED, "controller-down", partitions[SERVED], idempotent=False)
    assert sorted(await _consume(others, SERVED, [0, 1])) == sorted(sent[SERVED])

    cluster.start_broker(1)
    after = await _wait_all_led_with_full_isr(bootstrap, old_topics)
    assert _assignment(after) == _assignment(before), (
        "replica assignments changed across the controller restart"
    )
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        assert (await admin.describe_cluster())["controller_id"] == 1
        assert set(old_topics) <= set(await admin.list_topics())
        await admin.create_topics([NewTopic(NEW, num_partitions=3, replication_factor=3)])
    new = await _wait_all_led_with_full_isr(bootstrap, [NEW])
    assert len(new[NEW]) == 3

    # The topic config replayed by the controller reaches broker 1's fresh process:
    # its new data rolls segments at segment.bytes.
    log_end_before = max(_segment_bases(cluster, 1, CONFIGURED))
    for name in old_topics:
        sent[name] += await _produce(bootstrap, name, "after", partitions[name])
    sent[NEW] = await _produce(bootstrap, NEW, "after", 3)
    for name in [*old_topics, NEW]:
        got = await _consume(bootstrap, name, list(range(partitions.get(name, 3))))
        assert sorted(got) == sorted(sent[name]), f"{name}: consumed records differ from those produced"
    await _wait_all_led_with_full_isr(bootstrap, [CONFIGURED])
    new_segments = [b for b in _segment_bases(cluster, 1, CONFIGURED) if b > log_end_before]
    assert len(new_segments) >= 3, (
        f"broker 1 rolled {len(new_segments)} new segments for ~{RECORDS * 100} bytes: "
        f"segment.bytes={SEGMENT_BYTES} was lost across the controller restart"
    )
