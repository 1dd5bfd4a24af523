"""Steps the real-cluster tests (tests/integration, tests/faults) share: read a partition back,
wait for the cluster to reach a state, find and damage a replica's files.

Owns: bounded waits on ``describe_topics`` and on any predicate, consuming from the
beginning with a deadline, the ``<data_dir>/broker-<id>/logs/<topic>-<p>`` directories
of a topic, flipping one byte inside a batch of a partition's oldest segment, and reading
every record of an open ``UnifiedLog`` (replica files, the compaction benchmark).  Does
not own cluster start-up or broker settings (``tests/conftest.py``,
``tests/cluster_configs.py``).  Every wait fails the test with what it last saw.
"""

from __future__ import annotations

import asyncio
import inspect
import selectors
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.client import AdminClient, Consumer, ConsumerRecord, LocalCluster, TopicPartition
from kafkette.client.topic_specs import PartitionInfo
from kafkette.common.topic_names import METADATA_TOPIC_PARTITION_DIR
from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.metadata_records import MetadataRecord
from kafkette.controller.raft.file_replicated_log import FileReplicatedLog
from kafkette.controller.raft.raft_wire import RaftWire
from kafkette.controller.raft.replicated_log import LogEntry
from kafkette.protocol.errors import KafkaError
from kafkette.protocol.record_batch import HEADER_SIZE, decode_records, iter_batches

RAFT_WIRE = RaftWire(METADATA_RECORD_SERDE)

POLL_INTERVAL_S = 0.2


async def consume_from_beginning(
    bootstrap: str,
    tps: Iterable[TopicPartition],
    count: int | None = None,
    *,
    timeout_s: float = 30,
    **consumer_configs: object,
) -> list[ConsumerRecord]:
    """Read ``tps`` from their log start offsets with a fresh Consumer until ``count`` records arrived.

    Args:
        bootstrap: the cluster's ``bootstrap.servers``.
        tps: the partitions to assign.
        count: records to read; None reads up to the partitions' high watermarks (summed,
            taken once assigned), i.e. everything committed when the read starts.
        timeout_s: the deadline (seconds); the test fails when it passes first.
        consumer_configs: further Consumer settings (``auto_offset_reset`` is earliest).

    Returns:
        The records in the order they were fetched (per partition in offset order).

    Raises:
        AssertionError: fewer than ``count`` records by the deadline.
    """
    tps = list(tps)
    records: list[ConsumerRecord] = []
    consumer = Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", **consumer_configs)
    async with consumer:
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        if count is None:
            count = sum((await consumer.end_offsets(tps)).values())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while len(records) < count:
            assert loop.time() < deadline, f"consumed {len(records)} of {count} from {tps}"
            for batch in (await consumer.getmany(timeout_ms=500)).values():
                records.extend(batch)
    return records


async def describe_partitions(bootstrap: str, topic: str, **admin_configs: object) -> list[PartitionInfo]:
    """The partitions of ``topic`` as ``describe_topics`` reports them (sorted by partition id)."""
    async with AdminClient(bootstrap_servers=bootstrap, **admin_configs) as admin:
        return (await admin.describe_topics([topic]))[topic].partitions


async def wait_for_partitions(
    bootstrap: str,
    topic: str,
    check: Callable[[list[PartitionInfo]], bool],
    what: str,
    timeout_s: float = 30,
    **admin_configs: object,
) -> list[PartitionInfo]:
    """Poll ``describe_topics`` until ``check(partitions)`` holds.

    Args:
        bootstrap: the cluster's ``bootstrap.servers``.
        topic: the topic to describe.
        check: the state waited for, on the partitions sorted by id.
        what: the state in words, for the failure message.
        timeout_s: the deadline (seconds).
        admin_configs: further AdminClient settings.

    Returns:
        The partitions that satisfied ``check``.

    Raises:
        AssertionError: ``check`` still false at the deadline (with the last leaders and ISRs).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        partitions = await describe_partitions(bootstrap, topic, **admin_configs)
        if check(partitions):
            return partitions
        assert loop.time() < deadline, f"{topic}: timed out waiting for {what}; last " + ", ".join(
            f"{p.partition}: leader {p.leader} isr {p.isr} offline {p.offline_replicas}" for p in partitions
        )
        await asyncio.sleep(POLL_INTERVAL_S)


async def wait_for_partition(
    bootstrap: str,
    tp: TopicPartition,
    check: Callable[[PartitionInfo], bool],
    what: str,
    timeout_s: float = 30,
) -> PartitionInfo:
    """``wait_for_partitions`` for one partition: ``check`` sees and the result is ``tp``'s PartitionInfo."""
    partitions = await wait_for_partitions(
        bootstrap, tp.topic, lambda ps: check(ps[tp.partition]), what, timeout_s
    )
    return partitions[tp.partition]


