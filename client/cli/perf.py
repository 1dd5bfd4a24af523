"""``kafkette perf produce|consume|end-to-end``: throughput and latency benchmarks.

Owns: the three commands and their statistics (``ProduceStats``: per-record latency
from ``send`` to acknowledgement; ``percentile``; consume throughput; end-to-end
latency from ``send`` to receipt by a consumer).  Output follows Kafka's
``kafka-producer-perf-test.sh``, ``kafka-consumer-perf-test.sh`` and
``kafka.tools.EndToEndLatency``; ``tests/perf/bench.py`` parses these lines (stdout), and the
peers' benchmark clients (``tests/perf/``) use the same ``ProduceStats``, so the
tools and the benchmark report the same figures.  Client properties come from
``--command-config FILE`` (spelled ``--producer.config`` / ``--consumer.config`` too, as
in Kafka's perf tools; end-to-end gives each client the properties it takes), under the
commands' own flags.  While ``perf produce`` runs, a progress line is drawn on stderr when it
is a terminal; otherwise (a pipe, a file, a CI log) stderr gets ProducerPerformance's window
line every 5 s (``N records sent, X records/sec (Y MB/sec), Z ms avg latency, W ms max
latency.``).  Does not own the producer or consumer
(``kafkette.client.producer``, ``kafkette.client.consumer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
import sys
import time
from array import array
from collections.abc import AsyncIterator
from typing import IO

import click

from kafkette.client.cli.progress import progress_bar
from kafkette.client.cli.shared_options import (
    acks_option,
    bootstrap_server_option,
    command_config_alias_option,
    run_coroutine,
    sdk_settings,
)
from kafkette.client.consumer import Consumer
from kafkette.client.producer import Producer
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.protocol.compression import CODEC_BY_NAME
from kafkette.protocol.topic_partition import TopicPartition

MB = 1024 * 1024
REPORTING_INTERVAL_S = 5.0  # ProducerPerformance's reportingInterval (5000 ms)
SEND_TIME = struct.Struct(">q")  # end-to-end: the first 8 bytes of a value, perf_counter_ns at send


def percentile(sorted_ms: list[float], fraction: float) -> float:
    """The ``fraction`` percentile of ascending latencies, as Kafka's perf tools pick it.

    Args:
        sorted_ms: latencies in ascending order (ms).
        fraction: 0.5 for the median, 0.99 for p99, ...

    Returns:
        ``sorted_ms[int(len * fraction)]`` (clamped to the last element); 0.0 when empty.
    """
    if not sorted_ms:
        return 0.0
    return sorted_ms[min(int(len(sorted_ms) * fraction), len(sorted_ms) - 1)]


class ProduceStats:
    """Latencies (ms) of acknowledged records and a count of failures.

    Kafka concept: the ``Stats`` of ``ProducerPerformance`` (latency from ``send`` to
    the acknowledgement's callback).
    """

    def __init__(self) -> None:
        self.latencies_ms = array("d")
        self.errors = 0
        self.first_error: BaseException | None = None
        self._window_start_index = 0  # the first acknowledgement of the current window

    def record(self, start: float, fut: asyncio.Future) -> None:
        """Done-callback of one send: its latency since ``start`` (``perf_counter`` s), or a failure."""
        if fut.cancelled() or fut.exception() is not None:
            self.errors += 1
            if self.first_error is None and not fut.cancelled():
                self.first_error = fut.exception()
            return
        self.latencies_ms.append((time.perf_counter() - start) * 1000.0)

    def record_latency_ms(self, latency_ms: float) -> None:
        """Add one acknowledged record's latency (ms), for clients without futures."""
        self.latencies_ms.append(latency_ms)

    def window(self, record_size: int, elapsed_s: float) -> str:
        """ProducerPerformance's window line for the records acknowledged since the last
        window (or the start), and start a new window.

        Args:
            record_size: value size (bytes).
            elapsed_s: how long the window lasted (s).

        Returns:
            ``N records sent, X records/sec (Y MB/sec), Z ms avg latency, W ms max latency.``
            (latencies in ms, one decimal, as Kafka prints them; MB = 2**20 bytes).
        """
        window = self.latencies_ms[self._window_start_index :]
        self._window_start_index = len(self.latencies_ms)
        count = len(window)
        rate = count / elapsed_s if elapsed_s > 0 else 0.0
        return (
            f"{count} records sent, {rate:.1f} records/sec ({rate * record_size / MB:.2f} MB/sec), "
            f"{sum(window) / count if count else 0.0:.1f} ms avg latency, "
            f"{max(window) if count else 0.0:.1f} ms max latency."
        )

    def figures(self, num_records: int, record_size: int, elapsed_s: float) -> dict[str, float]:
        """Throughput and latency of a run, the figures the benchmark tables.

        Args:
            num_records: records sent.
            record_size: value size (bytes).
            elapsed_s: wall time from the first send to the last acknowledgement (s).

        Returns:
            ``records_per_s``, ``mb_per_s`` (MB = 2**20 bytes), ``avg_ms``, ``max_ms``,
            ``p50_ms``, ``p95_ms``, ``p99_ms``, ``p999_ms``.
        """
        lat = sorted(self.latencies_ms)
        rate = num_records / elapsed_s if elapsed_s > 0 else 0.0
        return {
            "records_per_s": rate,
            "mb_per_s": rate * record_size / MB,
            "avg_ms": sum(lat) / len(lat) if lat else 0.0,
            "max_ms": lat[-1] if lat else 0.0,
            "p50_ms": percentile(lat, 0.5),
            "p95_ms": percentile(lat, 0.95),
            "p99_ms": percentile(lat, 0.99),
            "p999_ms": percentile(lat, 0.999),
        }

    def summary(self, num_records: int, record_size: int, elapsed_s: float) -> str:
        """The final line of kafka-producer-perf-test (percentiles with two decimals, in ms)."""
        f = self.figures(num_records, record_size, elapsed_s)
        return (
            f"{num_records} records sent, {f['records_per_s']:.1f} records/sec ({f['mb_per_s']:.2f} MB/sec), "
            f"{f['avg_ms']:.2f} ms avg latency, {f['max_ms']:.2f} ms max latency, "
            f"{f['p50_ms']:.2f} ms 50th, {f['p95_ms']:.2f} ms 95th, "
            f"{f['p99_ms']:.2f} ms 99th, {f['p999_ms']:.2f} ms 99.9th."
        )


async def report_windows(
    stats: ProduceStats, record_size: int, stream: IO[str], interval_s: float = REPORTING_INTERVAL_S
) -> None:
    """Print ``stats.window`` to ``stream`` every ``interval_s`` seconds until cancelled
    (ProducerPerformance's progress lines, for a stderr that is not a terminal)."""
    started = time.perf_counter()
    while True:
        await asyncio.sleep(interval_s)
        now = time.perf_counter()
        print(stats.window(record_size, now - started), file=stream, flush=True)
        started = now


@contextlib.asynccontextmanager
async def windows_unless_terminal(
    stats: ProduceStats, record_size: int, stream: IO[str] | None = None
) -> AsyncIterator[None]:
    """Report ``stats``' windows to ``stream`` (default stderr) while the block runs, unless it
    is a terminal (the progress bar is drawn there instead); the reporting task is a
    ``ShutdownableTask``, shut down (bounded) on the way out."""
    out = sys.stderr if stream is None else stream
    try:
        terminal = out.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        yield
        return
    reporter = ShutdownableTask("perf-produce-windows")
    reporter.start(lambda: report_windows(stats, record_size, out))
    try:
        yield
    finally:
        await reporter.shutdown()


@click.group()
def perf() -> None:
    """Producer and consumer benchmarks."""


@perf.command("produce")
@click.option("--topic", required=True)
@click.option("--num-records", type=click.IntRange(1), required=True)
@click.option("--record-size", type=click.IntRange(0), required=True, help="Value size (bytes).")
@click.option("--throughput", type=int, default=-1, show_default=True, help="Max records/s; -1 for no limit.")
@acks_option()
@click.option(
    "--batch-size", type=click.IntRange(1), default=16384, show_default=True, help="Bytes per batch."
)
@click.option("--linger-ms", type=click.IntRange(0), default=5, show_default=True)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@click.option(
    "--compression-type",
    type=click.Choice(list(CODEC_BY_NAME)),
    default="none",
    show_default=True,
    help="Codec of each batch (the producer's compression.type).",
)
@command_config_alias_option("--producer.config")
@bootstrap_server_option
def produce(
    topic: str,
    num_records: int,
    record_size: int,
    throughput: int,
    acks: str,
    batch_size: int,
    linger_ms: int,
    request_timeout_ms: int,
    compression_type: str,
    bootstrap_server: str,
) -> None:
    """Produce NUM-RECORDS records of RECORD-SIZE bytes and report throughput and latency."""
    if throughput == 0 or throughput < -1:
        raise click.UsageError("--throughput must be a positive number of records/s, or -1")
    rng = random.Random(0)
    payload = bytes(rng.randrange(65, 91) for _ in range(record_size))

    settings = sdk_settings(
        Producer,
        flags={
            "bootstrap_servers": ("bootstrap_server", bootstrap_server),
            "acks": ("acks", acks),
            "linger_ms": ("linger_ms", linger_ms),
            "max_batch_size": ("batch_size", batch_size),
            "request_timeout_ms": ("request_timeout_ms", request_timeout_ms),
            "compression_type": ("compression_type", compression_type),
            "client_id": (None, "kafkette-perf-producer"),
        },
    )

    async def run() -> str:
        stats = ProduceStats()
        async with Producer(**settings) as producer:
            await producer.partitions_for(topic)
            perf_counter = time.perf_counter
            start = perf_counter()
            async with windows_unless_terminal(stats, record_size):
                with progress_bar("perf produce", total=num_records) as progress:
                    for i in range(num_records):
                        sent_at = perf_counter()
                        fut = await producer.send(topic, payload)
                        fut.add_done_callback(lambda f, t=sent_at: stats.record(t, f))
                        if throughput > 0 and (i + 1) > throughput * (perf_counter() - start):
                            await asyncio.sleep((i + 1) / throughput - (perf_counter() - start))
                        elif i % 1000 == 999:
                            await asyncio.sleep(0)  # let the sender, callbacks and window reports run
                        if i % 1000 == 999:
                            progress.update(1000)
                        if stats.first_error is not None:
                            raise stats.first_error
                    progress.update(num_records - progress.n)
                    await producer.flush()
            elapsed = perf_counter() - start
        if stats.first_error is not None:
            raise stats.first_error
        return stats.summary(num_records, record_size, elapsed)

    click.echo(run_coroutine(run()))


@perf.command("consume")
@click.option("--topic", required=True)
@click.option("--messages", type=click.IntRange(1), required=True, help="Records to consume.")
@click.option(
    "--timeout-ms",
    type=click.IntRange(1),
    default=10000,
    show_default=True,
    help="Give up when no record arrives for this long (ms).",
)
@click.option("--fetch-max-wait-ms", type=click.IntRange(0), default=500, show_default=True)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@command_config_alias_option("--consumer.config")
@bootstrap_server_option
def consume(
    topic: str,
    messages: int,
    timeout_ms: int,
    fetch_max_wait_ms: int,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Consume MESSAGES records from the beginning of TOPIC and report throughput."""

    settings = sdk_settings(
        Consumer,
        flags={
            "bootstrap_servers": ("bootstrap_server", bootstrap_server),
            "auto_offset_reset": (None, "earliest"),
            "fetch_max_wait_ms": ("fetch_max_wait_ms", fetch_max_wait_ms),
            "request_timeout_ms": ("request_timeout_ms", request_timeout_ms),
            "client_id": (None, "kafkette-perf-consumer"),
        },
    )

    async def run() -> tuple[int, int, float]:
        count = 0
        total_bytes = 0
        async with Consumer(**settings) as consumer:
            partitions = sorted(await consumer.partitions_for_topic(topic))
            consumer.assign([TopicPartition(topic, p) for p in partitions])
            start = last_record = time.perf_counter()
            with progress_bar("perf consume", total=messages) as progress:
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
                        progress.update(len(records))
                        for r in records:
                            total_bytes += len(r.value) if r.value is not None else 0
            elapsed = time.perf_counter() - start
        return count, total_bytes, elapsed

    count, total_bytes, elapsed = run_coroutine(run())
    mb = total_bytes / MB
    rate = count / elapsed if elapsed > 0 else 0.0
    click.echo("data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, elapsed.sec")
    click.echo(f"{mb:.4f}, {mb / elapsed if elapsed > 0 else 0.0:.4f}, {count}, {rate:.1f}, {elapsed:.3f}")
    click.echo(
        f"{count} records consumed, {rate:.1f} records/sec ({mb / elapsed if elapsed > 0 else 0:.2f} MB/sec)"
    )
    if count < messages:
        raise click.ClickException(f"Only {count} of {messages} records consumed before --timeout-ms expired")


class EndToEndStats:
    """Latencies (ms) from ``send`` to receipt by a consumer in the same process.

    Each value starts with ``SEND_TIME`` (``time.perf_counter_ns()`` at send), so one
    clock measures both ends.  Kafka concept: ``kafka.tools.EndToEndLatency``.
    """

    def __init__(self) -> None:
        self.latencies_ms = array("d")

    def receive(self, value: bytes | None, received_ns: int) -> bool:
        """Record one received value; False when it carries no send time (too short)."""
        if value is None or len(value) < SEND_TIME.size:
            return False
        (sent_ns,) = SEND_TIME.unpack_from(value)
        self.latencies_ms.append((received_ns - sent_ns) / 1e6)
        return True

    def summary(self, elapsed_s: float) -> str:
        """Two lines: count, rate and average, then p50 / p99 / p99.9 (ms, two decimals)."""
        lat = sorted(self.latencies_ms)
        rate = len(lat) / elapsed_s if elapsed_s > 0 else 0.0
        avg = sum(lat) / len(lat) if lat else 0.0
        return (
            f"{len(lat)} records received, {rate:.1f} records/sec, Avg latency: {avg:.4f} ms\n"
            f"Percentiles: 50th = {percentile(lat, 0.5):.2f} ms, 99th = {percentile(lat, 0.99):.2f} ms, "
            f"99.9th = {percentile(lat, 0.999):.2f} ms"
        )


async def _receive_all(
    consumer: Consumer, stats: EndToEndStats, num_records: int, sending_done: asyncio.Event, timeout_ms: int
) -> None:
    """Consume until ``num_records`` carried a send time, or nothing came for ``timeout_ms``
    after the last send (returns early then; the caller reports the shortfall)."""
    loop = asyncio.get_running_loop()
    received = 0
    last_progress = loop.time()
    while received < num_records:
        batches = await consumer.getmany(timeout_ms=100, max_records=num_records - received)
        now_ns = time.perf_counter_ns()
        if not batches:
            if sending_done.is_set() and (loop.time() - last_progress) * 1000 >= timeout_ms:
                return
            continue
        last_progress = loop.time()
        for records in batches.values():
            for r in records:
                received += stats.receive(r.value, now_ns)


@perf.command("end-to-end")
@click.option("--topic", required=True)
@click.option("--num-records", type=click.IntRange(1), required=True)
@click.option(
    "--record-size",
    type=click.IntRange(SEND_TIME.size),
    default=100,
    show_default=True,
    help="Value size (bytes); the first 8 hold the send time.",
)
@click.option(
    "--throughput", type=click.IntRange(1), default=10000, show_default=True, help="Records/s sent."
)
@acks_option()
@click.option("--linger-ms", type=click.IntRange(0), default=0, show_default=True)
@click.option("--fetch-max-wait-ms", type=click.IntRange(0), default=500, show_default=True)
@click.option(
    "--timeout-ms",
    type=click.IntRange(1),
    default=10000,
    show_default=True,
    help="After the last send, give up when no record arrives for this long (ms).",
)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def end_to_end(
    topic: str,
    num_records: int,
    record_size: int,
    throughput: int,
    acks: str,
    linger_ms: int,
    fetch_max_wait_ms: int,
    timeout_ms: int,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Send NUM-RECORDS at THROUGHPUT records/s and report latency from send to receipt.

    A consumer in the same process is assigned every partition of TOPIC at its end
    before the first send; each value carries its send time.  Prints p50, p99 and
    p99.9 in ms, as Kafka's EndToEndLatency tool.
    """
    padding = b"x" * (record_size - SEND_TIME.size)
    common = {
        "bootstrap_servers": ("bootstrap_server", bootstrap_server),
        "request_timeout_ms": ("request_timeout_ms", request_timeout_ms),
    }
    consumer_settings = sdk_settings(
        Consumer,
        flags={
            **common,
            "auto_offset_reset": (None, "latest"),
            "fetch_max_wait_ms": ("fetch_max_wait_ms", fetch_max_wait_ms),
            "client_id": (None, "kafkette-perf-end-to-end-consumer"),
        },
        shared_with=(Producer,),
    )
    producer_settings = sdk_settings(
        Producer,
        flags={
            **common,
            "acks": ("acks", acks),
            "linger_ms": ("linger_ms", linger_ms),
            "client_id": (None, "kafkette-perf-end-to-end-producer"),
        },
        shared_with=(Consumer,),
    )

    async def run() -> tuple[EndToEndStats, float]:
        stats = EndToEndStats()
        sending_done = asyncio.Event()
        async with Consumer(**consumer_settings) as consumer, Producer(**producer_settings) as producer:
            partitions = await producer.partitions_for(topic)
            assigned = [TopicPartition(topic, p) for p in partitions]
            consumer.assign(assigned)
            for tp in assigned:  # resolve "latest" before anything is sent
                await consumer.position(tp)
            failures: list[BaseException] = []

            def on_ack(fut: asyncio.Future) -> None:
                if not fut.cancelled() and fut.exception() is not None:
                    failures.append(fut.exception())

            receiver = asyncio.create_task(
                _receive_all(consumer, stats, num_records, sending_done, timeout_ms)
            )
            try:
                perf_counter = time.perf_counter
                start = perf_counter()
                for i in range(num_records):
                    fut = await producer.send(topic, SEND_TIME.pack(time.perf_counter_ns()) + padding)
                    fut.add_done_callback(on_ack)
                    if failures:
                        raise failures[0]
                    if (i + 1) > throughput * (perf_counter() - start):
                        await asyncio.sleep((i + 1) / throughput - (perf_counter() - start))
                    if receiver.done():
                        break  # it failed; its exception is raised below
                await producer.flush(timeout=request_timeout_ms / 1000)
                if failures:
                    raise failures[0]
                sending_done.set()
                await asyncio.wait_for(
                    asyncio.shield(receiver), timeout=(timeout_ms + request_timeout_ms) / 1000
                )
                elapsed = perf_counter() - start
            finally:
                if not receiver.done():
                    receiver.cancel()
                    await asyncio.wait([receiver], timeout=5)
                elif not receiver.cancelled():
                    receiver.exception()  # retrieved; re-raised by the await above when set
        return stats, elapsed

    stats, elapsed = run_coroutine(run())
    click.echo(stats.summary(elapsed))
    received = len(stats.latencies_ms)
    if received < num_records:
        raise click.ClickException(
            f"Only {received} of {num_records} records received before --timeout-ms expired"
        )
