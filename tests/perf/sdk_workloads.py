"""What a user of the SDK gets with its default settings: one client process per run.

``python -m tests.perf.sdk_workloads {produce|consume} --bootstrap-server B --topic T
--records N --record-size S`` prints one JSON line of figures (``records``,
``records_per_s``, ``mb_per_s``, and for ``produce`` the latency percentiles
``p50_ms`` ... of ``kafkette.client.cli.perf.ProduceStats``, from ``send`` to the
acknowledgement).

- ``produce``: ``Producer(bootstrap_servers=B, acks=1)`` with every other setting left
  at its default (16 KiB batches, linger 5 ms, 5 requests in flight), and a plain
  ``fut = await producer.send(topic, value)`` per record, as the README shows; no
  ``sleep(0)`` of our own, no batching of sends; ``--keyed`` gives each record its own key.
- ``consume``: ``Consumer(bootstrap_servers=B, auto_offset_reset="earliest")`` with the
  topic's partitions assigned and ``async for record in consumer``, one record at a time.

The client process is tuned as ``kafkette``'s own processes are
(``kafkette.common.process_tuning``), as the peers' client processes are.  Owns only the
client side; the cluster is started by the benchmark.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from kafkette.client import Consumer, Producer, TopicPartition
from kafkette.client.cli.perf import MB, ProduceStats
from kafkette.client.cli.shared_options import run_coroutine
from kafkette.common.process_tuning import tune_process_memory


def _payload(size: int) -> bytes:
    return bytes(65 + i % 26 for i in range(size))


async def produce(bootstrap: str, topic: str, records: int, size: int, keyed: bool = False) -> dict:
    """``await producer.send`` once per record with the default settings (acks=1).

    Args:
        keyed: give each record a distinct key (``b"%010d" % i``), so that the default
            partitioner spreads records over every partition by murmur2, instead of the
            sticky partitioner's one batch at a time.

    Returns:
        ``{"records", "errors", "records_per_s", "mb_per_s", "p50_ms", ...}``.

    Raises:
        KafkaError: the first failed send.
    """
    payload = _payload(size)
    stats = ProduceStats()
    perf_counter = time.perf_counter
    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        await producer.partitions_for(topic)
        start = perf_counter()
        for i in range(records):
            sent_at = perf_counter()
            fut = await producer.send(topic, payload, key=b"%010d" % i if keyed else None)
            fut.add_done_callback(lambda f, t=sent_at: stats.record(t, f))
        await producer.flush()
        elapsed = perf_counter() - start
    if stats.first_error is not None:
        raise stats.first_error
    return {"records": records, "errors": stats.errors, **stats.figures(records, size, elapsed)}


async def consume(bootstrap: str, topic: str, records: int) -> dict:
    """``async for`` over a Consumer of every partition of ``topic`` until ``records`` arrived.

    Returns:
        ``{"records", "records_per_s", "mb_per_s"}`` (bytes are the values' lengths).
    """
    count = 0
    total = 0
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        partitions = sorted(await consumer.partitions_for_topic(topic))
        consumer.assign([TopicPartition(topic, p) for p in partitions])
        start = time.perf_counter()
        async for record in consumer:
            count += 1
            total += len(record.value) if record.value is not None else 0
            if count >= records:
                break
        elapsed = time.perf_counter() - start
    return {"records": count, "records_per_s": count / elapsed, "mb_per_s": total / MB / elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("produce", "consume"))
    parser.add_argument("--bootstrap-server", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--record-size", type=int, default=100)
    parser.add_argument("--keyed", action="store_true", help="a distinct key per record (produce)")
    args = parser.parse_args(argv)
    tune_process_memory()
    if args.command == "produce":
        figures = run_coroutine(
            produce(args.bootstrap_server, args.topic, args.records, args.record_size, args.keyed)
        )
    else:
        figures = run_coroutine(consume(args.bootstrap_server, args.topic, args.records))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
