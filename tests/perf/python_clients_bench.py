"""``python -m tests.perf.python_clients_bench``: what a Python user gets from each stack.

Kafkette's SDK against Kafkette, aiokafka and confluent-kafka (librdkafka) against Apache
Kafka (``tests/peers/kafka_peer.py``), and the same two Kafka clients unchanged against
Kafkette's Kafka-protocol listener, the same workload on one node each: ``--records``
(default 200,000) records of ``--size`` (100) bytes to a topic of 1 partition, acks=1, each
client with its own defaults otherwise, the idiomatic fast path (send without waiting per
record, then flush; consume in batches: ``getmany`` / ``consume(1000)``) from a fresh process;
then a fresh consumer reads them all back from the start.  Each client runs in a process of
its own (``python -m tests.perf.python_clients_bench client ...`` prints one JSON line).

How the figures are taken (the default, warm): one server per system, started once and up for
the whole run: a one-node Apache Kafka (the peer, 512 MiB heap) and a one-node Kafkette with its
Kafka listener (the SDK reaches its own listener, the Kafka clients the Kafka one).  First a
warm-up round, every client against its server once, discarded (a Kafka broker's JVM compiles
its hot paths while the first records go through, see ``warm_runs``); then ``--repeat``
(default 3) measured rounds, the clients taking turns (the order reversed every other round),
each run on a topic of its own (created with confluent-kafka's AdminClient on both), the page
cache settled before each (``settle``).  The median run by records/s is reported per client and
phase (``warm_runs.summarize``); the JSON keeps every run, the warm-up's figures, the load
average before and after each run and the CPU seconds the other system's idle server used
meanwhile.  ``--fresh-servers`` takes them the old way: a fresh server for every run, no
warm-up (Kafka's JVM cold in every run).  ``--wait-quiet-s`` waits (bounded) for a quiet machine
first (``machine_load``).  Prints a table and writes JSON under ``tests/perf/results/``.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.perf.confluent_produce import consume_all, produce_all
from tests.perf.footprint_bench import cpu_seconds
from tests.perf.machine_load import add_quiet_arguments, load_average, wait_until_quiet
from tests.perf.results_file import write_result
from tests.perf.settle import settle_page_cache
from tests.perf.warm_runs import WARMUP_RUNS, ratio, round_order, summarize

TOPIC = "python-clients"
CLIENTS = ("kafkette", "aiokafka", "confluent-kafka")
# (client, server) pairs of a round: the "kafkette" server is a one-node LocalCluster with its Kafka
# listener (Kafkette's SDK reaches its own listener, the Kafka clients the Kafka one), the "kafka"
# server a one-node Apache Kafka peer
PAIRS = (
    ("kafkette", "kafkette"),
    ("aiokafka", "kafka"),
    ("confluent-kafka", "kafka"),
    ("confluent-kafka", "kafkette"),
    ("aiokafka", "kafkette"),
)
SERVER_NAMES = {"kafkette": "Kafkette", "kafka": "Apache Kafka"}
CLIENT_TIMEOUT_S = 600


# --- the clients (each in a process of its own) -----------------------------------------------


async def _kafkette(bootstrap: str, topic: str, records: int, value: bytes) -> tuple[float, float]:
    from kafkette.client import Consumer, Producer, TopicPartition

    started = time.perf_counter()
    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        for _ in range(records):
            await producer.send(topic, value, partition=0)
        await producer.flush()
    produced = time.perf_counter() - started
    started = time.perf_counter()
    count = 0
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([TopicPartition(topic, 0)])
        while count < records:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    return produced, time.perf_counter() - started


async def _aiokafka(bootstrap: str, topic: str, records: int, value: bytes) -> tuple[float, float]:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    started = time.perf_counter()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1)
    await producer.start()
    try:
        for _ in range(records):
            await producer.send(topic, value, partition=0)
        await producer.flush()
    finally:
        await producer.stop()
    produced = time.perf_counter() - started
    started = time.perf_counter()
    count = 0
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    try:
        consumer.assign([TopicPartition(topic, 0)])
        await consumer.seek_to_beginning(TopicPartition(topic, 0))
        while count < records:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    finally:
        await consumer.stop()
    return produced, time.perf_counter() - started


def _confluent(bootstrap: str, topic: str, records: int, value: bytes) -> tuple[float, float]:
    from confluent_kafka import Consumer, Producer

    started = time.perf_counter()
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "1"})
    produce_all(producer, topic, value, records)
    produced = time.perf_counter() - started
    started = time.perf_counter()
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{os.getpid()}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consume_all(consumer, topic, records)
    return produced, time.perf_counter() - started


def run_client(client: str, bootstrap: str, topic: str, records: int, size: int) -> dict:
    """One client's produce and consume of ``records`` records of ``size`` B to and from ``topic``'s
    partition 0; seconds of each."""
    value = os.urandom(size)
    if client == "kafkette":
        produce_s, consume_s = asyncio.run(_kafkette(bootstrap, topic, records, value))
    elif client == "aiokafka":
        produce_s, consume_s = asyncio.run(_aiokafka(bootstrap, topic, records, value))
    elif client == "confluent-kafka":
        produce_s, consume_s = _confluent(bootstrap, topic, records, value)
    else:
        raise ValueError(f"unknown client {client!r}")
    return {"client": client, "produce_s": produce_s, "consume_s": consume_s}


# --- the servers and the runs -----------------------------------------------------------------


def _log(message: str) -> None:
    print(f"[python-clients] {message}", flush=True)


def _client_process(client: str, bootstrap: str, topic: str, records: int, size: int) -> dict:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.perf.python_clients_bench",
            "client",
            "--client",
            client,
            "--bootstrap",
            bootstrap,
            "--topic",
            topic,
            "--records",
            str(records),
            "--size",
            str(size),
        ],
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{client} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def create_topic(kafka_bootstrap: str, topic: str) -> None:
    """Create ``topic`` (1 partition, replication factor 1) through Kafka's protocol with
    confluent-kafka's AdminClient, the same on both systems.

    Raises:
        RuntimeError: the topic was not created within 60 s.
    """
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})  # kept alive until its future is done
    try:
        admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(60)
    except KafkaException as exc:
        raise RuntimeError(f"could not create {topic}: {exc}") from None


@dataclasses.dataclass
class RunningServer:
    """One running server: its own listener, its Kafka-protocol one (Kafka: the same) and its process."""

    bootstrap: str
    kafka_bootstrap: str
    pids: Callable[[], list[int]]

    def for_client(self, client: str) -> str:
        """Where ``client`` connects: Kafkette's SDK to Kafkette's own listener, a Kafka client to
        the Kafka-protocol one."""
        return self.bootstrap if client == "kafkette" else self.kafka_bootstrap


@contextlib.contextmanager
def running(kind: str, data_dir: Path) -> Iterator[RunningServer]:
    """A one-node server of ``kind`` ("kafkette", with its Kafka listener, or "kafka") under
    ``data_dir``, stopped on exit.

    Raises:
        PeerUnavailable: no Java, Maven or registry for Kafka.
        RuntimeError, LocalClusterError: the node did not start.
    """
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    if kind == "kafkette":
        with LocalCluster(num_brokers=1, data_dir=data_dir, kafka_protocol=True) as cluster:
            yield RunningServer(
                cluster.bootstrap_servers,
                cluster.kafka_bootstrap_servers,
                lambda: list(cluster.pids().values()),
            )
    else:
        with KafkaPeer(data_dir, nodes=1) as peer:
            yield RunningServer(
                peer.bootstrap_servers,
                peer.bootstrap_servers,
                lambda: [p for n in peer.node_ids if (p := peer.pid(n)) is not None],
            )


def _cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def one_run(
    client: str, kind: str, server: RunningServer, others: list[int], topic: str, records: int, size: int
) -> dict:
    """Create ``topic`` on ``server`` (of ``kind``), settle the page cache and run ``client`` in a
    process of its own against it; the figures, the load average before and after, and the CPU
    seconds the processes ``others`` (the other system's idle server) used meanwhile.

    Raises:
        RuntimeError: the topic or the client failed.
    """
    create_topic(server.kafka_bootstrap, topic)
    settle_page_cache(_log)
    before, idle_before = load_average(), _cpu_of(others)
    result = _client_process(client, server.for_client(client), topic, records, size)
    result.update(
        server=SERVER_NAMES[kind],
        produce_rps=records / result["produce_s"],
        consume_rps=records / result["consume_s"],
        load_before=before,
        load_after=load_average(),
        other_system_cpu_s=round(_cpu_of(others) - idle_before, 2) if others else None,
    )
    return result


def take_runs(
    records: int, size: int, repeat: int, fresh_servers: bool, data_dir: Path, failures: dict[str, str]
) -> dict[tuple[str, str], list[dict | None]]:
    """Every pair's runs in run order (warm-up first unless ``fresh_servers``), None for a failed run.

    Warm: both servers started once, ``WARMUP_RUNS`` warm-up rounds, then ``repeat`` measured
    rounds, the pairs taking turns (``warm_runs.round_order``).  ``fresh_servers``: ``repeat``
    rounds, each run on a server of its own started for it.  A pair (or server) that fails is
    listed in ``failures`` and not run again.
    """
    runs: dict[tuple[str, str], list[dict | None]] = {pair: [] for pair in PAIRS}
    rounds = repeat if fresh_servers else WARMUP_RUNS + repeat
    with contextlib.ExitStack() as stack:
        servers: dict[str, RunningServer] = {}
        if not fresh_servers:
            for kind in SERVER_NAMES:
                try:
                    servers[kind] = stack.enter_context(running(kind, data_dir / kind))
                except Exception as exc:  # a server that cannot run is reported, not fatal
                    for client, pair_kind in PAIRS:
                        if pair_kind == kind:
                            failures[f"{client} -> {SERVER_NAMES[kind]}"] = str(exc).splitlines()[0][:300]
                    _log(f"{SERVER_NAMES[kind]}: {str(exc).splitlines()[0][:300]}")
        for round_index in range(rounds):
            warmup = not fresh_servers and round_index < WARMUP_RUNS
            for number, (client, kind) in enumerate(round_order(PAIRS, round_index)):
                name = f"{client} -> {SERVER_NAMES[kind]}"
                if name in failures:
                    runs[(client, kind)].append(None)
                    continue
                topic = f"{TOPIC}-{round_index}-{number}"
                try:
                    if fresh_servers:
                        with running(kind, data_dir / f"{client}-{kind}-{round_index}") as server:
                            result = one_run(client, kind, server, [], topic, records, size)
                    else:
                        others = [pid for other, s in servers.items() if other != kind for pid in s.pids()]
                        result = one_run(client, kind, servers[kind], others, topic, records, size)
                except Exception as exc:  # a client or server that cannot run is reported, not fatal
                    failures[name] = str(exc).splitlines()[0][:300]
                    _log(f"{name}: {failures[name]}")
                    runs[(client, kind)].append(None)
                    continue
                result["warmup"] = warmup
                runs[(client, kind)].append(result)
                label = (
                    "warm-up" if warmup else f"run {round_index + 1 - (0 if fresh_servers else WARMUP_RUNS)}"
                )
                _log(
                    f"{label} {name}: produce {result['produce_rps']:,.0f}, consume "
                    f"{result['consume_rps']:,.0f} records/s"
                )
    return runs


def summarize_rows(runs: dict[tuple[str, str], list[dict | None]], warmup_runs: int) -> list[dict]:
    """One row per pair with a measured run: the median produce and consume records/s
    (``warm_runs.summarize``, the first ``warmup_runs`` runs discarded), their summaries and every run."""
    rows = []
    for (client, kind), results in runs.items():
        produce = summarize([r["produce_rps"] if r else None for r in results], warmup_runs)
        consume = summarize([r["consume_rps"] if r else None for r in results], warmup_runs)
        if produce is None or consume is None:
            continue
        rows.append(
            {
                "client": client,
                "server": SERVER_NAMES[kind],
                "runs": len(produce.measured),
                "produce_rps": produce.median,
                "consume_rps": consume.median,
                "produce_summary": produce.as_json(),
                "consume_summary": consume.as_json(),
                "every_run": results,
            }
        )
    return rows


def how_taken(fresh_servers: bool, repeat: int) -> str:
    """One line saying how the figures were taken (printed above the table and kept in the JSON)."""
    if fresh_servers:
        return (
            f"a fresh server for every run (Kafka's JVM cold), no warm-up run, median of {repeat} runs "
            "taking turns"
        )
    return (
        f"one server per system started once, {WARMUP_RUNS} warm-up round discarded, median of {repeat} "
        "measured runs taking turns"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("client", help="run one client (internal)")
    child.add_argument("--client", choices=CLIENTS, required=True)
    child.add_argument("--bootstrap", required=True)
    child.add_argument("--topic", required=True)
    child.add_argument("--records", type=int, required=True)
    child.add_argument("--size", type=int, required=True)
    parser.add_argument("--records", type=int, default=200_000, help="records per run (default 200,000)")
    parser.add_argument("--size", type=int, default=100, help="bytes per record value (default 100)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="measured runs per client (default 3; the median is reported)"
    )
    parser.add_argument(
        "--fresh-servers",
        action="store_true",
        help="a fresh server for every run, no warm-up run (Kafka's JVM cold), as before",
    )
    add_quiet_arguments(parser)
    args = parser.parse_args(argv)
    if args.command == "client":
        print(
            json.dumps(run_client(args.client, args.bootstrap, args.topic, args.records, args.size)),
            flush=True,
        )
        return 0
    if args.records < 1 or args.size < 0 or args.repeat < 1 or args.wait_quiet_s < 0:
        parser.error("--records and --repeat must be >= 1, --size and --wait-quiet-s >= 0")
    quiet = wait_until_quiet(_log, below=args.quiet_below, max_wait_s=args.wait_quiet_s)
    failures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="python-clients-") as tmp:
        runs = take_runs(args.records, args.size, args.repeat, args.fresh_servers, Path(tmp), failures)
    end_load = load_average()
    warmup_runs = 0 if args.fresh_servers else WARMUP_RUNS
    rows = summarize_rows(runs, warmup_runs)
    taken = how_taken(args.fresh_servers, args.repeat)
    base = {(r["client"], r["server"]): r for r in rows}.get(("aiokafka", "Apache Kafka"))
    lines = [
        f"{args.records:,} records of {args.size} B, 1 partition, acks=1, one node; {taken}",
        f"1-minute load average at the start {quiet.load['1m'] if quiet.load else '-'} "
        f"({'quiet' if quiet.quiet else 'not quiet'} after {quiet.waited_s:.0f} s), at the end "
        f"{end_load['1m'] if end_load else '-'}",
        "| client -> server | produce records/s | consume records/s | produce / aiokafka -> Kafka "
        "| consume / aiokafka -> Kafka |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        cells = []
        for phase in ("produce_rps", "consume_rps"):
            found = ratio(r[phase], base[phase]) if base else None
            cells.append(f"{found:.2f}x" if found else "-")
        lines.append(
            f"| {r['client']} -> {r['server']} | {r['produce_rps']:,.0f} | {r['consume_rps']:,.0f} | "
            + " | ".join(cells)
            + " |"
        )
    for r in rows:
        parts = []
        for phase in ("produce", "consume"):
            summary = r[f"{phase}_summary"]
            part = f"{phase} " + " / ".join(f"{v:,.0f}" for v in summary["measured"])
            if summary["warmup"]:
                part += " (warm-up " + " / ".join(f"{v:,.0f}" for v in summary["warmup"]) + ")"
            parts.append(part)
        lines.append(f"{r['client']} -> {r['server']}: " + "; ".join(parts))
    print("\n".join(lines))
    out = write_result(
        "python-clients",
        "tests.perf.python_clients_bench",
        {
            "records": args.records,
            "size": args.size,
            "repeat": args.repeat,
            "warm": not args.fresh_servers,
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
        },
    )
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
