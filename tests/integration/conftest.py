"""Integration fixtures: real broker processes on 127.0.0.1, torn down after use."""

from __future__ import annotations

import pytest

from client import LocalCluster

# Faster failure detection than Kafka's defaults so fault tests finish quickly.
FAST_FAILOVER = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "replica.lag.time.max.ms": 3000,
    "replica.fetch.backoff.ms": 200,
    "replica.high.watermark.checkpoint.interval.ms": 1000,
}


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A 3-broker cluster shared by the tests of one module (they use distinct topics)."""
    with LocalCluster(num_brokers=3, data_dir=tmp_path_factory.mktemp("cluster"), broker_configs=FAST_FAILOVER) as c:
        yield c


@pytest.fixture
def cluster_factory(tmp_path):
    """Start clusters with given sizes/configs; every one is stopped at teardown."""
    started: list[LocalCluster] = []

    def make(num_brokers: int = 3, **configs: object) -> LocalCluster:
        props = dict(FAST_FAILOVER)
        props.update({k.replace("_", "."): v for k, v in configs.items()})
        cluster = LocalCluster(num_brokers=num_brokers, data_dir=tmp_path / f"cluster{len(started)}",
                               broker_configs=props)
        cluster.start()
        started.append(cluster)
        return cluster

    yield make
    for cluster in started:
        cluster.stop()
