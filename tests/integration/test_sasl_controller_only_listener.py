"""SASL on the listener of controller-only nodes (``process.roles=controller``, Kafka's isolated
mode): the voters log in to each other and the brokers to them with PLAIN
(``sasl.mechanism.controller.protocol``), so a cluster whose listeners are all SASL_PLAINTEXT
elects, registers its brokers and serves; a client that does not log in gets nothing from a
controller; a controller-only node whose SASL listener enables SCRAM does not start, naming
``sasl.enabled.mechanisms``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafkette.client import AdminClient, LocalCluster, LocalClusterError, NewTopic
from kafkette.protocol.errors import KafkaError
from tests.cluster_configs import ADMIN_JAAS, ADMIN_LOGIN

pytestmark = pytest.mark.timeout(300)

SASL_PLAIN = {
    "listener.security.protocol.map": "PLAINTEXT:SASL_PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN",
    "sasl.mechanism.inter.broker.protocol": "PLAIN",
    "sasl.mechanism.controller.protocol": "PLAIN",
    "listener.name.plaintext.plain.sasl.jaas.config": ADMIN_JAAS,
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """2 brokers and 3 controller-only voters, every listener SASL_PLAINTEXT with PLAIN."""
    with LocalCluster(
        num_brokers=2,
        controllers=3,
        isolated_controllers=True,
        data_dir=tmp_path_factory.mktemp("sasl-controllers"),
        broker_configs=SASL_PLAIN,
    ) as cluster:
        yield cluster


async def test_voters_and_brokers_log_in_to_the_controllers_and_the_cluster_serves(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, **ADMIN_LOGIN) as admin:
        await admin.create_topics([NewTopic("over-sasl-controllers", 2, 2)])
        described = (await admin.describe_topics(["over-sasl-controllers"]))["over-sasl-controllers"]
        assert all(sorted(p.isr) == [1, 2] for p in described.partitions), described
        assert len((await admin.describe_cluster())["brokers"]) == 2


async def test_a_client_that_does_not_log_in_gets_nothing_from_a_controller(cluster):
    voter = cluster.voter_ids[0]
    with pytest.raises(KafkaError):
        async with AdminClient(
            bootstrap_servers=f"127.0.0.1:{cluster.ports[voter]}", request_timeout_ms=4000
        ) as admin:
            await admin.describe_cluster()


def test_a_controller_only_node_enabling_scram_does_not_start(cluster):
    voter = cluster.voter_ids[-1]
    cluster.stop_broker(voter, hard=False)
    cluster.node_configs[voter] = {"sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512"}
    try:
        with pytest.raises(LocalClusterError):
            cluster.start_broker(voter)
        errors = [
            line for line in cluster.log_path(voter).read_text().splitlines() if line.startswith("Error: ")
        ]
        assert (
            errors and "Invalid value SCRAM-SHA-512 for configuration sasl.enabled.mechanisms" in errors[-1]
        )
        assert "serves PLAIN only" in errors[-1], errors
    finally:
        cluster.node_configs[voter] = {}
        cluster.start_broker(voter)
