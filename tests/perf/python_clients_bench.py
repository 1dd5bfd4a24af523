"""``python -m tests.perf.python_clients_bench``: what a Python user gets from each stack.

Kafkette's SDK against Kafkette, aiokafka and confluent-kafka (librdkafka) against Apache
Kafka (``tests/peers/kafka_peer.py``), and the same two Kafka clients unchanged against
Kafkette's Kafka-protocol listener, the same workload on one node each: ``--records``
(default 200,000) records of ``--size`` (100) bytes to a topic of 1 partition, acks=1, each
client with its own defaults otherwise, the idiomatic fast path (send without waiting per
record, then flush; consume in batches: ``getmany`` / ``consume(1000)``) from a fresh process;
then a fresh consumer reads them all back from the start.  The runs take turns
(``--repeat``, default 3) and the median run by records/s is reported per client and phase.
Each client runs in a process of its own (``python -m tests.perf.python_clients_bench client
...`` prints one JSON line).  Prints a table and writes JSON under ``tests/perf/results/``.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.perf.confluent_produce import produce_all
from tests.perf.results_file import write_result

TOPIC = "python-clients"
CLIENTS = ("kafkette", "aiokafka", "confluent-kafka")
# (client, server) pairs of a run: "kafkette" servers are one-node LocalClusters (the Kafka clients
# reach their Kafka-protocol listener), "kafka" servers one-node Apache Kafka peers
PAIRS = (("kafkette", "kafkette"), ("aiokafka", "kafka"), ("confluent-kafka", "kafka"),
         ("confluent-kafka", "kafkette"), ("aiokafka", "kafkette"))
SERVER_NAMES = {"kafkette": "Kafkette", "kafka": "Apache Kafka"}
CLIENT_TIMEOUT_S = 600


# --- the clients (each in a process of its own) -----------------------------------------------

async def _kafkette(bootstrap: str, records: int, value: bytes) -> tuple[float, float]:
    from kafkette.client import Consumer, Producer, TopicPartition

    started = time.perf_counter()
    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        for _ in range(records):
            await producer.send(TOPIC, value, partition=0)
        await producer.flush()
    produced = time.perf_counter() - started
    started = time.perf_counter()
    count = 0
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([TopicPartition(TOPIC, 0)])
        while count < records:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    return produced, time.perf_counter() - started


async def _aiokafka(bootstrap: str, records: int, value: bytes) -> tuple[float, float]:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    started = time.perf_counter()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1)
    await producer.start()
    try:
        for _ in range(records):
            await producer.send(TOPIC, value, partition=0)
        await producer.flush()
    finally:
        await producer.stop()
    produced = time.perf_counter() - started
    started = time.perf_counter()
    count = 0
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign([TopicPartition(TOPIC, 0)])
        await consumer.seek_to_beginning(TopicPartition(TOPIC, 0))
        while count < records:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    finally:
        await consumer.stop()
    return produced, time.perf_counter() - started


def _confluent(bootstrap: str, records: int, value: bytes) -> tuple[float, float]:
    from confluent_kafka import Consumer, Producer, TopicPartition

    started = time.perf_counter()
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "1"})
    produce_all(producer, TOPIC, value, records)
    produced = time.perf_counter() - started
    started = time.perf_counter()
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{os.getpid()}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    count = 0
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        deadline = time.monotonic() + 300
        while count < records and time.monotonic() < deadline:
            count += sum(1 for m in consumer.consume(num_messages=1000, timeout=1.0) if m.error() is None)
    finally:
        consumer.close()
    if count < records:
        raise RuntimeError(f"confluent-kafka read {count} of {records} records")
    return produced, time.perf_counter() - started


def run_client(client: str, bootstrap: str, records: int, size: int) -> dict:
    """One client's produce and consume of ``records`` records of ``size`` B; seconds of each."""
    value = os.urandom(size)
    if client == "kafkette":
        produce_s, consume_s = asyncio.run(_kafkette(bootstrap, records, value))
    elif client == "aiokafka":
        produce_s, consume_s = asyncio.run(_aiokafka(bootstrap, records, value))
    elif client == "confluent-kafka":
        produce_s, consume_s = _confluent(bootstrap, records, value)
    else:
        raise ValueError(f"unknown client {client!r}")
    return {"client": client, "produce_s": produce_s, "consume_s": consume_s}


# --- the servers and the runs -----------------------------------------------------------------

