"""The ``kafkette`` console script end to end.

``kafkette cluster start`` runs a 3-broker cluster in the foreground and prints
``bootstrap.servers=...``; ``topics create|list|describe``, ``produce``, ``consume`` and
``perf produce|consume`` work against it; SIGINT (or SIGTERM) stops the cluster (exit 0)
and every broker process it started.  ``kafkette broker start --config`` runs one node
from a server.properties file until SIGTERM.  ``kafkette produce`` sends each line of an open
pipe as it comes.  A broker config with a bad value is refused with one line.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, TopicPartition
from kafkette.client.local_cluster import fetch_metadata, free_ports
from tests.cli_processes import ok_stdout, pids_using
from tests.cluster_helpers import read_bootstrap_line

pytestmark = pytest.mark.timeout(240)

KAFKETTE = Path(sys.executable).parent / "kafkette"
STARTUP_TIMEOUT_S = 60


def _cli(*args: str, input: str | None = None, timeout_s: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(KAFKETTE), *args], capture_output=True, text=True, input=input, timeout=timeout_s
    )


def _start_cluster(data_dir: Path, brokers: int) -> subprocess.Popen:
    """``kafkette cluster start`` in the background, output piped.

    A short ControlledShutdown backoff: a signal stops every broker, the controller among them.
    """
    return subprocess.Popen(
        [
            str(KAFKETTE),
            "cluster",
            "start",
            "--brokers",
            str(brokers),
            "--data-dir",
            str(data_dir),
            "--config",
            "controlled.shutdown.retry.backoff.ms=100",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _cluster_started(proc: subprocess.Popen, data_dir: Path, brokers: int, broker_pids: set[int]) -> str:
    """Wait for the cluster's ``bootstrap.servers`` line; add its broker processes to ``broker_pids``
    (so a failing test still kills them) and check there are ``brokers`` of each; returns the bootstrap."""
    bootstrap = read_bootstrap_line(proc, STARTUP_TIMEOUT_S)
    assert len(bootstrap.split(",")) == brokers
    broker_pids.update(pids_using(data_dir) - {proc.pid})
    assert len(broker_pids) == brokers, (
        f"expected {brokers} broker processes under {data_dir}, found {broker_pids}"
    )
    return bootstrap


def _server_properties(tmp_path: Path, *, port: int, voter_port: int, extra: str) -> Path:
    """Write a one-node (broker and controller) server.properties under ``tmp_path``, plus ``extra`` lines."""
    config = tmp_path / "server.properties"
    config.write_text(
        "node.id=1\n"
        "process.roles=broker,controller\n"
        f"listeners=PLAINTEXT://127.0.0.1:{port}\n"
        f"log.dirs={tmp_path / 'logs'}\n"
        f"controller.quorum.voters=1@127.0.0.1:{voter_port}\n" + extra
    )
    return config


def _kill_leftovers(proc: subprocess.Popen, broker_pids: set[int] = frozenset()) -> None:
    """Kill ``proc`` and any of ``broker_pids`` still running: only a failed test leaves any."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=10)
    for pid in broker_pids:  # only if the cluster failed to stop its own brokers
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _assert_stopped_cleanly(
    proc: subprocess.Popen, exit_code: int, broker_pids: set[int], signal_name: str
) -> None:
    """``kafkette cluster start`` exited 0 after ``signal_name``, without a traceback, and took its brokers
    along."""
    stderr = proc.stderr.read() if proc.stderr else ""
    assert exit_code == 0, f"cluster start exited {exit_code} after {signal_name}: {stderr}"
    assert "Traceback" not in stderr, stderr
    still_alive = {pid for pid in broker_pids if _alive(pid)}
    assert not still_alive, f"broker processes {still_alive} outlived the cluster"


