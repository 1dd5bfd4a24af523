"""Producing a fixed number of records with confluent-kafka (librdkafka) as fast as it takes them,
for the benchmarks that load a cluster through Kafka's protocol."""

from __future__ import annotations

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
