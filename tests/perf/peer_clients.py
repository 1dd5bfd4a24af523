"""The peers' side of each workload, with each system's usual async Python client.

``python -m tests.perf.peer_clients {nats-produce|nats-consume|redis-produce|redis-consume} ...``
runs one producer or one consumer process and prints one JSON line of figures
(``records``, ``records_per_s``, ``mb_per_s``, and for producers the latency
percentiles ``p50_ms`` ... from ``kafkette.client.cli.perf.ProduceStats``, the statistics
``kafkette perf produce`` reports), so every system is measured the same way.

- NATS JetStream (nats-py): ``publish_async`` with at most ``--max-pending`` acks
  outstanding (4000, as the baselines), latency from publish to PubAck; a pull
  consumer (``AckPolicy.NONE``, like a Kafka consumer that does not acknowledge each
  record) reading from the start with ``fetch(1000)``.
- Redis Streams (redis.asyncio, hiredis parser): XADD in pipelines of 1000, latency
  of a record from its pipeline's start to the pipeline's reply; XRANGE chunks of 10,000.

Each client process gets the allocator and collector settings of Kafkette's own client
processes (``kafkette.common.process_tuning``), so neither side gains from them alone.

Owns only the client side; servers are started by ``peer_servers``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from kafkette.client.cli.perf import MB, ProduceStats
from kafkette.client.cli.shared_options import run_coroutine
from kafkette.common.process_tuning import tune_process_memory

STREAM = "BENCH"
SETUP_TIMEOUT_S = 60.0  # a new JetStream cluster elects its meta leader before streams can be added
DRAIN_TIMEOUT_S = 300.0


def _payload(size: int) -> bytes:
    return bytes(65 + i % 26 for i in range(size))


async def nats_produce(
    url: str, subject: str, records: int, size: int, replicas: int, max_pending: int
) -> dict:
    """Create the stream (file storage, ``replicas``) and publish ``records`` values of ``size`` bytes."""
    import nats
    from nats.errors import Error as NatsError
    from nats.js.api import StorageType

    payload = _payload(size)
    nc = await nats.connect(servers=url.split(","), connect_timeout=10, max_reconnect_attempts=3)
    try:
        js = nc.jetstream(publish_async_max_pending=max_pending)
        deadline = time.monotonic() + SETUP_TIMEOUT_S
        while True:
            try:
                await js.add_stream(
                    name=STREAM, subjects=[subject], num_replicas=replicas, storage=StorageType.FILE
                )
                break
            except NatsError:  # e.g. no JetStream meta leader yet in a new cluster
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
        stats = ProduceStats()
        perf_counter = time.perf_counter
        start = perf_counter()
        for _ in range(records):
            sent_at = perf_counter()
            fut = await js.publish_async(subject, payload)
            fut.add_done_callback(lambda f, t=sent_at: stats.record(t, f))
        await asyncio.wait_for(js.publish_async_completed(), timeout=DRAIN_TIMEOUT_S)
        elapsed = perf_counter() - start
    finally:
        await nc.close()
    if stats.first_error is not None:
        raise stats.first_error
    return {"records": records, "errors": stats.errors, **stats.figures(records, size, elapsed)}


async def nats_consume(url: str, subject: str, records: int) -> dict:
    """Read ``records`` values from the start of the stream with a pull consumer, ``fetch(1000)``."""
    import nats
    from nats.errors import TimeoutError as NatsTimeoutError
    from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

    nc = await nats.connect(servers=url.split(","), connect_timeout=10, max_reconnect_attempts=3)
    try:
        js = nc.jetstream()
        config = ConsumerConfig(ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL)
        sub = await js.pull_subscribe(subject, durable="bench-reader", stream=STREAM, config=config)
        count = total_bytes = 0
        start = time.perf_counter()
        while count < records:
            try:
                msgs = await sub.fetch(1000, timeout=5)
            except NatsTimeoutError:
                break
            count += len(msgs)
            total_bytes += sum(len(m.data) for m in msgs)
        elapsed = time.perf_counter() - start
    finally:
        await nc.close()
    return _consumed(count, total_bytes, elapsed)


async def redis_produce(url: str, key: str, records: int, size: int, pipeline_size: int) -> dict:
    """XADD ``records`` entries (one field ``v`` of ``size`` bytes) in pipelines of ``pipeline_size``."""
    import redis.asyncio as aioredis
    from redis.utils import HIREDIS_AVAILABLE

    payload = _payload(size)
    stats = ProduceStats()
    client = aioredis.Redis.from_url(url)
    try:
        await client.delete(key)
        perf_counter = time.perf_counter
        start = perf_counter()
        for first in range(0, records, pipeline_size):
            count = min(pipeline_size, records - first)
            sent_at = perf_counter()
            pipe = client.pipeline(transaction=False)
            for _ in range(count):
                pipe.xadd(key, {"v": payload})
            await pipe.execute()
            latency_ms = (perf_counter() - sent_at) * 1000.0
            for _ in range(count):
                stats.record_latency_ms(latency_ms)
        elapsed = perf_counter() - start
    finally:
        await client.aclose()
    return {"records": records, "hiredis": HIREDIS_AVAILABLE, **stats.figures(records, size, elapsed)}


async def redis_consume(url: str, key: str, records: int, chunk: int) -> dict:
    """XRANGE from the start in chunks of ``chunk`` entries until ``records`` were read."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    try:
        count = total_bytes = 0
        low = "-"
        start = time.perf_counter()
        while count < records:
            entries = await client.xrange(key, min=low, max="+", count=min(chunk, records - count))
            if not entries:
                break
            count += len(entries)
            total_bytes += sum(len(fields[b"v"]) for _, fields in entries)
            low = "(" + entries[-1][0].decode()
        elapsed = time.perf_counter() - start
    finally:
        await client.aclose()
    return _consumed(count, total_bytes, elapsed)


def _consumed(count: int, total_bytes: int, elapsed: float) -> dict:
    rate = count / elapsed if elapsed > 0 else 0.0
    mb_per_s = total_bytes / MB / elapsed if elapsed > 0 else 0.0
    return {"records": count, "records_per_s": rate, "mb_per_s": mb_per_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One peer producer or consumer; prints one JSON line")
    parser.add_argument("command", choices=["nats-produce", "nats-consume", "redis-produce", "redis-consume"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--subject", default="bench", help="NATS subject, or Redis stream key")
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--size", type=int, default=100, help="value size (bytes)")
    parser.add_argument("--replicas", type=int, default=1, help="NATS stream replicas")
    parser.add_argument("--max-pending", type=int, default=4000, help="NATS outstanding async publishes")
    parser.add_argument("--pipeline", type=int, default=1000, help="Redis XADDs per pipeline")
    parser.add_argument("--chunk", type=int, default=10000, help="Redis XRANGE count")
    args = parser.parse_args(argv)
    tune_process_memory()  # the same allocator and collector settings as Kafkette's own client processes
    if args.command == "nats-produce":
        coro = nats_produce(args.url, args.subject, args.records, args.size, args.replicas, args.max_pending)
    elif args.command == "nats-consume":
        coro = nats_consume(args.url, args.subject, args.records)
    elif args.command == "redis-produce":
        coro = redis_produce(args.url, args.subject, args.records, args.size, args.pipeline)
    else:
        coro = redis_consume(args.url, args.subject, args.records, args.chunk)
    print(json.dumps(run_coroutine(coro)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
