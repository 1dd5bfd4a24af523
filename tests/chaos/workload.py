"""The chaos harness's workload: producers writing unique values, a consumer reading them back.

Producers (acks=all with idempotence, or what the scenario says) each send values
``<run>-<producer>-<seq>`` to the topic's partitions in turn, at most ``max_outstanding``
unanswered at a time and at most ``rate`` a second, and record every send's outcome (the
acknowledged offset, or unknown).  A consumer assigned every partition reads continuously
while the faults run (its reads feed the checker's ``inconsistent_offsets``), and members of a
consumer group subscribed to the topic read and commit after every poll (a member that fails
is replaced and resumes from the group's commits: the checker's ``skipped_by_group``); after
the faults healed, ``final_read`` reads every partition from its start up to its end offset.

Clients: Kafkette's own SDK.  ``tests/chaos/kafka_workload.py`` is the same workload over
Apache Kafka's protocol (aiokafka), with the same functions and the same outcomes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from kafkette.client import AdminClient, Consumer, KafkaError, NewTopic, Producer, TopicPartition
from tests.chaos.checker import Send

logger = logging.getLogger(__name__)

DELIVERY_TIMEOUT_MS = 30_000
REQUEST_TIMEOUT_MS = 5_000


async def create_topic(
    bootstrap: str, topic: str, partitions: int, replication_factor: int, configs: dict[str, str]
) -> None:
    """Create the workload's topic (CreateTopics) with ``configs`` (topic-level names)."""
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, partitions, replication_factor, configs=configs)])


async def committed_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """``{partition: committed offset}`` of ``group`` on ``topic`` (OffsetFetch, 30 s bound)."""
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        offsets = await admin.list_consumer_group_offsets(group, timeout_ms=30_000)
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


@dataclass
class Outcomes:
    """What the producers saw: one Send per value, and when each acknowledgement came back."""

    sends: list[Send] = field(default_factory=list)
    ack_times: dict[int, list[float]] = field(default_factory=dict)  # partition -> monotonic s of each ack
    errors: dict[str, int] = field(default_factory=dict)  # failed sends by error class name


class ProducerSends:
    """One producer's sends and their outcomes, whatever the client library: the pacing loop and
    the bookkeeping that both workloads (Kafkette's SDK, aiokafka) share.

    ``run`` sends until ``stop`` is set and flushes; ``close`` (after the client closed) adds every
    send to the Outcomes, the unanswered ones with an unknown outcome.

    Args:
        producer: this producer's index (part of each value).
        outcomes: where the sends, acknowledgement times and errors go.
    """

    def __init__(self, producer: int, outcomes: Outcomes) -> None:
        self.producer = producer
        self.outcomes = outcomes
        self.pending: dict[asyncio.Future, tuple[int, bytes, int]] = {}
        self.answered: list[Send] = []

    def _count_error(self, exc: BaseException) -> None:
        name = type(exc).__name__
        self.outcomes.errors[name] = self.outcomes.errors.get(name, 0) + 1

    def _on_done(self, seq: int, value: bytes, partition: int, future: asyncio.Future) -> None:
        offset = None
        if future.cancelled():
            pass
        elif future.exception() is not None:
            self._count_error(future.exception())
        else:
            offset = future.result().offset
            self.outcomes.ack_times.setdefault(partition, []).append(time.monotonic())
        self.answered.append(Send(self.producer, seq, value, partition, offset))

    async def run(
        self,
        send: Callable[[bytes, int], Awaitable[asyncio.Future]],
        flush: Callable[[], Awaitable[object]],
        errors: tuple[type[BaseException], ...],
        partitions: int,
        run: str,
        stop: asyncio.Event,
        rate: float,
        max_outstanding: int,
    ) -> None:
        """Send ``<run>-<producer>-<seq>`` to the partitions in turn until ``stop`` is set, then flush
        (at most the delivery timeout, 30 s).

        Args:
            send: ``send(value, partition)`` enqueues one record and returns the future of its
                RecordMetadata (``.offset``).
            flush: waits for every enqueued record's answer.
            errors: the client library's exception classes (a send that raises one never started).
            rate: sends a second (upper bound).
            max_outstanding: sends awaiting an answer at most.
        """
        interval = 1.0 / rate
        seq = 0
        while not stop.is_set():
            started = time.monotonic()
            while sum(1 for f in self.pending if not f.done()) >= max_outstanding and not stop.is_set():
                await asyncio.sleep(0.01)
            if stop.is_set():
                break
            partition = (self.producer + seq) % partitions
            value = f"{run}-{self.producer}-{seq}".encode()
            try:
                future = await send(value, partition)
            except errors as exc:  # the buffer stayed full past its bound: the send never started
                self._count_error(exc)
                self.answered.append(Send(self.producer, seq, value, partition, None))
            else:
                self.pending[future] = (seq, value, partition)
                future.add_done_callback(lambda f, s=seq, v=value, p=partition: self._on_done(s, v, p, f))
            seq += 1
            for done in [f for f in self.pending if f.done()]:
                del self.pending[done]
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
        try:
            await asyncio.wait_for(flush(), DELIVERY_TIMEOUT_MS / 1000 + 5)
        except (TimeoutError, *errors) as exc:
            logger.warning(
                "[Workload] producer %d: flush did not finish (%r); its open sends count as unknown",
                self.producer,
                exc,
            )

    def close(self) -> None:
        """Add every send to the Outcomes (call once the client closed)."""
        seen = {s.value for s in self.answered}
        self.answered.extend(
            Send(self.producer, s, v, p, None) for s, v, p in self.pending.values() if v not in seen
        )
        self.outcomes.sends.extend(self.answered)


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
    """Send values until ``stop`` is set, then wait (at most the delivery timeout) for the outstanding ones.

    Args:
        producer: this producer's index (part of each value).
        run: the run's label (part of each value, so that values are unique across runs).
        rate: sends a second (upper bound).
        max_outstanding: sends awaiting an answer at most.
    """
    sends = ProducerSends(producer, outcomes)
    async with Producer(
        bootstrap_servers=bootstrap,
        acks=acks,
        enable_idempotence=idempotence,
        linger_ms=5,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
        delivery_timeout_ms=DELIVERY_TIMEOUT_MS,
        retry_backoff_ms=100,
    ) as client:
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
    sends.close()


