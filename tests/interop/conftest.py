"""Fixtures of the tests that run Kafka's own clients (confluent-kafka, kafka-python, aiokafka,
kcat) against Kafkette's Kafka-protocol listener: a 3-broker cluster with ``kafka_protocol=True``
shared by the tests of one module (they use distinct topics and groups)."""

from __future__ import annotations

import shutil

import pytest

from kafkette.client import LocalCluster
from tests.cluster_configs import FAST_FAILOVER


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
