"""Kafkette's side of the benchmark, run through the ``kafkette`` console script.

Owns: one produce-then-consume workload on a fresh ``LocalCluster`` (``kafkette perf
produce`` process, then ``kafkette perf consume`` process, their output parsed into
``Row``s), the end-to-end latency run (``kafkette perf end-to-end``), and the scale
runs (time to create N partitions, broker RSS idle and after producing, producer
throughput at N partitions per broker, keyless through ``kafkette perf produce`` and keyed
through the SDK), and the default-settings runs (the SDK's ``await send()`` and ``async
for``, ``python -m tests.perf.sdk_workloads``, and ``kafkette perf produce`` with its
defaults).  Figures are what the perf tools print, so
the tools and the benchmark agree.  Does not own the peers, limits or table.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.client.cli.shared_options import run_coroutine
from tests.perf.bench_report import KAFKETTE, Row

KAFKETTE_CLI = str(Path(sys.executable).parent / "kafkette")
RUN_TIMEOUT_S = 900
IDLE_SETTLE_S = 3.0  # scale: let a broker with new partitions go quiet before its idle RSS is read
PRODUCE_LINE = re.compile(
    r"(?P<n>\d+) records sent, (?P<rate>[\d.]+) records/sec \((?P<mb>[\d.]+) MB/sec\), .*? "
    r"(?P<p50>[\d.]+) ms 50th, .*? (?P<p99>[\d.]+) ms 99th, (?P<p999>[\d.]+) ms 99\.9th"
)
CONSUME_LINE = re.compile(
    r"(?P<n>\d+) records consumed, (?P<rate>[\d.]+) records/sec \((?P<mb>[\d.]+) MB/sec\)"
)
END_TO_END_LINES = re.compile(
    r"(?P<n>\d+) records received, (?P<rate>[\d.]+) records/sec, Avg latency: (?P<avg>[\d.]+) ms\s+"
    r"Percentiles: 50th = (?P<p50>[\d.]+) ms, 99th = (?P<p99>[\d.]+) ms, 99\.9th = (?P<p999>[\d.]+) ms"
)


class KafketteRunError(RuntimeError):
    """A ``kafkette`` command failed or printed something unparseable."""


def kafkette(*args: str) -> str:
    """Run ``kafkette ARGS`` and return its stdout.

    Raises:
        KafketteRunError: non-zero exit (with its stderr).
    """
    result = subprocess.run([KAFKETTE_CLI, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if result.returncode != 0:
        raise KafketteRunError(
            f"kafkette {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}"
        )
    return result.stdout


def _parse(pattern: re.Pattern, text: str, what: str) -> re.Match:
    match = pattern.search(text)
    if match is None:
        raise KafketteRunError(f"could not parse the output of {what}: {text.strip()[-300:]}")
    return match


def produce_row(output: str, workload: str, note: str) -> Row:
    """A produce ``Row`` from ``kafkette perf produce`` output."""
    m = _parse(PRODUCE_LINE, output, "kafkette perf produce")
    return Row(
        workload,
        KAFKETTE,
        "produce",
        float(m["rate"]),
        float(m["mb"]),
        float(m["p50"]),
        float(m["p99"]),
        float(m["p999"]),
        note=note,
    )


def consume_row(output: str, workload: str, note: str) -> Row:
    """A consume ``Row`` from ``kafkette perf consume`` output."""
    m = _parse(CONSUME_LINE, output, "kafkette perf consume")
    return Row(workload, KAFKETTE, "consume", float(m["rate"]), float(m["mb"]), note=note)


def end_to_end_row(output: str, workload: str, note: str) -> Row:
    """An end-to-end ``Row`` (p50/p99/p99.9 from send to receipt) from ``kafkette perf end-to-end`` output."""
    m = _parse(END_TO_END_LINES, output, "kafkette perf end-to-end")
    return Row(
        workload,
        KAFKETTE,
        "end-to-end",
        float(m["rate"]),
        None,
        float(m["p50"]),
        float(m["p99"]),
        float(m["p999"]),
        note=note,
        extra={"avg_ms": float(m["avg"])},
    )


def _create_topic(bootstrap: str, topic: str, partitions: int, replication_factor: int) -> None:
    min_insync = ["--config", "min.insync.replicas=2"] if replication_factor >= 3 else []
    kafkette(
        "topics",
        "create",
        topic,
        "--partitions",
        str(partitions),
        "--replication-factor",
        str(replication_factor),
        *min_insync,
        "--bootstrap-server",
        bootstrap,
    )


def produce_args(topic: str, records: int, size: int, acks: str, bootstrap: str) -> list[str]:
    """The ``kafkette perf produce`` arguments every Kafkette workload uses."""
    batch_bytes = 1024 * 1024 if size >= 4096 else 256 * 1024
    return [
        "perf",
        "produce",
        "--topic",
        topic,
        "--num-records",
        str(records),
        "--record-size",
        str(size),
        "--acks",
        acks,
        "--batch-size",
        str(batch_bytes),
        "--linger-ms",
        "5",
        "--bootstrap-server",
        bootstrap,
    ]


def workload(
    data_dir: Path, workload_name: str, brokers: int, acks: str, records: int, size: int, partitions: int
) -> list[Row]:
    """Produce then consume ``records`` of ``size`` bytes on a fresh cluster of ``brokers`` (RF = brokers).

    Returns:
        The produce row and the consume row.

    Raises:
        KafketteRunError: a command failed.
    """
    note = f"{partitions} partitions, RF {brokers}, acks={acks}"
    with LocalCluster(num_brokers=brokers, data_dir=data_dir) as cluster:
        bootstrap = cluster.bootstrap_servers
        _create_topic(bootstrap, "bench", partitions, brokers)
        produced = kafkette(*produce_args("bench", records, size, acks, bootstrap))
        consumed = kafkette(
            "perf", "consume", "--topic", "bench", "--messages", str(records), "--bootstrap-server", bootstrap
        )
    return [produce_row(produced, workload_name, note), consume_row(consumed, workload_name, note)]


def end_to_end(data_dir: Path, records_per_s: int, duration_s: int) -> Row:
    """``kafkette perf end-to-end`` on 3 brokers, RF 3, acks=all, ``min.insync.replicas=2``, 1 partition."""
    records = records_per_s * duration_s
    with LocalCluster(num_brokers=3, data_dir=data_dir) as cluster:
        bootstrap = cluster.bootstrap_servers
        _create_topic(bootstrap, "end-to-end", 1, 3)
        output = kafkette(
            "perf",
            "end-to-end",
            "--topic",
            "end-to-end",
            "--num-records",
            str(records),
            "--throughput",
            str(records_per_s),
            "--record-size",
            "100",
            "--acks",
            "all",
            "--bootstrap-server",
            bootstrap,
        )
    return end_to_end_row(
        output,
        f"end-to-end, {records_per_s:,} records/s for {duration_s} s, 3 nodes",
        "RF 3, acks=all, min.insync.replicas=2, 1 partition",
    )


def json_client(
    module: str, args: Sequence[str], error: type[Exception], timeout_s: float = RUN_TIMEOUT_S
) -> dict:
    """Run ``python -m MODULE ARGS``, one benchmark client process (the SDK's or a peer's);
    its last stdout line as JSON.

    Raises:
        error: a timeout, a non-zero exit (with the last line of its stderr) or no JSON.
    """
    name = f"{module.rsplit('.', 1)[-1]} {args[0]}"
    try:
        done = subprocess.run(
            [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired as exc:
        raise error(f"{name} timed out after {timeout_s:.0f} s") from exc
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise error(f"{name} exited {done.returncode}: {tail}")
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError) as exc:
        raise error(f"{name} printed no JSON: {done.stdout[-200:]}") from exc


def sdk_client(*args: str) -> dict:
    """``python -m tests.perf.sdk_workloads ARGS`` through ``json_client``.

    Raises:
        KafketteRunError: a timeout, a non-zero exit or no JSON.
    """
    return json_client("tests.perf.sdk_workloads", args, KafketteRunError)


def _sdk_produce_row(figures: dict, workload: str, phase: str, note: str) -> Row:
    return Row(
        workload,
        KAFKETTE,
        phase,
        figures["records_per_s"],
        figures["mb_per_s"],
        figures["p50_ms"],
        figures["p99_ms"],
        figures["p999_ms"],
        note=note,
    )


def defaults(data_dir: Path, workload_name: str, records: int, size: int) -> list[Row]:
    """What a user gets with default settings, 1 broker, 1 partition: the SDK (``await send()`` per
    record, acks=1, else defaults; then ``async for``) and ``kafkette perf produce`` with its defaults.

    Returns:
        Rows ``produce`` (SDK), ``consume`` (SDK ``async for``) and ``perf produce``.

    Raises:
        KafketteRunError: a command failed.
    """
    with LocalCluster(num_brokers=1, data_dir=data_dir) as cluster:
        bootstrap = cluster.bootstrap_servers
        _create_topic(bootstrap, "defaults", 1, 1)
        common = ["--bootstrap-server", bootstrap, "--topic", "defaults", "--records", str(records)]
        produced = sdk_client("produce", *common, "--record-size", str(size))
        consumed = sdk_client("consume", *common)
        _create_topic(bootstrap, "defaults-perf", 1, 1)
        perf = kafkette(
            "perf",
            "produce",
            "--topic",
            "defaults-perf",
            "--num-records",
            str(records),
            "--record-size",
            str(size),
            "--bootstrap-server",
            bootstrap,
        )
    if consumed["records"] < records:
        raise KafketteRunError(f"the SDK consumer read {consumed['records']} of {records} records")
    perf_row = produce_row(
        perf, workload_name, "kafkette perf produce, its defaults (acks=all, 16 KiB batches)"
    )
    perf_row.phase = "perf produce"
    return [
        _sdk_produce_row(
            produced, workload_name, "produce", "Producer(acks=1), else defaults; await send() per record"
        ),
        Row(
            workload_name,
            KAFKETTE,
            "consume",
            consumed["records_per_s"],
            consumed["mb_per_s"],
            note="Consumer defaults; async for, one record at a time",
        ),
        perf_row,
    ]


def keyed_scale(data_dir: Path, partitions: int, records: int) -> Row:
    """One broker holding ``partitions`` partitions; the SDK with default settings sends records
    with distinct keys (spread over every partition by murmur2), ``await send()`` per record.

    Returns:
        A ``scale produce`` row with ``extra`` ``{"partitions", "scale_group": "keyed"}``.

    Raises:
        KafketteRunError: a command failed.
    """
    with LocalCluster(num_brokers=1, data_dir=data_dir) as cluster:
        bootstrap = cluster.bootstrap_servers
        _create_topic(bootstrap, "keyed", partitions, 1)
        figures = sdk_client(
            "produce",
            "--bootstrap-server",
            bootstrap,
            "--topic",
            "keyed",
            "--records",
            str(records),
            "--keyed",
        )
    plural = "s" if partitions > 1 else ""
    row = _sdk_produce_row(
        figures,
        f"scale keyed, 100 B x {records:,}, {partitions:,} partition{plural}/broker",
        "scale produce",
        "Producer(acks=1), else defaults; a distinct key per record",
    )
    row.extra = {"partitions": partitions, "scale_group": "keyed"}
    return row


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` (bytes), from ``/proc/<pid>/status``.

    Raises:
        OSError: no such process (or no /proc).
    """
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise OSError(f"no VmRSS for pid {pid}")


