"""kill -9 a partition's leader while five batches of that partition are in flight.

The idempotent producer pipelines up to ``max_in_flight_requests_per_connection`` (5)
batches per partition.  When the leader dies, every in-flight request fails; some of
those batches may already be written and replicated.  The producer must resend them in
order to the new leader, which answers the ones it has as duplicates (its producer
state came with the replicated batches), so that the partition ends up holding every
record exactly once, in the order sent.
"""

from __future__ import annotations

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from tests.cluster_helpers import consume_from_beginning, describe_partitions, wait_for_partitions

TOPIC = "pipelined"
RECORDS = 30000
TP = TopicPartition(TOPIC, 0)


async def test_leader_killed_with_five_batches_in_flight_loses_and_duplicates_nothing(cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(TOPIC, num_partitions=1, replication_factor=3, configs={"min.insync.replicas": "2"})]
        )
    [before] = await describe_partitions(bootstrap, TOPIC)
    victim = before.leader

    in_flight_at_kill = 0
    futures = []
    # Small batches (about 40 records) so that many are in flight while records keep coming.
    async with Producer(
        bootstrap_servers=bootstrap,
        acks="all",
        enable_idempotence=True,
        max_batch_size=1024,
        linger_ms=0,
        request_timeout_ms=5000,
        delivery_timeout_ms=60000,
    ) as producer:
        for i in range(RECORDS):
            futures.append(await producer.send(TOPIC, b"%08d" % i))
            if not in_flight_at_kill and i >= RECORDS // 3 and producer.in_flight_batches(TOPIC, 0) == 5:
                in_flight_at_kill = 5
                cluster.stop_broker(victim, hard=True)
        assert in_flight_at_kill == 5, "five batches were never in flight at once"
        await producer.flush(60)
    offsets = [f.result().offset for f in futures]
    assert offsets == sorted(offsets) and len(set(offsets)) == RECORDS, (
        "acknowledged offsets out of send order"
    )

    await wait_for_partitions(
        bootstrap, TOPIC, lambda parts: parts[0].leader not in (victim, -1), "a new leader", timeout_s=30
    )
    records = await consume_from_beginning(bootstrap, [TP], RECORDS, timeout_s=60)
    values = [r.value for r in records]
    assert len(values) == RECORDS, f"{len(values) - RECORDS} records written twice"
    assert values == [b"%08d" % i for i in range(RECORDS)], "records lost, duplicated or out of order"
    assert [r.offset for r in records] == offsets
