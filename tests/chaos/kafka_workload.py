"""The chaos harness's workload over Apache Kafka's binary protocol, with aiokafka: the same
functions as ``tests/chaos/workload.py`` (Kafkette's SDK) and the same outcomes, so one checker
judges Apache Kafka, Kafkette's Kafka-protocol listener and Kafkette's own protocol alike.

Producers are ``AIOKafkaProducer`` (acks and idempotence as the scenario says; aiokafka has no
``delivery.timeout.ms``: a batch without a leader expires after ``request_timeout_ms``, and a
request without an answer is retried after it), driven by the shared ``ProducerSends``.
Readers are ``AIOKafkaConsumer``: one assigned every partition while the faults run, members of
a consumer group that commit after every poll (a member that fails is replaced), and the final
read of every partition from its start up to the end offsets (ListOffsets) taken when it starts.
Admin calls (CreateTopics, OffsetFetch) go through ``AIOKafkaAdminClient``.  This module owns
only clients; the cluster and its faults are ``tests/chaos/run.py``'s and ``nemesis.py``'s.
"""

from __future__ import annotations

import asyncio
import logging

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError

from kafkette.client import TopicPartition as KafketteTopicPartition
from tests.chaos.workload import (
    DELIVERY_TIMEOUT_MS,
    GROUP_SESSION_TIMEOUT_MS,
    REQUEST_TIMEOUT_MS,
    Outcomes,
    ProducerSends,
)

logger = logging.getLogger(__name__)

# A rebalance waits at most this long for the members to rejoin (JoinGroup's rebalance timeout,
# max.poll.interval.ms; aiokafka's default of 300 s would outlast a run).
GROUP_REBALANCE_TIMEOUT_MS = 30_000
ADMIN_TIMEOUT_S = 60.0  # bound of each admin call, connecting included


def _kafka_tps(tps: list[KafketteTopicPartition]) -> list[TopicPartition]:
    return [TopicPartition(tp.topic, tp.partition) for tp in tps]


async def create_topic(
    bootstrap: str, topic: str, partitions: int, replication_factor: int, configs: dict[str, str]
) -> None:
    """Create the workload's topic (CreateTopics) with ``configs`` (topic-level names).

    Raises:
        aiokafka.errors.KafkaError: the broker refused it.
    """
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30_000)
    try:
        async with asyncio.timeout(ADMIN_TIMEOUT_S):
            await admin.start()
            response = await admin.create_topics(
                [NewTopic(topic, partitions, replication_factor, topic_configs=dict(configs))]
            )
    finally:
        await admin.close()
    for error in getattr(response, "topic_errors", []):
        if error[1] != 0:
            raise KafkaError(f"CreateTopics {topic}: error code {error[1]} ({error[2:]})")