def _client_process(client: str, bootstrap: str, records: int, size: int) -> dict:
    done = subprocess.run([sys.executable, "-m", "tests.perf.python_clients_bench", "client", "--client", client,
                           "--bootstrap", bootstrap, "--records", str(records), "--size", str(size)],
                          capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{client} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _create_topic(cluster_kind: str, server, bootstrap: str) -> None:
    if cluster_kind == "kafkette":
        from kafkette.client import AdminClient, NewTopic

        async def create() -> None:
            async with AdminClient(bootstrap_servers=bootstrap) as admin:
                await admin.create_topics([NewTopic(TOPIC, 1, 1)])
        asyncio.run(create())
    else:
        done = server.run_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bootstrap, "--create",
                               "--topic", TOPIC, "--partitions", "1", "--replication-factor", "1")
        if done.returncode != 0:
            raise RuntimeError(f"could not create {TOPIC} on Kafka: {done.stderr.strip()[-300:]}")


def one_run(client: str, kind: str, records: int, size: int, data_dir: Path) -> dict:
    """Start a fresh one-node server of ``kind`` ("kafkette" or "kafka"), create the topic, run
    ``client`` in its own process against it (a Kafka client against Kafkette reaches its
    Kafka-protocol listener), stop the server; the figures."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    server: LocalCluster | KafkaPeer
    if kind == "kafkette":
        server = LocalCluster(num_brokers=1, data_dir=data_dir, kafka_protocol=client != "kafkette")
    else:
        server = KafkaPeer(data_dir, nodes=1)
    with server:
        _create_topic(kind, server, server.bootstrap_servers)
        bootstrap = (server.kafka_bootstrap_servers if isinstance(server, LocalCluster) and server.kafka_protocol
                     else server.bootstrap_servers)
        result = _client_process(client, bootstrap, records, size)
    result["server"] = SERVER_NAMES[kind]
    result["produce_rps"] = records / result["produce_s"]
    result["consume_rps"] = records / result["consume_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("client", help="run one client (internal)")
    child.add_argument("--client", choices=CLIENTS, required=True)
    child.add_argument("--bootstrap", required=True)
    child.add_argument("--records", type=int, required=True)
    child.add_argument("--size", type=int, required=True)
    parser.add_argument("--records", type=int, default=200_000, help="records per run (default 200,000)")
    parser.add_argument("--size", type=int, default=100, help="bytes per record value (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per client (default 3; the median is reported)")
    args = parser.parse_args(argv)
    if args.command == "client":
        print(json.dumps(run_client(args.client, args.bootstrap, args.records, args.size)), flush=True)
        return 0
    if args.records < 1 or args.size < 0 or args.repeat < 1:
        parser.error("--records and --repeat must be >= 1, --size >= 0")
    runs: dict[tuple[str, str], list[dict]] = {pair: [] for pair in PAIRS}
    failures: dict[str, str] = {}
    for attempt in range(args.repeat):
        for client, kind in PAIRS:
            name = f"{client} -> {SERVER_NAMES[kind]}"
            if name in failures:
                continue
            with tempfile.TemporaryDirectory(prefix=f"python-clients-{client}-{kind}-") as tmp:
                try:
                    runs[(client, kind)].append(one_run(client, kind, args.records, args.size, Path(tmp)))
                except Exception as exc:  # a client or server that cannot run is reported, not fatal
                    failures[name] = str(exc).splitlines()[0][:300]
                    print(f"[python-clients] {name}: {failures[name]}", flush=True)
            print(f"[python-clients] run {attempt + 1} {name} done", flush=True)
    rows = []
    for (client, _), results in runs.items():
        if not results:
            continue
        rows.append({"client": client, "server": results[0]["server"], "runs": len(results),
                     "produce_rps": statistics.median_low([r["produce_rps"] for r in results]),
                     "consume_rps": statistics.median_low([r["consume_rps"] for r in results]),
                     "every_run": results})
    base = {(r["client"], r["server"]): r for r in rows}.get(("aiokafka", "Apache Kafka"))
    lines = [f"{args.records:,} records of {args.size} B, 1 partition, acks=1, one node, median of {args.repeat}",
             "| client -> server | produce records/s | consume records/s | produce / aiokafka -> Kafka "
             "| consume / aiokafka -> Kafka |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        ratio = (f"{r['produce_rps'] / base['produce_rps']:.2f}x | {r['consume_rps'] / base['consume_rps']:.2f}x"
                 if base else "- | -")
        lines.append(f"| {r['client']} -> {r['server']} | {r['produce_rps']:,.0f} | {r['consume_rps']:,.0f} | {ratio} |")
    print("\n".join(lines))
    out = write_result("python-clients", "tests.perf.python_clients_bench",
                       {"records": args.records, "size": args.size, "rows": rows, "failures": failures})
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
