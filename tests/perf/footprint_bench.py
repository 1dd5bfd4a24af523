"""``python -m tests.perf.footprint_bench``: cold start and memory, Kafkette beside Apache Kafka.

For each system, ``--repeat`` times (default 3, taking turns, the median reported):

- **cold start**: seconds from launching 3 fresh nodes (every node a broker and a voter of the
  metadata quorum) until the first record is acknowledged by a topic replicated 3 times
  (acks=all): the client creates the topic and produces, retrying until both succeed.
  Kafka's storage is formatted before the clock starts (``kafka.tools.StorageTool``; Kafkette
  needs no format step).  Clients: Kafkette's SDK, and aiokafka for Apache Kafka.
- **memory**: each broker's resident set size (VmRSS) after ``--records`` (default 200,000)
  records of 100 B went through it (a topic of 3 partitions replicated 3 times, acks=all) and
  were read back; the mean per broker.  Producers: Kafkette's SDK, confluent-kafka for Kafka.

Apache Kafka is the peer of ``tests/peers/kafka_peer.py`` (Kafka 4.3.1, heap 512 MiB, G1).
Prints a table and writes JSON under ``tests/perf/results/``.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.perf.kafkette_workloads import rss_bytes
from tests.perf.results_file import write_result

NODES = 3
TOPIC = "footprint"
MIB = 1 << 20
FIRST_ACK_TIMEOUT_S = 120


async def _first_ack_kafkette(bootstrap: str) -> None:
    from kafkette.client import AdminClient, KafkaError, NewTopic, Producer

    deadline = time.monotonic() + FIRST_ACK_TIMEOUT_S
    while True:
        try:
            async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000) as admin:
                await admin.create_topics([NewTopic("first", 1, NODES)])
            async with Producer(bootstrap_servers=bootstrap, acks="all", request_timeout_ms=5000) as producer:
                await (await producer.send("first", b"hello"))
            return
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def _first_ack_kafka(bootstrap: str) -> None:
    from aiokafka import AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import KafkaError, TopicAlreadyExistsError

    deadline = time.monotonic() + FIRST_ACK_TIMEOUT_S
    created = False
    while True:
        try:
            if not created:
                admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000)
                await admin.start()
                try:
                    await admin.create_topics([NewTopic("first", 1, NODES)])
                except TopicAlreadyExistsError:
                    pass
                finally:
                    await admin.close()
                created = True
            producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", request_timeout_ms=5000)
            await producer.start()
            try:
                await producer.send_and_wait("first", b"hello")
            finally:
                await producer.stop()
            return
        except (KafkaError, OSError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


def cold_start(system: str, data_dir: Path) -> float:
    """Seconds from launching the nodes to the first acks=all acknowledgement."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    if system == "kafkette":
        cluster = LocalCluster(num_brokers=NODES, data_dir=data_dir)
        started = time.monotonic()
        with cluster:
            asyncio.run(_first_ack_kafkette(cluster.bootstrap_servers))
            return time.monotonic() - started
    peer = KafkaPeer(data_dir, nodes=NODES)
    peer.format_storage()
    started = time.monotonic()
    peer.launch()
    try:
        asyncio.run(_first_ack_kafka(peer.bootstrap_servers))
        return time.monotonic() - started
    finally:
        peer.stop()


async def _load_kafkette(bootstrap: str, records: int) -> None:
    from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(TOPIC, 3, NODES)])
    value = b"x" * 100
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(records):
            await producer.send(TOPIC, value, partition=i % 3)
        await producer.flush()
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign([TopicPartition(TOPIC, p) for p in range(3)])
        count = 0
        while count < records:
            count += sum(len(b) for b in (await consumer.getmany(timeout_ms=1000)).values())


def _load_kafka(bootstrap: str, records: int, peer) -> None:
    from confluent_kafka import Consumer, Producer, TopicPartition

    done = peer.run_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bootstrap, "--create",
                         "--topic", TOPIC, "--partitions", "3", "--replication-factor", str(NODES))
    if done.returncode != 0:
        raise RuntimeError(f"could not create {TOPIC}: {done.stderr.strip()[-300:]}")
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    value = b"x" * 100
    for i in range(records):
        while True:
            try:
                producer.produce(TOPIC, value, partition=i % 3)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    if producer.flush(120) != 0:
        raise RuntimeError("confluent-kafka: records still queued after 120 s")
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "footprint", "enable.auto.commit": False})
    consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(3)])
    count, deadline = 0, time.monotonic() + 300
    while count < records and time.monotonic() < deadline:
        count += sum(1 for m in consumer.consume(num_messages=1000, timeout=1.0) if m.error() is None)
    consumer.close()


def memory(system: str, data_dir: Path, records: int) -> float:
    """Mean broker RSS (MiB) after ``records`` records went through the cluster and back."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    if system == "kafkette":
        with LocalCluster(num_brokers=NODES, data_dir=data_dir) as cluster:
            asyncio.run(_load_kafkette(cluster.bootstrap_servers, records))
            pids = [p for p in cluster.pids().values()]
            return statistics.mean(rss_bytes(p) for p in pids) / MIB
    with KafkaPeer(data_dir, nodes=NODES) as peer:
        _load_kafka(peer.bootstrap_servers, records, peer)
        return statistics.mean(rss_bytes(peer.pid(n)) for n in peer.node_ids) / MIB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per system and measure (default 3)")
    parser.add_argument("--records", type=int, default=200_000, help="records through the cluster before RSS")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.records < 1:
        parser.error("--repeat and --records must be >= 1")
    figures: dict[str, dict[str, list[float]]] = {s: {"cold_start_s": [], "rss_mib": []} for s in ("kafkette", "kafka")}
    for attempt in range(args.repeat):
        for system in ("kafkette", "kafka"):
            with tempfile.TemporaryDirectory(prefix=f"footprint-{system}-") as tmp:
                figures[system]["cold_start_s"].append(cold_start(system, Path(tmp) / "cold"))
                figures[system]["rss_mib"].append(memory(system, Path(tmp) / "load", args.records))
            print(f"[footprint] run {attempt + 1} {system}: cold start {figures[system]['cold_start_s'][-1]:.2f} s, "
                  f"RSS {figures[system]['rss_mib'][-1]:.0f} MiB per broker", flush=True)
    medians = {s: {k: statistics.median_low(v) for k, v in f.items()} for s, f in figures.items()}
    ours, theirs = medians["kafkette"], medians["kafka"]
    print(f"3 nodes, median of {args.repeat}\n"
          "| measure | Kafkette | Apache Kafka | Kafkette / Kafka | target |\n| --- | --- | --- | --- | --- |\n"
          f"| launch to first acks=all acknowledgement (s) | {ours['cold_start_s']:.2f} | "
          f"{theirs['cold_start_s']:.2f} | {ours['cold_start_s'] / theirs['cold_start_s']:.2f}x | <= 0.25x |\n"
          f"| broker RSS after {args.records:,} records (MiB) | {ours['rss_mib']:.0f} | {theirs['rss_mib']:.0f} | "
          f"{ours['rss_mib'] / theirs['rss_mib']:.2f}x | <= 0.5x |")
    out = write_result("footprint", "tests.perf.footprint_bench",
                       {"nodes": NODES, "records": args.records, "runs": figures, "medians": medians})
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
