"""The Apache Kafka peer (tests/peers/kafka_peer.py) runs here: three KRaft combined nodes on
loopback start from the pinned jars, serve Kafka's own TopicCommand (a topic replicated three
times, its ISR whole) and stop cleanly.  Needs Java 17 and Maven with Maven Central reachable
(the first run resolves the jars into ~/.cache/kafkette); without them it fails, saying what is
missing."""

from __future__ import annotations

import pytest

from tests.peers.kafka_peer import KafkaPeer, random_cluster_id, start_or_fail

pytestmark = pytest.mark.timeout(900)

TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"


def test_three_kafka_nodes_start_serve_kafkas_own_tools_and_stop(tmp_path):
    peer = KafkaPeer(tmp_path, nodes=3, heap_mb=384)
    start_or_fail(peer)
    try:
        bootstrap = ["--bootstrap-server", peer.bootstrap_servers]
        created = peer.run_tool(
            TOPIC_COMMAND,
            *bootstrap,
            "--create",
            "--topic",
            "peer-check",
            "--partitions",
            "3",
            "--replication-factor",
            "3",
        )
        assert created.returncode == 0, created.stderr
        assert "Created topic peer-check" in created.stdout
        described = peer.run_tool(TOPIC_COMMAND, *bootstrap, "--describe", "--topic", "peer-check")
        assert described.returncode == 0, described.stderr
        lines = [line for line in described.stdout.splitlines() if "Partition:" in line]
        assert len(lines) == 3 and all(
            "Isr: " in line and len(line.split("Isr: ")[1].split()[0].split(",")) == 3 for line in lines
        ), described.stdout
    finally:
        peer.stop()
    assert all(peer.pid(n) is None for n in peer.node_ids)
    # the last step of Kafka's clean shutdown (KafkaRaftServer.shutdown) on every node
    assert all(
        f"App info kafka.server for {n} unregistered" in peer.log_path(n).read_text(errors="replace")
        for n in peer.node_ids
    )


def test_cluster_ids_are_kafka_uuids_that_never_start_with_a_dash():
    ids = {random_cluster_id() for _ in range(2000)}
    assert len(ids) == 2000 and all(len(i) == 22 and not i.startswith("-") for i in ids)