async def wait_until(
    predicate: Callable[[], bool | Awaitable[bool]], what: str, timeout_s: float = 20
) -> None:
    """Poll ``predicate`` (plain or async) until it is true.

    Raises:
        AssertionError: still false at the deadline (``timeout_s`` seconds).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        held = predicate()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(POLL_INTERVAL_S)


def partition_dir(cluster: LocalCluster, broker_id: int, tp: TopicPartition) -> Path:
    """``<data_dir>/broker-<id>/logs/<topic>-<partition>``: the replica's log directory."""
    return cluster.broker_dir(broker_id) / "logs" / f"{tp.topic}-{tp.partition}"


def partition_dirs(cluster: LocalCluster, topic: str, broker_ids: list[int] | None = None) -> list[Path]:
    """Every ``<data_dir>/broker-<id>/logs/<topic>-<p>`` directory on ``broker_ids`` (default all), sorted."""
    found = []
    for broker_id in broker_ids or cluster.broker_ids:
        logs = cluster.broker_dir(broker_id) / "logs"
        if logs.is_dir():
            found += [p for p in logs.iterdir() if p.is_dir() and p.name.rpartition("-")[0] == topic]
    return sorted(found)


class CorruptBatch(NamedTuple):
    """Where ``corrupt_oldest_segment`` flipped a byte.

    Attributes:
        segments: the replica's segment files, oldest first (``segments[0]`` holds the damage).
        position: file position (bytes) of the damaged batch in ``segments[0]``.
    """

    segments: list[Path]
    position: int


def corrupt_oldest_segment(directory: Path, batch_index: int | None = None) -> CorruptBatch:
    """Flip one byte inside the records of a batch of the oldest segment (not a torn tail).

    The file keeps its size; the batch fails its CRC32C check.  The partition must have
    rolled at least twice, so that later segments exist.

    Args:
        directory: the replica's log directory (stopped broker).
        batch_index: which batch of the segment to damage; None: the middle one.

    Returns:
        The segments and the damaged batch's position.

    Raises:
        AssertionError: fewer than three segments.
    """
    segments = sorted(directory.glob("*.log"), key=lambda p: int(p.stem))
    assert len(segments) >= 3, f"expected several segments, got {[p.name for p in segments]}"
    data = bytearray(segments[0].read_bytes())
    batches = list(iter_batches(data, verify_crc=True))
    position = batches[len(batches) // 2 if batch_index is None else batch_index][0]
    data[position + HEADER_SIZE + 3] ^= 0x40  # inside the records of the batch
    segments[0].write_bytes(data)
    return CorruptBatch(segments, position)


def log_records(log: UnifiedLog) -> list[tuple[int, bytes | None, bytes | None]]:
    """Every record of an open ``UnifiedLog`` from its log start offset to its end, as ``(offset, key,
    value)``."""
    out, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        data = log.read(offset, 1 << 24).records
        if not data:
            break
        for position, header in iter_batches(data):
            out.extend((r.offset, r.key, r.value) for r in decode_records(data, position, header))
            offset = header.next_offset
    return out


def read_bootstrap_line(proc: subprocess.Popen, timeout_s: float) -> str:
    """Read ``kafkette cluster start``'s stdout until ``bootstrap.servers=...``; its value.

    Raises:
        AssertionError: no such line within ``timeout_s`` (seconds) or the process exited.
    """
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    seen: list[str] = []
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=max(deadline - time.monotonic(), 0.01)):
                continue
            line = proc.stdout.readline()
            if not line:
                break  # the process closed stdout (it exited)
            seen.append(line)
            if line.startswith("bootstrap.servers="):
                return line.strip().split("=", 1)[1]
    raise AssertionError(f"no bootstrap.servers line within {timeout_s} s (exit code {proc.poll()}): {seen}")


def append_to_metadata_log(cluster: LocalCluster, node_id: int, records: list[MetadataRecord]) -> None:
    """Append ``records`` to the stopped voter ``node_id``'s metadata log as one batch of its last
    epoch, as the leader of that epoch would have written them (fsynced): the next leader
    commits them with its own epoch's first entry."""
    log = FileReplicatedLog(
        cluster.broker_dir(node_id) / "logs" / METADATA_TOPIC_PARTITION_DIR,
        RAFT_WIRE.encode_payload,
        RAFT_WIRE.decode_payload,
    )
    try:
        base, epoch = log.end_offset(), log.last_epoch()
        end = base + len(records)
        log.append([LogEntry(base + i, epoch, record, end) for i, record in enumerate(records)])
        log.flush()
    finally:
        log.close()


async def wait_for_quorum_leader(
    admin: AdminClient, not_: int = -1, timeout_s: float = 30
) -> tuple[int, int]:
    """(node id, epoch) of the metadata quorum's leader (the active controller) once DescribeQuorum
    names one other than ``not_``.

    Raises:
        AssertionError: none within ``timeout_s`` seconds.
    """
    found: list[tuple[int, int]] = []

    async def elected() -> bool:
        try:
            quorum = await admin.describe_metadata_quorum(timeout_ms=1000)
        except KafkaError:
            return False
        if quorum.leader_id in (-1, not_):
            return False
        found.append((quorum.leader_id, quorum.leader_epoch))
        return True

    await wait_until(elected, f"an active controller other than node {not_}", timeout_s=timeout_s)
    return found[-1]
