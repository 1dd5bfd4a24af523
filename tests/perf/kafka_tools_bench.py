"""``python -m tests.perf.kafka_tools_bench``: Kafka's own ProducerPerformance and
ConsumerPerformance (org.apache.kafka.tools, 4.3.1) against Apache Kafka and against Kafkette's
Kafka listener, the same commands against each.

Workloads: ``--records`` (default 300,000) records of 100 B and of 1 KiB, to a topic of one
partition; acks=1 on one node, and acks=all with replication factor 3 (``min.insync.replicas``
2) on three nodes.  Each run starts fresh nodes (Kafka: the peer of ``tests/peers/kafka_peer.py``,
512 MiB heap; Kafkette: a ``LocalCluster`` with ``kafka_protocol=True``), creates the topic with
Kafka's TopicCommand, runs ProducerPerformance (``--throughput -1``, the producer's defaults
otherwise: 16 KiB batches, linger 5 ms, idempotence on) and then ConsumerPerformance reading
them all back (its fetch rate, the group's join left out), and stops the nodes.  ``--repeat`` runs per system and workload (default 1), the
median reported; ratios are Kafkette / Kafka.  Prints a table and writes JSON under
``tests/perf/results/``.  A benchmark, not a test: it never fails on a figure.

The ``spread`` workloads are the oracle for records spread over many partitions, as keyed
records are: 100 B records over 100 and over 1,000 partitions of one node, sent by
ProducerPerformance with Kafka's ``RoundRobinPartitioner`` (the tool sends no keys; each record
goes to the next partition, so every partition's batch holds few records, as with keys spread
by murmur2), produce only, twice on the same topic: the first run meets a fresh topic (its
partitions' first appends), the second the same partitions warm (the row's figure); the table
adds each system's 1,000 / 100 partitions ratio for both.  ``--only spread`` (or ``single``)
runs one group.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.perf.results_file import write_result

TOPIC = "perf"
TOOLS = "org.apache.kafka.tools."


@dataclasses.dataclass(frozen=True)
class Workload:
    """One row: ``partitions`` of the topic; ``spread`` sends with ``RoundRobinPartitioner`` and
    skips the consume phase (group ``spread``; the others are group ``single``)."""

    name: str
    nodes: int
    acks: str
    size: int
    partitions: int = 1
    spread: bool = False

    @property
    def group(self) -> str:
        return "spread" if self.spread else "single"


WORKLOADS = (
    Workload("100 B, 1 node, acks=1", 1, "1", 100),
    Workload("1 KiB, 1 node, acks=1", 1, "1", 1024),
    Workload("100 B, 3 nodes, RF 3, acks=all", 3, "all", 100),
    Workload("1 KiB, 3 nodes, RF 3, acks=all", 3, "all", 1024),
    Workload("100 B, 1 node, acks=1, spread over 100 partitions", 1, "1", 100, partitions=100, spread=True),
    Workload("100 B, 1 node, acks=1, spread over 1,000 partitions", 1, "1", 100, partitions=1000, spread=True),
)
ROUND_ROBIN = "partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner"
TOOL_TIMEOUT_S = 600


def _tool(main_class: str, *args: str) -> str:
    from tests.peers.kafka_peer import KafkaPeer

    done = subprocess.run([*KafkaPeer.tool_command(main_class), *args], capture_output=True, text=True,
                          timeout=TOOL_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class.rsplit('.', 1)[-1]} exited {done.returncode}: {done.stderr.strip()[-400:]}")
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
    lines = [line for line in output.splitlines() if line.count(",") >= 9 and not line.startswith("start.time")]
    if not lines:
        raise ValueError(f"no ConsumerPerformance result in: {output[-300:]!r}")
    return float(lines[-1].split(",")[9])


def one_run(system: str, workload: Workload, records: int, data_dir: Path) -> dict:
    """Fresh nodes of ``system`` ("kafka" or "kafkette"), the topic, produce then (unless the
    workload is ``spread``) consume; records/s (``consume_rps`` None when not consumed)."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    nodes = workload.nodes
    server: LocalCluster | KafkaPeer = (KafkaPeer(data_dir, nodes=nodes) if system == "kafka"
                                        else LocalCluster(num_brokers=nodes, data_dir=data_dir, kafka_protocol=True))
    with server:
        bootstrap = server.bootstrap_servers if system == "kafka" else server.kafka_bootstrap_servers
        _tool(TOOLS + "TopicCommand", "--bootstrap-server", bootstrap, "--create", "--topic", TOPIC, "--partitions",
              str(workload.partitions), "--replication-factor", str(nodes),
              *(["--config", "min.insync.replicas=2"] if nodes > 1 else []))
        produce = [TOOLS + "ProducerPerformance", "--topic", TOPIC, "--num-records", str(records), "--record-size",
                   str(workload.size), "--throughput", "-1", "--command-property", f"bootstrap.servers={bootstrap}",
                   f"acks={workload.acks}", *([ROUND_ROBIN] if workload.spread else [])]
        produced = _tool(*produce)
        if workload.spread:  # the same again, the partitions warm
            return {"produce_rps": producer_rate(_tool(*produce)), "produce_fresh_rps": producer_rate(produced),
                    "consume_rps": None}
        consumed = _tool(TOOLS + "ConsumerPerformance", "--bootstrap-server", bootstrap, "--topic", TOPIC,
                         "--num-records", str(records), "--timeout", "60000")
    return {"produce_rps": producer_rate(produced), "consume_rps": consumer_rate(consumed)}


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
    for system in ("kafka", "kafkette"):
        low, high = (by_partitions.get(n, {}).get(f"{system}_{phase}") for n in (100, 1000))
        ratios[system] = high / low if low and high else None
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300_000, help="records per run (default 300,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per system and workload (default 1)")
    parser.add_argument("--only", choices=("single", "spread"), help="run one group of workloads (default: all)")
    args = parser.parse_args(argv)
    if args.records < 1 or args.repeat < 1:
        parser.error("--records and --repeat must be >= 1")
    rows, failures = [], {}
    for workload in WORKLOADS:
        if args.only and workload.group != args.only:
            continue
        name = workload.name
        figures: dict[str, list[dict]] = {"kafka": [], "kafkette": []}
        for _ in range(args.repeat):
            for system in figures:
                key = f"{system}: {name}"
                if key in failures:
                    continue
                with tempfile.TemporaryDirectory(prefix=f"kafka-tools-{system}-") as tmp:
                    try:
                        figures[system].append(one_run(system, workload, args.records, Path(tmp)))
                    except Exception as exc:  # a system that cannot run is reported, not fatal
                        failures[key] = str(exc).splitlines()[0][:300]
                        print(f"[kafka-tools] {key}: {failures[key]}", flush=True)
                print(f"[kafka-tools] {key} done", flush=True)
        row: dict = {"workload": name, "partitions": workload.partitions, "spread": workload.spread}
        for system, runs in figures.items():
            for phase in ("produce_rps", "produce_fresh_rps", "consume_rps"):
                values = [r[phase] for r in runs if r.get(phase) is not None]
                row[f"{system}_{phase}"] = statistics.median_low(values) if values else None
        rows.append(row)
    lines = [f"Kafka's ProducerPerformance / ConsumerPerformance, {args.records:,} records, median of {args.repeat}",
             "| workload | produce Kafka | produce Kafkette | ratio | consume Kafka | consume Kafkette | ratio |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        cells = [row["workload"]]
        for phase in ("produce_rps", "consume_rps"):
            kafka, ours = row[f"kafka_{phase}"], row[f"kafkette_{phase}"]
            cells += [f"{kafka:,.0f}" if kafka else "-", f"{ours:,.0f}" if ours else "-",
                      f"{ours / kafka:.2f}x" if kafka and ours else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    ratios = {"warm": spread_ratios(rows), "fresh": spread_ratios(rows, "produce_fresh_rps")}
    for row in rows:
        if row["spread"]:
            lines.append(f"{row['workload']}, first run on the fresh topic: " + ", ".join(
                f"{system} {row[f'{system}_produce_fresh_rps']:,.0f}" if row[f"{system}_produce_fresh_rps"]
                else f"{system} -" for system in ("kafka", "kafkette")))
    for when, found in ratios.items():
        if any(found.values()):
            lines.append(f"spread, 1,000 partitions / 100 partitions ({when}): " + ", ".join(
                f"{system} {ratio:.0%}" if ratio else f"{system} -" for system, ratio in found.items()))
    print("\n".join(lines))
    out = write_result("kafka-tools", "tests.perf.kafka_tools_bench",
                       {"records": args.records, "repeat": args.repeat, "rows": rows, "failures": failures,
                        "spread_ratios": ratios})
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
