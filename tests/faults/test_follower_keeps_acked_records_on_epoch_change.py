"""A follower whose high watermark lags keeps acknowledged records across a leader epoch change.

Partition 0 has replicas [3, 1, 2]: node 3 leads, node 1 (the metadata quorum's only
voter, so that the controller outlives nodes 2 and 3 both going down) and node 2 follow.  Each round:

1. records are produced with acks=all; the followers hold them all, but learn the last
   high watermark only from their next fetch, which the leader parks in its fetch
   purgatory (``replica.fetch.wait.max.ms``);
2. the leader is paused (SIGSTOP) before that fetch returns: the followers' high
   watermarks stay one batch behind;
3. node 2 is stopped cleanly (controlled shutdown): the controller shrinks the ISR to
   [3, 1] with a new leader epoch, and node 1, still a follower of 3, re-enters
   Truncating.  Truncating to its high watermark dropped the last acknowledged batch;
   with OffsetsForLeaderEpoch (KIP-101) it asks the leader and keeps it;
4. the leader is killed (-9) while paused and node 1, the only other ISR member, is elected;
5. the invariant ``acked_durable`` is checked on node 1 as leader, then nodes 2 and 3
   restart, rejoin the ISR, and it is checked again; preferred leadership returns to 3.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

pytestmark = pytest.mark.timeout(300)

TOPIC = "lagging-follower"
TP = TopicPartition(TOPIC, 0)
LEADER, SURVIVOR, STOPPED = 3, 1, 2
ROUNDS = 2
BATCHES, RECORDS_PER_BATCH = 4, 10
CONVERGE_S = 30


async def _partition(bootstrap: str):
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000) as admin:
        return (await admin.describe_topics([TOPIC]))[TOPIC].partitions[0]


async def _wait_for(bootstrap: str, predicate, what: str, elect_preferred: bool = False):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONVERGE_S
    while True:
        p = await _partition(bootstrap)
        if predicate(p):
            return p
        assert loop.time() < deadline, f"timed out waiting for {what}: leader {p.leader}, isr {p.isr}"
        if elect_preferred and sorted(p.isr) == [1, 2, 3]:
            async with AdminClient(bootstrap_servers=bootstrap) as admin:
                await admin.elect_leaders([TP])
        await asyncio.sleep(0.2)


async def _produce(bootstrap: str, round_no: int) -> dict[int, bytes]:
    """BATCHES batches of acks=all records, one after the other; ``{offset: value}`` acknowledged."""
    acked: dict[int, bytes] = {}
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=5,
        request_timeout_ms=10000,
        delivery_timeout_ms=30000,
    ) as producer:
        for batch in range(BATCHES):
            values = [b"round%d-batch%d-%d" % (round_no, batch, i) for i in range(RECORDS_PER_BATCH)]
            futures = [await producer.send(TOPIC, value, partition=0) for value in values]
            for value, future in zip(values, futures, strict=True):
                acked[(await future).offset] = value
    return acked


async def _read_all(bootstrap: str, expected_end: int) -> dict[int, bytes]:
    """Every record of the partition once its end offset reaches ``expected_end`` (bounded wait)."""
    loop = asyncio.get_running_loop()
    out: dict[int, bytes] = {}
    async with Consumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", request_timeout_ms=5000
    ) as consumer:
        consumer.assign([TP])
        deadline = loop.time() + CONVERGE_S
        while (end := (await consumer.end_offsets([TP]))[TP]) < expected_end and loop.time() < deadline:
            await asyncio.sleep(0.2)
        await consumer.seek_to_beginning(TP)
        deadline = loop.time() + CONVERGE_S
        while len(out) < end:
            assert loop.time() < deadline, f"read {len(out)} of {end} records"
            out.update((r.offset, r.value) for r in (await consumer.getmany(timeout_ms=500)).get(TP, []))
    return out


def check_acked_durable(present: dict[int, bytes], acked: dict[int, bytes], when: str) -> None:
    """Every acknowledged record at its acknowledged offset."""
    lost = sorted(offset for offset, value in acked.items() if present.get(offset) != value)
    assert not lost, (
        f"{when}: {len(lost)} acknowledged records lost (offsets {lost[0]}..{lost[-1]}; "
        f"{len(present)} records readable)"
    )


async def test_follower_with_a_lagging_high_watermark_keeps_acked_records_when_the_epoch_changes(
    cluster_factory,
):
    cluster = cluster_factory(3, controllers=1, replica_fetch_wait_max_ms=5000, replica_lag_time_max_ms=10000)
    bootstrap = cluster.bootstrap_servers
    survivor_only = f"127.0.0.1:{cluster.ports[SURVIVOR]}"  # never routes to the paused leader
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(TOPIC, replica_assignment={0: [LEADER, SURVIVOR, STOPPED]})])
    acked: dict[int, bytes] = {}
    for round_no in range(ROUNDS):
        await _wait_for(
            bootstrap,
            lambda p: p.leader == LEADER and sorted(p.isr) == [1, 2, 3],
            "node 3 to lead a full ISR",
            elect_preferred=True,
        )
        acked.update(await _produce(bootstrap, round_no))
        leader_pid = cluster.pid(LEADER)
        assert leader_pid is not None
        os.kill(
            leader_pid, signal.SIGSTOP
        )  # the followers' fetches with the last high watermark never return
        try:
            cluster.stop_broker(STOPPED, hard=False)
            await _wait_for(
                survivor_only, lambda p: sorted(p.isr) == [1, 3], "the ISR shrink (a new leader epoch)"
            )
        finally:
            cluster.stop_broker(LEADER, hard=True)  # SIGKILL while stopped: it never answers again
        await _wait_for(survivor_only, lambda p: p.leader == SURVIVOR, "node 1 to be elected")
        check_acked_durable(
            await _read_all(survivor_only, len(acked)), acked, f"round {round_no + 1}, on node 1"
        )
        cluster.start_broker(STOPPED)
        cluster.start_broker(LEADER)
        await _wait_for(bootstrap, lambda p: sorted(p.isr) == [1, 2, 3], "the restarted brokers to rejoin")
        check_acked_durable(
            await _read_all(bootstrap, len(acked)), acked, f"round {round_no + 1}, after rejoining"
        )
