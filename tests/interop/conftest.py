"""Fixtures of the tests that run Kafka's own clients (confluent-kafka, kafka-python, aiokafka,
kcat, Kafka's Java clients) against Kafkette's Kafka-protocol listener: a 3-broker cluster with
``kafka_protocol=True`` shared by the tests of one module (they use distinct topics and groups); and,
for the tests that expect the same outcome on both, a 3-node Apache Kafka 4.3.1 (``kafka``) and a
3-broker Kafkette (``kafkette``) with the same ``SHARED_BROKER_CONFIGS``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from kafkette.client import LocalCluster
from tests.cluster_configs import FAST_FAILOVER
from tests.conformance.run import PEER_HEAP_MB
from tests.conformance.target import CLUSTER_NODES, SHARED_BROKER_CONFIGS
from tests.peers.kafka_peer import KafkaPeer, start_or_fail


@pytest.fixture(scope="module")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A 3-broker cluster whose brokers also listen for Kafka's protocol (``kafka_bootstrap_servers``)."""
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("kafka-protocol"),
        broker_configs=FAST_FAILOVER,
        kafka_protocol=True,
    ) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def kcat() -> str:
    """The path of kcat (Debian's package, installed by ``make setup``); fails when it is missing."""
    path = shutil.which("kcat") or shutil.which("kafkacat")
    if path is None:
        pytest.fail(
            "kcat is not installed: run `make setup` (it installs Debian's kcat as root) "
            "or `apt-get install kcat`"
        )
    return path


@pytest.fixture(scope="module")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Apache Kafka (3 nodes): its bootstrap servers."""
    peer = KafkaPeer(
        tmp_path_factory.mktemp("kafka"),
        nodes=CLUSTER_NODES,
        heap_mb=PEER_HEAP_MB,
        broker_configs=SHARED_BROKER_CONFIGS,
    )
    start_or_fail(peer)
    try:
        yield peer.bootstrap_servers
    finally:
        peer.stop()


@pytest.fixture(scope="module")
def kafkette(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Kafkette (3 brokers with the Kafka listener): the listeners' bootstrap servers."""
    with LocalCluster(
        num_brokers=CLUSTER_NODES,
        data_dir=tmp_path_factory.mktemp("kafkette"),
        kafka_protocol=True,
        broker_configs=SHARED_BROKER_CONFIGS,
    ) as cluster:
        yield cluster.kafka_bootstrap_servers


@pytest.fixture(scope="module")
def one_node_each(tmp_path_factory: pytest.TempPathFactory):
    """``(peer, {"kafka": bootstrap, "kafkette": bootstrap})``: one Apache Kafka node and one
    Kafkette broker with its Kafka listener, shared by a module's tests."""
    peer = KafkaPeer(tmp_path_factory.mktemp("kafka"), nodes=1, heap_mb=384)
    start_or_fail(peer)
    try:
        with LocalCluster(
            num_brokers=1, data_dir=tmp_path_factory.mktemp("kafkette"), kafka_protocol=True
        ) as cluster:
            yield peer, {"kafka": peer.bootstrap_servers, "kafkette": cluster.kafka_bootstrap_servers}
    finally:
        peer.stop()
