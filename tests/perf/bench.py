"""``make bench``: Kafkette side by side with NATS JetStream and Redis Streams, and the machine's limits.

In one invocation on 127.0.0.1 (``python -m tests.perf.bench [--quick] [--only ...] [--repeat N]``):

- Workloads, identical for every system: 1,000,000 records of 100 B and 100,000 of
  10 KiB (``--quick``: 10x fewer), one producer process with pipelining, then one
  consumer process reading all from the start.  On 1 node: Kafkette 1 broker (RF 1,
  acks=1) against NATS JetStream R1 and Redis (appendonly, everysec); on 3 nodes:
  Kafkette 3 brokers (RF 3, acks=all, ``min.insync.replicas=2``) against a 3-node NATS
  JetStream R3 cluster.  Each run starts fresh servers on a fresh data dir (deleted after
  the run).  Every workload runs ``--repeat`` times per system (default 3; 1 with
  ``--quick``), the systems taking turns (Kafkette run 1, each peer's run 1, Kafkette
  run 2, ...); each (workload, system, phase) reports its median run by records/s
  (``bench_report.median_run``: one real run, the lower-middle one for an even count),
  produce and consume chosen independently, with every run's records/s in the JSON.  A
  failed peer run is reported under ``skipped`` and the median is over the runs that
  succeeded.
- Limits: raw asyncio+uvloop loopback bandwidth between two processes (64 KiB
  writes), sequential disk write (page cache, and with fdatasync).
- End-to-end latency: 10,000 records/s for 30 s (``--quick``: 5 s) on RF 3 acks=all.
  End-to-end, scale (but its keyed rows), capacity and the limits are single runs (not repeated).
- Default settings: what a user gets without tuning, 300,000 records of 100 B (``--quick``
  30,000) to 1 broker, 1 partition: the SDK's ``Producer(acks=1)`` with ``await send()``
  per record and a ``Consumer`` read with ``async for``, and ``kafkette perf produce`` with
  its defaults, each against Redis (XADD pipelines of 1000, XRANGE) in the same run,
  taking turns and repeated like the workloads.
- Scale: producer throughput and broker RSS at 1, 100 and 1,000 partitions per broker,
  time to create them, idle RSS of the broker holding them; and the SDK with default
  settings sending keyed records over 100 and 1,000 partitions, repeated like the
  workloads (the two taking turns, medians reported).
- Broker capacity: load processes resending one pre-encoded ProduceRequest to one
  broker pinned to one CPU (``broker_capacity``), records/s the broker acknowledges.

Before every measured run the machine is settled the same way for every system
(``settle.settle_page_cache``: ``os.sync()``, then at most 30 s until less than 64 MiB is
dirty or under writeback), so a run's figure does not depend on what ran before it.

Prints one table (records/s, MB/s, produce latency p50/p99, Kafkette / peer,
Kafkette / limit, the project's performance targets) and writes the figures as JSON under
``tests/perf/results/``.  Installs what the peers need (``apt-get`` as root, pip);
when it cannot, it says exactly what is missing and skips only that peer.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.perf import broker_capacity, kafkette_workloads, limits
from tests.perf.bench_report import (
    DEFAULTS_WORKLOAD_SUFFIX,
    LOOPBACK,
    Row,
    apply_ratios,
    format_table,
    median_rows,
    result_document,
)
from tests.perf.peer_servers import Installer, start_nats, start_redis
from tests.perf.settle import settle_page_cache

RESULTS = Path(__file__).parent / "results"
PEERS = ("nats", "redis")
PARTS = ("kafkette", *PEERS, "defaults", "limits", "end-to-end", "scale", "capacity")
PEER_RUN_TIMEOUT_S = 900
FRESH_PAGES_IDLE_S = 20.0  # idle before the fresh-page-cache write: freed memory reported to the VM's host
FULL_REPEAT = 3  # runs per workload and system of the full run; --quick runs each once
KIB = 1024
MIB = 1024 * 1024


@dataclasses.dataclass(frozen=True)
class Plan:
    """Sizes of one run (full, or ``--quick`` with 10x fewer records and shorter limits)."""

    small_records: int = 1_000_000
    large_records: int = 100_000
    scale_records: int = 200_000
    scale_partitions: tuple[int, ...] = (1, 100, 1000)
    keyed_scale_partitions: tuple[int, ...] = (100, 1000)
    defaults_records: int = 300_000
    end_to_end_records_per_s: int = 10_000
    end_to_end_duration_s: int = 30
    loopback_bytes: int = 4096 * MIB
    disk_bytes: int = 2048 * MIB
    partitions: int = 6
    capacity_producers: int = 2
    capacity_records_per_producer: int = 10_000_000

    @classmethod
    def quick(cls, partitions: int = 6) -> Plan:
        return cls(
            small_records=100_000,
            large_records=10_000,
            scale_records=20_000,
            defaults_records=30_000,
            end_to_end_duration_s=5,
            loopback_bytes=512 * MIB,
            disk_bytes=256 * MIB,
            partitions=partitions,
            capacity_records_per_producer=1_000_000,
        )


def workload_name(size: int, records: int, nodes: int) -> str:
    """``"100 B x 1,000,000, 1 node"``: the same label for every system of a workload."""
    size_label = f"{size // KIB} KiB" if size >= KIB and size % KIB == 0 else f"{size} B"
    return f"{size_label} x {records:,}, {nodes} node{'s' if nodes > 1 else ''}"


def parse_only(text: str | None) -> set[str]:
    """``--only kafkette,limits`` -> the parts to run (default: all).

    Raises:
        ValueError: an unknown part.
    """
    if not text:
        return set(PARTS)
    parts = {p.strip() for p in text.split(",") if p.strip()}
    unknown = parts - set(PARTS)
    if unknown:
        raise ValueError(
            f"unknown --only part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}"
        )
    return parts


def repeat_count(given: int | None, quick: bool) -> int:
    """Runs per throughput workload and system: ``--repeat`` if given, else 3 (full) or 1 (``--quick``).

    Raises:
        ValueError: ``given`` is below 1.
    """
    if given is None:
        return 1 if quick else FULL_REPEAT
    if given < 1:
        raise ValueError(f"--repeat must be at least 1, not {given}")
    return given


def log(message: str) -> None:
    print(message, flush=True)


def settle() -> None:
    """Settle the machine before a measured run (``settle.settle_page_cache``, logging here)."""
    settle_page_cache(log)


class PeerRunError(RuntimeError):
    """A peer client process failed."""


def peer_client(*args: str) -> dict:
    """``python -m tests.perf.peer_clients ARGS`` through ``kafkette_workloads.json_client``.

    Raises:
        PeerRunError: a timeout, a non-zero exit or no JSON.
    """
    return kafkette_workloads.json_client("tests.perf.peer_clients", args, PeerRunError, PEER_RUN_TIMEOUT_S)


def peer_workload(
    peer: str, binary: str, data_dir: Path, name: str, nodes: int, records: int, size: int
) -> list[Row]:
    """Produce then consume on fresh ``peer`` servers (NATS: ``nodes`` servers, stream replicas = nodes)."""
    if peer == "nats":
        system, commands = f"nats-r{nodes}", ("nats-produce", "nats-consume")
        servers = start_nats(binary, data_dir, nodes)
        notes = (f"R{nodes} file stream, publish_async, 4000 acks outstanding", "pull fetch(1000), ack none")
    else:
        system, commands = "redis", ("redis-produce", "redis-consume")
        servers = start_redis(binary, data_dir)
        notes = ("XADD pipelines of 1000, appendfsync everysec, hiredis", "XRANGE chunks of 10,000, hiredis")
    with servers:
        common = ["--url", servers.url, "--records", str(records)]
        produced = peer_client(commands[0], *common, "--size", str(size), "--replicas", str(nodes))
        consumed = peer_client(commands[1], *common)
    if consumed["records"] < records:
        raise PeerRunError(f"{system} consumer read {consumed['records']} of {records} records")
    return [
        Row(
            name,
            system,
            "produce",
            produced["records_per_s"],
            produced["mb_per_s"],
            produced["p50_ms"],
            produced["p99_ms"],
            produced["p999_ms"],
            note=notes[0],
        ),
        Row(name, system, "consume", consumed["records_per_s"], consumed["mb_per_s"], note=notes[1]),
    ]


@dataclasses.dataclass
class Contender:
    """One system on one throughput workload, run repeatedly by ``repeat_workload``.

    Attributes:
        label: what runs, for the log and, for a failed run, the ``skipped`` key
            (e.g. ``"nats: 100 B x 100,000, 1 node"``).
        data_dir: parent of each run's fresh data dir (``run-1``, ``run-2``, ...).
        attempt: one run on fresh servers under the given data dir -> its produce and consume rows.
        failures: exceptions that fail only this run (recorded in ``skipped``); anything else
            propagates (Kafkette's failures are never skipped).
        runs: the rows of each run that succeeded, in run order.
    """

    label: str
    data_dir: Path
    attempt: Callable[[Path], list[Row]]
    failures: tuple[type[Exception], ...] = ()
    runs: list[list[Row]] = dataclasses.field(default_factory=list)


def repeat_workload(
    contenders: list[Contender],
    repeat: int,
    skipped: dict[str, str],
    settle_machine: Callable[[], object] = settle,
) -> list[Row]:
    """Run every contender ``repeat`` times, taking turns, and report each one's median rows.

    Each run is preceded by ``settle_machine()`` and gets a fresh data dir, deleted after
    the run.  A run that raises one of its contender's ``failures`` is logged and recorded
    in ``skipped`` (``"<label>, run i of N"`` when repeated) and the other runs still count.

    Args:
        contenders: the systems of one workload, in table order.
        repeat: runs per contender (at least 1).
        skipped: filled with label -> why a run failed.
        settle_machine: called before every run.

    Returns:
        ``bench_report.median_rows`` of each contender, in contender order.

    Raises:
        Exception: whatever a run raises outside its contender's ``failures``.
    """
    for run_number in range(1, repeat + 1):
        suffix = f", run {run_number} of {repeat}" if repeat > 1 else ""
        for contender in contenders:
            run_dir = contender.data_dir / f"run-{run_number}"
            settle_machine()
            log(f"running: {contender.label}{suffix} ...")
            try:
                contender.runs.append(contender.attempt(run_dir))
            except contender.failures as exc:
                skipped[contender.label + suffix] = str(exc)
                log(f"FAILED {contender.label}{suffix}: {exc}")
            finally:
                shutil.rmtree(run_dir, ignore_errors=True)
    return [row for contender in contenders for row in median_rows(contender.runs, repeat)]


def _keyed_scale_run(data_dir: Path, *, partitions: int, records: int) -> list[Row]:
    return [kafkette_workloads.keyed_scale(data_dir, partitions, records)]


def limit_rows(
    plan: Plan,
    data_dir: Path,
    settle_machine: Callable[[], object] = settle,
    idle: Callable[[float], object] = time.sleep,
) -> list[Row]:
    """Loopback bandwidth and sequential disk write (disk: the better of two runs, the first warms up),
    and the same write into fresh page cache.

    Fresh page cache: after ``FRESH_PAGES_IDLE_S`` idle, this VM (virtio-balloon with free
    page reporting) has handed the memory freed by earlier runs back to its host, and every
    page the kernel then takes for the page cache costs a host fault: the rate a workload
    writing new data meets when it runs on such memory (peers alike).
    """
    settle_machine()
    log(f"running: loopback limit, {plan.loopback_bytes // MIB:,} MiB in 64 KiB writes ...")
    loopback = limits.loopback_mb_per_s(plan.loopback_bytes)
    rows = [
        Row(
            f"limit: {plan.loopback_bytes // MIB:,} MiB",
            LOOPBACK,
            "limit",
            mb_per_s=loopback,
            note="asyncio+uvloop, 2 processes, 127.0.0.1, 64 KiB writes",
        )
    ]
    for sync, label in ((False, "disk (page cache)"), (True, "disk (fdatasync)")):
        log(f"running: {label}, {plan.disk_bytes // MIB:,} MiB in 1 MiB writes ...")
        disk_runs = []
        for _ in range(2):
            settle_machine()
            disk_runs.append(limits.disk_write_mb_per_s(data_dir, plan.disk_bytes, sync))
        best = max(disk_runs)
        rows.append(
            Row(
                f"limit: {plan.disk_bytes // MIB:,} MiB",
                label,
                "limit",
                mb_per_s=best,
                note="sequential 1 MiB writes" + (", fdatasync at the end" if sync else ""),
            )
        )
    settle_machine()
    log(
        f"running: disk (fresh page cache), {FRESH_PAGES_IDLE_S:.0f} s idle, then {plan.disk_bytes // MIB:,} "
        "MiB in 1 MiB writes ..."
    )
    idle(FRESH_PAGES_IDLE_S)
    rows.append(
        Row(
            f"limit: {plan.disk_bytes // MIB:,} MiB",
            "disk (fresh page cache)",
            "limit",
            mb_per_s=limits.disk_write_mb_per_s(data_dir, plan.disk_bytes, False),
            note=f"sequential 1 MiB writes after {FRESH_PAGES_IDLE_S:.0f} s idle",
        )
    )
    return rows


def run(
    plan: Plan,
    parts: set[str],
    tmp: Path,
    skipped: dict[str, str],
    installer: Installer | None = None,
    repeat: int = 1,
    settle_machine: Callable[[], object] = settle,
) -> list[Row]:
    """Every selected part of the benchmark; peers that cannot run are added to ``skipped``.

    Args:
        plan: sizes.
        parts: what to run (``PARTS``).
        tmp: scratch directory for every server's data.
        skipped: filled with system -> exactly what was missing or failed.
        installer: finds or installs the peers (default: ``Installer(log=log)``).
        repeat: runs per throughput workload and system (their median is reported).
        settle_machine: called before every measured run (default: ``settle``).

    Returns:
        Rows in table order: workloads (medians), end-to-end, scale, capacity, limits (ratios not
        yet applied).

    Raises:
        kafkette_workloads.KafketteRunError: a Kafkette command failed (Kafkette is never skipped).
    """
    installer = installer or Installer(log=log)
    binaries: dict[str, str] = {}
    for peer in PEERS:
        if peer in parts or (
            peer == "redis" and "defaults" in parts
        ):  # the defaults part compares with Redis
            log(f"checking: {peer} (server and Python client) ...")
            binary, problem = installer.ensure_peer(peer)
            if problem:
                skipped[peer] = problem
                log(f"SKIPPING {peer}: {problem}")
            else:
                binaries[peer] = binary  # type: ignore[assignment]
    limit = limit_rows(plan, tmp, settle_machine) if "limits" in parts else []
    rows: list[Row] = []
    for size, records in ((100, plan.small_records), (10 * KIB, plan.large_records)):
        for nodes, acks, peers in ((1, "1", ("nats", "redis")), (3, "all", ("nats",))):
            name = workload_name(size, records, nodes)
            contenders = []
            if "kafkette" in parts:
                contenders.append(
                    Contender(
                        f"kafkette: {name}, {nodes} broker(s), acks={acks}",
                        tmp / f"kafkette-{size}-{nodes}",
                        functools.partial(
                            kafkette_workloads.workload,
                            workload_name=name,
                            brokers=nodes,
                            acks=acks,
                            records=records,
                            size=size,
                            partitions=plan.partitions,
                        ),
                    )
                )
            for peer in peers:
                if peer in binaries and peer in parts:
                    contenders.append(
                        Contender(
                            f"{peer}: {name}",
                            tmp / f"{peer}-{size}-{nodes}",
                            functools.partial(
                                peer_workload,
                                peer,
                                binaries[peer],
                                name=name,
                                nodes=nodes,
                                records=records,
                                size=size,
                            ),
                            failures=(PeerRunError, RuntimeError),
                        )
                    )
            rows += repeat_workload(contenders, repeat, skipped, settle_machine)
    if "defaults" in parts:
        name = f"100 B x {plan.defaults_records:,}, 1 node, 1 partition, {DEFAULTS_WORKLOAD_SUFFIX}"
        contenders = [
            Contender(
                f"kafkette: {name}",
                tmp / "defaults-kafkette",
                functools.partial(
                    kafkette_workloads.defaults, workload_name=name, records=plan.defaults_records, size=100
                ),
            )
        ]
        if "redis" in binaries:
            contenders.append(
                Contender(
                    f"redis: {name}",
                    tmp / "defaults-redis",
                    functools.partial(
                        peer_workload,
                        "redis",
                        binaries["redis"],
                        name=name,
                        nodes=1,
                        records=plan.defaults_records,
                        size=100,
                    ),
                    failures=(PeerRunError, RuntimeError),
                )
            )
        rows += repeat_workload(contenders, repeat, skipped, settle_machine)
    if "end-to-end" in parts:
        settle_machine()
        log(
            f"running: end-to-end latency, {plan.end_to_end_records_per_s:,} records/s for "
            f"{plan.end_to_end_duration_s} s, 3 brokers ..."
        )
        rows.append(
            kafkette_workloads.end_to_end(
                tmp / "end-to-end", plan.end_to_end_records_per_s, plan.end_to_end_duration_s
            )
        )
    if "scale" in parts:
        for partitions in plan.scale_partitions:
            settle_machine()
            log(f"running: scale, {partitions:,} partition(s) on 1 broker ...")
            rows.append(kafkette_workloads.scale(tmp / f"scale-{partitions}", partitions, plan.scale_records))
        # Keyed records: repeated like the workloads (the 100 and 1,000 partition runs taking
        # turns, medians reported): their ratio is of two rates that each move with the machine.
        rows += repeat_workload(
            [
                Contender(
                    f"scale keyed, {partitions:,} partitions on 1 broker",
                    tmp / f"scale-keyed-{partitions}",
                    functools.partial(_keyed_scale_run, partitions=partitions, records=plan.scale_records),
                )
                for partitions in plan.keyed_scale_partitions
            ],
            repeat,
            skipped,
            settle_machine,
        )
    if "capacity" in parts:
        settle_machine()
        log(f"running: broker capacity, {plan.capacity_producers} load processes, 1 broker on one CPU ...")
        rows.append(
            broker_capacity.capacity(
                tmp / "capacity", plan.capacity_producers, plan.capacity_records_per_producer
            )
        )
    return rows + limit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Kafkette against NATS JetStream and Redis Streams, and the machine's limits"
    )
    parser.add_argument(
        "--quick", action="store_true", help="10x fewer records, shorter limits and end-to-end"
    )
    parser.add_argument(
        "--only", help=f"comma-separated parts to run, from: {', '.join(PARTS)} (default: all)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        help=f"runs per throughput workload and system, their median reported "
        f"(default: {FULL_REPEAT}, with --quick 1)",
    )
    parser.add_argument("--partitions", type=int, default=6, help="partitions of Kafkette's workload topic")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    try:
        parts = parse_only(args.only)
        repeat = repeat_count(args.repeat, args.quick)
    except ValueError as exc:
        parser.error(str(exc))
    plan = Plan.quick(args.partitions) if args.quick else Plan(partitions=args.partitions)
    started = time.monotonic()
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="kafkette-bench-") as tmp:
        rows = apply_ratios(run(plan, parts, Path(tmp), skipped, repeat=repeat))
    log("")
    log(format_table(rows))
    for what, reason in skipped.items():
        log(f"skipped {what}: {reason}")
    now = datetime.datetime.now(datetime.UTC)
    command = " ".join(["python -m tests.perf.bench", *(sys.argv[1:] if argv is None else argv)])
    document = result_document(
        rows,
        skipped,
        date=now.isoformat(timespec="seconds"),
        command=command,
        machine={
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_1m": os.getloadavg()[0],
        },
        options={**dataclasses.asdict(plan), "parts": sorted(parts), "quick": args.quick, "repeat": repeat},
    )
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / f"bench-{now:%Y%m%dT%H%M%SZ}{'-quick' if args.quick else ''}.json"
    out.write_text(json.dumps(document, indent=2) + "\n")
    log(f"results written to {out} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
