"""Synchronous helpers for the Spark tests: create topics, produce and consume records
with the SDK against the real test cluster (each call runs and closes its own loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from kafkette.client import (
    AdminClient,
    Consumer,
    ConsumerRecord,
    NewPartitions,
    NewTopic,
    Producer,
    TopicAlreadyExistsError,
    TopicPartition,
)


def create_topic(
    bootstrap: str,
    topic: str,
    partitions: int = 3,
    replication_factor: int = 3,
    configs: dict[str, str] | None = None,
) -> None:
    """Create ``topic`` and wait until it has leaders."""

    async def run() -> None:
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics(
                [
                    NewTopic(
                        topic,
                        num_partitions=partitions,
                        replication_factor=replication_factor,
                        configs=configs or {},
                    )
                ]
            )

    asyncio.run(run())


def produce(
    bootstrap: str,
    topic: str,
    records: Iterable[tuple[bytes | None, bytes, int | None]],
    headers: list[tuple[str, bytes | None]] | None = None,
) -> list[tuple[int, int]]:
    """Produce ``(key, value, partition)`` records with acks=all.

    Returns:
        ``(partition, offset)`` of each record, in order.
    """

    async def run() -> list[tuple[int, int]]:
        async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=2) as producer:
            futures = [
                await producer.send(topic, value, key=key, partition=partition, headers=headers)
                for key, value, partition in records
            ]
            return [(m.partition, m.offset) for m in await asyncio.gather(*futures)]

    return asyncio.run(run())


def consume_all(bootstrap: str, topic: str, timeout_s: float = 60) -> list[ConsumerRecord]:
    """Every record of ``topic`` from the beginning up to its current high watermarks."""

    async def run() -> list[ConsumerRecord]:
        async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
            tps = [TopicPartition(topic, p) for p in sorted(await consumer.partitions_for_topic(topic))]
            consumer.assign(tps)
            ends = await consumer.end_offsets(tps)
            out: list[ConsumerRecord] = []
            async with asyncio.timeout(timeout_s):
                for tp in tps:
                    while await consumer.position(tp) < ends[tp]:
                        for batch in (await consumer.getmany(tp, timeout_ms=500)).values():
                            out.extend(r for r in batch if r.offset < ends[tp])
            return out

    return asyncio.run(run())


def add_partitions(bootstrap: str, topic: str, total_count: int) -> None:
    """Raise ``topic``'s partition count to ``total_count`` (CreatePartitions)."""

    async def run() -> None:
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_partitions({topic: NewPartitions(total_count)})

    asyncio.run(run())


def recreate_topic(bootstrap: str, topic: str, partitions: int, timeout_s: float = 60) -> None:
    """Delete ``topic`` and create it again, empty (retrying while the deletion completes)."""

    async def run() -> None:
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.delete_topics([topic])
            async with asyncio.timeout(timeout_s):
                while True:
                    try:
                        await admin.create_topics(
                            [NewTopic(topic, num_partitions=partitions, replication_factor=3)]
                        )
                        return
                    except TopicAlreadyExistsError:
                        await asyncio.sleep(0.2)

    asyncio.run(run())


def leaders(bootstrap: str, topic: str) -> dict[int, int]:
    """``{partition: leader broker id}`` of ``topic``."""

    async def run() -> dict[int, int]:
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            return {p.partition: p.leader for p in (await admin.describe_topics([topic]))[topic].partitions}

    return asyncio.run(run())


def wait_for_end_offset(
    bootstrap: str, topic: str, partition: int, expected: int, timeout_s: float = 60
) -> None:
    """Wait until the high watermark of ``topic``-``partition`` reaches ``expected`` (after a
    restart the leader's high watermark catches up once its followers fetch)."""

    async def run() -> None:
        tp = TopicPartition(topic, partition)
        async with Consumer(bootstrap_servers=bootstrap) as consumer:
            async with asyncio.timeout(timeout_s):
                while (await consumer.end_offsets([tp]))[tp] < expected:
                    await asyncio.sleep(0.2)

    asyncio.run(run())
