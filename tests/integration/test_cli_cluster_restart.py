"""Restarting a local cluster's brokers on real processes: ``kafkette cluster restart-broker`` and
``kafkette cluster start`` on a data directory whose cluster is partly down or stopped keep each
broker's port and its ``server.properties`` as the user edited it (a port another process took
moves, said in one line), ``cluster.json`` stays true (``cluster status --data-dir`` and
``--bootstrap-server`` agree, ``cluster stop`` stops brokers started either way), the Kafka
listeners' addresses are recorded and shown, and the ``export KAFKETTE_BOOTSTRAP_SERVERS=...``
line follows the cluster."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkette.client.cluster_pid_file import is_alive, read_pid_file
from tests.cli_processes import kill_recorded_brokers, run_cli

FAST = [
    "--config",
    "broker.session.timeout.ms=3000",
    "--config",
    "broker.heartbeat.interval.ms=500",
    "--config",
    "controlled.shutdown.retry.backoff.ms=100",
]
EDIT = "# kept across restarts\nlog.retention.ms=86400123\n"


def _ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    return result


def _bootstrap(result: subprocess.CompletedProcess) -> str:
    first = result.stdout.splitlines()[0]
    assert first.startswith("bootstrap.servers="), result.stdout
    return first.split("=", 1)[1]


def _status_rows(data_dir: Path, bootstrap: str | None = None) -> list[list[str]]:
    """``cluster status`` rows (Broker, Address, Alive, Controller) by ``--data-dir`` or
    ``--bootstrap-server``."""
    where = ["--data-dir", str(data_dir)] if bootstrap is None else ["--bootstrap-server", bootstrap]
    lines = _ok(run_cli("cluster", "status", *where)).stdout.splitlines()
    header = lines[0].split()
    keep = [i for i, name in enumerate(header) if name in ("Broker", "Address", "Alive", "Controller")]
    return [[row.split()[i] for i in keep] for row in lines[1:-1]]


def _kill(broker) -> None:
    """SIGKILL a recorded broker and wait until it is gone (its sockets closed)."""
    os.kill(broker.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while is_alive(broker):
        assert time.monotonic() < deadline, f"broker {broker.id} (pid {broker.pid}) outlived SIGKILL"
        time.sleep(0.05)


def _port(bootstrap: str, broker_id: int) -> int:
    return int(bootstrap.split(",")[broker_id - 1].rsplit(":", 1)[1])


@pytest.fixture
def data_dir(tmp_path) -> Iterator[Path]:
    """A data directory whose recorded brokers are killed at teardown, whatever the test did."""
    directory = tmp_path / "cluster"
    yield directory
    kill_recorded_brokers(directory)


@pytest.mark.timeout(300)
def test_restart_broker_keeps_its_port_and_edited_server_properties_and_status_agrees(data_dir):
    bootstrap = _bootstrap(_ok(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir), *FAST)))
    before = read_pid_file(data_dir)
    config = data_dir / "broker-2" / "server.properties"
    config.write_text(config.read_text() + EDIT)

    restarted = _ok(run_cli("cluster", "restart-broker", "2", "--data-dir", str(data_dir)))
    assert _bootstrap(restarted) == bootstrap
    after = read_pid_file(data_dir)
    old, new = before.brokers[1], after.brokers[1]
    assert (new.id, new.port) == (2, old.port) and new.pid != old.pid and is_alive(new) and not is_alive(old)
    assert [b.pid for b in after.brokers if b.id != 2] == [b.pid for b in before.brokers if b.id != 2]
    assert restarted.stderr.splitlines() == [
        f"Stopped broker 2 (pid {old.pid})",
        f"export KAFKETTE_BOOTSTRAP_SERVERS={bootstrap}",
        f"Restarted broker 2 (pid {new.pid}) on 127.0.0.1:{old.port}",
    ]
    assert config.read_text().endswith(EDIT)
    described = _ok(
        run_cli("configs", "describe", "--all", "--broker", "2", "--bootstrap-server", bootstrap)
    ).stdout
    assert "log.retention.ms=86400123 " in described  # the edited file is what the broker runs with

    by_data_dir = _status_rows(data_dir)
    assert [row[:3] for row in by_data_dir] == [
        [str(b.id), f"127.0.0.1:{b.port}", "yes"] for b in after.brokers
    ]
    assert _status_rows(data_dir, bootstrap) == by_data_dir

    stopped = _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
    assert stopped.stdout.strip() == f"Stopped 3 broker(s) in {data_dir}"
    assert not any(is_alive(b) for b in after.brokers)


@pytest.mark.timeout(300)
def test_start_on_a_partly_down_cluster_starts_the_brokers_that_are_down_and_a_stopped_one_keeps_its_ports(
    data_dir,
):
    started = _ok(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir), *FAST))
    bootstrap = _bootstrap(started)
    assert f"export KAFKETTE_BOOTSTRAP_SERVERS={bootstrap}" in started.stderr.splitlines()
    first = read_pid_file(data_dir)
    _kill(first.brokers[2])

    again = _ok(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir)))
    assert _bootstrap(again) == bootstrap
    assert f"Brokers 1, 2 of {data_dir} run; starting node(s) 3 ..." in again.stderr.splitlines()
    second = read_pid_file(data_dir)
    assert [b.pid for b in second.brokers[:2]] == [b.pid for b in first.brokers[:2]]
    assert second.brokers[2].pid != first.brokers[2].pid and all(is_alive(b) for b in second.brokers)
    rows = _status_rows(data_dir)
    assert [row[2] for row in rows] == ["yes", "yes", "yes"]
    assert _status_rows(data_dir, bootstrap) == rows

    _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
    assert not any(is_alive(b) for b in second.brokers)
    whole = _ok(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir)))
    assert _bootstrap(whole) == bootstrap  # the same ports after a stop
    assert not any(line.startswith("Port ") for line in whole.stderr.splitlines())
    assert (
        _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir))).stdout.strip()
        == f"Stopped 3 broker(s) in {data_dir}"
    )


def _hold(port: int, timeout_s: float = 10) -> socket.socket:
    """A socket listening on ``127.0.0.1:port`` (another process's, as far as the cluster knows).

    A port the OS handed out is in the ephemeral range: just after its broker died, another
    process's outgoing connection may hold it for a moment, so the bind is retried.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)
            continue
        sock.listen()
        return sock


def _moved(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Port ")]


@pytest.mark.timeout(300)
def test_a_taken_port_gets_a_new_one_said_in_one_line(data_dir):
    bootstrap = _bootstrap(
        _ok(
            run_cli(
                "cluster",
                "start",
                "--daemon",
                "--brokers",
                "3",
                "--controllers",
                "1",
                "--data-dir",
                str(data_dir),
                *FAST,
            )
        )
    )
    record = read_pid_file(data_dir)
    _kill(record.brokers[2])
    old_port = _port(bootstrap, 3)
    with _hold(old_port):
        restarted = _ok(run_cli("cluster", "restart-broker", "3", "--data-dir", str(data_dir)))
    new_bootstrap = _bootstrap(restarted)
    new_port = _port(new_bootstrap, 3)
    assert new_port != old_port and new_bootstrap.split(",")[:2] == bootstrap.split(",")[:2]
    assert _moved(restarted) == [
        f"Port {old_port} of broker 3 is taken; broker 3 listens on 127.0.0.1:{new_port} "
        f"now (listeners in {data_dir}/broker-3/server.properties)"
    ]
    assert f"export KAFKETTE_BOOTSTRAP_SERVERS={new_bootstrap}" in restarted.stderr.splitlines()
    assert read_pid_file(data_dir).bootstrap_servers == new_bootstrap
    assert read_pid_file(data_dir).brokers[2].port == new_port
    rows = _status_rows(data_dir)
    assert rows[2][:3] == ["3", f"127.0.0.1:{new_port}", "yes"]
    assert _status_rows(data_dir, new_bootstrap) == rows

    # the voter's port, taken while the cluster is stopped, moves in every node's controller.quorum.voters
    _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
    voter_port = _port(bootstrap, 1)
    with _hold(voter_port):
        whole = _ok(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir)))
    moved_to = _port(_bootstrap(whole), 1)
    assert _moved(whole) == [
        f"Port {voter_port} of broker 1 is taken; broker 1 listens on 127.0.0.1:{moved_to} "
        f"now (listeners in {data_dir}/broker-1/server.properties)"
    ]
    assert _bootstrap(whole).split(",")[1:] == new_bootstrap.split(",")[1:]
    assert [row[2] for row in _status_rows(data_dir)] == ["yes", "yes", "yes"]
    _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir)))


