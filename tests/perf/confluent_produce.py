"""Producing a fixed number of records with confluent-kafka (librdkafka) as fast as it takes them,
and reading them back, for the benchmarks that load a cluster through Kafka's protocol."""

from __future__ import annotations

import time
from typing import Any


def produce_all(
    producer: Any, topic: str, value: bytes, records: int, partitions: int = 1, flush_timeout_s: float = 120
) -> None:
    """Send ``records`` copies of ``value`` to ``topic``, record ``i`` to partition
    ``i % partitions``, serving delivery reports whenever librdkafka's local queue is full, then
    flush.

    Args:
        producer: a ``confluent_kafka.Producer``.
        flush_timeout_s: bound of the final flush (s).

    Raises:
        RuntimeError: records were still queued after ``flush_timeout_s``.
    """
    for index in range(records):
        while True:
            try:
                producer.produce(topic, value, partition=index % partitions)
                break
            except BufferError:  # the local queue is full: serve delivery reports, then retry
                producer.poll(0.05)
        producer.poll(0)
    if producer.flush(flush_timeout_s) != 0:
        raise RuntimeError(f"confluent-kafka: records still queued after {flush_timeout_s:.0f} s")


def consume_all(consumer: Any, topic: str, records: int, partitions: int = 1, timeout_s: float = 300) -> None:
    """Read ``records`` records from ``topic``'s partitions 0..``partitions - 1`` from offset 0
    (``assign``, no group join), ``consume(1000)`` at a time, then close the consumer.

    Args:
        consumer: a ``confluent_kafka.Consumer`` (its ``group.id`` unused but required).
        timeout_s: bound of the whole read (s).

    Raises:
        RuntimeError: fewer than ``records`` records were read within ``timeout_s``.
    """
    from confluent_kafka import TopicPartition

    count = 0
    try:
        consumer.assign([TopicPartition(topic, partition, 0) for partition in range(partitions)])
        deadline = time.monotonic() + timeout_s
        while count < records and time.monotonic() < deadline:
            count += sum(1 for m in consumer.consume(num_messages=1000, timeout=1.0) if m.error() is None)
    finally:
        consumer.close()
    if count < records:
        raise RuntimeError(f"confluent-kafka read {count} of {records} records")
