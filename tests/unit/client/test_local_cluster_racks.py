"""LocalCluster(racks=...): one broker.rack per broker (no processes started)."""

from __future__ import annotations

import pytest

from kafkette.client.local_cluster import LocalCluster


def test_racks_set_broker_rack_per_broker(tmp_path):
    cluster = LocalCluster(
        3,
        tmp_path,
        base_port=19192,
        racks=["a", None, "b"],
        broker_configs={"auto.create.topics.enable": False},
    )
    assert cluster.broker_properties(1)["broker.rack"] == "a"
    assert "broker.rack" not in cluster.broker_properties(2)
    assert cluster.broker_properties(3)["broker.rack"] == "b"
    assert cluster.broker_properties(3)["auto.create.topics.enable"] == "false"


def test_racks_must_name_one_rack_per_broker(tmp_path):
    with pytest.raises(ValueError, match="one per broker"):
        LocalCluster(3, tmp_path, racks=["a", "b"])
    with pytest.raises(TypeError):
        LocalCluster(2, tmp_path, racks="ab")
    with pytest.raises(ValueError):
        LocalCluster(2, tmp_path, racks=["a", ""])
