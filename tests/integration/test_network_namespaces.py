"""The chaos harness's network: every node in a namespace of its own behind a bridge, the clients
in another; a cut drops packets both ways until healed; a broker closes a half-open connection
(its client gone without a FIN) after connections.max.idle.ms (real namespaces; needs root)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from kafkette.client.local_cluster import LocalCluster, fetch_metadata
from tests.chaos import netns
from tests.chaos.netns import CLIENTS, NamespaceNetwork


@pytest.fixture(scope="module")
def network():
    reason = netns.available()
    if reason is not None:
        pytest.fail(f"this test needs network namespaces: {reason}")
    with NamespaceNetwork([1, 2]) as net:
        yield net


LISTEN = (
    "import socket,sys; s=socket.create_server(('0.0.0.0', 9092)); print('up', flush=True); "
    "[s.accept()[0].close() for _ in range(100)]"
)


def _connects(address: str, timeout_s: float = 1.0) -> bool:
    try:
        socket.create_connection((address, 9092), timeout=timeout_s).close()
        return True
    except OSError:
        return False


def test_a_cut_drops_traffic_both_ways_until_healed_and_nothing_runs_on_loopback(network):
    server = subprocess.Popen(
        [*network.command_prefix()[2], sys.executable, "-c", LISTEN], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout.readline().strip() == "up"
        address = network.hosts()[2]
        assert not address.startswith("127.")

        def check() -> list[bool]:
            seen = [_connects(address)]
            network.cut(CLIENTS, 2)
            seen.append(_connects(address))
            network.heal()
            seen.append(_connects(address))
            seen.append(_connects("127.0.0.1", 0.5))  # the node listens in its namespace only
            return seen

        assert network.run_as_client(check, 30) == [True, False, True, False]
        # node 1 reaches node 2 unless they are cut
        probe = [
            *network.command_prefix()[1],
            sys.executable,
            "-c",
            f"import socket; socket.create_connection(('{address}', 9092), timeout=1).close()",
        ]
        assert subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
        network.isolate(2)
        assert subprocess.run(probe, capture_output=True, timeout=30).returncode != 0
        network.heal()
        assert subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    finally:
        server.kill()
        server.wait(10)


def test_a_half_open_connection_is_closed_by_the_broker_after_connections_max_idle_ms(network, tmp_path):
    """The client vanishes without a FIN (its packets dropped both ways): the broker's side of the
    connection stays open until ``connections.max.idle.ms`` closes it, and it serves the others."""
    cluster = LocalCluster(
        num_brokers=1,
        data_dir=tmp_path,
        hosts={1: network.hosts()[1]},
        command_prefix={1: network.command_prefix()[1]},
        broker_configs={"connections.max.idle.ms": 2000},
    )

    def body() -> None:
        with cluster:
            sock = socket.create_connection((network.hosts()[1], cluster.ports[1]), timeout=5)
            host, port = sock.getsockname()
            peer = f"{host}:{port}"
            network.cut(CLIENTS, 1)
            try:
                deadline = time.monotonic() + 20
                closed = f"Closing connection from {peer}: idle"
                while closed not in cluster.log_path(1).read_text() and time.monotonic() < deadline:
                    time.sleep(0.2)
                assert closed in cluster.log_path(1).read_text(), "the half-open connection was never closed"
            finally:
                network.heal()
                sock.close()
            assert fetch_metadata(cluster.ports[1], host=network.hosts()[1]).brokers

    network.run_as_client(body, 120)
