"""Records acknowledged with acks=all survive repeated clean restarts of the whole cluster.

Three brokers; node 1 runs the controller and is stopped last by ``LocalCluster.stop``
(SIGTERM: controlled shutdown of nodes 2 and 3 together, then node 1).  Partition 0 is
led by node 3, partition 1 by node 2, node 1 follows both (preferred leaders are
re-elected before every cycle).  A follower's high watermark lags the leader's by one
fetch: it learns the last acknowledged offset only when its next fetch returns, which
waits up to ``replica.fetch.wait.max.ms`` (raised here so the window is wide).  The
first controlled shutdown the controller handles shrinks the ISR of the partition the
other stopping broker leads: its leader epoch grows and node 1, still a follower,
re-enters Truncating.  Truncating to its lagging high watermark (instead of asking the
leader with OffsetsForLeaderEpoch, KIP-101) dropped the last acknowledged batch; the
second shutdown then made node 1 leader of that partition with the shorter log, and
the others truncated to it.

Invariant after every restart (``acked_durable``): every acknowledged record is in its
partition at the offset it was acknowledged with.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

pytestmark = pytest.mark.timeout(420)

TOPIC = "acked-across-restarts"
PREFERRED = {0: [3, 1, 2], 1: [2, 1, 3]}
PARTITIONS = len(PREFERRED)
CYCLES = 3
BATCHES_PER_CYCLE = 4
RECORDS_PER_BATCH = 10
CONVERGE_S = 30


async def _wait_for_full_isr(
    bootstrap: str, preferred_leaders: bool = False, timeout_s: float = CONVERGE_S
) -> None:
    """Every partition led and fully in sync; with ``preferred_leaders``, led by its first replica."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        while True:
            partitions = (await admin.describe_topics([TOPIC]))[TOPIC].partitions
            if all(p.leader >= 0 and sorted(p.isr) == [1, 2, 3] for p in partitions):
                if not preferred_leaders or all(p.leader == PREFERRED[p.partition][0] for p in partitions):
                    return
                await admin.elect_leaders([TOPIC])
            assert loop.time() < deadline, f"not in sync: {[(p.leader, p.isr) for p in partitions]}"
            await asyncio.sleep(0.2)


async def _produce(bootstrap: str, cycle: int) -> dict[TopicPartition, dict[int, bytes]]:
    """BATCHES_PER_CYCLE batches per partition with acks=all; ``{tp: {offset: value}}`` acknowledged."""
    acked: dict[TopicPartition, dict[int, bytes]] = {}
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=5,
        request_timeout_ms=10000,
        delivery_timeout_ms=30000,
    ) as producer:
        for batch in range(BATCHES_PER_CYCLE):
            futures = []
            for partition in range(PARTITIONS):
                for i in range(RECORDS_PER_BATCH):
                    value = b"c%d-b%d-p%d-r%d-" % (cycle, batch, partition, i) + b"x" * 100
                    futures.append((value, await producer.send(TOPIC, value, partition=partition)))
            for value, future in futures:
                metadata = await future
                acked.setdefault(TopicPartition(TOPIC, metadata.partition), {})[metadata.offset] = value
    return acked


async def _read_up_to(bootstrap: str, expected_end: dict[TopicPartition, int]) -> dict[TopicPartition, dict]:
    """Every record of each partition, waiting (bounded) for its end offset to reach ``expected_end``."""
    loop = asyncio.get_running_loop()
    out: dict[TopicPartition, dict[int, bytes]] = {tp: {} for tp in expected_end}
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(list(expected_end))
        deadline = loop.time() + CONVERGE_S
        while True:
            ends = await consumer.end_offsets(list(expected_end))
            if all(ends[tp] >= end for tp, end in expected_end.items()) or loop.time() >= deadline:
                break
            await asyncio.sleep(0.2)
        for tp in expected_end:
            await consumer.seek_to_beginning(tp)
        deadline = loop.time() + CONVERGE_S
        while any(len(out[tp]) < ends[tp] for tp in expected_end):
            assert loop.time() < deadline, f"read {[len(v) for v in out.values()]} of {ends}"
            for tp, records in (await consumer.getmany(timeout_ms=500)).items():
                out[tp].update((r.offset, r.value) for r in records if r.offset < ends[tp])
    return out


def check_acked_durable(
    present: dict[TopicPartition, dict[int, bytes]], acked: dict[TopicPartition, dict[int, bytes]], cycle: int
) -> None:
    """Every acknowledged record at its acknowledged offset."""
    for tp, records in acked.items():
        lost = sorted(offset for offset, value in records.items() if present[tp].get(offset) != value)
        assert not lost, (
            f"after restart {cycle + 1}: {len(lost)} acknowledged records of {tp} lost "
            f"(offsets {lost[0]}..{lost[-1]}, end offset now {len(present[tp])})"
        )


async def test_acknowledged_records_survive_repeated_clean_cluster_restarts(cluster_factory):
    cluster = cluster_factory(3, replica_fetch_wait_max_ms=2000, replica_lag_time_max_ms=10000)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics(
            [NewTopic(TOPIC, replica_assignment=PREFERRED, configs={"segment.bytes": "1024"})]
        )
    acked: dict[TopicPartition, dict[int, bytes]] = {TopicPartition(TOPIC, p): {} for p in range(PARTITIONS)}
    for cycle in range(CYCLES):
        await _wait_for_full_isr(cluster.bootstrap_servers, preferred_leaders=True)
        for tp, records in (await _produce(cluster.bootstrap_servers, cycle)).items():
            acked[tp].update(records)
        cluster.stop()  # at once: followers' high watermarks still lag the leaders'
        cluster.start()
        await _wait_for_full_isr(cluster.bootstrap_servers)
        present = await _read_up_to(cluster.bootstrap_servers, {tp: len(r) for tp, r in acked.items()})
        check_acked_durable(present, acked, cycle)
