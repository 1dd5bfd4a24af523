"""``python -m tests.perf.controller_failover_bench``: how fast the metadata quorum replaces a dead
active controller, and what the quorum costs CreateTopics.

- Failover: a local cluster of 3 nodes, all ``broker,controller`` (3 voters), with Kafka's
  default timeouts (``controller.quorum.fetch.timeout.ms`` 2000, ``election.timeout.ms`` 1000,
  ``broker.session.timeout.ms`` 9000), a topic of 3 partitions with replication factor 3.
  ``--kills`` times (default 10): the active controller's node is killed with SIGKILL; timed
  are the seconds until DescribeQuorum names another leader (the new active controller) and
  until no partition is led by the dead node any more (its broker session expired at the new
  controller); then the node is restarted and waits until it has caught up with the log.
- CreateTopics latency: ``--topics`` (default 50) topics of 1 partition with replication
  factor 3 created one after the other, on a 3-node cluster with 1 voter and with 3 voters.

Prints p50 and max of each and writes JSON under ``tests/perf/results/``.  This is a
benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.protocol.errors import KafkaError
from tests.perf.results_file import write_result

POLL_S = 0.05
BOUND_S = 120.0


async def _leader(admin: AdminClient, not_: int) -> tuple[int, int]:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        try:
            quorum = await admin.describe_metadata_quorum(timeout_ms=1000)
            if quorum.leader_id not in (-1, not_):
                return quorum.leader_id, quorum.high_watermark
        except KafkaError:
            pass
        await asyncio.sleep(POLL_S)
    raise SystemExit(f"no active controller other than node {not_} within {BOUND_S:.0f} s")


async def _until_led_elsewhere(admin: AdminClient, topic: str, victim: int) -> None:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        try:
            parts = (await admin.describe_topics([topic]))[topic].partitions
            if all(p.leader not in (-1, victim) for p in parts):
                return
        except KafkaError:
            pass
        await asyncio.sleep(POLL_S)
    raise SystemExit(f"partitions of {topic} still led by node {victim} after {BOUND_S:.0f} s")


async def _caught_up(admin: AdminClient, node: int) -> None:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        try:
            quorum = await admin.describe_metadata_quorum(timeout_ms=1000)
            ends = {v.replica_id: v.log_end_offset for v in quorum.voters}
            if ends.get(node, -1) >= quorum.high_watermark:
                return
        except KafkaError:
            pass
        await asyncio.sleep(POLL_S)
    raise SystemExit(f"node {node} did not catch up with the metadata log within {BOUND_S:.0f} s")


async def failovers(cluster: LocalCluster, kills: int) -> list[dict[str, float | int]]:
    """Kill the active controller ``kills`` times; one row per kill."""
    rows = []
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        await admin.create_topics([NewTopic("failover-bench", 3, 3)])
        leader, _ = await _leader(admin, -1)
        for kill in range(kills):
            await asyncio.sleep(1.0)
            victim = leader
            killed = time.monotonic()
            cluster.stop_broker(victim, hard=True)
            leader, _ = await _leader(admin, victim)
            elected_s = time.monotonic() - killed
            await _until_led_elsewhere(admin, "failover-bench", victim)
            moved_s = time.monotonic() - killed
            print(
                f"kill {kill + 1}: node {victim} -> node {leader} active after {elected_s:.2f} s, "
                f"partitions led elsewhere after {moved_s:.2f} s",
                flush=True,
            )
            rows.append(
                {
                    "victim": victim,
                    "new_controller": leader,
                    "elected_s": round(elected_s, 3),
                    "partitions_moved_s": round(moved_s, 3),
                }
            )
            cluster.start_broker(victim)
            await _caught_up(admin, victim)
    return rows


async def create_topics_latency(cluster: LocalCluster, topics: int) -> list[float]:
    """Seconds per CreateTopics (1 partition, replication factor 3), one after the other."""
    latencies = []
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30000) as admin:
        await admin.create_topics([NewTopic("warm-up", 1, 3)])
        for n in range(topics):
            started = time.perf_counter()
            await admin.create_topics([NewTopic(f"latency-{n}", 1, 3)])
            latencies.append(time.perf_counter() - started)
    return latencies


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50_s": round(statistics.median(values), 4), "max_s": round(max(values), 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description="Kafkette controller failover benchmark")
    parser.add_argument("--kills", type=int, default=10, help="kills of the active controller")
    parser.add_argument("--topics", type=int, default=50, help="CreateTopics calls per quorum size")
    args = parser.parse_args()
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="kafkette-failover-bench-") as tmp:
        with LocalCluster(3, Path(tmp) / "failover") as cluster:
            rows = asyncio.run(failovers(cluster, args.kills))
        result["failover"] = {
            "kills": rows,
            "elected": _summary([float(r["elected_s"]) for r in rows]),
            "partitions_moved": _summary([float(r["partitions_moved_s"]) for r in rows]),
        }
        for voters in (1, 3):
            with LocalCluster(3, Path(tmp) / f"create-{voters}", controllers=voters) as cluster:
                latencies = asyncio.run(create_topics_latency(cluster, args.topics))
            result[f"create_topics_{voters}_voters"] = _summary(latencies)
    failover = result["failover"]
    assert isinstance(failover, dict)
    print(
        f"new active controller after kill -9: p50 {failover['elected']['p50_s']:.2f} s, "
        f"max {failover['elected']['max_s']:.2f} s; partitions led elsewhere: p50 "
        f"{failover['partitions_moved']['p50_s']:.2f} s, max {failover['partitions_moved']['max_s']:.2f} s "
        f"({args.kills} kills)"
    )
    for voters in (1, 3):
        figures = result[f"create_topics_{voters}_voters"]
        assert isinstance(figures, dict)
        print(
            f"CreateTopics with {voters} voter(s): p50 {figures['p50_s'] * 1000:.1f} ms, "
            f"max {figures['max_s'] * 1000:.1f} ms ({args.topics} topics)"
        )
    out = write_result("controller-failover", "tests.perf.controller_failover_bench", result)
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
