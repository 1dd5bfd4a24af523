"""A broker under connection abuse: its RSS and whether it still serves, as figures.

``python -m tests.perf.abuse_bench [--idle N] [--slowloris N] [--never-reading N]`` starts
one broker (a LocalCluster of 1 on 127.0.0.1) and, one after another:

- **idle**: opens N connections (default 10,000) that send nothing and reads the broker's RSS;
- **slowloris**: opens N connections (default 20) that each announce a request of
  ``socket.request.max.bytes`` (100 MiB) and send one byte a second for 20 s; the broker's
  peak RSS with ``queued.max.request.bytes`` unset (Kafka's default: no bound), set to
  200 MiB, and set with ``connections.max.idle.ms`` of 10 s (a frame trickling in counts as
  idle here);
- **never-reading**: N clients (default 10) pipeline Metadata requests and never read an
  answer, for 10 s; the broker's RSS.

Meanwhile another client tries produce-and-consume round trips (each bounded to 3 s): the
table says after how many seconds the first succeeded.

Prints a Markdown table and writes ``tests/perf/results/abuse-<UTC timestamp>.json``.  The
figures go in README.md (a benchmark, not a test: no assertion on memory or time).
Kafka concepts: ``SocketServer``'s ``queued.max.request.bytes`` memory pool,
``connections.max.idle.ms``, ``max.connections``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import socket
import struct
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from kafkette.client import (
    AdminClient,
    Consumer,
    KafkaError,
    LocalCluster,
    NewTopic,
    Producer,
    TopicPartition,
)
from kafkette.client.local_cluster import HOST
from kafkette.protocol.apis.metadata import MetadataRequest
from kafkette.protocol.framing import encode_request
from tests.perf.kafkette_workloads import rss_bytes

RESULTS = Path(__file__).parent / "results"
MIB = 1 << 20
FRAME_BYTES = 104_857_600  # socket.request.max.bytes' default
POOL_BYTES = 200 * MIB
TOPIC = "abuse"


def _raise_fd_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


async def _round_trip_ms(bootstrap: str, label: str, timeout_s: float = 10.0) -> float:
    """ms to produce one record (acks=all) and consume it back with new clients.

    Raises:
        KafkaError, TimeoutError: no round trip within ``timeout_s`` seconds.
    """
    started = time.perf_counter()
    timeout_ms = int(timeout_s * 1000)
    async with asyncio.timeout(timeout_s):
        async with Producer(
            bootstrap_servers=bootstrap, request_timeout_ms=timeout_ms, delivery_timeout_ms=timeout_ms
        ) as producer:
            metadata = await (await producer.send(TOPIC, label.encode(), partition=0))
        async with Consumer(bootstrap_servers=bootstrap, request_timeout_ms=timeout_ms) as consumer:
            tp = TopicPartition(TOPIC, 0)
            consumer.assign([tp])
            consumer.seek(tp, metadata.offset)
            while not (await consumer.getmany(timeout_ms=500)).get(tp):
                pass
    return (time.perf_counter() - started) * 1000


async def _served_after_s(bootstrap: str, label: str, deadline_s: float) -> float | None:
    """Seconds until a round trip succeeds (tried again and again, each bounded to 3 s), or None
    when none did within ``deadline_s``."""
    started = time.monotonic()
    while time.monotonic() - started < deadline_s:
        try:
            await _round_trip_ms(bootstrap, label, timeout_s=3.0)
            return time.monotonic() - started
        except (KafkaError, TimeoutError):
            await asyncio.sleep(0.5)
    return None


def _connect_many(port: int, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((HOST, port), timeout=10)
        sockets.append(sock)
    return sockets


async def _idle(cluster: LocalCluster, count: int) -> dict:
    pid = cluster.pid(1)
    before = rss_bytes(pid)
    sockets = await asyncio.to_thread(_connect_many, cluster.ports[1], count)
    try:
        await asyncio.sleep(3)  # the broker accepted them all and went quiet
        rss = rss_bytes(pid)
        served = await _served_after_s(cluster.bootstrap_servers, "idle", 30)
    finally:
        for sock in sockets:
            sock.close()
    return {
        "case": f"{count:,} idle connections",
        "rss_before_mib": before / MIB,
        "rss_mib": rss / MIB,
        "per_connection_kib": (rss - before) / count / 1024,
        "served_after_s": served,
    }


async def _slowloris(cluster: LocalCluster, count: int, label: str, seconds: int = 20) -> dict:
    """``count`` connections announce a 100 MiB request and send one byte a second for
    ``seconds`` s; the broker's peak RSS, and when another client was first served."""
    pid = cluster.pid(1)
    before = rss_bytes(pid)
    header = struct.pack(">i", FRAME_BYTES)
    sockets = await asyncio.to_thread(_connect_many, cluster.ports[1], count)
    peak = before

    async def trickle() -> None:
        nonlocal peak
        for sock in sockets:
            sock.sendall(header + b"\x93")  # the length, then a first byte of msgpack
        for _ in range(seconds):  # one byte a second
            await asyncio.sleep(1)
            for sock in sockets:
                try:
                    sock.send(b"\x00")
                except OSError:
                    pass
            peak = max(peak, rss_bytes(pid))

    trickler = asyncio.create_task(trickle())
    try:
        await asyncio.sleep(2)
        served = await _served_after_s(cluster.bootstrap_servers, "slowloris", seconds - 3)
        await trickler
    finally:
        trickler.cancel()
        await asyncio.gather(trickler, return_exceptions=True)
        for sock in sockets:
            sock.close()
    return {
        "case": f"{count} slowloris connections announcing 100 MiB, {label}",
        "rss_before_mib": before / MIB,
        "rss_mib": peak / MIB,
        "per_connection_kib": (peak - before) / count / 1024,
        "served_after_s": served,
    }


