"""A node whose ``controller.quorum.voters`` differs from the quorum's stops with one line naming
the property, and the quorum it disagrees with keeps working.

Nodes 1 and 2 are the voters; node 3, a broker, is restarted believing itself a voter of
{1, 2, 3}.  Standing for election, it asks 1 and 2 for votes; they answer
INCONSISTENT_VOTER_SET (3 is not among their voters) and node 3 stops: its last line is
``Error: fatal fault: controller.quorum.voters differs between nodes ...``.  A new voter whose
list names a fourth voter the others do not know is a voter of theirs, so nobody refuses it:
it stops when it fetches the leader's ``LeaderChange``, whose voters are not its own.  A new
voter of another ``cluster.id`` is refused (INCONSISTENT_CLUSTER_ID) by the others and stops once
a majority of the voters has refused it; they keep running.  A new
broker whose ``cluster.id`` is not the controller's is refused at registration
(INCONSISTENT_CLUSTER_ID) and stops naming ``cluster.id``; a controller-only node restarted with
another ``cluster.id`` than its metadata log directory's ``meta.properties`` stops naming it.  (A
quorum request from another cluster is refused with INCONSISTENT_CLUSTER_ID in the Raft manager
tests.)
"""

from __future__ import annotations

import shutil
import time

import pytest

from kafkette.client import AdminClient, LocalClusterError, NewTopic
from kafkette.client.local_cluster import free_ports
from tests.cluster_helpers import wait_for_quorum_leader

pytestmark = pytest.mark.timeout(120)


async def test_a_node_with_another_voter_list_stops_naming_the_property(cluster_factory):
    cluster = cluster_factory(3, controllers=2)
    cluster.stop_broker(3, hard=False)
    ports = cluster.ports
    cluster.node_configs[3] = {
        "process.roles": "broker,controller",
        "controller.quorum.voters": ",".join(f"{n}@127.0.0.1:{ports[n]}" for n in (1, 2, 3)),
    }
    try:
        cluster.start_broker(3)  # it may register as a broker before it stands for election
    except LocalClusterError:
        pass
    errors = _wait_until_stopped(cluster, 3)
    assert errors and "controller.quorum.voters differs between nodes" in errors[-1], errors
    assert "does not count node 3 among its voters (this node's voters: 1,2,3)" in errors[-1]

    async with AdminClient(bootstrap_servers=f"127.0.0.1:{ports[1]}", request_timeout_ms=5000) as admin:
        leader, _ = await wait_for_quorum_leader(admin)
        assert leader in (1, 2)
        await admin.create_topics([NewTopic("still-served", 1, 2)])


def _wait_until_stopped(cluster, node_id: int) -> list[str]:
    """The node's ``Error:`` lines once it has exited (within 30 s)."""
    deadline = time.monotonic() + 30
    while cluster.is_running(node_id):
        assert time.monotonic() < deadline, f"the misconfigured node {node_id} kept running"
        time.sleep(0.1)
    return _error_lines(cluster, node_id)


def _error_lines(cluster, node_id: int) -> list[str]:
    """The ``Error:`` lines the node printed."""
    return [line for line in cluster.log_path(node_id).read_text().splitlines() if line.startswith("Error: ")]


async def test_a_new_voter_naming_an_extra_voter_stops_at_the_leaders_voter_set(cluster_factory):
    cluster = cluster_factory(3, controllers=3)
    ports = cluster.ports
    async with AdminClient(bootstrap_servers=f"127.0.0.1:{ports[1]}", request_timeout_ms=5000) as admin:
        await wait_for_quorum_leader(admin)
    cluster.stop_broker(3, hard=False)
    shutil.rmtree(cluster.broker_dir(3) / "logs")  # a new node: no quorum-state to compare the list with
    (extra_port,) = free_ports(1)
    voters = [f"{n}@127.0.0.1:{ports[n]}" for n in (1, 2, 3)] + [f"4@127.0.0.1:{extra_port}"]
    cluster.node_configs[3] = {"controller.quorum.voters": ",".join(voters)}
    try:
        cluster.start_broker(3)
    except LocalClusterError:
        pass
    errors = _wait_until_stopped(cluster, 3)
    assert errors and "controller.quorum.voters differs between nodes: leader" in errors[-1], errors
    assert "was elected by voters 1,2,3 (this node's voters: 1,2,3,4)" in errors[-1], errors

    async with AdminClient(bootstrap_servers=f"127.0.0.1:{ports[1]}", request_timeout_ms=5000) as admin:
        leader, _ = await wait_for_quorum_leader(admin)
        assert leader in (1, 2)
        await admin.create_topics([NewTopic("still-served", 1, 2)])


async def test_a_controller_only_node_restarted_with_another_cluster_id_stops_naming_it(cluster_factory):
    cluster = cluster_factory(1, controllers=3, isolated_controllers=True)
    cluster.stop_broker(3003, hard=False)
    cluster.node_configs[3003] = {"cluster.id": "another-cluster"}
    with pytest.raises(LocalClusterError, match="exited with code 1"):
        cluster.start_broker(3003)
    errors = _error_lines(cluster, 3003)
    assert errors and "Invalid value another-cluster for configuration cluster.id: log dir" in errors[-1], (
        errors
    )
    assert "meta.properties" in errors[-1]
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        leader, _ = await wait_for_quorum_leader(admin)
        assert leader in (3001, 3002)
        await admin.create_topics([NewTopic("still-served", 1, 1)])


async def test_a_new_voter_of_another_cluster_refused_by_a_majority_stops_naming_cluster_id(cluster_factory):
    cluster = cluster_factory(1, controllers=3, isolated_controllers=True)
    cluster.stop_broker(3003, hard=False)
    shutil.rmtree(cluster.broker_dir(3003) / "logs")  # a new node: no meta.properties to disagree with
    cluster.node_configs[3003] = {"cluster.id": "another-cluster"}
    try:
        cluster.start_broker(3003)
    except LocalClusterError:
        pass
    errors = _wait_until_stopped(cluster, 3003)
    assert (
        errors
        and "Invalid value 'another-cluster' for configuration cluster.id: voters 3001,3002, a "
        "majority of controller.quorum.voters, belong to another cluster"
        in errors[-1]
    ), errors
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        leader, _ = await wait_for_quorum_leader(admin)
        assert leader in (3001, 3002)  # the voters that refused it keep running
        await admin.create_topics([NewTopic("still-served", 1, 1)])
    assert cluster.is_running(3001) and cluster.is_running(3002)


async def test_a_new_broker_of_another_cluster_stops_naming_cluster_id(cluster_factory):
    cluster = cluster_factory(3, controllers=2)
    cluster.stop_broker(3, hard=False)
    shutil.rmtree(cluster.broker_dir(3) / "logs")  # a new node: no meta.properties to disagree with
    cluster.node_configs[3] = {"cluster.id": "another-cluster"}
    with pytest.raises(LocalClusterError, match="exited with code 1"):
        cluster.start_broker(3)
    errors = _error_lines(cluster, 3)
    assert (
        errors
        and "Invalid value for configuration cluster.id: 'another-cluster' is not the controller's cluster"
        in errors[-1]
    ), errors
    async with AdminClient(
        bootstrap_servers=f"127.0.0.1:{cluster.ports[1]}", request_timeout_ms=5000
    ) as admin:
        assert [b.node_id for b in (await admin.describe_cluster())["brokers"]] == [1, 2]
