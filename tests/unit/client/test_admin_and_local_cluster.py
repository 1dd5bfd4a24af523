"""NewTopic request building and LocalCluster configuration (no processes started)."""

from __future__ import annotations

import pytest

from kafkette.client.admin import NewTopic, normalize_replica_assignment
from kafkette.client.local_cluster import LocalCluster


def test_new_topic_becomes_a_create_topics_entry():
    entry = NewTopic("t", 6, 3, configs={"min.insync.replicas": 2}).to_creatable()
    assert (entry.name, entry.num_partitions, entry.replication_factor) == ("t", 6, 3)
    assert [(c.name, c.value) for c in entry.configs] == [("min.insync.replicas", "2")]
    assert entry.assignments == []


def test_manual_assignment_accepts_a_dict_or_a_list_of_lists():
    by_dict = NewTopic("t", replica_assignment={1: [3, 1], 0: [2, 3]}).to_creatable()
    by_list = NewTopic("t", replica_assignment=[[2, 3], [3, 1]]).to_creatable()
    for entry in (by_dict, by_list):
        assert [(a.partition_index, a.broker_ids) for a in entry.assignments] == [(0, [2, 3]), (1, [3, 1])]
        assert (entry.num_partitions, entry.replication_factor) == (-1, -1)


def test_manual_assignment_conflicting_with_counts_is_refused():
    with pytest.raises(ValueError):
        NewTopic("t", num_partitions=3, replica_assignment={0: [1]}).to_creatable()


@pytest.mark.parametrize("bad", [{}, {0: []}, {-1: [1]}, {0: ["1"]}, "0:1"])
def test_malformed_assignments_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        normalize_replica_assignment(bad)


def test_local_cluster_writes_kafka_properties_per_broker(tmp_path):
    cluster = LocalCluster(
        4,
        tmp_path,
        base_port=19092,
        broker_configs={"broker.session.timeout.ms": 3000, "auto.create.topics.enable": False},
    )
    assert cluster.broker_ids == [1, 2, 3, 4] and cluster.voter_ids == [1, 2, 3]
    assert cluster.bootstrap_servers == "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094,127.0.0.1:19095"
    first = cluster.broker_properties(1)
    second = cluster.broker_properties(2)
    fourth = cluster.broker_properties(4)
    assert first["process.roles"] == second["process.roles"] == "broker,controller"
    assert fourth["process.roles"] == "broker"
    assert second["listeners"] == "PLAINTEXT://127.0.0.1:19093"
    voters = "1@127.0.0.1:19092,2@127.0.0.1:19093,3@127.0.0.1:19094"
    assert second["controller.quorum.voters"] == fourth["controller.quorum.voters"] == voters
    assert second["log.dirs"] == str(tmp_path.resolve() / "broker-2" / "logs")
    assert second["broker.session.timeout.ms"] == "3000"
    assert second["auto.create.topics.enable"] == "false"
    assert cluster.pid(2) is None


def test_local_cluster_picks_distinct_free_ports(tmp_path):
    cluster = LocalCluster(3, tmp_path)
    assert len(set(cluster.ports.values())) == 3


def test_local_cluster_voters_default_to_three_or_every_node_and_may_be_chosen(tmp_path):
    assert LocalCluster(1, tmp_path).voter_ids == [1]
    assert LocalCluster(2, tmp_path).voter_ids == [1, 2]
    single = LocalCluster(3, tmp_path, controllers=1)
    assert single.voter_ids == [1] and single.broker_properties(2)["process.roles"] == "broker"
    for bad in (0, 4, "3", 2.0):
        with pytest.raises(ValueError, match="controllers"):
            LocalCluster(3, tmp_path, controllers=bad)


def test_local_cluster_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        LocalCluster(0, tmp_path)
    with pytest.raises(ValueError):
        LocalCluster(2, tmp_path, base_port=65535)
    with pytest.raises(ValueError):
        LocalCluster(2, tmp_path, base_port=20000).pid(3)
