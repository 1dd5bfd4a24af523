"""Broker capacity: can one broker on one core take 1,000,000 records/s of 100 B in batches?

The Python producer is the bottleneck of the workloads, so this part takes it out:
each of ``--producers`` load processes encodes one ProduceRequest once (one batch of
``--batch-records`` records per partition it owns, built by ``kafkette.protocol.record_batch``)
and sends that same frame again and again over one connection, with at most
``--in-flight`` requests unanswered, checking every response's error codes.  The broker
process is pinned to CPU 0 and the load processes to the other CPUs
(``sched_setaffinity``, where the machine has more than one).  The figure is the
records the broker acknowledged per second, summed over the load processes, from the
first send to the last acknowledgement.  Kafka concept: what ``redis-benchmark`` and
NATS's Go bench measure for the peers (server capacity).

``python -m tests.perf.broker_capacity load ...`` is one load process (one JSON line).
Does not own the table (``bench_report``) nor the cluster (``client.LocalCluster``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kafkette.client import LocalCluster
from kafkette.client.cli.perf import MB
from kafkette.client.cli.shared_options import run_coroutine
from kafkette.client.local_cluster import HOST
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.produce import (
    ProducePartitionData,
    ProduceRequest,
    ProduceResponse,
    ProduceTopicData,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import LENGTH, decode_response_envelope, encode_request
from kafkette.protocol.record_batch import build_batch
from tests.perf.bench_report import KAFKETTE, Row
from tests.perf.kafkette_workloads import kafkette

PRODUCE_VERSION = API_REGISTRY[ApiKey.PRODUCE].send_version
TIMEOUT_S = 300.0
TOPIC = "capacity"


def produce_frame(
    topic: str, partitions: list[int], batch_records: int, size: int, acks: int, correlation_id: int
) -> bytes:
    """One ProduceRequest frame: one batch of ``batch_records`` values of ``size`` bytes per partition."""
    value = bytes(65 + i % 26 for i in range(size))
    now_ms = int(time.time() * 1000)
    batch = build_batch([(None, value, None, now_ms)] * batch_records)
    request = ProduceRequest(
        transactional_id=None,
        acks=acks,
        timeout_ms=30000,
        topic_data=[
            ProduceTopicData(
                name=topic, partition_data=[ProducePartitionData(index=p, records=batch) for p in partitions]
            )
        ],
    )
    return encode_request(request, PRODUCE_VERSION, correlation_id, "kafkette-capacity-load")


async def load(
    port: int, topic: str, partitions: list[int], requests: int, batch_records: int, size: int, in_flight: int
) -> dict:
    """Send ``requests`` copies of one ProduceRequest (acks=1), at most ``in_flight`` unanswered.

    Returns:
        ``{"records", "start", "end", "errors"}`` (``time.time()`` seconds, records acknowledged).

    Raises:
        RuntimeError: a partition answered an error code (the first one, named).
    """
    frame = produce_frame(topic, partitions, batch_records, size, 1, 1)  # responses matched in order
    reader, writer = await asyncio.open_connection(HOST, port)
    window = asyncio.Semaphore(in_flight)
    acknowledged = 0

    async def read_responses() -> None:
        nonlocal acknowledged
        for _ in range(requests):
            (length,) = LENGTH.unpack(await reader.readexactly(LENGTH.size))
            _, body = decode_response_envelope(await reader.readexactly(length))
            response = ProduceResponse.from_wire(body, PRODUCE_VERSION)
            for topic_response in response.responses:
                for part in topic_response.partition_responses:
                    if part.error_code != Errors.NONE:
                        raise RuntimeError(f"partition {part.index} answered {Errors(part.error_code).name}")
            acknowledged += batch_records * len(partitions)
            window.release()

    try:
        start = time.time()
        reader_task = asyncio.create_task(read_responses())
        try:
            for _ in range(requests):
                async with asyncio.timeout(TIMEOUT_S):
                    await window.acquire()
                if reader_task.done():
                    break  # it failed; raised below
                writer.write(frame)
                await writer.drain()
            await asyncio.wait_for(asyncio.shield(reader_task), timeout=TIMEOUT_S)
        finally:
            if not reader_task.done():
                reader_task.cancel()
                await asyncio.wait([reader_task], timeout=5)
        end = time.time()
    finally:
        writer.close()
        await writer.wait_closed()
    return {"records": acknowledged, "start": start, "end": end}


def capacity(
    data_dir: Path,
    producers: int,
    records_per_producer: int,
    batch_records: int = 1000,
    size: int = 100,
    partitions_per_producer: int = 2,
    in_flight: int = 8,
) -> Row:
    """Run ``producers`` load processes against one broker pinned to one CPU; a ``capacity`` row.

    Raises:
        RuntimeError: a load process failed (its last stderr line).
    """
    per_request = batch_records * partitions_per_producer
    requests = max(1, records_per_producer // per_request)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    with LocalCluster(num_brokers=1, data_dir=data_dir) as cluster:
        bootstrap = cluster.bootstrap_servers
        kafkette(
            "topics",
            "create",
            TOPIC,
            "--partitions",
            str(producers * partitions_per_producer),
            "--replication-factor",
            "1",
            "--bootstrap-server",
            bootstrap,
        )
        pid = cluster.pid(1)
        pinned = len(cpus) > 1 and pid is not None
        if pinned:
            os.sched_setaffinity(pid, {cpus[0]})
        loads = []
        for i in range(producers):
            owned = ",".join(str(i * partitions_per_producer + k) for k in range(partitions_per_producer))
            loads.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.perf.broker_capacity",
                        "load",
                        "--port",
                        str(cluster.ports[1]),
                        "--partitions",
                        owned,
                        "--requests",
                        str(requests),
                        "--batch-records",
                        str(batch_records),
                        "--size",
                        str(size),
                        "--in-flight",
                        str(in_flight),
                        *(["--cpus", ",".join(map(str, cpus[1:]))] if pinned else []),
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        results = []
        for proc in loads:
            try:
                out, err = proc.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate(timeout=TIMEOUT_S)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"capacity load process exited {proc.returncode}: "
                    f"{(err.strip().splitlines() or ['no output'])[-1]}"
                )
            results.append(json.loads(out.strip().splitlines()[-1]))
    records = sum(r["records"] for r in results)
    elapsed = max(r["end"] for r in results) - min(r["start"] for r in results)
    rate = records / elapsed if elapsed > 0 else 0.0
    where = f"broker pinned to CPU {cpus[0]}, load on CPUs {cpus[1:]}" if pinned else "broker not pinned"
    name = f"broker capacity, {size} B in batches of {batch_records:,}, {producers} load processes"
    return Row(
        name,
        KAFKETTE,
        "capacity",
        rate,
        rate * size / MB,
        note=f"{where}; one pre-encoded ProduceRequest resent, acks=1, {in_flight} in flight",
        extra={"producers": producers, "records": records, "elapsed_s": elapsed, "pinned": pinned},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One broker-capacity load process; prints one JSON line")
    parser.add_argument("command", choices=["load"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--partitions", required=True, help="comma-separated partitions of the topic")
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--batch-records", type=int, default=1000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--cpus", help="comma-separated CPUs to run on")
    args = parser.parse_args(argv)
    if args.cpus:
        os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
    partitions = [int(p) for p in args.partitions.split(",")]
    result = run_coroutine(
        load(args.port, TOPIC, partitions, args.requests, args.batch_records, args.size, args.in_flight)
    )
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
