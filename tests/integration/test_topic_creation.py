"""Creating a replicated topic on a real 3-broker cluster."""

from __future__ import annotations

from kafkette.client import AdminClient, NewTopic, TopicAlreadyExistsError
from kafkette.controller.replica_assignment import assign_replicas_to_brokers


class _Draws:
    """A stand-in random source returning the given start index, then the replica shift."""

    def __init__(self, *values: int) -> None:
        self._values = list(values)

    def randrange(self, n: int) -> int:
        return self._values.pop(0)


async def test_create_topic_gives_three_distinct_replicas_leader_first_and_full_isr(shared_cluster):
    async with AdminClient(bootstrap_servers=shared_cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("created", num_partitions=6, replication_factor=3)])
        description = (await admin.describe_topics(["created"]))["created"]
    partitions = description.partitions
    assert [p.partition for p in partitions] == list(range(6))
    for p in partitions:
        assert len(set(p.replicas)) == 3 and set(p.replicas) == set(shared_cluster.broker_ids)
        assert p.leader == p.replicas[0]
        assert sorted(p.isr) == sorted(p.replicas)
    # The assignment is Kafka's rack-unaware algorithm for some start index and shift.
    actual = {p.partition: p.replicas for p in partitions}
    brokers = sorted(shared_cluster.broker_ids)
    candidates = [
        assign_replicas_to_brokers(6, 3, brokers, rng=_Draws(start, shift))
        for start in range(len(brokers))
        for shift in range(len(brokers))
    ]
    assert actual in candidates
    # Leaders spread evenly over the brokers.
    leaders = [p.leader for p in partitions]
    assert all(leaders.count(b) == 2 for b in brokers)


async def test_create_existing_topic_is_refused_and_listed_once(shared_cluster):
    async with AdminClient(bootstrap_servers=shared_cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("dup", num_partitions=1, replication_factor=1)])
        try:
            await admin.create_topics([NewTopic("dup", num_partitions=1, replication_factor=1)])
        except TopicAlreadyExistsError:
            pass
        else:
            raise AssertionError("second create of 'dup' should fail with TopicAlreadyExistsError")
        assert (await admin.list_topics()).count("dup") == 1


async def test_manual_replica_assignment_is_used_as_given(shared_cluster):
    async with AdminClient(bootstrap_servers=shared_cluster.bootstrap_servers) as admin:
        await admin.create_topics(
            [
                NewTopic(
                    "manual",
                    num_partitions=-1,
                    replication_factor=-1,
                    replica_assignment={0: [2, 3], 1: [3, 1]},
                )
            ]
        )
        parts = (await admin.describe_topics(["manual"]))["manual"].partitions
    assert [(p.replicas, p.leader) for p in parts] == [([2, 3], 2), ([3, 1], 3)]
