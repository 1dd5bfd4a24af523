"""Leadership moves away from a replica whose log went offline (KIP-858, per partition).

Three brokers; broker 2 (not the controller) is the preferred replica of ``damaged``
and ``healthy``.  Broker 2 is stopped cleanly, one byte is flipped inside a batch in
the middle of the oldest segment of its ``damaged`` replica, and it is restarted: it
rejoins both ISRs (a follower only appends at its log end, so nothing reads the
damage) and a preferred election makes it leader of both again.  A consumer then
reads ``damaged`` from the beginning: broker 2's read meets the corrupt batch and takes
that log offline.  Its next heartbeat, sent at once, reports the offline replica; the
controller elects broker 3 from the rest of the ISR and removes broker 2 from it.  The
consumer (after KAFKA_STORAGE_ERROR, a retriable error that refreshes metadata) and an
acks=all producer running meanwhile move to the new leader and lose nothing, while
broker 2 still leads and serves ``healthy``.

Without the report, broker 2 would stay leader of ``damaged`` and answer
KAFKA_STORAGE_ERROR forever: the consumer would never get past the first fetch.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from tests.cluster_helpers import (
    consume_from_beginning,
    corrupt_oldest_segment,
    describe_partitions,
    partition_dir,
    wait_for_partition,
)

pytestmark = pytest.mark.timeout(240)

X = 2  # the broker whose log goes offline; node 1 hosts the controller
SEGMENT_BYTES = 4096
BEFORE, DURING = 300, 60
DAMAGED, HEALTHY = TopicPartition("damaged", 0), TopicPartition("healthy", 0)


async def _wait_for(bootstrap: str, tp: TopicPartition, predicate, what: str):
    return await wait_for_partition(bootstrap, tp, predicate, what, timeout_s=60)


async def _produce(bootstrap: str, tp: TopicPartition, values: list[bytes], *, batch: int = 10) -> None:
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=1,
        request_timeout_ms=5000,
        delivery_timeout_ms=60000,
    ) as producer:
        for start in range(0, len(values), batch):  # small batches, so that segments roll
            futures = [
                await producer.send(tp.topic, v, partition=tp.partition)
                for v in values[start : start + batch]
            ]
            await asyncio.gather(*futures)


async def _consume(bootstrap: str, tp: TopicPartition, count: int) -> list[bytes]:
    return [r.value for r in await consume_from_beginning(bootstrap, [tp], count, timeout_s=60)]


async def test_leadership_moves_away_from_a_replica_whose_log_went_offline(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    DAMAGED.topic,
                    replica_assignment={0: [X, 3, 1]},
                    configs={"segment.bytes": str(SEGMENT_BYTES)},
                ),
                NewTopic(
                    HEALTHY.topic,
                    replica_assignment={0: [X, 1, 3]},
                    configs={"segment.bytes": str(SEGMENT_BYTES)},
                ),
            ]
        )
    for tp in (DAMAGED, HEALTHY):
        await _wait_for(bootstrap, tp, lambda p: p.leader == X and sorted(p.isr) == [1, 2, 3], "a full ISR")
    damaged = [f"d-{i:05d}".encode() * 4 for i in range(BEFORE)]
    healthy = [f"h-{i:05d}".encode() * 4 for i in range(BEFORE)]
    await _produce(bootstrap, DAMAGED, damaged)
    await _produce(bootstrap, HEALTHY, healthy)

    cluster.stop_broker(X, hard=False)
    corrupt = corrupt_oldest_segment(partition_dir(cluster, X, DAMAGED)).segments[0]
    cluster.start_broker(X)
    for tp in (DAMAGED, HEALTHY):
        await _wait_for(bootstrap, tp, lambda p: X in p.isr, f"broker {X} back in the ISR")
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        elected = await admin.elect_leaders([DAMAGED, HEALTHY])
    assert all(error is None for error in elected.values()), elected
    for tp in (DAMAGED, HEALTHY):
        await _wait_for(bootstrap, tp, lambda p: p.leader == X, f"broker {X} leading")

    # The consumer's first fetch reads the corrupt batch on broker 2; an acks=all producer runs meanwhile.
    during = [f"during-{i:05d}".encode() for i in range(DURING)]
    consumed, _ = await asyncio.gather(
        _consume(bootstrap, DAMAGED, BEFORE + DURING),
        _produce(bootstrap, DAMAGED, during, batch=1),
    )
    assert consumed == damaged + during

    moved = await _wait_for(
        bootstrap,
        DAMAGED,
        lambda p: p.leader != X and X not in p.isr and X in p.offline_replicas,
        "leadership moved and the replica out of the ISR",
    )
    assert moved.leader == 3 and sorted(moved.isr) == [1, 3], moved
    broker_log = cluster.log_path(X).read_text(errors="replace")
    assert any("offline" in line and str(corrupt) in line for line in broker_log.splitlines()), (
        "broker 2 did not log the corruption"
    )
    assert any(
        "reporting it to the controller" in line and "damaged-0" in line for line in broker_log.splitlines()
    )

    # Broker 2's other partition is still led and served by broker 2.
    still = (await describe_partitions(bootstrap, HEALTHY.topic))[HEALTHY.partition]
    assert still.leader == X and X in still.isr and still.offline_replicas == []
    more = [f"h-after-{i:05d}".encode() for i in range(30)]
    await _produce(bootstrap, HEALTHY, more)
    assert await _consume(bootstrap, HEALTHY, BEFORE + len(more)) == healthy + more
