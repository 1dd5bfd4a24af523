"""What transactions cost, as figures: transactional produce against idempotent-only produce,
commit latency, and read_committed against read_uncommitted consume, on Kafkette and Apache
Kafka 4.3.1.

``python -m tests.perf.transactions_bench [--quick]`` measures, on 127.0.0.1, for each broker
and client:

1. **produce**: ``--records`` records of 1 KiB (``--size``) produced into a new topic of 3
   partitions with replication factor 3 (record ``i`` to partition ``i % 3``), once by an
   idempotent-only producer (``enable.idempotence=true``, no transactions) and once each by a
   transactional producer (``transactional.id`` set, so idempotence too) committing every 1, 100
   and 10,000 records.  Timed from the producer's creation (``init_transactions`` included) to
   the end of its flush or last ``commit_transaction``.  The transactions of 1 record stop at
   ``--max-single-transactions`` transactions or after ``--max-single-seconds`` seconds,
   whichever comes first: the table gives the records each mode produced.
2. **commit latency**: median and p99 of the time each ``commit_transaction`` call took (it
   flushes the transaction's last records, then EndTxn and the markers), per transaction size.
3. **consume**: each mode's committed data read back from offset 0 (``assign``, no group) by a
   fresh consumer with ``isolation.level=read_uncommitted``, then by another with
   ``read_committed``; timed from the consumer's creation to the last record.

Clients, each mode in a fresh process of its own, with their defaults (acks=all, their own
batching and linger): confluent-kafka (librdkafka) against Kafkette (3 brokers, a
``LocalCluster``, its Kafka-protocol listener) and Apache Kafka 4.3.1 (3 combined nodes,
``tests/peers/kafka_peer.py``, 512 MiB heap each); Kafkette's SDK (``Producer`` with
``transactional_id``, ``Consumer`` with ``isolation_level``) against Kafkette's msgpack listener.
One discarded warm-up run per client and cluster.  One round (no median).

Prints Markdown tables and writes ``tests/perf/results/transactions-<UTC timestamp>.json``.  A
measurement, not a test: nothing asserts on the figures.  ``--only kafkette|kafka|sdk`` runs one
part.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import confluent_kafka

from tests.perf.machine_load import add_quiet_arguments, load_average, wait_until_quiet
from tests.perf.results_file import write_result
from tests.perf.security_bench import PARTITIONS, REPLICATION_FACTOR, _create_topic
from tests.perf.security_figures import throughput
from tests.perf.transactions_figures import MODES, markdown_rows, run_summary, transaction_sizes

CLIENT_TIMEOUT_S = 300
COMMIT_TIMEOUT_S = 60
FULL = {"records": 20_000, "max_single_transactions": 2_000, "max_single_seconds": 60.0}
QUICK = {"records": 10_000, "max_single_transactions": 300, "max_single_seconds": 20.0}
ISOLATION_LEVELS = ("read_uncommitted", "read_committed")


def _log(message: str) -> None:
    print(f"[transactions] {message}", file=sys.stderr, flush=True)


# --- one client run, in a process of its own ------------------------------------------------------


def _failed_commit(committed: int, sizes: list[int], produced: int) -> str:
    return (
        f"commit_transaction of transaction {committed + 1} of {len(sizes)} failed "
        f"({produced} records sent, {sum(sizes[:committed])} committed)"
    )


def _confluent_produce(
    conf: dict, topic: str, sizes: list[int], transactional: bool, value: bytes, cap_s: float
):
    """``(records produced, seconds, commit timings)`` with confluent-kafka."""
    from confluent_kafka import Producer

    from tests.perf.confluent_produce import produce_all

    started = time.perf_counter()
    if not transactional:
        producer = Producer({**conf, "enable.idempotence": True})
        produce_all(producer, topic, value, sizes[0], partitions=PARTITIONS)
        return sizes[0], time.perf_counter() - started, []
    producer = Producer({**conf, "transactional.id": f"transactions-bench-{os.getpid()}"})
    producer.init_transactions(COMMIT_TIMEOUT_S)
    produced, commits = 0, []
    for count in sizes:
        if time.perf_counter() - started > cap_s:
            break
        producer.begin_transaction()
        for _ in range(count):
            while True:
                try:
                    producer.produce(topic, value, partition=produced % PARTITIONS)
                    break
                except BufferError:  # the local queue is full: serve delivery reports, then retry
                    producer.poll(0.05)
            producer.poll(0)
            produced += 1
        committing = time.perf_counter()
        try:
            producer.commit_transaction(COMMIT_TIMEOUT_S)
        except Exception as exc:
            raise RuntimeError(_failed_commit(len(commits), sizes, produced)) from exc
        commits.append(time.perf_counter() - committing)
    return produced, time.perf_counter() - started, commits


def _confluent_consume(conf: dict, topic: str, records: int, isolation_level: str) -> float:
    from confluent_kafka import Consumer

    from tests.perf.confluent_produce import consume_all

    started = time.perf_counter()
    consumer = Consumer(
        {
            **conf,
            "group.id": f"transactions-bench-{os.getpid()}",
            "enable.auto.commit": False,
            "isolation.level": isolation_level,
        }
    )
    consume_all(consumer, topic, records, PARTITIONS, CLIENT_TIMEOUT_S)
    return time.perf_counter() - started


async def _sdk_produce(
    conf: dict, topic: str, sizes: list[int], transactional: bool, value: bytes, cap_s: float
):
    """``(records produced, seconds, commit timings)`` with Kafkette's SDK."""
    from kafkette.client import Producer

    started = time.perf_counter()
    settings: dict = {"bootstrap_servers": conf["bootstrap"]}
    if transactional:
        settings["transactional_id"] = f"transactions-bench-{os.getpid()}"
    else:
        settings["enable_idempotence"] = True
    produced, commits = 0, []
    async with Producer(**settings) as producer:
        if not transactional:
            for index in range(sizes[0]):
                await producer.send(topic, value, partition=index % PARTITIONS)
            await producer.flush()
            return sizes[0], time.perf_counter() - started, []
        for count in sizes:
            if time.perf_counter() - started > cap_s:
                break
            producer.begin_transaction()
            for _ in range(count):
                await producer.send(topic, value, partition=produced % PARTITIONS)
                produced += 1
            committing = time.perf_counter()
            try:
                await asyncio.wait_for(producer.commit_transaction(), COMMIT_TIMEOUT_S)
            except Exception as exc:
                raise RuntimeError(_failed_commit(len(commits), sizes, produced)) from exc
            commits.append(time.perf_counter() - committing)
    return produced, time.perf_counter() - started, commits


