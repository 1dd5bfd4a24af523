"""``python -m tests.perf.kafka_tools_bench``: Kafka's own ProducerPerformance and
ConsumerPerformance (org.apache.kafka.tools, 4.3.1) against Apache Kafka and against Kafkette's
Kafka listener, the same commands against each.

Workloads: ``--records`` (default 300,000) records of 100 B and of 1 KiB, to a topic of one
partition; acks=1 on one node, and acks=all with replication factor 3 (``min.insync.replicas``
2) on three nodes; and 2,000,000 records of 100 B, acks=1, one node (group ``long``).  A run
creates a topic with Kafka's TopicCommand, runs ProducerPerformance (``--throughput -1``, the
producer's defaults otherwise: 16 KiB batches, linger 5 ms, idempotence on) and then
ConsumerPerformance reading them all back (its fetch rate, the group's join left out).  Kafka
is the peer of ``tests/peers/kafka_peer.py`` (512 MiB heap per node), Kafkette a
``LocalCluster`` with ``kafka_protocol=True``.  The tools run in a JVM of their own each time,
the same for both systems.

How the figures are taken (the default, warm): for each workload both systems' nodes are
started once and stay up (both at once, so that the runs can take turns); each system's first
run is a warm-up run, discarded (a Kafka broker's JVM compiles its hot paths while the first
records go through, see ``warm_runs``); then ``--repeat`` (default 3) measured runs per system,
the systems taking turns (the first one changing every round); each run on a topic of its own,
deleted after the run.  Before every run the page cache is settled (``settle``).  A row is the
median of the measured runs (``warm_runs.summarize``), the JSON keeps every run, the warm-up's
figures, the load average before and after each run, and the CPU seconds the other system's
idle nodes used meanwhile.  ``--fresh-nodes`` takes them the old way instead: fresh nodes for
every run, no warm-up (the JVMs cold), the median of ``--repeat``.  Ratios are Kafkette / Kafka.

The ``spread`` workloads are the oracle for records spread over many partitions, as keyed
records are: 100 B records over 100 and over 1,000 partitions of one node, sent by
ProducerPerformance with Kafka's ``RoundRobinPartitioner`` (the tool sends no keys; each record
goes to the next partition, so every partition's batch holds few records, as with keys spread
by murmur2), produce only, twice on the same topic: the first run meets a fresh topic (its
partitions' first appends), the second the same partitions warm (the row's figure); the table
adds each system's 1,000 / 100 partitions ratio for both.  This fresh/warm is about the topic;
the brokers' JVMs are warm in both (the default) or cold in both (``--fresh-nodes``).
``--only single`` (or ``long``, ``spread``) runs one group.

``--wait-quiet-s`` waits (bounded) before measuring until the 1-minute load average is below
``--quiet-below`` (``machine_load``).  Prints a table and writes JSON under
``tests/perf/results/``.  A benchmark, not a test: it never fails on a figure.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.perf.footprint_bench import cpu_seconds
from tests.perf.machine_load import add_quiet_arguments, load_average, wait_until_quiet
from tests.perf.results_file import write_result
from tests.perf.settle import settle_page_cache
from tests.perf.warm_runs import WARMUP_RUNS, ratio, round_order, summarize

TOPIC = "perf"
TOOLS = "org.apache.kafka.tools."
SYSTEMS = ("kafka", "kafkette")
PHASES = ("produce_rps", "produce_fresh_rps", "consume_rps")


@dataclasses.dataclass(frozen=True)
class Workload:
    """One row: ``partitions`` of the topic; ``spread`` sends with ``RoundRobinPartitioner`` and
    skips the consume phase (group ``spread``); ``records`` overrides ``--records`` (group
    ``long``); the others are group ``single``."""

    name: str
    nodes: int
    acks: str
    size: int
    partitions: int = 1
    spread: bool = False
    records: int | None = None

    @property
    def group(self) -> str:
        if self.spread:
            return "spread"
        return "long" if self.records is not None else "single"


WORKLOADS = (
    Workload("100 B, 1 node, acks=1", 1, "1", 100),
    Workload("1 KiB, 1 node, acks=1", 1, "1", 1024),
    Workload("100 B, 3 nodes, RF 3, acks=all", 3, "all", 100),
    Workload("1 KiB, 3 nodes, RF 3, acks=all", 3, "all", 1024),
    Workload("100 B x 2,000,000, 1 node, acks=1", 1, "1", 100, records=2_000_000),
    Workload("100 B, 1 node, acks=1, spread over 100 partitions", 1, "1", 100, partitions=100, spread=True),
    Workload(
        "100 B, 1 node, acks=1, spread over 1,000 partitions", 1, "1", 100, partitions=1000, spread=True
    ),
)
GROUPS = ("single", "long", "spread")
ROUND_ROBIN = "partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner"
TOOL_TIMEOUT_S = 600


def _log(message: str) -> None:
    print(f"[kafka-tools] {message}", flush=True)


def _tool(main_class: str, *args: str) -> str:
    from tests.peers.kafka_peer import KafkaPeer

    done = subprocess.run(
        [*KafkaPeer.tool_command(main_class), *args], capture_output=True, text=True, timeout=TOOL_TIMEOUT_S
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{main_class.rsplit('.', 1)[-1]} exited {done.returncode}: {done.stderr.strip()[-400:]}"
        )
    return done.stdout


def producer_rate(output: str) -> float:
    """Records/s from ProducerPerformance's summary line ("N records sent, R records/sec ...").

    Raises:
        ValueError: no summary line.
    """
    found = re.findall(r"records sent, ([\d.]+) records/sec", output)
    if not found:
        raise ValueError(f"no ProducerPerformance summary in: {output[-300:]!r}")
    return float(found[-1])


def consumer_rate(output: str) -> float:
    """Records/s while fetching (``fetch.nMsg.sec``: the group's join, which
    ``group.initial.rebalance.delay.ms`` alone holds for 3 s on a new group, left out) from
    ConsumerPerformance's CSV line.

    Raises:
        ValueError: no result line.
    """
    lines = [
        line for line in output.splitlines() if line.count(",") >= 9 and not line.startswith("start.time")
    ]
    if not lines:
        raise ValueError(f"no ConsumerPerformance result in: {output[-300:]!r}")
    return float(lines[-1].split(",")[9])


@dataclasses.dataclass
class RunningSystem:
    """One system's nodes while they run: where the tools connect, and the nodes' processes."""

    bootstrap: str
    pids: Callable[[], list[int]]


@contextlib.contextmanager
def running(system: str, nodes: int, data_dir: Path) -> Iterator[RunningSystem]:
    """Start ``nodes`` nodes of ``system`` ("kafka" or "kafkette") under ``data_dir``; stop them on exit.

    Raises:
        PeerUnavailable: no Java, Maven or registry for Kafka.
        RuntimeError, LocalClusterError: a node did not start.
    """
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    if system == "kafka":
        with KafkaPeer(data_dir, nodes=nodes) as peer:
            yield RunningSystem(
                peer.bootstrap_servers, lambda: [p for n in peer.node_ids if (p := peer.pid(n)) is not None]
            )
    else:
        with LocalCluster(num_brokers=nodes, data_dir=data_dir, kafka_protocol=True) as cluster:
            yield RunningSystem(cluster.kafka_bootstrap_servers, lambda: list(cluster.pids().values()))


def measure(bootstrap: str, workload: Workload, records: int, topic: str) -> dict:
    """Create ``topic``, produce ``records`` records, then (unless the workload is ``spread``)
    consume them; for ``spread`` produce a second time to the same, now warm, topic.

    Returns:
        Records/s: ``produce_rps``, ``consume_rps`` (None when not consumed) and, for ``spread``,
        ``produce_fresh_rps`` (the first run, on the fresh topic; ``produce_rps`` is the second).

    Raises:
        RuntimeError: a tool failed.
        ValueError: a tool printed no figure.
    """
    nodes = workload.nodes
    _tool(
        TOOLS + "TopicCommand",
        "--bootstrap-server",
        bootstrap,
        "--create",
        "--topic",
        topic,
        "--partitions",
        str(workload.partitions),
        "--replication-factor",
        str(nodes),
        *(["--config", "min.insync.replicas=2"] if nodes > 1 else []),
    )
    produce = [
        TOOLS + "ProducerPerformance",
        "--topic",
        topic,
        "--num-records",
        str(records),
        "--record-size",
        str(workload.size),
        "--throughput",
        "-1",
        "--command-property",
        f"bootstrap.servers={bootstrap}",
        f"acks={workload.acks}",
        *([ROUND_ROBIN] if workload.spread else []),
    ]
    produced = _tool(*produce)
    if workload.spread:  # the same again, the partitions warm
        return {
            "produce_rps": producer_rate(_tool(*produce)),
            "produce_fresh_rps": producer_rate(produced),
            "consume_rps": None,
        }
    consumed = _tool(
        TOOLS + "ConsumerPerformance",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        topic,
        "--num-records",
        str(records),
        "--timeout",
        "60000",
    )
    return {
        "produce_rps": producer_rate(produced),
        "produce_fresh_rps": None,
        "consume_rps": consumer_rate(consumed),
    }


def delete_topic(bootstrap: str, topic: str) -> None:
    """Delete ``topic`` with Kafka's TopicCommand (so that every run meets the same brokers' state).

    Raises:
        RuntimeError: TopicCommand failed.
    """
    _tool(TOOLS + "TopicCommand", "--bootstrap-server", bootstrap, "--delete", "--topic", topic)


def _cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def _timed(run: Callable[[], dict], others: list[int]) -> dict:
    """``run()`` on a settled page cache, with the load average before and after and the CPU
    seconds the processes ``others`` (the idle system's nodes) used meanwhile."""
    settle_page_cache(_log)
    before, idle_before = load_average(), _cpu_of(others)
    result = run()
    return {
        **result,
        "load_before": before,
        "load_after": load_average(),
        "other_system_cpu_s": round(_cpu_of(others) - idle_before, 2) if others else None,
    }


def warm_runs(
    workload: Workload, records: int, repeat: int, data_dir: Path, failures: dict[str, str]
) -> dict[str, list[dict | None]]:
    """Both systems' nodes started once for ``workload``; ``WARMUP_RUNS`` warm-up runs, then
    ``repeat`` measured runs each, the systems taking turns (``warm_runs.round_order``).

    Returns:
        ``{system: [run figures or None for a failed run, in run order, warm-up first]}``; a
        system that fails (to start, or a run) is listed in ``failures`` and not run again.
    """
    runs: dict[str, list[dict | None]] = {system: [] for system in SYSTEMS}
    with contextlib.ExitStack() as stack:
        systems: dict[str, RunningSystem] = {}
        for system in SYSTEMS:
            try:
                systems[system] = stack.enter_context(running(system, workload.nodes, data_dir / system))
            except Exception as exc:  # a system that cannot run is reported, not fatal
                failures[f"{system}: {workload.name}"] = str(exc).splitlines()[0][:300]
                _log(f"{system}: {workload.name}: {failures[f'{system}: {workload.name}']}")
        for round_index in range(WARMUP_RUNS + repeat):
            for system in round_order(SYSTEMS, round_index):
                key = f"{system}: {workload.name}"
                if key in failures:
                    runs[system].append(None)
                    continue
                target = systems[system]
                topic = f"{TOPIC}-{round_index}"
                others = [pid for other, s in systems.items() if other != system for pid in s.pids()]
                try:
                    result = _timed(
                        lambda t=target, n=topic: measure(t.bootstrap, workload, records, n), others
                    )
                except Exception as exc:  # reported, not fatal
                    failures[key] = str(exc).splitlines()[0][:300]
                    _log(f"{key}: {failures[key]}")
                    runs[system].append(None)
                    continue
                try:
                    delete_topic(target.bootstrap, topic)
                except Exception as exc:  # the figure stands; the leftover topic is reported
                    failures[f"{key}: delete {topic}"] = str(exc).splitlines()[0][:300]
                runs[system].append({**result, "warmup": round_index < WARMUP_RUNS})
                label = "warm-up" if round_index < WARMUP_RUNS else f"run {round_index - WARMUP_RUNS + 1}"
                _log(f"{key}: {label}: " + ", ".join(f"{p} {result[p]:,.0f}" for p in PHASES if result[p]))
    return runs


def fresh_runs(
    workload: Workload, records: int, repeat: int, data_dir: Path, failures: dict[str, str]
) -> dict[str, list[dict | None]]:
    """``repeat`` runs per system, each on fresh nodes (cold JVMs, no warm-up), taking turns.

    Returns:
        As ``warm_runs``, without warm-up runs.
    """
    runs: dict[str, list[dict | None]] = {system: [] for system in SYSTEMS}
    for round_index in range(repeat):
        for system in round_order(SYSTEMS, round_index):
            key = f"{system}: {workload.name}"
            if key in failures:
                runs[system].append(None)
                continue
            run_dir = data_dir / f"{system}-{round_index}"
            try:
                with running(system, workload.nodes, run_dir) as target:
                    result = _timed(lambda t=target: measure(t.bootstrap, workload, records, TOPIC), [])
            except Exception as exc:  # a system that cannot run is reported, not fatal
                failures[key] = str(exc).splitlines()[0][:300]
                _log(f"{key}: {failures[key]}")
                runs[system].append(None)
                continue
            runs[system].append({**result, "warmup": False})
            _log(
                f"{key}: fresh nodes, run {round_index + 1}: "
                + ", ".join(f"{p} {result[p]:,.0f}" for p in PHASES if result[p])
            )
    return runs


def summarize_row(
    workload: Workload, records: int, runs: dict[str, list[dict | None]], warmup_runs: int
) -> dict:
    """A row of the table: each system's median per phase (``<system>_<phase>``), its summary
    (``<system>_<phase>_summary``: median, best, every measured run, the warm-up's) and every run.

    Args:
        workload: the row's workload.
        records: records per run.
        runs: ``warm_runs`` or ``fresh_runs``'s result.
        warmup_runs: how many of each system's first runs are warm-up runs (0 for ``fresh_runs``).

    Returns:
        The row (JSON-ready).
    """
    row: dict = {
        "workload": workload.name,
        "group": workload.group,
        "records": records,
        "partitions": workload.partitions,
        "spread": workload.spread,
    }
    for system, system_runs in runs.items():
        for phase in PHASES:
            summary = summarize([r[phase] if r else None for r in system_runs], warmup_runs)
            row[f"{system}_{phase}"] = summary.median if summary else None
            row[f"{system}_{phase}_summary"] = summary.as_json() if summary else None
        row[f"{system}_runs"] = system_runs
    return row


def spread_ratios(rows: list[dict], phase: str = "produce_rps") -> dict[str, float | None]:
    """Each system's produce rate over 1,000 partitions divided by its rate over 100 (the
    ``spread`` rows of ``rows``); None for a system missing either row.

    Args:
        rows: ``main``'s rows (``workload``, ``partitions``, ``spread``, ``<system>_<phase>``).
        phase: ``produce_rps`` (the partitions warm) or ``produce_fresh_rps`` (a fresh topic).

    Returns:
        ``{"kafka": ratio | None, "kafkette": ratio | None}``.
    """
    by_partitions = {row["partitions"]: row for row in rows if row.get("spread")}
    ratios: dict[str, float | None] = {}
    for system in SYSTEMS:
        low, high = (by_partitions.get(n, {}).get(f"{system}_{phase}") for n in (100, 1000))
        ratios[system] = high / low if low and high else None
    return ratios


def how_taken(fresh_nodes: bool, repeat: int) -> str:
    """One line saying how the figures were taken (printed above the table and kept in the JSON)."""
    if fresh_nodes:
        return f"fresh nodes for every run (cold JVMs), no warm-up run, median of {repeat} runs taking turns"
    return (
        f"nodes started once per system and workload, {WARMUP_RUNS} warm-up run discarded, median of "
        f"{repeat} measured runs taking turns"
    )


def format_table(rows: list[dict]) -> list[str]:
    """The Markdown table (produce and consume medians, Kafkette / Kafka) and one line per row
    listing every measured run."""
    lines = [
        "| workload | produce Kafka | produce Kafkette | ratio | consume Kafka | consume Kafkette | ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        cells = [row["workload"]]
        for phase in ("produce_rps", "consume_rps"):
            kafka, ours = row[f"kafka_{phase}"], row[f"kafkette_{phase}"]
            found = ratio(ours, kafka)
            cells += [
                f"{kafka:,.0f}" if kafka else "-",
                f"{ours:,.0f}" if ours else "-",
                f"{found:.2f}x" if found else "-",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    for row in rows:
        for system in SYSTEMS:
            parts = []
            for phase in PHASES:
                summary = row.get(f"{system}_{phase}_summary")
                if not summary:
                    continue
                part = f"{phase.removesuffix('_rps')} " + " / ".join(f"{v:,.0f}" for v in summary["measured"])
                if summary["warmup"]:
                    part += " (warm-up " + " / ".join(f"{v:,.0f}" for v in summary["warmup"]) + ")"
                parts.append(part)
            if parts:
                lines.append(f"{row['workload']}, {system}: " + "; ".join(parts))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--records",
        type=int,
        default=300_000,
        help="records per run (default 300,000; the long group keeps its 2,000,000)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="measured runs per system and workload (default 3; the median is reported)",
    )
    parser.add_argument("--only", choices=GROUPS, help="run one group of workloads (default: all)")
    parser.add_argument(
        "--fresh-nodes",
        action="store_true",
        help="fresh nodes for every run, no warm-up run (the JVMs cold), as before",
    )
    add_quiet_arguments(parser)
    args = parser.parse_args(argv)
    if args.records < 1 or args.repeat < 1 or args.wait_quiet_s < 0:
        parser.error("--records and --repeat must be >= 1, --wait-quiet-s >= 0")
    quiet = wait_until_quiet(_log, below=args.quiet_below, max_wait_s=args.wait_quiet_s)
    rows, failures = [], {}
    taking = fresh_runs if args.fresh_nodes else warm_runs
    warmup_runs = 0 if args.fresh_nodes else WARMUP_RUNS
    for workload in WORKLOADS:
        if args.only and workload.group != args.only:
            continue
        records = workload.records or args.records
        with tempfile.TemporaryDirectory(prefix="kafka-tools-") as tmp:
            runs = taking(workload, records, args.repeat, Path(tmp), failures)
        rows.append(summarize_row(workload, records, runs, warmup_runs))
    end_load = load_average()
    taken = how_taken(args.fresh_nodes, args.repeat)
    lines = [
        f"Kafka's ProducerPerformance / ConsumerPerformance, {args.records:,} records unless the row says; "
        f"{taken}",
        f"1-minute load average at the start {quiet.load['1m'] if quiet.load else '-'} "
        f"({'quiet' if quiet.quiet else 'not quiet'} after {quiet.waited_s:.0f} s), at the end "
        f"{end_load['1m'] if end_load else '-'}",
        *format_table(rows),
    ]
    ratios = {"warm": spread_ratios(rows), "fresh": spread_ratios(rows, "produce_fresh_rps")}
    for row in rows:
        if row["spread"]:
            lines.append(
                f"{row['workload']}, first run on the fresh topic: "
                + ", ".join(
                    f"{system} {row[f'{system}_produce_fresh_rps']:,.0f}"
                    if row[f"{system}_produce_fresh_rps"]
                    else f"{system} -"
                    for system in SYSTEMS
                )
            )
    for when, found in ratios.items():
        if any(found.values()):
            lines.append(
                f"spread, 1,000 partitions / 100 partitions (the topic {when}): "
                + ", ".join(
                    f"{system} {value:.0%}" if value else f"{system} -" for system, value in found.items()
                )
            )
    print("\n".join(lines))
    out = write_result(
        "kafka-tools",
        "tests.perf.kafka_tools_bench",
        {
            "records": args.records,
            "repeat": args.repeat,
            "warm": not args.fresh_nodes,
            "warmup_runs": warmup_runs,
            "how_taken": taken,
            "load": {
                "start": quiet.load,
                "quiet_at_start": quiet.quiet,
                "waited_s": round(quiet.waited_s),
                "quiet_below": args.quiet_below,
                "end": end_load,
            },
            "rows": rows,
            "failures": failures,
            "spread_ratios": ratios,
        },
    )
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
