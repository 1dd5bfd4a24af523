"""``make bench``: Kafkette's own throughput and latency on this machine.

Runs, on 127.0.0.1, the perf tools (``kafkette perf produce|consume``) against
(a) 1 broker, replication factor 1, acks=1 and (b) 3 brokers, replication factor 3,
acks=all, ``min.insync.replicas=2``; 100-byte records.  Prints one table and writes
the figures as JSON under ``tests/perf/results/`` so runs can be compared.  The
side-by-side comparison with NATS JetStream and Redis Streams is a later issue.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

from client import LocalCluster

KAFKETTE = str(Path(sys.executable).parent / "kafkette")
RESULTS = Path(__file__).parent / "results"
PRODUCE_LINE = re.compile(
    r"(?P<n>\d+) records sent, (?P<rate>[\d.]+) records/sec \((?P<mb>[\d.]+) MB/sec\), (?P<avg>[\d.]+) ms avg "
    r"latency, (?P<max>[\d.]+) ms max latency, (?P<p50>\d+) ms 50th, (?P<p95>\d+) ms 95th, (?P<p99>\d+) ms 99th"
)
CONSUME_LINE = re.compile(r"(?P<n>\d+) records consumed, (?P<rate>[\d.]+) records/sec \((?P<mb>[\d.]+) MB/sec\)")


def _run(*args: str) -> str:
    result = subprocess.run([KAFKETTE, *args], capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"kafkette {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def workload(name: str, brokers: int, rf: int, acks: str, records: int, size: int, data_dir: Path) -> dict:
    """Run one produce + consume workload on a fresh cluster; returns its figures."""
    with LocalCluster(num_brokers=brokers, data_dir=data_dir / name) as cluster:
        bootstrap = cluster.bootstrap_servers
        _run("topics", "create", "bench", "--partitions", "6", "--replication-factor", str(rf),
             *(["--config", "min.insync.replicas=2"] if rf >= 3 else []), "--bootstrap-server", bootstrap)
        produced = PRODUCE_LINE.search(_run(
            "perf", "produce", "--topic", "bench", "--num-records", str(records), "--record-size", str(size),
            "--acks", acks, "--batch-size", "262144", "--linger-ms", "5", "--bootstrap-server", bootstrap))
        consumed = CONSUME_LINE.search(_run(
            "perf", "consume", "--topic", "bench", "--messages", str(records), "--bootstrap-server", bootstrap))
    if produced is None or consumed is None:
        raise SystemExit(f"could not parse the perf tool output of {name}")
    return {
        "workload": name, "brokers": brokers, "replication_factor": rf, "acks": acks,
        "records": records, "record_size_bytes": size,
        "produce_records_per_s": float(produced["rate"]), "produce_mb_per_s": float(produced["mb"]),
        "produce_latency_p50_ms": float(produced["p50"]), "produce_latency_p99_ms": float(produced["p99"]),
        "consume_records_per_s": float(consumed["rate"]), "consume_mb_per_s": float(consumed["mb"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="Kafkette benchmark")
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--record-size", type=int, default=100)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kafkette-bench-") as tmp:
        for name, brokers, rf, acks in (("1 broker RF1 acks=1", 1, 1, "1"), ("3 brokers RF3 acks=all", 3, 3, "all")):
            print(f"running: {name}, {args.records:,} records of {args.record_size} B ...", flush=True)
            rows.append(workload(name, brokers, rf, acks, args.records, args.record_size, Path(tmp)))
    print(tabulate(
        [[r["workload"], f"{r['produce_records_per_s']:,.0f}", f"{r['produce_mb_per_s']:.1f}",
          f"{r['produce_latency_p50_ms']:.0f}", f"{r['produce_latency_p99_ms']:.0f}",
          f"{r['consume_records_per_s']:,.0f}", f"{r['consume_mb_per_s']:.1f}"] for r in rows],
        headers=["workload", "produce rec/s", "produce MB/s", "p50 ms", "p99 ms", "consume rec/s", "consume MB/s"],
    ))
    now = datetime.datetime.now(datetime.UTC)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{now:%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps({
        "date": now.isoformat(), "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                             "platform": platform.platform()},
        "command": "make bench", "results": rows,
    }, indent=2))
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