async def _sdk_consume(conf: dict, topic: str, records: int, isolation_level: str) -> float:
    from kafkette.client import Consumer, TopicPartition

    started = time.perf_counter()
    count = 0
    async with Consumer(
        bootstrap_servers=conf["bootstrap"], auto_offset_reset="earliest", isolation_level=isolation_level
    ) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
        deadline = time.monotonic() + CLIENT_TIMEOUT_S
        while count < records and time.monotonic() < deadline:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    if count < records:
        raise RuntimeError(f"Kafkette's SDK ({isolation_level}) read {count} of {records} records")
    return time.perf_counter() - started


def _error_line(error: BaseException) -> str:
    """``error`` and its causes on one line (``A: ... <- caused by B: ...``)."""
    parts = []
    while error is not None and len(parts) < 5:
        parts.append(f"{type(error).__name__}: {error}")
        error = error.__cause__ or error.__context__
    return " <- caused by ".join(parts)


def _client_run(args: argparse.Namespace, conf: dict) -> dict:
    per_transaction = MODES[args.mode]
    sizes = transaction_sizes(args.records, per_transaction, args.max_transactions)
    value = os.urandom(args.size)
    transactional = per_transaction is not None
    if args.client == "sdk":
        produced, seconds, commits = asyncio.run(
            _sdk_produce(conf, args.topic, sizes, transactional, value, args.max_seconds)
        )
    else:
        produced, seconds, commits = _confluent_produce(
            conf, args.topic, sizes, transactional, value, args.max_seconds
        )
    figures = run_summary(produced, args.size, seconds, commits)
    consume = {}
    # a discarded read first, so that neither measured read is the one that warms the page cache
    for level in ("warm-up", *ISOLATION_LEVELS):
        isolation = "read_uncommitted" if level == "warm-up" else level
        if args.client == "sdk":
            took = asyncio.run(_sdk_consume(conf, args.topic, produced, isolation))
        else:
            took = _confluent_consume(conf, args.topic, produced, isolation)
        consume[level] = throughput(produced, args.size, took)
    del consume["warm-up"]
    return {**figures, "consume": consume}


