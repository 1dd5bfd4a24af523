"""Retries that stay quiet, on real brokers: a producer facing a dead leader or NOT_ENOUGH_REPLICAS.

The house rule: a retry loop logs once when a fault starts, at most once per 10 s while it
lasts, and once when it clears; retries back off exponentially to ``retry.backoff.max.ms``.
So ``kafkette produce`` (a subprocess, as a user runs it) prints, per failing partition and per
broker it cannot connect to, at most 1 WARNING + 1 per 10 s (the CLI shows no INFO), then
delivers once the leader is back or ends with one ``Error:`` line naming
``delivery.timeout.ms`` and the last error.  The SDK in-process logs the INFO of each
recovery once: partition, connection and metadata refresh.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from tests.cluster_configs import QUICK_STOP
from tests.cluster_helpers import consume_from_beginning, wait_for_partition

pytestmark = pytest.mark.timeout(300)

KAFKETTE = Path(sys.executable).parent / "kafkette"
FAULT_LOG_INTERVAL_S = 10  # the house rule's interval between two lines of one fault
RECORDS = [f"k{i}:v{i}" for i in range(20)]


def allowed_lines(faults: int, elapsed_s: float, extra: int = 0) -> int:
    """The rule's bound on stderr lines: per fault 1 WARNING when it starts, 1 per 10 s while it
    lasts, 1 INFO when it clears (not shown by the CLI, counted anyway); plus ``extra``."""
    return faults * (2 + int(elapsed_s // FAULT_LOG_INTERVAL_S)) + extra


def start_produce(topic: str, bootstrap: str, *flags: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            str(KAFKETTE),
            "produce",
            "--topic",
            topic,
            "--bootstrap-server",
            bootstrap,
            "--key-separator",
            ":",
            *flags,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write("".join(f"{line}\n" for line in RECORDS))
    proc.stdin.close()
    return proc


async def finish(proc: subprocess.Popen, timeout_s: float) -> tuple[int, list[str]]:
    """Wait for ``proc`` (killed if it outlives ``timeout_s``); its exit code and stderr lines."""
    try:
        await asyncio.to_thread(proc.wait, timeout_s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    return proc.returncode, proc.stderr.read().splitlines()


async def test_produce_to_a_dead_leader_prints_a_few_lines_and_delivers_every_record_once_it_is_back(
    cluster_factory,
):
    cluster = cluster_factory(3, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    topic = "dead-leader"
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        # Partition 0 lives on broker 3 alone: with it dead the partition has no leader at all.
        await admin.create_topics([NewTopic(topic, replica_assignment={0: [3], 1: [2], 2: [1]})])
    tp0 = TopicPartition(topic, 0)
    await wait_for_partition(bootstrap, tp0, lambda p: p.leader == 3, "leader 3")
    cluster.stop_broker(3, hard=True)

    started = time.monotonic()
    proc = start_produce(topic, bootstrap, "--delivery-timeout-ms", "120000")
    try:
        await asyncio.sleep(25)  # the leader stays dead past two fault-log intervals
        assert proc.poll() is None, "kafkette produce ended while the leader was dead"
        await asyncio.to_thread(cluster.start_broker, 3)
        code, lines = await finish(proc, 90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    elapsed_s = time.monotonic() - started

    assert code == 0, lines
    # Faults: partition t-0 and the connection to broker 3 (refused until it is fenced).
    assert 1 <= len(lines) <= allowed_lines(2, elapsed_s), "\n".join(lines)
    assert any("topic-partition dead-leader-0" in line for line in lines), lines
    assert not any("dead-leader-1" in line or "dead-leader-2" in line for line in lines), lines
    values = sorted(
        r.value.decode()
        for r in await consume_from_beginning(
            bootstrap, [TopicPartition(topic, p) for p in range(3)], len(RECORDS)
        )
    )
    assert values == sorted(line.split(":")[1] for line in RECORDS)  # each once (idempotent producer)
    assert await consume_from_beginning(bootstrap, [tp0]), "no record went to the dead leader's partition"


async def test_produce_below_min_insync_replicas_prints_a_few_lines_then_one_delivery_timeout_error(
    cluster_factory,
):
    cluster = cluster_factory(3, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    topic = "not-enough-replicas"
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(topic, replica_assignment={0: [2, 3]}, configs={"min.insync.replicas": "2"})]
        )
    tp0 = TopicPartition(topic, 0)
    await wait_for_partition(bootstrap, tp0, lambda p: sorted(p.isr) == [2, 3], "ISR [2, 3]")
    cluster.stop_broker(3, hard=True)
    await wait_for_partition(bootstrap, tp0, lambda p: p.isr == [2], "ISR [2]")

    started = time.monotonic()
    proc = start_produce(topic, bootstrap, "--delivery-timeout-ms", "25000", "--request-timeout-ms", "5000")
    code, lines = await finish(proc, 120)
    elapsed_s = time.monotonic() - started

    assert code == 1, lines
    # One fault (the partition's NOT_ENOUGH_REPLICAS), then the Error line.
    assert len(lines) <= allowed_lines(1, elapsed_s, extra=1), "\n".join(lines)
    assert "Got error produce response on topic-partition not-enough-replicas-0" in lines[0], lines
    assert "NOT_ENOUGH_REPLICAS" in lines[0], lines
    assert lines[-1].startswith(
        "Error: KafkaTimeoutError: Expiring 20 record(s) for not-enough-replicas-0: "
    ), lines
    assert "(delivery.timeout.ms=25000); the last error was [Error 19] NOT_ENOUGH_REPLICAS" in lines[-1], (
        lines
    )
    assert "Traceback" not in "\n".join(lines)


RETRY_LOOP_LOGGERS = ("kafkette.client.producer.sender", "kafkette.client.kafka_client")


def fault_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The INFO and WARNING lines of the producer's retry loops (the Sender's and its client's)."""
    return [
        r
        for r in caplog.records
        if r.name in RETRY_LOOP_LOGGERS
        and r.levelno >= logging.INFO
        and "clientId=retries]" in r.getMessage()
    ]