@pytest.mark.timeout(300)
def test_kafka_listener_addresses_are_recorded_shown_and_kept_by_a_restart(data_dir):
    started = _ok(
        run_cli(
            "cluster",
            "start",
            "--daemon",
            "--brokers",
            "2",
            "--kafka-protocol",
            "--data-dir",
            str(data_dir),
            *FAST,
        )
    )
    bootstrap, kafka_line = started.stdout.splitlines()[:2]
    kafka_bootstrap = kafka_line.removeprefix("kafka.bootstrap.servers=")
    record = read_pid_file(data_dir)
    assert record.bootstrap_servers == bootstrap.removeprefix("bootstrap.servers=")
    assert record.kafka_bootstrap_servers == kafka_bootstrap
    assert [f"127.0.0.1:{b.kafka_port}" for b in record.brokers] == kafka_bootstrap.split(",")

    restarted = _ok(run_cli("cluster", "restart-broker", "2", "--data-dir", str(data_dir)))
    assert restarted.stdout.splitlines()[1] == kafka_line
    assert read_pid_file(data_dir).kafka_bootstrap_servers == kafka_bootstrap
    lines = _ok(run_cli("cluster", "status", "--data-dir", str(data_dir))).stdout.splitlines()
    assert lines[0].split() == ["Broker", "Address", "Kafka", "address", "Alive", "Controller"]
    assert [row.split()[:4] for row in lines[1:3]] == [
        [str(b.id), f"127.0.0.1:{b.port}", f"127.0.0.1:{b.kafka_port}", "yes"] for b in record.brokers
    ]
    _ok(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