def _client_main(args: argparse.Namespace) -> int:
    """The ``client`` subcommand: one mode's produce then consume; its configuration as JSON on
    stdin, one JSON line on stdout: the figures, or ``{"error"}`` when the client failed."""
    conf = json.loads(sys.stdin.read())
    try:
        figures = _client_run(args, conf)
    except Exception as exc:  # the run's failure is a result too: reported, the benchmark goes on
        figures = {"error": _error_line(exc)}
    print(json.dumps(figures))
    return 0


def _client_process(client: str, mode: str, conf: dict, topic: str, size: int, limits: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.perf.transactions_bench", "client", "--client", client]
        + ["--mode", mode, "--topic", topic, "--records", str(limits["records"]), "--size", str(size)]
        + ["--max-transactions", str(limits["max_single_transactions"] if MODES[mode] == 1 else 10**9)]
        + ["--max-seconds", str(limits["max_single_seconds"] if MODES[mode] == 1 else 10**9)],
        input=json.dumps(conf),
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT_S * 3,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{client} {mode} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the measures -------------------------------------------------------------------------------


def measure(broker: str, client: str, conf: dict, admin_conf: dict, size: int, limits: dict) -> list[dict]:
    """Every mode of ``MODES`` with ``client`` (``confluent-kafka`` with librdkafka config
    ``conf``, or ``sdk`` with ``{"bootstrap"}``), each into a new topic made with
    ``admin_conf``, after one discarded warm-up run (transactions of 100, a tenth of the
    records); one row per mode."""
    name = f"{broker.split()[-1].lower()}-{client}"
    warmup = f"transactions-{name}-warmup-{os.getpid()}"
    _create_topic(admin_conf, warmup)
    warmed = _client_process(
        client, "txn-100", conf, warmup, size, {**limits, "records": max(500, limits["records"] // 10)}
    )
    _log(f"{broker} {client} warm-up (discarded): {warmed}")
    rows = []
    for mode in MODES:
        topic = f"transactions-{name}-{mode}-{os.getpid()}"
        _create_topic(admin_conf, topic)
        figures = _client_process(client, mode, conf, topic, size, limits)
        label = "Kafkette SDK" if client == "sdk" else "confluent-kafka"
        rows.append({"broker": broker, "client": label, "mode": mode, **figures})
        _log(f"{broker} {label} {mode}: {figures}")
    return rows


def run_kafkette(parts: set[str], size: int, limits: dict) -> list[dict]:
    from kafkette.client import LocalCluster

    rows: list[dict] = []
    with (
        tempfile.TemporaryDirectory() as data_dir,
        LocalCluster(3, data_dir=Path(data_dir), kafka_protocol=True) as cluster,
    ):
        _log("Kafkette: 3 brokers up")
        conf = {"bootstrap.servers": cluster.kafka_bootstrap_servers}
        if "kafkette" in parts:
            rows += measure("Kafkette", "confluent-kafka", conf, conf, size, limits)
        if "sdk" in parts:
            rows += measure("Kafkette", "sdk", {"bootstrap": cluster.bootstrap_servers}, conf, size, limits)
    return rows


def run_kafka(size: int, limits: dict) -> list[dict]:
    from tests.peers.kafka_peer import KafkaPeer

    with tempfile.TemporaryDirectory() as data_dir, KafkaPeer(Path(data_dir), nodes=3) as peer:
        _log("Apache Kafka: 3 nodes up")
        conf = {"bootstrap.servers": peer.bootstrap_servers}
        return measure("Apache Kafka", "confluent-kafka", conf, conf, size, limits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.perf.transactions_bench",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help=f"{QUICK['records']:,} records per mode")
    parser.add_argument("--records", type=int, help=f"records per mode (default {FULL['records']:,})")
    parser.add_argument("--size", type=int, default=1024, help="value size in bytes (default 1024)")
    parser.add_argument(
        "--max-single-transactions",
        type=int,
        help=f"cap of the transactions of 1 record (default {FULL['max_single_transactions']:,})",
    )
    parser.add_argument(
        "--max-single-seconds",
        type=float,
        help=f"time cap (s) of the transactions of 1 record (default {FULL['max_single_seconds']:.0f})",
    )
    parser.add_argument("--only", choices=("kafkette", "kafka", "sdk"), help="run one part only")
    add_quiet_arguments(parser)
    sub = parser.add_subparsers(dest="command")
    client = sub.add_parser("client", help="(internal) one mode's run; configuration as JSON on stdin")
    client.add_argument("--client", choices=("confluent-kafka", "sdk"), required=True)
    client.add_argument("--mode", choices=tuple(MODES), required=True)
    client.add_argument("--topic", required=True)
    client.add_argument("--records", type=int, required=True)
    client.add_argument("--size", type=int, required=True)
    client.add_argument("--max-transactions", type=int, required=True)
    client.add_argument("--max-seconds", type=float, required=True)
    args = parser.parse_args(argv)
    if args.command == "client":
        return _client_main(args)
    limits = dict(QUICK if args.quick else FULL)
    for key in ("records", "max_single_transactions", "max_single_seconds", "size"):
        value = getattr(args, key)
        if key != "size" and value is not None:
            limits[key] = value
        if value is not None and value <= 0:
            parser.error(f"--{key.replace('_', '-')} must be positive")
    parts = {args.only} if args.only else {"kafkette", "kafka", "sdk"}
    quiet = wait_until_quiet(_log, below=args.quiet_below, max_wait_s=args.wait_quiet_s)
    started = time.monotonic()
    result: dict = {
        "method": {
            **limits,
            "value_bytes": args.size,
            "modes": {mode: per or "idempotent only" for mode, per in MODES.items()},
            "topic": f"{PARTITIONS} partitions, replication factor {REPLICATION_FACTOR}, new per mode",
            "clusters": "Kafkette: 3 brokers (LocalCluster, Kafka-protocol listener; SDK on msgpack); "
            "Apache Kafka 4.3.1: 3 combined nodes, 512 MiB heap",
            "clients": f"confluent-kafka {confluent_kafka.version()} "
            f"(librdkafka {confluent_kafka.libversion()[0]}) defaults (acks=all), "
            "Kafkette SDK defaults; a fresh process per mode; one round after a warm-up",
            "load_before": quiet.load,
            "quiet": quiet.quiet,
        },
        "runs": [],
    }
    if parts & {"kafkette", "sdk"}:
        result["runs"] += run_kafkette(parts, args.size, limits)
    if "kafka" in parts:
        result["runs"] += run_kafka(args.size, limits)
    result["wall_s"] = round(time.monotonic() - started, 1)
    result["method"]["load_after"] = load_average()
    print("\n".join(markdown_rows(result)))
    path = write_result("transactions", "tests.perf.transactions_bench", result)
    print(f"wall time {result['wall_s']} s; JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
