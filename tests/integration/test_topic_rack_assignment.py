"""On real brokers: rack-aware replica assignment (``LocalCluster(racks=...)``).

Six brokers on racks a,a,b,b,c,c: every partition's replicas land on distinct racks
and leaders spread evenly, for new topics and for partitions added later; a cluster
where only some brokers have a rack refuses automatic assignment.
"""

from __future__ import annotations

from collections import Counter

import pytest

from kafkette.client import AdminClient, KafkaError, LocalCluster, NewPartitions, NewTopic

pytestmark = pytest.mark.timeout(120)

RACKS = ["a", "a", "b", "b", "c", "c"]
PROPS = {"broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500}


@pytest.fixture(scope="module")
def racked(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster(
        num_brokers=6, data_dir=tmp_path_factory.mktemp("racks"), broker_configs=PROPS, racks=RACKS
    ) as c:
        yield c


def rack_of(broker_id: int) -> str:
    return RACKS[broker_id - 1]


async def test_brokers_publish_their_racks(racked):
    async with AdminClient(bootstrap_servers=racked.bootstrap_servers) as admin:
        brokers = (await admin.describe_cluster())["brokers"]
    assert {b.node_id: b.rack for b in brokers} == {i + 1: rack for i, rack in enumerate(RACKS)}


async def test_replicas_of_each_partition_are_on_distinct_racks_and_leaders_spread(racked):
    async with AdminClient(bootstrap_servers=racked.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("racked", 12, 3)])
        partitions = (await admin.describe_topics(["racked"]))["racked"].partitions
    for p in partitions:
        assert len({rack_of(b) for b in p.replicas}) == 3, (p.partition, p.replicas)
    assert Counter(p.replicas[0] for p in partitions) == {b: 2 for b in racked.broker_ids}
    assert Counter(rack_of(b) for p in partitions for b in p.replicas) == {"a": 12, "b": 12, "c": 12}


async def test_two_replicas_use_two_racks(racked):
    async with AdminClient(bootstrap_servers=racked.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("racked-rf2", 6, 2)])
        partitions = (await admin.describe_topics(["racked-rf2"]))["racked-rf2"].partitions
    assert all(rack_of(p.replicas[0]) != rack_of(p.replicas[1]) for p in partitions)


async def test_added_partitions_are_also_spread_over_racks(racked):
    async with AdminClient(bootstrap_servers=racked.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("racked-grow", 6, 3)])
        await admin.create_partitions({"racked-grow": NewPartitions(12)})
        partitions = (await admin.describe_topics(["racked-grow"]))["racked-grow"].partitions
    assert len(partitions) == 12
    for p in partitions:
        assert len({rack_of(b) for b in p.replicas}) == 3, (p.partition, p.replicas)
    assert Counter(p.replicas[0] for p in partitions[6:]) == {b: 1 for b in racked.broker_ids}


async def test_only_some_brokers_with_a_rack_is_an_error(tmp_path):
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path, broker_configs=PROPS, racks=["a", None, "b"]
    ) as partial:
        async with AdminClient(bootstrap_servers=partial.bootstrap_servers) as admin:
            with pytest.raises(KafkaError, match="rack"):
                await admin.create_topics([NewTopic("half-racked", 3, 2)])
            assert "half-racked" not in await admin.list_topics()
            await admin.create_topics([NewTopic("half-racked-manual", replica_assignment={0: [1, 2]})])
            assert "half-racked-manual" in await admin.list_topics()
