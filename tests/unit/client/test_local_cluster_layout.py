"""The on-disk layout of a local cluster's data directory: read back from the ``server.properties``
a LocalCluster writes, ports moved in place keeping a user's lines, and ``from_data_dir`` keeping
the files as they are unless ``node_configs`` says otherwise (no processes started)."""

from __future__ import annotations

import pytest

from kafkette.broker.config import KafkaConfig
from kafkette.client.local_cluster import LocalCluster
from kafkette.client.local_cluster_layout import (
    move_listener_port,
    move_voter_port,
    read_cluster_layout,
    set_properties,
)
from kafkette.common.config_def import render_properties
from tests.unit.client.cli_runner import assert_one_line_error, run


def _write_configs(cluster: LocalCluster) -> None:
    for node_id in cluster.node_ids:
        path = cluster.config_path(node_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_properties(cluster.broker_properties(node_id)))


def test_the_layout_of_a_written_cluster_reads_back(tmp_path):
    cluster = LocalCluster(4, tmp_path, base_port=21000, controllers=3, kafka_protocol=True)
    _write_configs(cluster)
    layout = read_cluster_layout(tmp_path)
    assert layout is not None and layout.broker_ids == [1, 2, 3, 4]
    assert {n: node.port for n, node in layout.nodes.items()} == cluster.ports
    assert {n: node.kafka_port for n, node in layout.nodes.items()} == cluster.kafka_ports
    assert sorted(layout.voters) == [1, 2, 3] and layout.voters[2] == ("127.0.0.1", 21001)
    assert [n for n, node in layout.nodes.items() if node.is_voter] == [1, 2, 3]
    assert read_cluster_layout(tmp_path / "nothing-here") is None


@pytest.mark.parametrize(
    "edit",
    [
        {},
        {"listener.wire.protocol.map": "PLAINTEXT:kafkette"},  # replaces the default: KAFKA speaks kafkette
        {"listener.wire.protocol.map": "KAFKA:KAFKA,PLAINTEXT:Kafkette"},
        {"listeners": "KAFKA://127.0.0.1:21001,PLAINTEXT://0.0.0.0:21000"},
    ],
)
def test_a_node_s_listener_and_kafka_listener_read_as_the_broker_reads_them(tmp_path, edit):
    cluster = LocalCluster(1, tmp_path, base_port=21000, kafka_protocol=True)
    _write_configs(cluster)
    set_properties(cluster.config_path(1), edit)
    node = read_cluster_layout(tmp_path).nodes[1]
    config = KafkaConfig.from_file(str(cluster.config_path(1)))
    kafka = [e.port for e in config.listener_endpoints if e.wire_protocol == "kafka"]
    assert (node.port, node.kafka_port) == (config.listener[1], kafka[0] if kafka else None)


def test_moving_a_port_keeps_every_other_line(tmp_path):
    cluster = LocalCluster(2, tmp_path, base_port=22000)
    _write_configs(cluster)
    path = cluster.config_path(2)
    path.write_text(path.read_text() + "# mine\nlog.retention.ms=1234\n")
    move_listener_port(path, 22001, 23001)
    move_voter_port(path, 22001, 23001)
    set_properties(path, {"num.partitions": "6"})
    text = path.read_text()
    assert "# mine\nlog.retention.ms=1234\n" in text and text.endswith("num.partitions=6\n")
    node = read_cluster_layout(tmp_path).nodes[2]
    assert node.port == 23001
    assert read_cluster_layout(tmp_path).nodes[1].port == 22000
    assert "2@127.0.0.1\\:23001" in text and "1@127.0.0.1\\:22000" in text


def test_from_data_dir_keeps_the_files_unless_node_configs_override_them(tmp_path):
    written = LocalCluster(3, tmp_path, base_port=24000, controllers=1)
    _write_configs(written)
    edited = written.config_path(2)
    edited.write_text(edited.read_text() + "log.retention.ms=1234\n")
    again = LocalCluster.from_data_dir(tmp_path)
    assert again.ports == written.ports and again.voter_ids == [1] and again.cluster_id == written.cluster_id
    assert again.bootstrap_servers == written.bootstrap_servers
    assert again._write_config(2).read_text().endswith("log.retention.ms=1234\n")
    again.node_configs[2] = {"num.partitions": 3}
    assert "log.retention.ms" not in again._write_config(2).read_text()


def test_from_data_dir_refuses_a_directory_without_a_cluster(tmp_path):
    with pytest.raises(ValueError, match="holds no cluster"):
        LocalCluster.from_data_dir(tmp_path)


def test_cluster_start_counts_controllers_among_the_brokers_the_data_dir_holds(tmp_path):
    _write_configs(LocalCluster(5, tmp_path, base_port=25000, controllers=5))
    # --controllers 5 fits this cluster of five brokers; the --base-port that does not fit stops the start
    result = run("cluster", "start", "--data-dir", str(tmp_path), "--controllers", "5", "--base-port", "1")
    assert result.exit_code == 1
    assert_one_line_error(
        result,
        f"{tmp_path} holds a cluster of 5 broker(s) (5 voter(s), broker 1 on port 25000, "
        "no Kafka-protocol listeners) that --base-port 1 does not fit",
    )