def _alive(pid: int) -> bool:
    """True when ``pid`` is a live process (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
        status = Path(f"/proc/{pid}/status").read_text()
    except (ProcessLookupError, FileNotFoundError):
        return False
    state = next((line for line in status.splitlines() if line.startswith("State:")), "State: Z")
    return "Z" not in state.split()[1]


def test_cluster_start_topics_produce_consume_perf_and_sigint_from_the_console_script(tmp_path):
    data_dir = tmp_path / "cli-cluster"
    proc = _start_cluster(data_dir, 3)
    broker_pids: set[int] = set()
    try:
        bootstrap = _cluster_started(proc, data_dir, 3, broker_pids)
        server = ["--bootstrap-server", bootstrap]

        out = ok_stdout(
            _cli(
                "topics",
                "create",
                "cli-topic",
                "--partitions",
                "3",
                "--replication-factor",
                "3",
                "--config",
                "min.insync.replicas=2",
                *server,
            )
        )
        assert "cli-topic" in out
        ok_stdout(
            _cli("topics", "create", "cli-perf", "--partitions", "2", "--replication-factor", "2", *server)
        )
        assert ok_stdout(_cli("topics", "list", *server)).split() == ["cli-perf", "cli-topic"]

        described = ok_stdout(_cli("topics", "describe", "cli-topic", *server))
        table = [line.split() for line in described.splitlines() if line.strip()]
        header = ["Topic", "Partition", "Leader", "Replicas", "Isr"]
        assert header in table, described
        rows = table[table.index(header) + 1 :]
        assert [row[1] for row in rows] == ["0", "1", "2"]
        for topic, _, leader, replicas, isr in rows:
            assert topic == "cli-topic"
            assert sorted(replicas.split(",")) == ["1", "2", "3"]
            assert leader == replicas.split(",")[0]
            assert sorted(isr.split(",")) == ["1", "2", "3"]

        lines = [f"k{i}:v{i}" for i in range(12)]
        ok_stdout(
            _cli(
                "produce",
                "--topic",
                "cli-topic",
                "--key-separator",
                ":",
                *server,
                input="\n".join(lines) + "\n",
            )
        )
        consumed = ok_stdout(
            _cli("consume", "--topic", "cli-topic", "--from-beginning", "--max-messages", "12", *server)
        )
        assert sorted(consumed.splitlines()) == sorted(f"v{i}" for i in range(12))
        keyed = ok_stdout(
            _cli(
                "consume",
                "--topic",
                "cli-topic",
                "--from-beginning",
                "--max-messages",
                "12",
                "--property",
                "print.key=true",
                "--property",
                "key.separator=:",
                *server,
            )
        )
        assert sorted(keyed.splitlines()) == sorted(lines)

        produced = ok_stdout(
            _cli(
                "perf",
                "produce",
                "--topic",
                "cli-perf",
                "--num-records",
                "20000",
                "--record-size",
                "100",
                "--acks",
                "all",
                "--batch-size",
                "65536",
                "--linger-ms",
                "2",
                *server,
            )
        )
        assert "20000 records sent" in produced and "records/sec" in produced, produced
        for fragment in ("MB/sec", "ms avg latency", "ms 50th", "ms 95th", "ms 99th", "ms 99.9th"):
            assert fragment in produced, produced
        perf_consumed = ok_stdout(
            _cli("perf", "consume", "--topic", "cli-perf", "--messages", "20000", *server)
        )
        assert "20000 records consumed" in perf_consumed and "records/sec" in perf_consumed, perf_consumed
        assert "MB/sec" in perf_consumed, perf_consumed
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            exit_code = proc.wait(timeout=60)
        finally:
            _kill_leftovers(proc, broker_pids)
    _assert_stopped_cleanly(proc, exit_code, broker_pids, "SIGINT")


def test_broker_start_with_a_bad_property_value_prints_one_line_naming_it(tmp_path):
    config = _server_properties(tmp_path, port=0, voter_port=1, extra="log.segment.bytes=abc\n")
    result = _cli("broker", "start", "--config", str(config), timeout_s=30)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "log.segment.bytes" in lines[0]
    assert "Traceback" not in result.stderr


def test_cluster_start_stops_its_brokers_on_sigterm(tmp_path):
    data_dir = tmp_path / "sigterm-cluster"
    proc = _start_cluster(data_dir, 2)
    broker_pids: set[int] = set()
    try:
        bootstrap = _cluster_started(proc, data_dir, 2, broker_pids)
        assert ok_stdout(_cli("topics", "list", "--bootstrap-server", bootstrap)) == ""  # the cluster serves
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(timeout=60)
    finally:
        _kill_leftovers(proc, broker_pids)
    _assert_stopped_cleanly(proc, exit_code, broker_pids, "SIGTERM")


def test_broker_start_serves_from_a_server_properties_file_until_sigterm(tmp_path):
    (port,) = free_ports(1)
    config = _server_properties(
        tmp_path, port=port, voter_port=port, extra="controlled.shutdown.retry.backoff.ms=100\n"
    )
    log_path = tmp_path / "broker.log"  # a file, not a pipe nobody drains while the broker logs
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(KAFKETTE), "broker", "start", "--config", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:  # registered and unfenced: it lists itself in Metadata
            assert proc.poll() is None, f"broker exited with {proc.returncode}: {log_path.read_text()}"
            try:
                if [b.node_id for b in fetch_metadata(port).brokers] == [1]:
                    break
            except (OSError, ValueError):
                pass
            assert time.monotonic() < deadline, "the broker never answered Metadata listing itself"
            time.sleep(0.2)
        server = ["--bootstrap-server", f"127.0.0.1:{port}"]
        ok_stdout(
            _cli("topics", "create", "single", "--partitions", "1", "--replication-factor", "1", *server)
        )
        ok_stdout(_cli("produce", "--topic", "single", *server, input="one\ntwo\n"))
        consumed = ok_stdout(
            _cli("consume", "--topic", "single", "--from-beginning", "--max-messages", "2", *server)
        )
        assert consumed.splitlines() == ["one", "two"]
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(timeout=60)
    finally:
        _kill_leftovers(proc)
    output = log_path.read_text()
    assert exit_code == 0, f"broker start exited {exit_code} after SIGTERM: {output}"
    assert "Traceback" not in output, output
    assert (tmp_path / "logs" / "single-0").is_dir()


async def test_produce_sends_each_line_while_stdin_stays_open(cluster_factory):
    cluster = cluster_factory(1)
    bootstrap = cluster.bootstrap_servers
    tp = TopicPartition("typed", 0)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("typed", 1, 1)])
    proc = subprocess.Popen(
        [str(KAFKETTE), "produce", "--topic", "typed", "--bootstrap-server", bootstrap],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
            consumer.assign([tp])
            for line in (b"first", b"second"):  # as typed at a terminal: the pipe stays open
                proc.stdin.write(line + b"\n")
                proc.stdin.flush()
                got: list = []
                async with asyncio.timeout(30):
                    while not got:
                        got = (await consumer.getmany(timeout_ms=500)).get(tp, [])
                assert [r.value for r in got] == [line]
                assert proc.poll() is None  # still reading standard input
        proc.stdin.close()
        assert await asyncio.to_thread(proc.wait, 30) == 0
    finally:
        _kill_leftovers(proc)
    # Standard input that the event loop cannot poll is read directly.
    devnull = await asyncio.to_thread(
        subprocess.run,
        [str(KAFKETTE), "produce", "--topic", "typed", "--bootstrap-server", bootstrap],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert devnull.returncode == 0 and devnull.stderr == "", devnull.stderr


def test_cluster_start_on_a_busy_port_prints_the_reason_in_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _cli(
            "cluster",
            "start",
            "--brokers",
            "1",
            "--base-port",
            str(port),
            "--data-dir",
            str(tmp_path / "busy"),
            timeout_s=60,
        )
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "address already in use" in errors[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("--brokers", "2", "--controllers", "3"), "3 voters need at least 3 brokers, not 2"),
        (("--brokers", "3", "--controllers", "2"), "'2' is not one of '1', '3', '5'"),
    ],
)
def test_cluster_start_refuses_a_voter_count_it_cannot_run(tmp_path, args, reason):
    result = _cli("cluster", "start", *args, "--data-dir", str(tmp_path / "refused"), timeout_s=30)
    assert result.returncode == 2 and "--controllers" in result.stderr and reason in result.stderr, (
        result.stderr
    )
    assert not (tmp_path / "refused").exists()


def test_cluster_start_with_one_controller_makes_only_node_1_a_voter(tmp_path):
    data_dir = tmp_path / "one-voter"
    started = _cli(
        "cluster",
        "start",
        "--daemon",
        "--brokers",
        "2",
        "--controllers",
        "1",
        "--data-dir",
        str(data_dir),
        timeout_s=90,
    )
    try:
        ok_stdout(started)
        roles = {b: (data_dir / f"broker-{b}" / "server.properties").read_text() for b in (1, 2)}
        assert "process.roles=broker,controller" in roles[1] and "process.roles=broker\n" in roles[2]
        assert all(
            "controller.quorum.voters=1@127.0.0.1\\:" in text for text in roles.values()
        )  # ":" escaped
    finally:
        _cli("cluster", "stop", "--data-dir", str(data_dir), timeout_s=90)