async def committed_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """``{partition: committed offset}`` of ``group`` on ``topic`` (FindCoordinator and OffsetFetch,
    60 s bound)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30_000)
    try:
        async with asyncio.timeout(ADMIN_TIMEOUT_S):
            await admin.start()
            offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


async def produce(
    bootstrap: str,
    topic: str,
    partitions: int,
    producer: int,
    run: str,
    stop: asyncio.Event,
    outcomes: Outcomes,
    *,
    acks: str | int,
    idempotence: bool,
    rate: float = 200.0,
    max_outstanding: int = 20,
) -> None:
    """Send values until ``stop`` is set, then wait (at most the delivery timeout, 30 s) for the
    outstanding ones; as ``workload.produce``, with an ``AIOKafkaProducer``.

    Args:
        producer: this producer's index (part of each value).
        run: the run's label (part of each value, so that values are unique across runs).
        acks: ``"all"``/``-1``, ``1`` or ``0``.
        idempotence: ``enable_idempotence`` (KIP-98's producer id and sequence numbers).
        rate: sends a second (upper bound).
        max_outstanding: sends awaiting an answer at most.
    """
    sends = ProducerSends(producer, outcomes)
    client = AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        acks=-1 if acks == "all" else acks,
        enable_idempotence=idempotence,
        linger_ms=5,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
        retry_backoff_ms=100,
    )
    try:
        await asyncio.wait_for(client.start(), REQUEST_TIMEOUT_MS / 1000 * 6)
        await sends.run(
            lambda value, partition: client.send(topic, value, partition=partition),
            client.flush,
            (KafkaError,),
            partitions,
            run,
            stop,
            rate,
            max_outstanding,
        )
    finally:
        try:
            await asyncio.wait_for(client.stop(), DELIVERY_TIMEOUT_MS / 1000)
        except (TimeoutError, KafkaError) as exc:
            logger.warning("[KafkaWorkload] producer %d did not stop cleanly (%r)", producer, exc)
    sends.close()


async def read_continuously(
    bootstrap: str, tps: list[KafketteTopicPartition], stop: asyncio.Event, into: list[tuple[int, int, bytes]]
) -> None:
    """Read ``tps`` from their start until ``stop`` is set, appending ``(partition, offset, value)``;
    a consumer that fails is replaced and reads on from where it was."""
    kafka_tps = _kafka_tps(tps)
    positions = {tp: 0 for tp in kafka_tps}
    while not stop.is_set():
        try:
            async with AIOKafkaConsumer(
                bootstrap_servers=bootstrap,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                request_timeout_ms=REQUEST_TIMEOUT_MS,
            ) as consumer:
                consumer.assign(kafka_tps)
                for tp, offset in positions.items():
                    consumer.seek(tp, offset)
                while not stop.is_set():
                    for tp, records in (await consumer.getmany(timeout_ms=200)).items():
                        for record in records:
                            into.append((tp.partition, record.offset, record.value))
                            positions[tp] = record.offset + 1
        except KafkaError as exc:
            logger.info("[KafkaWorkload] reader failed (%r); starting another", exc)
            await asyncio.sleep(0.5)


async def consume_in_group(
    bootstrap: str, topic: str, group: str, stop: asyncio.Event, into: list[tuple[int, int, bytes]]
) -> None:
    """Read ``topic`` as a member of ``group`` until ``stop`` is set, committing the positions after
    each poll that returned records, appending ``(partition, offset, value)``; a member that fails
    (its coordinator gone, a rebalance lost) is replaced by a new one."""
    while not stop.is_set():
        try:
            async with AIOKafkaConsumer(
                topic,
                bootstrap_servers=bootstrap,
                group_id=group,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                request_timeout_ms=REQUEST_TIMEOUT_MS,
                session_timeout_ms=GROUP_SESSION_TIMEOUT_MS,
                heartbeat_interval_ms=1000,
                max_poll_interval_ms=GROUP_REBALANCE_TIMEOUT_MS,
            ) as consumer:
                while not stop.is_set():
                    batch = await consumer.getmany(timeout_ms=200)
                    for tp, records in batch.items():
                        into.extend((tp.partition, r.offset, r.value) for r in records)
                    if batch:
                        try:
                            await consumer.commit()
                        except KafkaError as exc:  # a rebalance: read again from the last commit
                            logger.info("[KafkaWorkload] group commit failed (%r)", exc)
        except KafkaError as exc:
            logger.info("[KafkaWorkload] group member failed (%r); starting another", exc)
            await asyncio.sleep(0.5)


async def final_read(
    bootstrap: str, tps: list[KafketteTopicPartition], timeout_s: float = 60.0
) -> list[tuple[int, int, bytes]]:
    """Every record of ``tps`` from the log start up to the end offsets (the high watermarks)
    taken when the read starts.

    Raises:
        TimeoutError: not everything was read within ``timeout_s`` seconds.
    """
    kafka_tps = _kafka_tps(tps)
    records: list[tuple[int, int, bytes]] = []
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    async with asyncio.timeout(timeout_s), consumer:
        consumer.assign(kafka_tps)
        await consumer.seek_to_beginning(*kafka_tps)
        ends = await consumer.end_offsets(kafka_tps)
        while any([await consumer.position(tp) < ends[tp] for tp in kafka_tps]):
            for tp, batch in (await consumer.getmany(timeout_ms=500)).items():
                records.extend((tp.partition, r.offset, r.value) for r in batch if r.offset < ends[tp])
    return records
