"""``python -m tests.perf.consumer_group_bench``: what consumer groups cost and how fast they
rebalance.

- Throughput: a 1-broker cluster, a topic of 6 partitions holding ``--records`` (default
  1,000,000) records of 100 bytes.  Read whole by one Consumer with ``assign`` (every
  partition from the beginning), by a group of 1 and by a group of 3 (three Consumers in one
  process, ``subscribe``, auto-commit on).  Records per second from the first record to the
  last (the join before the first record is reported apart).
- Rebalances: groups of 3 and of 10 members (in one process) on a topic of 30 partitions.
  A member joins (timed from its ``subscribe`` until every member holds its new share) and
  leaves again, ``--trials`` times; a member in its own process is killed with SIGKILL (timed
  until the others hold every partition: its session, ``session.timeout.ms`` 10000, must
  expire first), ``--deaths`` times.

Prints p50 and max of each and writes JSON under ``tests/perf/results/``.  This is a
benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from tests.perf.results_file import write_result

REPO = Path(__file__).resolve().parents[2]
SESSION_TIMEOUT_MS = 10000
BOUND_S = 120.0
POLL_S = 0.02


async def _fill(bootstrap: str, topic: str, records: int, partitions: int) -> None:
    value = b"x" * 100
    async with Producer(bootstrap_servers=bootstrap, acks=1, linger_ms=5, max_batch_size=262144) as producer:
        for i in range(records):
            await producer.send(topic, value, partition=i % partitions)
        await producer.flush()


async def _read_all(consumers: list[Consumer], records: int) -> tuple[float, float]:
    """(seconds until the first record, seconds from the first record to the last), every
    consumer polling in its own task."""
    started = time.perf_counter()
    first: list[float] = []
    seen = [0]

    async def poll(consumer: Consumer) -> None:
        while seen[0] < records:
            assert time.perf_counter() - started < BOUND_S, f"read {seen[0]} of {records} records"
            batches = await consumer.getmany(timeout_ms=50, max_records=10000)
            n = sum(len(b) for b in batches.values())
            if n and not first:
                first.append(time.perf_counter())
            seen[0] += n

    await asyncio.gather(*(poll(c) for c in consumers))
    return first[0] - started, time.perf_counter() - first[0]


async def throughput(bootstrap: str, topic: str, records: int) -> dict[str, dict[str, float]]:
    """Records per second read by ``assign`` and by groups of 1 and 3."""
    out = {}
    settings = dict(bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    async with Consumer(**settings) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(6)])
        await consumer.seek_to_beginning()
        join_s, read_s = await _read_all([consumer], records)
    out["assign"] = {"records_per_s": round(records / read_s), "first_record_s": round(join_s, 3)}
    for size in (1, 3):
        consumers = [Consumer(**settings, group_id=f"throughput-{size}") for _ in range(size)]
        for consumer in consumers:
            await consumer.start()
            consumer.subscribe([topic])
        try:
            join_s, read_s = await _read_all(consumers, records)
        finally:
            for consumer in consumers:
                await consumer.stop()
        out[f"group_of_{size}"] = {
            "records_per_s": round(records / read_s),
            "first_record_s": round(join_s, 3),
        }
    return out


def _balanced(consumers: list[Consumer], partitions: int) -> bool:
    shares = [c.assignment() for c in consumers]
    owned = [tp for share in shares for tp in share]
    return (
        len(owned) == partitions == len(set(owned))
        and all(shares)
        and max(map(len, shares)) - min(map(len, shares)) <= 1
    )


async def _until(done, what: str) -> float:
    started = time.perf_counter()
    while not done():
        assert time.perf_counter() - started < BOUND_S, f"timed out waiting for {what}"
        await asyncio.sleep(POLL_S)
    return time.perf_counter() - started


async def rebalances(
    bootstrap: str, topic: str, size: int, trials: int, deaths: int
) -> dict[str, list[float]]:
    """Seconds until a group of ``size`` is balanced again after a member joins and after one dies."""
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id=f"rebalance-{size}",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=1000,
    )
    members = [Consumer(**settings) for _ in range(size - 1)]
    for consumer in members:
        await consumer.start()
        consumer.subscribe([topic])
    joined, died = [], []
    share = 30 // size  # what the member in its own process holds once balanced
    try:
        await _until(lambda: _balanced(members, 30), f"a group of {size - 1}")
        for _ in range(trials):
            newcomer = Consumer(**settings)
            await newcomer.start()
            started = time.perf_counter()
            newcomer.subscribe([topic])
            await _until(lambda n=newcomer: _balanced([*members, n], 30), "the newcomer's share")
            joined.append(time.perf_counter() - started)
            await newcomer.stop()
            await _until(lambda: _balanced(members, 30), "the newcomer gone")
        for _ in range(deaths):
            env = dict(os.environ, SESSION_TIMEOUT_MS=str(SESSION_TIMEOUT_MS))
            with open(os.devnull, "w") as sink:
                doomed = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.group_member_process",
                        bootstrap,
                        f"rebalance-{size}",
                        topic,
                    ],
                    stdout=sink,
                    stderr=sink,
                    env=env,
                    cwd=REPO,
                )
            try:
                await _until(
                    lambda: sum(len(c.assignment()) for c in members) == 30 - share,
                    "the process member holding its share",
                )
            finally:
                doomed.kill()
                doomed.wait(10)
            started = time.perf_counter()
            await _until(lambda: _balanced(members, 30), "the dead member's partitions taken over")
            died.append(time.perf_counter() - started)
    finally:
        for consumer in members:
            await consumer.stop()
    return {"member_joins_s": joined, "member_dies_s": died}


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50_s": round(statistics.median(values), 3), "max_s": round(max(values), 3), "runs": len(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description="Kafkette consumer group benchmark")
    parser.add_argument("--records", type=int, default=1_000_000, help="records read by each reader")
    parser.add_argument("--trials", type=int, default=5, help="member joins per group size")
    parser.add_argument("--deaths", type=int, default=3, help="member deaths (SIGKILL) per group size")
    args = parser.parse_args()
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="kafkette-group-bench-") as tmp:
        with LocalCluster(1, Path(tmp) / "groups", controllers=1) as cluster:

            async def run() -> None:
                bootstrap = cluster.bootstrap_servers
                async with AdminClient(bootstrap_servers=bootstrap) as admin:
                    await admin.create_topics(
                        [NewTopic("bench-read", 6, 1), NewTopic("bench-rebalance", 30, 1)]
                    )
                await _fill(bootstrap, "bench-read", args.records, 6)
                result["throughput"] = await throughput(bootstrap, "bench-read", args.records)
                for size in (3, 10):
                    times = await rebalances(bootstrap, "bench-rebalance", size, args.trials, args.deaths)
                    result[f"group_of_{size}"] = {k: _summary(v) for k, v in times.items()}

            asyncio.run(run())
    reads = result["throughput"]
    assert isinstance(reads, dict)
    for name, figures in reads.items():
        print(
            f"{name}: {figures['records_per_s']:,} records/s (first record after "
            f"{figures['first_record_s']:.2f} s)"
        )
    for size in (3, 10):
        figures = result[f"group_of_{size}"]
        assert isinstance(figures, dict)
        print(
            f"group of {size}: a member joins -> balanced p50 {figures['member_joins_s']['p50_s']:.2f} s, "
            f"max {figures['member_joins_s']['max_s']:.2f} s; a member dies (SIGKILL, session "
            f"{SESSION_TIMEOUT_MS} ms) -> p50 {figures['member_dies_s']['p50_s']:.2f} s, max "
            f"{figures['member_dies_s']['max_s']:.2f} s"
        )
    out = write_result("consumer-groups", "tests.perf.consumer_group_bench", result)
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
