"""The chaos harness's workload: producers writing unique values, a consumer reading them back.

Producers (acks=all with idempotence, or what the scenario says) each send values
``<run>-<producer>-<seq>`` to the topic's partitions in turn, at most ``max_outstanding``
unanswered at a time and at most ``rate`` a second, and record every send's outcome (the
acknowledged offset, or unknown).  A consumer assigned every partition reads continuously
while the faults run (its reads feed the checker's ``inconsistent_offsets``), and members of a
consumer group subscribed to the topic read and commit after every poll (a member that fails
is replaced and resumes from the group's commits: the checker's ``skipped_by_group``); after
the faults healed, ``final_read`` reads every partition from its start up to its end offset.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from kafkette.client import Consumer, KafkaError, Producer, TopicPartition
from tests.chaos.checker import Send

logger = logging.getLogger(__name__)

DELIVERY_TIMEOUT_MS = 30_000
REQUEST_TIMEOUT_MS = 5_000


@dataclass
class Outcomes:
    """What the producers saw: one Send per value, and when each acknowledgement came back."""

    sends: list[Send] = field(default_factory=list)
    ack_times: dict[int, list[float]] = field(default_factory=dict)  # partition -> monotonic s of each ack
    errors: dict[str, int] = field(default_factory=dict)  # failed sends by error class name


async def produce(bootstrap: str, topic: str, partitions: int, producer: int, run: str, stop: asyncio.Event,
                  outcomes: Outcomes, *, acks: str | int, idempotence: bool, rate: float = 200.0,
                  max_outstanding: int = 20) -> None:
    """Send values until ``stop`` is set, then wait (at most the delivery timeout) for the outstanding ones.

    Args:
        producer: this producer's index (part of each value).
        run: the run's label (part of each value, so that values are unique across runs).
        rate: sends a second (upper bound).
        max_outstanding: sends awaiting an answer at most.
    """
    pending: dict[asyncio.Future, tuple[int, bytes, int]] = {}
    answered: list[Send] = []

    def on_done(seq: int, value: bytes, partition: int, future: asyncio.Future) -> None:
        offset = None
        if future.cancelled():
            pass
        elif future.exception() is not None:
            name = type(future.exception()).__name__
            outcomes.errors[name] = outcomes.errors.get(name, 0) + 1
        else:
            offset = future.result().offset
            outcomes.ack_times.setdefault(partition, []).append(time.monotonic())
        answered.append(Send(producer, seq, value, partition, offset))

    interval = 1.0 / rate
    seq = 0
    async with Producer(bootstrap_servers=bootstrap, acks=acks, enable_idempotence=idempotence, linger_ms=5,
                        request_timeout_ms=REQUEST_TIMEOUT_MS, delivery_timeout_ms=DELIVERY_TIMEOUT_MS,
                        retry_backoff_ms=100) as client:
        while not stop.is_set():
            started = time.monotonic()
            while sum(1 for f in pending if not f.done()) >= max_outstanding and not stop.is_set():
                await asyncio.sleep(0.01)
            if stop.is_set():
                break
            partition = (producer + seq) % partitions
            value = f"{run}-{producer}-{seq}".encode()
            try:
                future = await client.send(topic, value, partition=partition)
            except KafkaError as exc:  # the buffer stayed full past max.block.ms: the send never started
                outcomes.errors[type(exc).__name__] = outcomes.errors.get(type(exc).__name__, 0) + 1
                answered.append(Send(producer, seq, value, partition, None))
            else:
                pending[future] = (seq, value, partition)
                future.add_done_callback(lambda f, s=seq, v=value, p=partition: on_done(s, v, p, f))
            seq += 1
            for done in [f for f in pending if f.done()]:
                del pending[done]
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
        try:
            await asyncio.wait_for(client.flush(), DELIVERY_TIMEOUT_MS / 1000 + 5)
        except (TimeoutError, KafkaError) as exc:
            logger.warning("[Workload] producer %d: flush did not finish (%r); its open sends count as unknown",
                           producer, exc)
    seen = {s.value for s in answered}
    answered.extend(Send(producer, s, v, p, None) for s, v, p in pending.values() if v not in seen)
    outcomes.sends.extend(answered)


async def read_continuously(bootstrap: str, tps: list[TopicPartition], stop: asyncio.Event,
                            into: list[tuple[int, int, bytes]]) -> None:
    """Read ``tps`` from their start until ``stop`` is set, appending ``(partition, offset, value)``;
    a consumer that fails is replaced and reads on from where it was."""
    positions = {tp: 0 for tp in tps}
    while not stop.is_set():
        try:
            async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                request_timeout_ms=REQUEST_TIMEOUT_MS) as consumer:
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


async def consume_in_group(bootstrap: str, topic: str, group: str, stop: asyncio.Event,
                           into: list[tuple[int, int, bytes]]) -> None:
    """Read ``topic`` as a member of ``group`` until ``stop`` is set, committing the positions after
    each poll that returned records, appending ``(partition, offset, value)``; a member that fails
    (its coordinator gone, a rebalance lost) is replaced by a new one."""
    while not stop.is_set():
        try:
            async with Consumer(bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest",
                                enable_auto_commit=False, request_timeout_ms=REQUEST_TIMEOUT_MS,
                                session_timeout_ms=GROUP_SESSION_TIMEOUT_MS, heartbeat_interval_ms=1000) as consumer:
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


async def final_read(bootstrap: str, tps: list[TopicPartition], timeout_s: float = 60.0) -> list[tuple[int, int, bytes]]:
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