async def _never_reading(cluster: LocalCluster, count: int, seconds: float = 10.0) -> dict:
    pid = cluster.pid(1)
    before = rss_bytes(pid)
    request = encode_request(
        MetadataRequest(topics=None, allow_auto_topic_creation=False), 1, 1, "never-reads"
    )
    writers = [(await asyncio.open_connection(HOST, cluster.ports[1]))[1] for _ in range(count)]
    stop = time.monotonic() + seconds
    sent = 0

    async def pipeline(writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        while time.monotonic() < stop:
            writer.write(request * 100)
            try:
                await asyncio.wait_for(writer.drain(), 0.5)
                sent += 100
            except TimeoutError:
                await asyncio.sleep(0.2)  # the broker stopped reading this connection
            except ConnectionError:
                return

    tasks = [asyncio.create_task(pipeline(w)) for w in writers]
    try:
        await asyncio.sleep(2)
        served = await _served_after_s(cluster.bootstrap_servers, "never-reading", seconds - 2)
        await asyncio.gather(*tasks)
        rss = rss_bytes(pid)
    finally:
        for writer in writers:
            writer.transport.abort()
    return {
        "case": f"{count} clients pipelining Metadata, never reading ({sent:,} requests sent)",
        "rss_before_mib": before / MIB,
        "rss_mib": rss / MIB,
        "per_connection_kib": (rss - before) / count / 1024,
        "served_after_s": served,
    }


async def _with_cluster(configs: dict, data_dir: Path, body) -> dict:
    with LocalCluster(num_brokers=1, data_dir=data_dir, broker_configs=configs) as cluster:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            await admin.create_topics([NewTopic(TOPIC, 1, 1)])
        await _round_trip_ms(cluster.bootstrap_servers, "warm-up")
        return await body(cluster)


async def run(idle: int, slowloris: int, never_reading: int) -> list[dict]:
    _raise_fd_limit(idle + 1000)
    rows = []
    with tempfile.TemporaryDirectory(prefix="abuse-bench-") as tmp:
        base = Path(tmp)
        rows.append(await _with_cluster({}, base / "idle", lambda c: _idle(c, idle)))
        rows.append(await _with_cluster({}, base / "slow", lambda c: _slowloris(c, slowloris, "no pool")))
        rows.append(
            await _with_cluster(
                {"queued.max.request.bytes": POOL_BYTES},
                base / "pool",
                lambda c: _slowloris(c, slowloris, "queued.max.request.bytes=200 MiB"),
            )
        )
        rows.append(
            await _with_cluster(
                {"queued.max.request.bytes": POOL_BYTES, "connections.max.idle.ms": 10_000},
                base / "pool-idle",
                lambda c: _slowloris(c, slowloris, "the same, connections.max.idle.ms=10 s"),
            )
        )
        rows.append(await _with_cluster({}, base / "never", lambda c: _never_reading(c, never_reading)))
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| case | broker RSS before (MiB) | broker RSS, peak (MiB) | per connection (KiB) | "
        "another client served after (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r['case']} | {r['rss_before_mib']:.0f} | {r['rss_mib']:.0f} | {r['per_connection_kib']:.1f} | "
        f"{'not served' if r['served_after_s'] is None else round(r['served_after_s'], 2)} |"
        for r in rows
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=10_000, help="idle connections (default 10,000)")
    parser.add_argument("--slowloris", type=int, default=20, help="slowloris connections (default 20)")
    parser.add_argument("--never-reading", type=int, default=10, help="never-reading clients (default 10)")
    args = parser.parse_args(argv)
    if min(args.idle, args.slowloris, args.never_reading) < 1:
        parser.error("counts must be >= 1")
    rows = asyncio.run(run(args.idle, args.slowloris, args.never_reading))
    print(table(rows))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"abuse-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
