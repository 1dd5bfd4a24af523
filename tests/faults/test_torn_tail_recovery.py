"""A broker restarted after kill -9 reopens its logs and drops a torn tail batch.

Torn tails are made by hand, as a crash in the middle of a write leaves them: the
follower's active segment gets (a) the first 30 bytes of a batch (a torn header) or
(b) a whole header with a truncated payload.  The restarted broker must cut each file
back to its last whole batch, catch up, rejoin the ISR and, once it leads, serve every
record intact.  A leader killed in the middle of an acks=1 produce reopens its log
(same segment file, data kept) and ends up with batches identical to the new leader's.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.protocol.record_batch import build_batch, decode_records, iter_batches
from tests.cluster_configs import QUICK_STOP
from tests.cluster_helpers import consume_from_beginning, partition_dir, wait_for_partitions

pytestmark = pytest.mark.timeout(180)

TORN_HEADER_BYTES = 30
PAYLOAD_BYTES_CUT = 7


def _active_segment(cluster, broker_id: int, topic: str, partition: int) -> Path:
    directory = partition_dir(cluster, broker_id, TopicPartition(topic, partition))
    return max(directory.glob("*.log"), key=lambda p: int(p.stem))


def _log_bytes(cluster, broker_id: int, topic: str, partition: int) -> bytes:
    directory = partition_dir(cluster, broker_id, TopicPartition(topic, partition))
    segments = sorted(directory.glob("*.log"), key=lambda p: int(p.stem))
    return b"".join(p.read_bytes() for p in segments)


def _checkpointed_high_watermark(cluster, broker_id: int, topic: str, partition: int) -> int:
    path = Path(cluster.data_dir) / f"broker-{broker_id}" / "logs" / "replication-offset-checkpoint"
    try:
        lines = path.read_text().splitlines()[2:]
    except FileNotFoundError:
        return -1
    for line in lines:
        name, part, offset = line.split()
        if (name, int(part)) == (topic, partition):
            return int(offset)
    return -1


async def _wait_checkpointed(
    cluster, broker_id: int, topic: str, partition: int, offset: int, timeout_s: float = 15
) -> None:
    """Wait until ``broker_id`` checkpointed a high watermark >= ``offset``, so that on restart
    its truncation to the high watermark keeps the data below ``offset``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while _checkpointed_high_watermark(cluster, broker_id, topic, partition) < offset:
        assert loop.time() < deadline, f"broker {broker_id} never checkpointed a high watermark >= {offset}"
        await asyncio.sleep(0.1)


def _whole_batches(data: bytes) -> list[tuple[int, object]]:
    """Every batch of ``data`` (CRC checked); fails when bytes remain after the last whole one."""
    batches = list(iter_batches(data, verify_crc=True))
    end = batches[-1][0] + batches[-1][1].size_in_bytes if batches else 0
    assert end == len(data), f"{len(data) - end} bytes after the last whole batch"
    return batches


def _values(data: bytes) -> list[bytes]:
    return [r.value for pos, h in _whole_batches(data) for r in decode_records(data, pos, h)]


def _tear(segment: Path, how: str) -> int:
    """Append a torn copy of the next batch to ``segment``; returns the bytes appended."""
    data = segment.read_bytes()
    batches = _whole_batches(data)
    next_offset = batches[-1][1].next_offset
    batch = build_batch(
        [(b"torn-key", b"torn-value" * 20, None, 1_700_000_000_000)],
        base_offset=next_offset,
        partition_leader_epoch=batches[-1][1].partition_leader_epoch,
    )
    torn = batch[:TORN_HEADER_BYTES] if how == "header" else batch[:-PAYLOAD_BYTES_CUT]
    with open(segment, "ab") as f:
        f.write(torn)
    return len(torn)


