"""ReplicaFetcherManager: which fetcher replicates which partition, and fetcher lifecycle.

Fetchers get fake leaders whose fetch blocks until cancelled (no sockets).
"""

from __future__ import annotations

import pytest
from broker_fakes import TP0, TP1, FakeLeaderEndPointFactory, make_config

from kafkette.broker.fetcher.replica_fetcher_manager import InitialFetchState, ReplicaFetcherManager
from kafkette.protocol.topic_partition import TopicPartition


@pytest.fixture
async def manager(tmp_path):
    endpoints = FakeLeaderEndPointFactory()
    manager = ReplicaFetcherManager(make_config(tmp_path, node_id=2), lambda tp: None, endpoints)
    manager.endpoints = endpoints
    yield manager
    await manager.shutdown()


def leader(broker_id: int, epoch: int = 1, port: int | None = None) -> InitialFetchState:
    return InitialFetchState(broker_id, "127.0.0.1", port or 9000 + broker_id, epoch)


async def test_partitions_of_one_leader_share_a_fetcher_and_other_leaders_get_their_own(manager):
    other = TopicPartition("other", 0)
    await manager.add_fetcher_for_partitions({TP0: leader(1), TP1: leader(1, epoch=4), other: leader(3)})
    assert manager.fetcher_for(TP0) is manager.fetcher_for(TP1)
    assert manager.fetcher_for(other) is not manager.fetcher_for(TP0)
    assert manager.fetcher_for(TP1).fetch_state(TP1).leader_epoch == 4
    assert sorted((e.leader_id, e.port) for e in manager.endpoints.built) == [(1, 9001), (3, 9003)]


async def test_removing_the_last_partition_stops_the_fetcher_and_closes_its_leader(manager):
    await manager.add_fetcher_for_partitions({TP0: leader(1), TP1: leader(1)})
    await manager.remove_fetcher_for_partitions([TP0])
    assert manager.fetcher_for(TP0) is None and manager.fetcher_for(TP1) is not None
    assert manager.endpoints.built[0].closed == 0
    await manager.remove_fetcher_for_partitions([TP1])
    assert manager.fetcher_for(TP1) is None
    assert manager.endpoints.built[0].closed == 1


async def test_moving_a_partition_to_a_new_leader_moves_it_to_that_leaders_fetcher(manager):
    await manager.add_fetcher_for_partitions({TP0: leader(1)})
    await manager.add_fetcher_for_partitions({TP0: leader(3, epoch=2)})
    fetcher = manager.fetcher_for(TP0)
    assert fetcher.leader.leader_id == 3 and fetcher.fetch_state(TP0).leader_epoch == 2
    assert manager.endpoints.built[0].closed == 1, "the idle fetcher of leader 1 was stopped"


async def test_a_leader_at_a_new_address_gets_a_new_fetcher(manager):
    await manager.add_fetcher_for_partitions({TP0: leader(1), TP1: leader(1)})
    await manager.add_fetcher_for_partitions({TP1: leader(1, port=9999)})
    fetcher = manager.fetcher_for(TP1)
    assert fetcher.leader.port == 9999
    assert manager.endpoints.built[0].closed == 1


async def test_fetcher_id_is_stable_and_within_num_replica_fetchers(tmp_path):
    manager = ReplicaFetcherManager(make_config(tmp_path, node_id=2, num_replica_fetchers=3), lambda tp: None)
    ids = {manager.fetcher_id(TopicPartition("t", p)) for p in range(30)}
    assert ids == {0, 1, 2}
    assert manager.fetcher_id(TP0) == manager.fetcher_id(TopicPartition(TP0.topic, TP0.partition))


async def test_shutdown_stops_every_fetcher(manager):
    await manager.add_fetcher_for_partitions({TP0: leader(1), TP1: leader(3)})
    await manager.shutdown()
    assert [e.closed for e in manager.endpoints.built] == [1, 1]
    assert manager.fetcher_for(TP0) is None


async def test_other_partitions_of_a_fetcher_replaced_for_a_new_leader_address_keep_replicating(manager):
    # TP0 and TP1 share the fetcher of leader 1; a new address for TP1 replaces that
    # fetcher, and TP0 (same leader, no new LeaderAndIsr) must move along with it.
    await manager.add_fetcher_for_partitions({TP0: leader(1), TP1: leader(1)})
    await manager.add_fetcher_for_partitions({TP1: leader(1, port=9999)})
    fetcher = manager.fetcher_for(TP0)
    assert fetcher is not None and fetcher.fetch_state(TP0) is not None
