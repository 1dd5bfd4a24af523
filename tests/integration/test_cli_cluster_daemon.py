"""A cluster you can see and stop: ``kafkette cluster start --daemon``, ``status`` and ``stop``
on real broker processes, a second start refused, and ``stop`` where nothing runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kafkette.client import cluster_pid_file
from kafkette.client.cluster_pid_file import (
    BrokerProcess,
    ClusterPidFile,
    is_alive,
    process_start_time,
    read_pid_file,
    stop_brokers,
)
from tests.cli_processes import kill_recorded_brokers, ok_stdout, run_cli

pytestmark = pytest.mark.timeout(240)

FAST = [
    "--config",
    "broker.session.timeout.ms=3000",
    "--config",
    "broker.heartbeat.interval.ms=500",
    "--config",
    "replica.lag.time.max.ms=2000",
]


@pytest.fixture
def data_dir(tmp_path):
    """A data directory whose recorded brokers are killed at teardown, whatever the test did."""
    directory = tmp_path / "cluster"
    yield directory
    kill_recorded_brokers(directory)


def _wait_for(predicate, timeout_s: float, what: str) -> str:
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        ok, last = predicate()
        if ok:
            return last
        time.sleep(0.5)
    raise AssertionError(f"{what} not seen within {timeout_s} s; last: {last}")


def test_daemon_cluster_status_second_start_kill_and_stop(data_dir):
    started = run_cli("cluster", "start", "--daemon", "--brokers", "3", "--data-dir", str(data_dir), *FAST)
    out = ok_stdout(started)
    assert out.startswith("bootstrap.servers=127.0.0.1:")
    assert f"kafkette cluster stop --data-dir {data_dir}" in started.stderr
    record = read_pid_file(data_dir)
    assert record is not None and [b.id for b in record.brokers] == [1, 2, 3]
    assert all(is_alive(b) for b in record.brokers)  # they outlived the command that started them
    bootstrap = out.strip().split("=", 1)[1]
    assert record.bootstrap_servers == bootstrap

    ok_stdout(
        run_cli(
            "topics",
            "create",
            "--topic",
            "seen",
            "--partitions",
            "3",
            "--replication-factor",
            "3",
            "--bootstrap-server",
            bootstrap,
        )
    )
    status = ok_stdout(run_cli("cluster", "status", "--data-dir", str(data_dir)))
    rows = [line.split() for line in status.splitlines()[1:4]]
    assert [row[:3] for row in rows] == [[str(b.id), f"127.0.0.1:{b.port}", "yes"] for b in record.brokers]
    assert sorted(row[3] for row in rows) == ["active", "voter", "voter"]  # three voters, one leads
    assert record.voter_ids == (1, 2, 3)
    assert status.splitlines()[-1] == "Topics: 1, partitions: 3, under-replicated: 0, offline: 0"
    assert ok_stdout(run_cli("cluster", "status", "--bootstrap-server", bootstrap)) == status

    again = run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir))
    assert again.returncode != 0
    assert again.stderr.strip() == (
        f"Error: A cluster is already running in {data_dir} (pids "
        f"{', '.join(str(b.pid) for b in record.brokers)}); stop it with: "
        f"kafkette cluster stop --data-dir {data_dir}"
    )
    assert all(is_alive(b) for b in record.brokers)

    os.kill(record.brokers[2].pid, signal.SIGKILL)

    def broker_3_down() -> tuple[bool, str]:
        text = ok_stdout(run_cli("cluster", "status", "--data-dir", str(data_dir)))
        return "under-replicated: 3, offline: 0" in text and text.splitlines()[3].split()[2] == "no", text

    _wait_for(broker_3_down, 60, "broker 3 not alive and 3 under-replicated partitions")

    stopped = run_cli("cluster", "stop", "--data-dir", str(data_dir))
    assert ok_stdout(stopped).strip() == f"Stopped 2 broker(s) in {data_dir}"
    assert not any(is_alive(b) for b in record.brokers)
    assert not (data_dir / "cluster.json").exists()
    log = (data_dir / "broker-2" / "broker.log").read_text()
    assert "controlled shutdown" in log.lower()

    twice = run_cli("cluster", "stop", "--data-dir", str(data_dir))
    assert twice.returncode != 0 and twice.stderr.startswith(f"Error: No cluster was started in {data_dir}")


def test_stop_and_status_where_no_cluster_runs(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    stop = run_cli("cluster", "stop", "--data-dir", str(empty))
    assert stop.returncode != 0
    assert stop.stderr.strip() == f"Error: No cluster was started in {empty} (no {empty / 'cluster.json'})"
    status = run_cli("cluster", "status", "--data-dir", str(empty))
    assert status.returncode != 0 and "No cluster was started" in status.stderr
    nobody = run_cli("cluster", "status", "--bootstrap-server", "127.0.0.1:1", "--request-timeout-ms", "2000")
    assert nobody.returncode != 0 and nobody.stderr.startswith("Error: No broker of 127.0.0.1:1 answers")


IGNORES_SIGTERM = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(60)"
)


def _process(code: str = "import time; print('ready', flush=True); time.sleep(60)") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_stop_terminates_followers_then_the_controller_and_kills_a_hung_one(monkeypatch):
    follower, hung, controller = _process(), _process(IGNORES_SIGTERM), _process()
    procs = {2: follower, 3: hung, 1: controller}
    record = ClusterPidFile(
        "x",
        (1,),
        tuple(BrokerProcess(i, p.pid, 0, process_start_time(p.pid) or -1) for i, p in sorted(procs.items())),
    )
    sent: list[tuple[int, int]] = []
    real_signal = cluster_pid_file._signal

    def recording(broker: BrokerProcess, signum: int) -> None:
        sent.append((broker.id, signum))
        real_signal(broker, signum)

    monkeypatch.setattr(cluster_pid_file, "_signal", recording)
    try:
        stopped, killed = stop_brokers(record, timeout_ms=500)
        assert sorted(b.id for b in stopped) == [1, 2] and [b.id for b in killed] == [3]
        assert sent == [(2, signal.SIGTERM), (3, signal.SIGTERM), (3, signal.SIGKILL), (1, signal.SIGTERM)]
        assert [procs[i].wait(timeout=10) for i in (1, 2, 3)] == [
            -signal.SIGTERM,
            -signal.SIGTERM,
            -signal.SIGKILL,
        ]
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()


def test_kafka_protocol_flag_prints_kafka_bootstrap_servers_that_kafka_clients_reach(data_dir, kcat_path):
    out = ok_stdout(
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
    lines = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    assert set(lines) == {"bootstrap.servers", "kafka.bootstrap.servers"}
    kafka_bootstrap = lines["kafka.bootstrap.servers"]
    assert len(kafka_bootstrap.split(",")) == 2 and kafka_bootstrap != lines["bootstrap.servers"]
    try:
        listed = subprocess.run(
            [kcat_path, "-b", kafka_bootstrap, "-L", "-m", "10"], capture_output=True, text=True, timeout=60
        )
        assert listed.returncode == 0, listed.stderr
        assert "2 brokers:" in listed.stdout
        for address in kafka_bootstrap.split(","):
            assert f"at {address}" in listed.stdout
    finally:
        ok_stdout(run_cli("cluster", "stop", "--data-dir", str(data_dir)))


@pytest.fixture(scope="module")
def kcat_path() -> str:
    """kcat (Debian's package, installed by ``make setup``); fails when it is missing."""
    import shutil

    path = shutil.which("kcat") or shutil.which("kafkacat")
    if path is None:
        pytest.fail("kcat is not installed: run `make setup` (it installs Debian's kcat as root)")
    return path
