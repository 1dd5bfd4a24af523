"""How many lines ``kafkette produce`` prints while it retries, as figures: a dead leader and
NOT_ENOUGH_REPLICAS.

``python -m tests.perf.retry_log_bench [--seconds 60]`` starts 3 brokers (a LocalCluster on
127.0.0.1 with Kafka's ``broker.session.timeout.ms`` of 9 s, ``replica.lag.time.max.ms`` 3 s)
and runs, one after another, ``kafkette produce --key-separator :`` of 20 keyed records
(by subprocess, as a user does, ``--producer-property delivery.timeout.ms=<seconds * 1000>``, so
the command also runs on versions without ``--delivery-timeout-ms``) against:

- **dead leader**: a topic of 3 partitions, partition 0 on broker 3 alone, broker 3 killed
  (``kill -9``) just before: its leader stays dead for the whole run, which ends with the
  delivery timeout;
- **leader failover**: a topic of 3 partitions with 3 replicas each, the leader of partition 0
  killed just before: the producer delivers once the controller has fenced that broker (9 s)
  and elected another leader;
- **NOT_ENOUGH_REPLICAS**: a topic on brokers 2 and 3 with ``min.insync.replicas=2``, broker 3
  killed and the ISR shrunk to [2]: every acks=all produce is refused until the delivery timeout.

For each it counts the lines on stderr and the seconds the command ran, and gives lines per
minute.  The killed broker is started again between scenarios.  Prints a Markdown table and writes
``tests/perf/results/retry-log-<UTC timestamp>.json``.  A measurement, not a test: no
assertion on the figures (``tests/integration/test_producer_retries.py`` holds the bounds).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafkette.client import AdminClient, LocalCluster, NewTopic, TopicPartition
from tests.cluster_helpers import wait_for_partition
from tests.perf.results_file import write_result

KAFKETTE = Path(sys.executable).parent / "kafkette"
RECORDS = "".join(f"k{i}:v{i}\n" for i in range(20))
BROKER_CONFIGS = {
    "broker.session.timeout.ms": 9000,
    "broker.heartbeat.interval.ms": 2000,
    "replica.lag.time.max.ms": 3000,
    "controlled.shutdown.retry.backoff.ms": 100,
}


def produce(bootstrap: str, topic: str, seconds: int) -> dict[str, object]:
    """Run ``kafkette produce`` of the 20 records; its exit code, stderr lines and duration."""
    started = time.monotonic()
    proc = subprocess.run(
        [
            str(KAFKETTE),
            "produce",
            "--topic",
            topic,
            "--bootstrap-server",
            bootstrap,
            "--key-separator",
            ":",
            "--producer-property",
            f"delivery.timeout.ms={seconds * 1000}",
        ],
        input=RECORDS,
        capture_output=True,
        text=True,
        timeout=seconds + 120,
    )
    elapsed_s = time.monotonic() - started
    lines = proc.stderr.splitlines()
    return {
        "exit_code": proc.returncode,
        "lines": len(lines),
        "seconds": round(elapsed_s, 1),
        "lines_per_minute": round(len(lines) / elapsed_s * 60),
        "first_lines": lines[:3],
        "last_line": lines[-1] if lines else "",
    }


async def run(seconds: int) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    with (
        tempfile.TemporaryDirectory() as data_dir,
        LocalCluster(3, data_dir=data_dir, broker_configs=BROKER_CONFIGS) as cluster,
    ):
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics(
                [
                    NewTopic("dead-leader", replica_assignment={0: [3], 1: [2], 2: [1]}),
                    NewTopic(
                        "leader-failover", replica_assignment={0: [3, 1, 2], 1: [1, 2, 3], 2: [2, 3, 1]}
                    ),
                    NewTopic(
                        "not-enough-replicas",
                        replica_assignment={0: [2, 3]},
                        configs={"min.insync.replicas": "2"},
                    ),
                ]
            )
        for topic in ("dead-leader", "leader-failover"):
            tp = TopicPartition(topic, 0)
            leader = (
                await wait_for_partition(
                    bootstrap,
                    tp,
                    lambda p: p.leader >= 0 and len(p.isr) == len(p.replicas),
                    "a leader, full ISR",
                    timeout_s=60,
                )
            ).leader
            cluster.stop_broker(leader, hard=True)
            results[topic] = await asyncio.to_thread(produce, bootstrap, topic, seconds)
            cluster.start_broker(leader)
        tp = TopicPartition("not-enough-replicas", 0)
        await wait_for_partition(bootstrap, tp, lambda p: sorted(p.isr) == [2, 3], "ISR [2, 3]")
        cluster.stop_broker(3, hard=True)
        await wait_for_partition(bootstrap, tp, lambda p: p.isr == [2], "ISR [2]")
        results["not-enough-replicas"] = await asyncio.to_thread(
            produce, bootstrap, "not-enough-replicas", seconds
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=int, default=60, help="delivery.timeout.ms of the producer, in seconds"
    )
    args = parser.parse_args()
    results = asyncio.run(run(args.seconds))
    print("| fault | exit | stderr lines | seconds | lines per minute |")
    print("| --- | --- | --- | --- | --- |")
    for name, row in results.items():
        print(
            f"| {name} | {row['exit_code']} | {row['lines']} | {row['seconds']} | {row['lines_per_minute']} |"
        )
    print(
        "JSON: "
        f"{write_result('retry-log', 'tests.perf.retry_log_bench', {'seconds': args.seconds, **results})}"
    )


if __name__ == "__main__":
    main()