async def test_each_retry_loop_of_a_producer_logs_its_fault_once_when_it_starts_and_once_when_it_clears(
    cluster_factory, caplog
):
    caplog.set_level(logging.INFO, logger="kafkette.client")
    cluster = cluster_factory(1, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("whole-cluster-down", num_partitions=1, replication_factor=1)])
    async with Producer(
        bootstrap_servers=bootstrap, client_id="retries", linger_ms=0, delivery_timeout_ms=120000
    ) as producer:
        assert (await producer.send_and_wait("whole-cluster-down", b"before")).offset == 0
        cluster.stop_broker(1, hard=True)
        started = time.monotonic()
        during = await producer.send("whole-cluster-down", b"during")
        await asyncio.sleep(8)  # produce, connect and metadata refresh all fail meanwhile
        assert not during.done()
        await asyncio.to_thread(cluster.start_broker, 1)
        assert (await asyncio.wait_for(during, 90)).offset == 1
        elapsed_s = time.monotonic() - started
        await asyncio.sleep(1)  # a metadata refresh in flight ends

    records = fault_records(caplog)
    by_subject: dict[str, list[logging.LogRecord]] = {}
    for record in records:
        text = record.getMessage()
        subject = (
            "partition"
            if "whole-cluster-down-0" in text
            else "connection"
            if "Connection to node 1" in text
            else "metadata"
            if "Metadata refresh" in text
            else "other"
        )
        by_subject.setdefault(subject, []).append(record)
    summary = "\n".join(f"{r.levelname} {r.getMessage()}" for r in records)
    assert "other" not in by_subject, summary
    assert {"partition", "connection"} <= set(by_subject), summary
    for subject, lines in by_subject.items():
        warnings = [r for r in lines if r.levelno == logging.WARNING]
        infos = [r for r in lines if r.levelno == logging.INFO]
        assert 1 <= len(warnings) <= 1 + int(elapsed_s // FAULT_LOG_INTERVAL_S), (subject, summary)
        assert len(infos) == 1 and "succeeded again after" in infos[0].getMessage(), (subject, summary)
        assert lines[-1] is infos[0], (subject, summary)
