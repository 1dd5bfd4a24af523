"""``python -m tests.perf.footprint_bench``: cold start and memory, Kafkette beside Apache Kafka.

For each system, ``--repeat`` times (default 3, taking turns, the median reported):

- **cold start**: seconds from launching 3 fresh nodes (every node a broker and a voter of the
  metadata quorum) until the first record is acknowledged by a topic replicated 3 times
  (acks=all): the client creates the topic and produces, retrying until both succeed.
  Kafka's storage is formatted before the clock starts (``kafka.tools.StorageTool``; Kafkette
  needs no format step).  Clients: Kafkette's SDK, and aiokafka for Apache Kafka.
- **memory**: each broker's resident set size (VmRSS) after ``--records`` (default 200,000)
  records of 100 B went through it (a topic of 3 partitions replicated 3 times, acks=all) and
  were read back; the mean per broker.
- **CPU**: the brokers' CPU seconds (user + system, all three nodes, from ``/proc/<pid>/stat``)
  spent while those records went in and out, per million records.
  The same client drives both: confluent-kafka (librdkafka), to Kafkette's Kafka listener.

Apache Kafka is the peer of ``tests/peers/kafka_peer.py`` (Kafka 4.3.1, heap 512 MiB, G1).
Prints a table and writes JSON under ``tests/perf/results/``.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.perf.confluent_produce import produce_all
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


def _load(bootstrap: str, records: int) -> None:
    """Create the topic (3 partitions, replication factor 3), produce ``records`` records of 100 B
    with acks=all and read them all back, with confluent-kafka.

    Raises:
        RuntimeError: the topic was not created, records stayed queued or were not read back in time.
    """
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until its future is done
    try:
        admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=NODES)])[TOPIC].result(60)
    except KafkaException as exc:
        raise RuntimeError(f"could not create {TOPIC}: {exc}") from None
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    value = b"x" * 100
    produce_all(producer, TOPIC, value, records, partitions=3)
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "footprint", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(3)])
    count, deadline = 0, time.monotonic() + 300
    while count < records and time.monotonic() < deadline:
        count += sum(1 for m in consumer.consume(num_messages=1000, timeout=1.0) if m.error() is None)
    consumer.close()
    if count < records:
        raise RuntimeError(f"read back {count} of {records} records in 300 s")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds ``pid`` has used (all its threads), from ``/proc/<pid>/stat``.

    Raises:
        OSError: no such process (or no /proc).
    """
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_and_cpu(system: str, data_dir: Path, records: int) -> tuple[float, float]:
    """``(mean broker RSS in MiB, the brokers' CPU seconds per million records)`` after ``records``
    records went through the cluster and back."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    if system == "kafkette":
        with LocalCluster(num_brokers=NODES, data_dir=data_dir, kafka_protocol=True) as cluster:
            pids = list(cluster.pids().values())
            before = sum(cpu_seconds(p) for p in pids)
            _load(cluster.kafka_bootstrap_servers, records)
            used = sum(cpu_seconds(p) for p in pids) - before
            return statistics.mean(rss_bytes(p) for p in pids) / MIB, used / records * 1e6
    with KafkaPeer(data_dir, nodes=NODES) as peer:
        pids = [peer.pid(n) for n in peer.node_ids]
        before = sum(cpu_seconds(p) for p in pids)
        _load(peer.bootstrap_servers, records)
        used = sum(cpu_seconds(p) for p in pids) - before
        return statistics.mean(rss_bytes(p) for p in pids) / MIB, used / records * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per system and measure (default 3)")
    parser.add_argument("--records", type=int, default=200_000, help="records through the cluster before RSS")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.records < 1:
        parser.error("--repeat and --records must be >= 1")
    figures: dict[str, dict[str, list[float]]] = {
        s: {"cold_start_s": [], "rss_mib": [], "cpu_s_per_million": []} for s in ("kafkette", "kafka")
    }
    for attempt in range(args.repeat):
        for system in ("kafkette", "kafka"):
            with tempfile.TemporaryDirectory(prefix=f"footprint-{system}-") as tmp:
                figures[system]["cold_start_s"].append(cold_start(system, Path(tmp) / "cold"))
                rss, cpu = memory_and_cpu(system, Path(tmp) / "load", args.records)
                figures[system]["rss_mib"].append(rss)
                figures[system]["cpu_s_per_million"].append(cpu)
            print(
                f"[footprint] run {attempt + 1} {system}: cold start "
                f"{figures[system]['cold_start_s'][-1]:.2f} s, "
                f"RSS {rss:.0f} MiB per broker, {cpu:.1f} CPU s per million records",
                flush=True,
            )
    medians = {s: {k: statistics.median_low(v) for k, v in f.items()} for s, f in figures.items()}
    ours, theirs = medians["kafkette"], medians["kafka"]
    print(
        f"3 nodes, median of {args.repeat}\n"
        "| measure | Kafkette | Apache Kafka | Kafkette / Kafka | target |\n| --- | --- | --- | --- | --- |\n"
        f"| launch to first acks=all acknowledgement (s) | {ours['cold_start_s']:.2f} | "
        f"{theirs['cold_start_s']:.2f} | {ours['cold_start_s'] / theirs['cold_start_s']:.2f}x | <= 0.25x |\n"
        f"| broker RSS after {args.records:,} records (MiB) | {ours['rss_mib']:.0f} | "
        f"{theirs['rss_mib']:.0f} | {ours['rss_mib'] / theirs['rss_mib']:.2f}x | <= 0.5x |\n"
        f"| brokers' CPU s per million records (in and out) | {ours['cpu_s_per_million']:.1f} | "
        f"{theirs['cpu_s_per_million']:.1f} | "
        f"{ours['cpu_s_per_million'] / theirs['cpu_s_per_million']:.2f}x | - |"
    )
    out = write_result(
        "footprint",
        "tests.perf.footprint_bench",
        {"nodes": NODES, "records": args.records, "runs": figures, "medians": medians},
    )
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
