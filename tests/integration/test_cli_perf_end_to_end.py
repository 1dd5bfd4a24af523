"""``kafkette perf end-to-end`` against a real 1-broker cluster.

The tool sends records at a fixed rate while a consumer in the same process reads
them, and prints the latency from send to receipt at p50, p99 and p99.9 (Kafka's
EndToEndLatency tool).  Figures are reported, never asserted against a bound.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

KAFKETTE = Path(sys.executable).parent / "kafkette"
PERCENTILES = re.compile(r"Percentiles: 50th = ([\d.]+) ms, 99th = ([\d.]+) ms, 99\.9th = ([\d.]+) ms")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, timeout=120)


def test_perf_end_to_end_prints_p50_p99_and_p999_for_every_record_against_one_broker(cluster_factory):
    cluster = cluster_factory(1)
    server = ("--bootstrap-server", cluster.bootstrap_servers)
    created = _cli(
        "topics", "create", "e2e-latency", "--partitions", "2", "--replication-factor", "1", *server
    )
    assert created.returncode == 0, created.stderr

    result = _cli(
        "perf",
        "end-to-end",
        "--topic",
        "e2e-latency",
        "--num-records",
        "4000",
        "--throughput",
        "2000",
        "--record-size",
        "100",
        "--acks",
        "all",
        *server,
    )

    assert result.returncode == 0, f"stdout: {result.stdout}\nstderr: {result.stderr}"
    assert "4000 records received" in result.stdout, result.stdout
    assert "Avg latency:" in result.stdout, result.stdout
    match = PERCENTILES.search(result.stdout)
    assert match is not None, result.stdout
    p50, p99, p999 = (float(x) for x in match.groups())
    assert 0 < p50 <= p99 <= p999, result.stdout
