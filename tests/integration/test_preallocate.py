"""preallocate on a real broker: a topic's new segment files are created segment.bytes long,
rolled segments and a cleanly stopped broker's files hold only their batches, and a broker
killed with preallocated files recovers every acknowledged record (the zeros are a torn tail)."""

from __future__ import annotations

import os

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

pytestmark = pytest.mark.timeout(180)

TOPIC = "preallocated"
TP = TopicPartition(TOPIC, 0)
SEGMENT_BYTES = 256 * 1024


def _segment_files(cluster) -> list[tuple[int, int]]:
    """``[(base offset, file length)]`` of the partition's ``.log`` files on broker 1."""
    directory = cluster.broker_dir(1) / "logs" / str(TP)
    return sorted((int(p.stem), os.stat(p).st_size) for p in directory.glob("*.log"))


async def _produce(bootstrap: str, first: int, count: int) -> None:
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=5) as producer:
        futures = [
            await producer.send(TOPIC, b"v" * 1000, key=b"%d" % i, partition=0)
            for i in range(first, first + count)
        ]
        for future in futures:
            await future


async def _keys(bootstrap: str) -> list[bytes]:
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([TP])
        end = (await consumer.end_offsets([TP]))[TP]
        out = []
        while await consumer.position(TP) < end:
            out.extend(r.key for r in (await consumer.getmany(timeout_ms=500)).get(TP, []))
        return out


async def test_preallocated_segments_are_trimmed_on_roll_and_stop_and_recovered_after_a_kill(cluster_factory):
    cluster = cluster_factory(1)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    TOPIC,
                    num_partitions=1,
                    replication_factor=1,
                    configs={"preallocate": "true", "segment.bytes": str(SEGMENT_BYTES)},
                )
            ]
        )
    await _produce(bootstrap, 0, 600)  # about 2.5 segments
    files = _segment_files(cluster)
    assert len(files) >= 3 and files[-1][1] == SEGMENT_BYTES, files
    assert all(0 < length < SEGMENT_BYTES for _, length in files[:-1]), (
        f"rolled segments are trimmed: {files}"
    )
    assert await _keys(bootstrap) == [b"%d" % i for i in range(600)]

    cluster.stop_broker(1, hard=True)  # kill -9: the active segment keeps its zeros
    assert _segment_files(cluster)[-1][1] == SEGMENT_BYTES
    log_size = cluster.log_path(1).stat().st_size
    cluster.start_broker(1)
    restart_log = cluster.log_path(1).read_bytes()[log_size:]
    assert b"Taking the log offline" not in restart_log
    assert await _keys(bootstrap) == [b"%d" % i for i in range(600)]
    await _produce(bootstrap, 600, 50)

    cluster.stop_broker(1, hard=False)
    files = _segment_files(cluster)
    assert all(length < SEGMENT_BYTES for _, length in files), (
        f"a clean stop trims the active segment: {files}"
    )
    cluster.start_broker(1)
    assert await _keys(bootstrap) == [b"%d" % i for i in range(650)]