def _timed_create(bootstrap: str, topic: str, partitions: int) -> float:
    async def create() -> float:
        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=120000) as admin:
            start = time.perf_counter()
            await admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=120000)
            return time.perf_counter() - start

    return run_coroutine(create())


def scale(data_dir: Path, partitions: int, records: int) -> Row:
    """One broker holding ``partitions`` partitions: create time, idle RSS, producer throughput, RSS after.

    Returns:
        A ``scale`` row; ``extra`` holds ``create_s``, ``rss_empty_bytes``, ``rss_idle_bytes`` and
        ``rss_after_produce_bytes``.
    """
    with LocalCluster(num_brokers=1, data_dir=data_dir) as cluster:
        pid = cluster.pid(1)
        if pid is None:
            raise KafketteRunError("the broker is not running")
        bootstrap = cluster.bootstrap_servers
        rss_empty = rss_bytes(pid)
        create_s = _timed_create(bootstrap, "scale", partitions)
        time.sleep(IDLE_SETTLE_S)
        rss_idle = rss_bytes(pid)
        produced = kafkette(*produce_args("scale", records, 100, "1", bootstrap))
        rss_after = rss_bytes(pid)
    mib = 1024 * 1024
    plural = "s" if partitions > 1 else ""
    row = produce_row(
        produced,
        f"scale, 100 B x {records:,}, {partitions:,} partition{plural}/broker",
        f"create {create_s:.2f} s; RSS empty {rss_empty / mib:.0f} MiB, "
        f"idle {rss_idle / mib:.0f} MiB ({(rss_idle - rss_empty) / partitions / 1024:.1f} KiB "
        f"per idle partition), after produce {rss_after / mib:.0f} MiB",
    )
    row.phase = "scale produce"
    row.extra = {
        "partitions": partitions,
        "scale_group": "keyless",
        "create_s": create_s,
        "rss_empty_bytes": rss_empty,
        "rss_per_idle_partition_bytes": (rss_idle - rss_empty) / partitions,
        "rss_idle_bytes": rss_idle,
        "rss_after_produce_bytes": rss_after,
    }
    return row