async def test_follower_restarted_after_kill_9_drops_torn_tail_batches_and_rejoins_the_isr(cluster_factory):
    cluster = cluster_factory(3, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    topic = "torn-tail"
    leader, victim = 3, 2  # neither is node 1, which hosts the controller
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(topic, replica_assignment={0: [leader, victim], 1: [leader, victim]})]
        )
    await wait_for_partitions(
        bootstrap,
        topic,
        lambda ps: all(p.leader == leader and len(p.isr) == 2 for p in ps),
        "leaders and full ISRs",
    )
    sent: dict[int, list[bytes]] = {0: [], 1: []}

    async def produce(tag: str, count: int) -> None:
        async with Producer(
            bootstrap_servers=bootstrap, acks="all", linger_ms=2, delivery_timeout_ms=30000
        ) as producer:
            futures = []
            for i in range(count):
                value = f"{tag}-{i}".encode() * 3
                futures.append(await producer.send(topic, value, partition=i % 2))
                sent[i % 2].append(value)
            await asyncio.gather(*futures)

    await produce("before", 600)
    # With every record below its checkpointed high watermark the restarted follower
    # truncates nothing: only log recovery can remove the torn bytes.
    for partition in (0, 1):
        await _wait_checkpointed(cluster, victim, topic, partition, len(sent[partition]))
    cluster.stop_broker(victim, hard=True)
    torn_bytes, inodes = {}, {}
    for partition, how in ((0, "header"), (1, "payload")):
        segment = _active_segment(cluster, victim, topic, partition)
        assert len(_values(segment.read_bytes())) > 0  # acks=all: the follower holds whole batches
        torn_bytes[partition] = _tear(segment, how)
        inodes[partition] = (segment, os.stat(segment).st_ino)
    assert torn_bytes[0] == TORN_HEADER_BYTES and torn_bytes[1] > TORN_HEADER_BYTES

    cluster.start_broker(victim)
    await wait_for_partitions(
        bootstrap,
        topic,
        lambda ps: all(sorted(p.isr) == sorted([leader, victim]) for p in ps),
        "the restarted follower to rejoin the ISR",
    )
    for segment, inode in inodes.values():
        assert os.stat(segment).st_ino == inode, f"{segment} was replaced instead of recovered in place"
    await produce("after", 400)

    # Hand leadership to the recovered broker: every record must now come from its log.
    cluster.stop_broker(leader, hard=True)
    await wait_for_partitions(
        bootstrap, topic, lambda ps: all(p.leader == victim for p in ps), "the recovered broker to lead"
    )
    tps = [TopicPartition(topic, p) for p in (0, 1)]
    consumed = await consume_from_beginning(bootstrap, tps)
    for partition in (0, 1):
        records = [r for r in consumed if r.partition == partition]
        assert [r.value for r in records] == sent[partition], f"partition {partition}: records differ"
        assert [r.offset for r in records] == list(range(len(sent[partition])))

    cluster.stop()  # clean stop, then inspect the files
    for partition in (0, 1):
        data = _log_bytes(cluster, victim, topic, partition)
        assert _values(data) == sent[partition]
        assert data == _log_bytes(cluster, leader, topic, partition), (
            f"partition {partition}: replicas differ"
        )


async def test_leader_killed_mid_produce_reopens_its_log_when_restarted(cluster_factory):
    cluster = cluster_factory(3, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    topic = "killed-leader"
    victim = 2
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, replica_assignment={0: [victim, 3, 1]})])
    await wait_for_partitions(
        bootstrap, topic, lambda ps: ps[0].leader == victim and len(ps[0].isr) == 3, "a full ISR"
    )

    sent: set[bytes] = set()
    acked = 0
    async with Producer(
        bootstrap_servers=bootstrap, acks=1, linger_ms=2, request_timeout_ms=5000, delivery_timeout_ms=60000
    ) as producer:
        futures = []
        for i in range(6000):
            value = f"record-{i}".encode()
            sent.add(value)
            futures.append(await producer.send(topic, value, partition=0))
            if i == 2000:
                await asyncio.gather(*futures)
                acked = len(futures)
                # Let the high watermark reach the checkpoint so the restarted broker keeps
                # (rather than truncates) the data it had.
                await _wait_checkpointed(cluster, victim, topic, 0, acked)
            if i == 3000:
                await futures[2600]  # the leader is taking writes; more are queued and in flight
                cluster.stop_broker(victim, hard=True)
            if i % 200 == 0:
                await asyncio.sleep(0)
        results = await asyncio.gather(*futures, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    assert not failures, f"{len(failures)} sends failed after the leader was killed, first: {failures[0]!r}"

    segment = partition_dir(cluster, victim, TopicPartition(topic, 0)) / f"{0:020d}.log"
    inode_before = os.stat(segment).st_ino
    records_before = sum(h.records_count for _, h in iter_batches(segment.read_bytes()))
    assert records_before > acked  # the killed leader's file holds what it acknowledged, and more

    await wait_for_partitions(bootstrap, topic, lambda ps: ps[0].leader in (1, 3), "a new leader")
    cluster.start_broker(victim)
    await wait_for_partitions(
        bootstrap, topic, lambda ps: sorted(ps[0].isr) == [1, 2, 3], "the restarted broker to rejoin the ISR"
    )
    # It reopened its segment (same file, not deleted and fetched again from scratch).
    assert os.stat(segment).st_ino == inode_before

    consumed = await consume_from_beginning(bootstrap, [TopicPartition(topic, 0)])
    assert [r.offset for r in consumed] == list(range(len(consumed)))
    assert {r.value for r in consumed} <= sent
    committed = {f"record-{i}".encode() for i in range(acked)}  # below the checkpointed high watermark
    assert committed <= {r.value for r in consumed}, "records committed before the kill were lost"

    cluster.stop()
    reference = _log_bytes(cluster, victim, topic, 0)
    assert _values(reference) == [r.value for r in consumed]
    for broker_id in (1, 3):
        assert _log_bytes(cluster, broker_id, topic, 0) == reference, (
            f"broker {broker_id} differs from {victim}"
        )
