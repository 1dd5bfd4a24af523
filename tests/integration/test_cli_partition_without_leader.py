"""A partition without a leader is never skipped silently, by the SDK's Consumer or by
``kafkette consume``.

A topic with replication factor 1 loses the leader of one partition when its only replica's
broker stops.  The Consumer logs one WARN for it (not one per fetch) and one line when it has a
leader again; ``kafkette consume`` prints that WARN and ends with ``Processed a total of N
messages; partitions not read (no leader): T-P``.  On a terminal, the progress line on stderr
never shares a line with a printed record or a log line (tests/terminal_helpers.py).
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from tests.cluster_configs import FAST_FAILOVER
from tests.cluster_helpers import wait_until
from tests.terminal_helpers import rendered_lines, run_on_terminal

pytestmark = pytest.mark.timeout(240)

KAFKETTE = Path(sys.executable).parent / "kafkette"
TOPIC = "orphaned"
RECORDS_PER_PARTITION = 10
NO_LEADER_WARNING = f"Partition {TOPIC}-1 has no leader (LEADER_NOT_AVAILABLE)"


def _value(partition: int, i: int) -> str:
    return f"p{partition}-{i}"


async def _topic_with_records(bootstrap: str, topic: str, partitions: int) -> dict[int, int]:
    """Create ``topic`` (replication factor 1), write ``RECORDS_PER_PARTITION`` records to each
    partition; return each partition's leader."""
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
        described = (await admin.describe_topics([topic]))[topic]
    async with Producer(bootstrap_servers=bootstrap) as producer:
        for p in range(partitions):
            for i in range(RECORDS_PER_PARTITION):
                await producer.send(topic, _value(p, i).encode(), partition=p)
        await producer.flush()
    return {p.partition: p.leader for p in described.partitions}


async def _wait_leaderless(bootstrap: str, topic: str, partition: int) -> None:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:

        async def leaderless() -> bool:
            described = (await admin.describe_topics([topic]))[topic]
            return next(p for p in described.partitions if p.partition == partition).leader in (None, -1)

        await wait_until(leaderless, timeout_s=30, what=f"{topic}-{partition} without a leader")


@pytest.fixture(scope="module")
def orphaned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A 3-broker cluster whose topic ``orphaned`` (3 partitions, replication factor 1, 10
    records each) has lost the leader of partition 1 (its broker stopped); yields the
    bootstrap servers of the live brokers."""
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("orphaned"), broker_configs=FAST_FAILOVER
    ) as c:
        leaders = asyncio.run(_topic_with_records(c.bootstrap_servers, TOPIC, 3))
        c.stop_broker(leaders[1], hard=False)
        live = ",".join(f"127.0.0.1:{c.ports[b]}" for b in c.broker_ids if b != leaders[1])
        asyncio.run(_wait_leaderless(live, TOPIC, 1))
        yield live


def _read(*partitions: int) -> list[str]:
    return [_value(p, i) for p in partitions for i in range(RECORDS_PER_PARTITION)]


@pytest.mark.parametrize("stop", [["--timeout-ms", "3000"], ["--max-messages", "20"]], ids=["timeout", "max"])
def test_consume_warns_of_a_partition_without_a_leader_and_names_it_in_its_summary(orphaned, stop):
    done = subprocess.run(
        [
            str(KAFKETTE),
            "consume",
            "--topic",
            TOPIC,
            "--from-beginning",
            *stop,
            "--bootstrap-server",
            orphaned,
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == sorted(_read(0, 2))
    warnings = [line for line in done.stderr.splitlines() if " WARN " in line]
    assert len(warnings) == 1 and NO_LEADER_WARNING in warnings[0], done.stderr
    assert warnings[0].startswith("[") and warnings[0].endswith("(kafkette.client.consumer.fetcher)"), (
        warnings[0]
    )
    assert done.stderr.splitlines()[-1] == (
        f"Processed a total of 20 messages; partitions not read (no leader): {TOPIC}-1"
    )


def test_consume_on_a_terminal_keeps_records_and_warnings_off_the_progress_line(orphaned):
    run = run_on_terminal(
        [
            str(KAFKETTE),
            "consume",
            "--topic",
            TOPIC,
            "--from-beginning",
            "--max-messages",
            "20",
            "--bootstrap-server",
            orphaned,
        ],
        timeout_s=90,
    )
    lines = rendered_lines(run.output)
    assert run.returncode == 0, lines
    assert any(line.startswith("consume: 100%") and "20/20" in line for line in lines), lines
    values = set(_read(0, 2))
    assert sorted(line for line in lines if line in values) == sorted(values), lines
    warnings = [line for line in lines if NO_LEADER_WARNING in line]
    assert len(warnings) == 1 and warnings[0].startswith("[") and " WARN " in warnings[0], lines
    assert lines[-1] == f"Processed a total of 20 messages; partitions not read (no leader): {TOPIC}-1", lines


async def test_consumer_logs_a_partition_without_a_leader_once_and_again_once_it_has_one(
    cluster_factory, caplog
):
    cluster = cluster_factory(2)
    leaders = await _topic_with_records(cluster.bootstrap_servers, "regained", 2)
    victim = leaders[1]
    await asyncio.to_thread(cluster.stop_broker, victim, hard=False)
    live = f"127.0.0.1:{cluster.ports[next(b for b in cluster.broker_ids if b != victim)]}"
    await _wait_leaderless(live, "regained", 1)
    caplog.set_level(logging.INFO, logger="kafkette.client.consumer.fetcher")
    orphan = TopicPartition("regained", 1)
    got: dict[int, list[str]] = {0: [], 1: []}

    async def consume_for(consumer: Consumer, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            for tp, records in (await consumer.getmany(timeout_ms=200)).items():
                got[tp.partition] += [r.value.decode() for r in records]

    def lines(fragment: str) -> list[logging.LogRecord]:
        return [r for r in caplog.records if fragment in r.getMessage()]

    async with Consumer(
        bootstrap_servers=live, auto_offset_reset="earliest", retry_backoff_ms=50
    ) as consumer:
        consumer.assign([TopicPartition("regained", 0), orphan])
        await consume_for(consumer, 3.0)  # many fetches and metadata refreshes meanwhile
        assert got == {0: _read(0), 1: []}
        assert consumer.partitions_without_leader() == {orphan}
        warned = lines("Partition regained-1 has no leader (LEADER_NOT_AVAILABLE)")
        assert [r.levelno for r in warned] == [logging.WARNING], caplog.text
        # regained-0 was unknown to the consumer's metadata until its first update: never leaderless
        assert lines("regained-0 has no leader") == [], caplog.text

        await asyncio.to_thread(cluster.start_broker, victim)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while len(got[1]) < RECORDS_PER_PARTITION and loop.time() < deadline:
            await consume_for(consumer, 0.5)
        assert got == {0: _read(0), 1: _read(1)}
        assert consumer.partitions_without_leader() == set()
        assert [r.levelno for r in lines("Partition regained-1 has a leader again")] == [logging.INFO], (
            caplog.text
        )
        assert len(lines("Partition regained-1 has no leader")) == 1, caplog.text
