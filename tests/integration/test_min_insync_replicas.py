"""``min.insync.replicas`` on real brokers.

A topic with replication factor 2 on brokers [2, 3] and ``min.insync.replicas=2``:
with broker 3 killed and the ISR shrunk to [2], an acks=all producer fails with
NotEnoughReplicasError (the leader's answer, not a bare timeout) and the rejected
record is never appended; acks=1 still succeeds; once broker 3 is back in the ISR,
acks=all succeeds again.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import (
    AdminClient,
    KafkaError,
    NewTopic,
    NotEnoughReplicasError,
    Producer,
    TopicPartition,
)
from tests.cluster_configs import QUICK_STOP
from tests.cluster_helpers import consume_from_beginning, wait_for_partition

pytestmark = pytest.mark.timeout(120)

TOPIC = "min-isr"
TP = TopicPartition(TOPIC, 0)


async def _wait_for_isr(bootstrap: str, isr: list[int]):
    return await wait_for_partition(
        bootstrap, TP, lambda p: sorted(p.isr) == isr and p.leader in isr, f"ISR {isr}"
    )


async def test_acks_all_fails_with_not_enough_replicas_when_isr_is_below_min_insync_replicas(cluster_factory):
    cluster = cluster_factory(3, **QUICK_STOP)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(TOPIC, replica_assignment={0: [2, 3]}, configs={"min.insync.replicas": "2"})]
        )
    await _wait_for_isr(bootstrap, [2, 3])
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        assert (await producer.send_and_wait(TOPIC, b"before")).offset == 0

    cluster.stop_broker(3, hard=True)
    info = await _wait_for_isr(bootstrap, [2])
    assert info.leader == 2 and info.replicas == [2, 3]

    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        request_timeout_ms=1000,
        delivery_timeout_ms=3000,
        retry_backoff_ms=100,
    ) as producer:
        with pytest.raises(KafkaError) as rejection:
            await asyncio.wait_for(producer.send_and_wait(TOPIC, b"rejected"), 20)

    async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
        assert (await producer.send_and_wait(TOPIC, b"leader-only")).offset == 1

    cluster.start_broker(3)
    await _wait_for_isr(bootstrap, [2, 3])
    async with Producer(bootstrap_servers=bootstrap, acks="all", delivery_timeout_ms=20000) as producer:
        assert (await producer.send_and_wait(TOPIC, b"after")).offset == 2

    assert [r.value for r in await consume_from_beginning(bootstrap, [TP])] == [
        b"before",
        b"leader-only",
        b"after",
    ]
    # Checked last so the phases above still run: after its retries the producer must
    # surface the leader's NOT_ENOUGH_REPLICAS (itself, or as the cause of a timeout).
    error = rejection.value
    assert isinstance(error, NotEnoughReplicasError) or isinstance(error.__cause__, NotEnoughReplicasError), (
        f"acks=all below min.insync.replicas surfaced {error!r} (cause {error.__cause__!r}), "
        "not NotEnoughReplicasError"
    )
