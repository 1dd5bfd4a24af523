"""``python -m tests.perf.spark_sources_bench``: Spark batch reads of one topic through Spark's own
Kafka source and through Kafkette's ``kafkette`` source.

Spark's Kafka source (``format("kafka")``, ``spark-sql-kafka-0-10_2.13`` 4.2.0, resolved by
``tests/peers/spark_kafka_connector.py``: 4.3.0 is not on Maven Central) against Kafkette's Kafka
listener, Kafkette's own PySpark data source (``format("kafkette")``) against the same
one-broker ``LocalCluster`` and the same topic, and Spark's Kafka source against a one-node Apache
Kafka 4.3.1 peer (384 MiB heap) for reference.  The topic: ``--records`` (default 300,000)
records of ``--size`` (100) B spread evenly over 3 partitions, produced with confluent-kafka
before the clock starts.  One SparkSession ``local[2]`` for every run; a run is a batch read from
the earliest to the latest offsets counting the rows (``df.count()``, planning included), each
source's defaults otherwise.  Both servers are started once and stay up (the Kafka peer's JVM
warm from the fill and the untimed read, as Kafkette's broker); one untimed read per source and
server first (class loading in Spark's and the brokers' JVMs, Python workers), then
``--repeat`` (default 3) timed reads, the three rows taking turns (the order reversed every
other round); the median by records/s is reported.  Prints a table and writes JSON under
``tests/perf/results/``.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.perf.confluent_produce import produce_all
from tests.perf.machine_load import load_average
from tests.perf.results_file import write_result
from tests.perf.warm_runs import round_order

TOPIC = "spark-sources"
PARTITIONS = 3
PEER_HEAP_MB = 384
# (source, server) of a row: "kafka" is Spark's Kafka source, "kafkette" Kafkette's data source
ROWS = (("kafka", "kafkette"), ("kafkette", "kafkette"), ("kafka", "kafka"))
NAMES = {
    ("kafka", "kafkette"): "Spark's Kafka source -> Kafkette (Kafka listener)",
    ("kafkette", "kafkette"): "kafkette source -> Kafkette",
    ("kafka", "kafka"): "Spark's Kafka source -> Apache Kafka",
}
REFERENCE = ("kafka", "kafka")


def spark_session(jars: list[Path]):
    """A SparkSession ``local[2]`` (1 GiB driver) with ``kafkette`` registered and ``jars`` on
    ``spark.jars``."""
    from kafkette.client.spark import KafketteDataSource, configure_spark_environment

    configure_spark_environment()
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("spark-sources-bench")
        .config("spark.driver.memory", "1g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    if jars:
        builder = builder.config("spark.jars", ",".join(str(jar) for jar in jars))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(KafketteDataSource)
    return session


def fill_topic(bootstrap: str, records: int, size: int) -> None:
    """Create the topic (3 partitions, replication factor 1) and produce ``records`` records of
    ``size`` B round-robin over its partitions with confluent-kafka (acks=1).

    Raises:
        RuntimeError: records still undelivered after 120 s.
    """
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)])[TOPIC].result(
        timeout=60
    )
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "1", "linger.ms": 5})
    value = os.urandom(size)
    produce_all(producer, TOPIC, value, records, partitions=PARTITIONS)


def timed_count(spark, source: str, bootstrap: str, records: int) -> float:
    """Seconds of one batch read of the whole topic through ``source`` counting its rows.

    Raises:
        RuntimeError: the count is not ``records``.
    """
    prefix = "kafka" if source == "kafka" else "kafkette"
    reader = (
        spark.read.format(source)
        .option(f"{prefix}.bootstrap.servers", bootstrap)
        .option("subscribe", TOPIC)
        .option("startingOffsets", "earliest")
        .option("endingOffsets", "latest")
    )
    started = time.perf_counter()
    count = reader.load().count()
    elapsed = time.perf_counter() - started
    if count != records:
        raise RuntimeError(f"format({source!r}) counted {count} of {records} records")
    return elapsed


def measure(
    spark,
    pairs: list[tuple[str, str]],
    bootstraps: dict[str, dict[str, str]],
    records: int,
    repeat: int,
    failures: dict[str, str],
) -> dict[tuple[str, str], list[float]]:
    """The timed reads (seconds) of each ``(source, server)`` pair, after one untimed read each,
    the pairs taking turns (``warm_runs.round_order``).

    Args:
        spark: the SparkSession.
        pairs: the ``(source, server)`` rows to read.
        bootstraps: ``{server: {source: bootstrap servers}}`` (where each source reaches each server).
        records: the records in each server's topic.
        repeat: timed reads per pair.
        failures: ``{row name: first error line}``; a failing pair is added and not read again.

    Returns:
        ``{pair: [seconds of each timed read]}``.
    """
    runs: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for attempt in range(repeat + 1):
        for pair in round_order(pairs, attempt):
            if NAMES[pair] in failures:
                continue
            try:
                elapsed = timed_count(spark, pair[0], bootstraps[pair[1]][pair[0]], records)
            except Exception as exc:  # a source or server that cannot run is reported, not fatal
                failures[NAMES[pair]] = str(exc).strip().splitlines()[0][:300]
                print(f"[spark-sources] {NAMES[pair]}: {failures[NAMES[pair]]}", flush=True)
                continue
            if attempt:
                runs[pair].append(elapsed)
            print(
                f"[spark-sources] {'run ' + str(attempt) if attempt else 'warm-up'} {NAMES[pair]}: "
                f"{records / elapsed:,.0f} records/s",
                flush=True,
            )
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300_000, help="records in the topic (default 300,000)")
    parser.add_argument("--size", type=int, default=100, help="bytes per record value (default 100)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed reads per row (default 3; the median is reported)"
    )
    args = parser.parse_args(argv)
    if args.records < 1 or args.size < 0 or args.repeat < 1:
        parser.error("--records and --repeat must be >= 1, --size >= 0")
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer, PeerUnavailable
    from tests.peers.spark_kafka_connector import SPARK_KAFKA_VERSION, connector_jars

    failures: dict[str, str] = {}
    try:
        jars = connector_jars()
    except PeerUnavailable as exc:
        jars = []
        for pair in ROWS:
            if pair[0] == "kafka":
                failures[NAMES[pair]] = str(exc)
        print(f"[spark-sources] Spark's Kafka connector: {exc}", flush=True)
    start_load = load_average()
    spark = spark_session(jars)
    runs: dict[tuple[str, str], list[float]] = {}
    bootstraps: dict[str, dict[str, str]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="spark-sources-") as tmp, contextlib.ExitStack() as servers:
            try:
                cluster = servers.enter_context(
                    LocalCluster(num_brokers=1, data_dir=Path(tmp) / "kafkette", kafka_protocol=True)
                )
                fill_topic(cluster.kafka_bootstrap_servers, args.records, args.size)
                bootstraps["kafkette"] = {
                    "kafka": cluster.kafka_bootstrap_servers,
                    "kafkette": cluster.bootstrap_servers,
                }
            except Exception as exc:  # the server could not run: reported, not fatal
                for pair in ROWS:
                    if pair[1] == "kafkette":
                        failures.setdefault(NAMES[pair], str(exc).strip().splitlines()[0][:300])
                print(f"[spark-sources] Kafkette: {str(exc).strip().splitlines()[0][:300]}", flush=True)
            if NAMES[REFERENCE] not in failures:
                try:
                    peer = servers.enter_context(
                        KafkaPeer(Path(tmp) / "kafka", nodes=1, heap_mb=PEER_HEAP_MB)
                    )
                    fill_topic(peer.bootstrap_servers, args.records, args.size)
                    bootstraps["kafka"] = {"kafka": peer.bootstrap_servers}
                except Exception as exc:  # no Java, Maven or registry: reported, not fatal
                    failures[NAMES[REFERENCE]] = str(exc).strip().splitlines()[0][:300]
                    print(f"[spark-sources] Apache Kafka: {failures[NAMES[REFERENCE]]}", flush=True)
            runs = measure(
                spark,
                [p for p in ROWS if p[1] in bootstraps],
                bootstraps,
                args.records,
                args.repeat,
                failures,
            )
    finally:
        spark.stop()
    rows = [
        {
            "source": pair[0],
            "server": pair[1],
            "name": NAMES[pair],
            "runs": len(seconds),
            "records_per_s": statistics.median_low([args.records / s for s in seconds]),
            "seconds": seconds,
        }
        for pair, seconds in runs.items()
        if seconds
    ]
    reference = next((r for r in rows if (r["source"], r["server"]) == REFERENCE), None)
    lines = [
        f"Spark batch read counting {args.records:,} records of {args.size} B, {PARTITIONS} partitions, "
        f"one node, local[2], median of {args.repeat}",
        "| source -> server | records/s | / Spark's Kafka source -> Apache Kafka |",
        "| --- | ---: | ---: |",
    ]
    for row in rows:
        ratio = f"{row['records_per_s'] / reference['records_per_s']:.2f}x" if reference else "-"
        lines.append(f"| {row['name']} | {row['records_per_s']:,.0f} | {ratio} |")
    print("\n".join(lines))
    out = write_result(
        "spark-sources",
        "tests.perf.spark_sources_bench",
        {
            "records": args.records,
            "size": args.size,
            "partitions": PARTITIONS,
            "repeat": args.repeat,
            "spark_kafka_connector": SPARK_KAFKA_VERSION,
            "pyspark": _pyspark_version(),
            "load": {"start": start_load, "end": load_average()},
            "rows": rows,
            "failures": failures,
        },
    )
    print(f"results: {out}")
    return 0


def _pyspark_version() -> str | None:
    try:
        import pyspark
    except ImportError:
        return None
    return pyspark.__version__


if __name__ == "__main__":
    sys.exit(main())
