"""``kafkette perf produce|consume``: throughput and latency benchmarks.

Owns: the two commands and their statistics (``ProduceStats``: per-record latency
from ``send`` to acknowledgement, percentiles; consume throughput).  Output follows
Kafka's ``kafka-producer-perf-test.sh`` / ``kafka-consumer-perf-test.sh``.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array

import click

from client.cli.shared_options import bootstrap_server_option, run_coroutine
from client.consumer import Consumer
from client.producer import Producer
from protocol.compression import CODEC_BY_NAME
from protocol.topic_partition import TopicPartition

MB = 1024 * 1024


class ProduceStats:
    """Latencies (ms) of acknowledged records and a count of failures."""

    def __init__(self) -> None:
        self.latencies_ms = array("d")
        self.errors = 0
        self.first_error: BaseException | None = None

    def record(self, start: float, fut: asyncio.Future) -> None:
        if fut.cancelled() or fut.exception() is not None:
            self.errors += 1
            if self.first_error is None and not fut.cancelled():
                self.first_error = fut.exception()
            return
        self.latencies_ms.append((time.perf_counter() - start) * 1000.0)

    def percentile(self, sorted_ms: list[float], fraction: float) -> float:
        if not sorted_ms:
            return 0.0
        return sorted_ms[min(int(len(sorted_ms) * fraction), len(sorted_ms) - 1)]

    def summary(self, num_records: int, record_size: int, elapsed_s: float) -> str:
        """The final line of kafka-producer-perf-test."""
        lat = sorted(self.latencies_ms)
        rate = num_records / elapsed_s if elapsed_s > 0 else 0.0
        avg = sum(lat) / len(lat) if lat else 0.0
        return (
            f"{num_records} records sent, {rate:.1f} records/sec ({rate * record_size / MB:.2f} MB/sec), "
            f"{avg:.2f} ms avg latency, {lat[-1] if lat else 0.0:.2f} ms max latency, "
            f"{self.percentile(lat, 0.5):.0f} ms 50th, {self.percentile(lat, 0.95):.0f} ms 95th, "
            f"{self.percentile(lat, 0.99):.0f} ms 99th, {self.percentile(lat, 0.999):.0f} ms 99.9th."
        )


@click.group()
def perf() -> None:
    """Producer and consumer benchmarks."""


@perf.command("produce")
@click.option("--topic", required=True)
@click.option("--num-records", type=click.IntRange(1), required=True)
@click.option("--record-size", type=click.IntRange(0), required=True, help="Value size (bytes).")
@click.option("--throughput", type=int, default=-1, show_default=True,
              help="Max records/s; -1 for no limit.")
@click.option("--acks", type=click.Choice(["all", "-1", "0", "1"]), default="1", show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=16384, show_default=True, help="Bytes per batch.")
@click.option("--linger-ms", type=click.IntRange(0), default=5, show_default=True)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@click.option("--compression-type", type=click.Choice(list(CODEC_BY_NAME)), default="none", show_default=True,
              help="Codec of each batch (the producer's compression.type).")
@bootstrap_server_option
def produce(topic: str, num_records: int, record_size: int, throughput: int, acks: str, batch_size: int,
            linger_ms: int, request_timeout_ms: int, compression_type: str, bootstrap_server: str) -> None:
    """Produce NUM-RECORDS records of RECORD-SIZE bytes and report throughput and latency."""
    if throughput == 0 or throughput < -1:
        raise click.UsageError("--throughput must be a positive number of records/s, or -1")
    rng = random.Random(0)
    payload = bytes(rng.randrange(65, 91) for _ in range(record_size))

    async def run() -> str:
        stats = ProduceStats()
        async with Producer(bootstrap_servers=bootstrap_server, acks=acks, linger_ms=linger_ms,
                            max_batch_size=batch_size, request_timeout_ms=request_timeout_ms,
                            compression_type=compression_type,
                            client_id="kafkette-perf-producer") as producer:
            await producer.partitions_for(topic)
            perf_counter = time.perf_counter
            start = perf_counter()
            for i in range(num_records):
                sent_at = perf_counter()
                fut = await producer.send(topic, payload)
                fut.add_done_callback(lambda f, t=sent_at: stats.record(t, f))
                if throughput > 0 and (i + 1) > throughput * (perf_counter() - start):
                    await asyncio.sleep((i + 1) / throughput - (perf_counter() - start))
                elif i % 1000 == 999:
                    await asyncio.sleep(0)  # let the sender and callbacks run
                if stats.first_error is not None:
                    raise stats.first_error
            await producer.flush()
            elapsed = perf_counter() - start
        if stats.first_error is not None:
            raise stats.first_error
        return stats.summary(num_records, record_size, elapsed)

    click.echo(run_coroutine(run()))


@perf.command("consume")
@click.option("--topic", required=True)
@click.option("--messages", type=click.IntRange(1), required=True, help="Records to consume.")
@click.option("--timeout-ms", type=click.IntRange(1), default=10000, show_default=True,
              help="Give up when no record arrives for this long (ms).")
@click.option("--fetch-max-wait-ms", type=click.IntRange(0), default=500, show_default=True)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def consume(topic: str, messages: int, timeout_ms: int, fetch_max_wait_ms: int, request_timeout_ms: int,
            bootstrap_server: str) -> None:
    """Consume MESSAGES records from the beginning of TOPIC and report throughput."""

    async def run() -> tuple[int, int, float]:
        count = 0
        total_bytes = 0
        async with Consumer(bootstrap_servers=bootstrap_server, auto_offset_reset="earliest",
                            fetch_max_wait_ms=fetch_max_wait_ms, request_timeout_ms=request_timeout_ms,
                            client_id="kafkette-perf-consumer") as consumer:
            partitions = sorted(await consumer.partitions_for_topic(topic))
            consumer.assign([TopicPartition(topic, p) for p in partitions])
            start = last_record = time.perf_counter()
            while count < messages:
                batches = await consumer.getmany(timeout_ms=200, max_records=messages - count)
                now = time.perf_counter()
                if not batches:
                    if (now - last_record) * 1000 >= timeout_ms:
                        break
                    continue
                last_record = now
                for records in batches.values():
                    count += len(records)
                    for r in records:
                        total_bytes += len(r.value) if r.value is not None else 0
            elapsed = time.perf_counter() - start
        return count, total_bytes, elapsed

    count, total_bytes, elapsed = run_coroutine(run())
    mb = total_bytes / MB
    rate = count / elapsed if elapsed > 0 else 0.0
    click.echo("data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, elapsed.sec")
    click.echo(f"{mb:.4f}, {mb / elapsed if elapsed > 0 else 0.0:.4f}, {count}, {rate:.1f}, {elapsed:.3f}")
    click.echo(f"{count} records consumed, {rate:.1f} records/sec ({mb / elapsed if elapsed > 0 else 0:.2f} MB/sec)")
    if count < messages:
        raise click.ClickException(f"Only {count} of {messages} records consumed before --timeout-ms expired")
