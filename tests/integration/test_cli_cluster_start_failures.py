"""``kafkette cluster start`` says what went wrong, on real broker processes: a broker whose port
is busy, whose log dir is a file, or whose port another running cluster holds is named with its
exit code, reason and log as soon as it exits, and nothing of the data directory is left
running; in the foreground it says when it is ready and when a broker exits, and it ends when
``kafkette cluster stop`` stops its brokers from another shell."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafkette.client.cluster_pid_file import read_pid_file
from kafkette.client.local_cluster import free_ports
from tests.cli_processes import KAFKETTE, ok_stdout, pids_using, run_cli

# Well under the 60 s a start used to wait for a broker that had long exited; loose enough for a
# loaded machine (the time from a broker's exit to the error line is measured apart, not here).
FAILED_START_BOUND_S = 40
FAST = [
    "--config",
    "broker.session.timeout.ms=3000",
    "--config",
    "broker.heartbeat.interval.ms=500",
    "--config",
    "controlled.shutdown.retry.backoff.ms=100",
]


def _error_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Error: ")]


def _consecutive_free_ports(count: int) -> int:
    """A port P such that P..P+count-1 are free on 127.0.0.1 now."""
    for _ in range(100):
        (base,) = free_ports(1)
        if base + count > 65535:
            continue
        socks = []
        try:
            for port in range(base, base + count):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise AssertionError(f"no {count} consecutive free ports found")


@pytest.fixture
def data_dirs(tmp_path) -> Iterator[Callable[[str], Path]]:
    """Makes data directories; at teardown kills every process that still names one of them."""
    made: list[Path] = []

    def make(name: str) -> Path:
        made.append(tmp_path / name)
        return made[-1]

    yield make
    for directory in made:
        for pid in pids_using(directory):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.timeout(180)
def test_cluster_start_names_the_broker_whose_port_is_busy_and_leaves_nothing_running(data_dirs):
    data_dir = data_dirs("busy-port")
    base = _consecutive_free_ports(3)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", base + 1))  # broker 2's port
        busy.listen()
        result = run_cli(
            "cluster",
            "start",
            "--daemon",
            "--data-dir",
            str(data_dir),
            "--base-port",
            str(base),
            timeout_s=FAILED_START_BOUND_S,
        )
    assert result.returncode == 1
    assert _error_lines(result) == [
        f"Error: broker 2 exited with code 1: cannot listen on 127.0.0.1:{base + 1}: "
        f"address already in use (log: {data_dir}/broker-2/broker.log)"
    ], result.stderr
    assert "Traceback" not in result.stderr
    assert pids_using(data_dir) == set()
    assert not (data_dir / "cluster.json").exists()


@pytest.mark.timeout(180)
def test_cluster_start_says_a_log_dir_is_a_file(data_dirs):
    data_dir = data_dirs("log-dir-file")
    (data_dir / "broker-2").mkdir(parents=True)
    (data_dir / "broker-2" / "logs").write_text("not a directory\n")
    result = run_cli(
        "cluster", "start", "--daemon", "--data-dir", str(data_dir), timeout_s=FAILED_START_BOUND_S
    )
    assert result.returncode == 1
    assert _error_lines(result) == [
        f"Error: broker 2 exited with code 1: log.dirs entry {data_dir}/broker-2/logs is "
        f"a file, not a directory (log: {data_dir}/broker-2/broker.log)"
    ], result.stderr
    assert pids_using(data_dir) == set()


@pytest.mark.timeout(240)
def test_cluster_start_overlapping_a_running_cluster_names_the_port_conflict(data_dirs):
    running, overlapping = data_dirs("running"), data_dirs("overlapping")
    base = _consecutive_free_ports(5)
    first = ok_stdout(
        run_cli("cluster", "start", "--daemon", "--data-dir", str(running), "--base-port", str(base), *FAST)
    )
    try:
        # its broker 1 gets the running cluster's broker 3's port; its brokers 2 and 3 find that node
        # among their voters, and it answers with the other cluster's cluster.id
        result = run_cli(
            "cluster",
            "start",
            "--daemon",
            "--data-dir",
            str(overlapping),
            "--base-port",
            str(base + 2),
            timeout_s=FAILED_START_BOUND_S,
        )
        assert result.returncode == 1
        assert _error_lines(result) == [
            f"Error: broker 1 exited with code 1: cannot listen on 127.0.0.1:{base + 2}: address already in "
            f"use (log: {overlapping}/broker-1/broker.log)"
        ], result.stderr
        assert "cluster.id" not in result.stderr
        assert pids_using(overlapping) == set()
        status = ok_stdout(run_cli("cluster", "status", "--data-dir", str(running)))
        assert [line.split()[2] for line in status.splitlines()[1:4]] == ["yes", "yes", "yes"], status
        assert first.startswith(f"bootstrap.servers=127.0.0.1:{base},")
    finally:
        run_cli("cluster", "stop", "--data-dir", str(running))


class _Lines:
    """The lines of a process's pipe, read by a thread as they come."""

    def __init__(self, pipe) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe) -> None:
        for line in pipe:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, predicate: Callable[[str], bool], timeout_s: float, what: str) -> str:
        """The first line (from now on) for which ``predicate`` holds."""
        try:
            while True:
                line = self._queue.get(timeout=timeout_s)
                if line is None:
                    break
                self.seen.append(line)
                if predicate(line):
                    return line
        except queue.Empty:
            pass
        raise AssertionError(f"{what} not seen within {timeout_s} s; lines: {self.seen}")

    def rest(self, timeout_s: float = 10) -> list[str]:
        """Every line until the pipe closes."""
        self._thread.join(timeout_s)
        while not self._queue.empty():
            line = self._queue.get_nowait()
            if line is not None:
                self.seen.append(line)
        return self.seen


@pytest.mark.timeout(240)
def test_foreground_start_says_ready_names_a_killed_broker_and_ends_after_cluster_stop(data_dirs):
    data_dir = data_dirs("foreground")
    proc = subprocess.Popen(
        [str(KAFKETTE), "cluster", "start", "--data-dir", str(data_dir), *FAST],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        out, err = _Lines(proc.stdout), _Lines(proc.stderr)
        first = out.wait_for(lambda line: True, 90, "stdout's first line")
        assert first.startswith("bootstrap.servers=127.0.0.1:")
        bootstrap = first.split("=", 1)[1]
        ready = err.wait_for(lambda line: line.startswith("Ready:"), 30, "the ready line")
        assert ready == f"Ready: bootstrap.servers={bootstrap}, data dir {data_dir}; Ctrl-C stops it"
        assert f"export KAFKETTE_BOOTSTRAP_SERVERS={bootstrap}" in err.seen
        record = json.loads((data_dir / "cluster.json").read_text())
        killed = record["brokers"][2]["pid"]

        os.kill(killed, signal.SIGKILL)
        line = err.wait_for(lambda line: line.startswith("Broker 3 "), 30, "the line naming broker 3")
        assert line == f"Broker 3 (pid {killed}) exited with code -9 (log: {data_dir}/broker-3/broker.log)"
        assert proc.poll() is None  # the others still run

        ok_stdout(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
        assert proc.wait(timeout=60) == 0
        rest = err.rest()
        assert rest[-1] == f"The brokers of {data_dir} were stopped (kafkette cluster stop); exiting", rest
        assert not any("Traceback" in line for line in rest)
        assert pids_using(data_dir) == set()
        assert read_pid_file(data_dir) is None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
