"""A restarted broker truncates what the leader does not have.

Partition 0 of ``diverged`` lives on brokers 2 (leader) and 3 (neither hosts the
controller).  Broker 3 is paused (SIGSTOP) so that batches written to broker 2 with
acks=1 reach no other replica; broker 2 is then killed (-9) with those batches on its
disk, broker 3 resumes (SIGCONT, well within ``broker.session.timeout.ms`` and
``replica.lag.time.max.ms``, so it stays in the ISR) and is elected leader, and new
records are written to it until its log end offset passes broker 2's.  Broker 2 is
restarted: without truncation to its high watermark it would fetch from its own log end
offset and keep the divergent batches under offsets the leader filled with other
records.  It must rejoin the ISR with the leader's batches, byte for byte.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition
from kafkette.protocol.record_batch import decode_records, iter_batches
from tests.cluster_helpers import wait_for_partition

pytestmark = pytest.mark.timeout(180)

TOPIC = "diverged"
LEADER, FOLLOWER = 2, 3  # node 1 runs the controller and stays out of the partition
COMMITTED, DIVERGENT, AFTER = 50, 8, 40


async def _wait_for(bootstrap: str, predicate, what: str):
    return await wait_for_partition(bootstrap, TopicPartition(TOPIC, 0), predicate, what)


def _log_bytes(cluster, broker_id: int) -> bytes:
    log_dir = Path(cluster.data_dir) / f"broker-{broker_id}" / "logs" / f"{TOPIC}-0"
    return b"".join(p.read_bytes() for p in sorted(log_dir.glob("*.log"), key=lambda p: int(p.stem)))


def _offsets_and_values(data: bytes) -> list[tuple[int, bytes]]:
    return [
        (r.offset, r.value)
        for pos, header in iter_batches(data, verify_crc=True)
        for r in decode_records(data, pos, header)
    ]


async def _send_one_by_one(bootstrap: str, values: list[bytes], acks: int | str) -> list[int]:
    """Send each value as its own batch to partition 0; returns the offsets."""
    async with Producer(
        bootstrap_servers=bootstrap,
        acks=acks,
        linger_ms=0,
        request_timeout_ms=5000,
        delivery_timeout_ms=30000,
    ) as producer:
        return [(await producer.send_and_wait(TOPIC, value, partition=0)).offset for value in values]


async def test_restarted_broker_truncates_batches_the_new_leader_does_not_have(cluster_factory):
    cluster = cluster_factory(3, controlled_shutdown_retry_backoff_ms=100)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(TOPIC, replica_assignment={0: [LEADER, FOLLOWER]})])
    await _wait_for(
        bootstrap, lambda p: p.leader == LEADER and sorted(p.isr) == [LEADER, FOLLOWER], "a full ISR"
    )
    committed = [f"committed-{i}".encode() for i in range(COMMITTED)]
    assert await _send_one_by_one(bootstrap, committed, "all") == list(range(COMMITTED))

    follower_pid = cluster.pid(FOLLOWER)
    assert follower_pid is not None
    os.kill(follower_pid, signal.SIGSTOP)
    try:
        divergent = [f"divergent-{i}".encode() for i in range(DIVERGENT)]
        offsets = await _send_one_by_one(bootstrap, divergent, 1)
        cluster.stop_broker(LEADER, hard=True)
    finally:
        os.kill(follower_pid, signal.SIGCONT)
    assert offsets == list(range(COMMITTED, COMMITTED + DIVERGENT))
    on_killed_leader = _offsets_and_values(_log_bytes(cluster, LEADER))
    assert on_killed_leader[COMMITTED:] == list(zip(offsets, divergent, strict=True))

    await _wait_for(bootstrap, lambda p: p.leader == FOLLOWER, "the follower to be elected")
    after = [f"after-{i}".encode() for i in range(AFTER)]
    await _send_one_by_one(bootstrap, after, "all")
    leader_view = _offsets_and_values(_log_bytes(cluster, FOLLOWER))
    # The paused follower may have received at most the batch its pending fetch was waiting for.
    lost = [v for v in divergent if v not in {value for _, value in leader_view}]
    assert len(lost) >= DIVERGENT - 1, "the divergence this test needs did not happen"
    assert leader_view[-1][0] >= COMMITTED + DIVERGENT  # the leader wrote over the divergent offsets

    cluster.start_broker(LEADER)
    await _wait_for(
        bootstrap, lambda p: sorted(p.isr) == [LEADER, FOLLOWER], "the restarted broker to rejoin"
    )
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        tp = TopicPartition(TOPIC, 0)
        consumer.assign([tp])
        end = (await consumer.end_offsets([tp]))[tp]
        consumed = []
        deadline = asyncio.get_running_loop().time() + 30
        while len(consumed) < end:
            assert asyncio.get_running_loop().time() < deadline, f"consumed {len(consumed)} of {end}"
            consumed += (await consumer.getmany(timeout_ms=500)).get(tp, [])
    assert [(r.offset, r.value) for r in consumed] == leader_view

    cluster.stop()
    restarted = _log_bytes(cluster, LEADER)
    assert restarted == _log_bytes(cluster, FOLLOWER), (
        "the restarted broker's batches differ from the leader's"
    )
    assert not set(lost) & {value for _, value in _offsets_and_values(restarted)}