async def read_continuously(
    bootstrap: str, tps: list[TopicPartition], stop: asyncio.Event, into: list[tuple[int, int, bytes]]
) -> None:
    """Read ``tps`` from their start until ``stop`` is set, appending ``(partition, offset, value)``;
    a consumer that fails is replaced and reads on from where it was."""
    positions = {tp: 0 for tp in tps}
    while not stop.is_set():
        try:
            async with Consumer(
                bootstrap_servers=bootstrap,
                auto_offset_reset="earliest",
                request_timeout_ms=REQUEST_TIMEOUT_MS,
            ) as consumer:
                consumer.assign(tps)
                for tp, offset in positions.items():
                    consumer.seek(tp, offset)
                while not stop.is_set():
                    for tp, records in (await consumer.getmany(timeout_ms=200)).items():
                        for record in records:
                            into.append((tp.partition, record.offset, record.value))
                            positions[tp] = record.offset + 1
        except KafkaError as exc:
            logger.info("[Workload] reader failed (%r); starting another", exc)
            await asyncio.sleep(0.5)


GROUP_SESSION_TIMEOUT_MS = 10_000


async def consume_in_group(
    bootstrap: str, topic: str, group: str, stop: asyncio.Event, into: list[tuple[int, int, bytes]]
) -> None:
    """Read ``topic`` as a member of ``group`` until ``stop`` is set, committing the positions after
    each poll that returned records, appending ``(partition, offset, value)``; a member that fails
    (its coordinator gone, a rebalance lost) is replaced by a new one."""
    while not stop.is_set():
        try:
            async with Consumer(
                bootstrap_servers=bootstrap,
                group_id=group,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                request_timeout_ms=REQUEST_TIMEOUT_MS,
                session_timeout_ms=GROUP_SESSION_TIMEOUT_MS,
                heartbeat_interval_ms=1000,
            ) as consumer:
                consumer.subscribe([topic])
                while not stop.is_set():
                    batch = await consumer.getmany(timeout_ms=200)
                    for tp, records in batch.items():
                        into.extend((tp.partition, r.offset, r.value) for r in records)
                    if batch:
                        try:
                            await consumer.commit()
                        except KafkaError as exc:  # a rebalance: read again from the last commit
                            logger.info("[Workload] group commit failed (%r)", exc)
        except KafkaError as exc:
            logger.info("[Workload] group member failed (%r); starting another", exc)
            await asyncio.sleep(0.5)


async def final_read(
    bootstrap: str, tps: list[TopicPartition], timeout_s: float = 60.0
) -> list[tuple[int, int, bytes]]:
    """Every record of ``tps`` from the log start up to the end offsets taken when the read starts.

    Raises:
        TimeoutError: not everything was read within ``timeout_s`` seconds.
    """
    records: list[tuple[int, int, bytes]] = []
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        async with asyncio.timeout(timeout_s):
            while any([await consumer.position(tp) < ends[tp] for tp in tps]):
                for tp, batch in (await consumer.getmany(timeout_ms=500)).items():
                    records.extend((tp.partition, r.offset, r.value) for r in batch if r.offset < ends[tp])
    return records
