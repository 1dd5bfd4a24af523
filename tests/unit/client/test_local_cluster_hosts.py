"""LocalCluster(hosts=..., command_prefix=...): nodes at their own addresses bind 0.0.0.0 and
publish advertised.listeners; the quorum's voters and the bootstrap servers use the addresses
(no processes started)."""

from __future__ import annotations

import pytest

from kafkette.client.local_cluster import LocalCluster


def test_a_node_at_its_own_address_advertises_it(tmp_path):
    cluster = LocalCluster(
        3,
        tmp_path,
        base_port=19292,
        hosts={1: "10.213.0.1", 2: "10.213.0.2"},
        command_prefix={1: ["ip", "netns", "exec", "ns1"]},
    )
    first = cluster.broker_properties(1)
    assert first["listeners"] == "PLAINTEXT://0.0.0.0:19292"
    assert first["advertised.listeners"] == "PLAINTEXT://10.213.0.1:19292"
    assert first["controller.quorum.voters"] == "1@10.213.0.1:19292,2@10.213.0.2:19293,3@127.0.0.1:19294"
    third = cluster.broker_properties(3)
    assert third["listeners"] == "PLAINTEXT://127.0.0.1:19294" and "advertised.listeners" not in third
    assert cluster.bootstrap_servers == "10.213.0.1:19292,10.213.0.2:19293,127.0.0.1:19294"


def test_hosts_must_name_nodes_of_the_cluster(tmp_path):
    with pytest.raises(ValueError, match=r"name nodes \[4\]"):
        LocalCluster(3, tmp_path, hosts={4: "10.213.0.4"})
