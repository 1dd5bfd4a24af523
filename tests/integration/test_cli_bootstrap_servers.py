"""Clients find the local cluster, on real broker processes: every client command and the SDK's
classes bootstrap from ``KAFKETTE_BOOTSTRAP_SERVERS`` alone, client commands from ``--data-dir
DIR`` alone (the ``cluster.json`` of ``kafkette cluster start --daemon --data-dir DIR``), a
command whose every bootstrap address refuses the connection ends at once with one line, and
a cluster with one of its three bootstrap brokers down keeps serving commands and the SDK."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, KafkaConnectionError, NewTopic, Producer, TopicPartition
from kafkette.client.bootstrap_servers import BOOTSTRAP_SERVERS_ENV
from kafkette.client.cluster_pid_file import is_alive, read_pid_file, write_pid_file

pytestmark = pytest.mark.timeout(300)

KAFKETTE = Path(sys.executable).parent / "kafkette"
FAST = [
    "--config",
    "broker.session.timeout.ms=3000",
    "--config",
    "broker.heartbeat.interval.ms=500",
    "--config",
    "replica.lag.time.max.ms=3000",
]
HOW_TO_GIVE_OTHERS = (
    "give others with --bootstrap-server HOST:PORT, --data-dir DIR (of 'kafkette cluster start "
    "--data-dir DIR') or export KAFKETTE_BOOTSTRAP_SERVERS=HOST:PORT,..."
)
FAIL_FAST_BOUND_S = 10  # a loose sanity bound; the figure itself is measured and reported


def _environment(**variables: str) -> dict[str, str]:
    """This process's environment without ``KAFKETTE_BOOTSTRAP_SERVERS``, plus ``variables``."""
    env = {k: v for k, v in os.environ.items() if k != BOOTSTRAP_SERVERS_ENV}
    env.update(variables)
    return env


def _cli(
    *args: str, env: dict[str, str], cwd: Path, input: str | None = None, timeout_s: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(KAFKETTE), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        timeout=timeout_s,
    )


def _ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, (
        f"{result.args}: exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    return result.stdout


def _kill_recorded_brokers(data_dir: Path) -> None:
    record = read_pid_file(data_dir) if (data_dir / "cluster.json").exists() else None
    for broker in record.brokers if record is not None else ():
        if is_alive(broker):
            os.kill(broker.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def daemon_cluster(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """``kafkette cluster start --daemon --brokers 3 --data-dir D``: yields (D, its bootstrap servers);
    stopped (and any broker left killed) at teardown."""
    data_dir = tmp_path_factory.mktemp("daemon") / "cluster"
    env = _environment()
    try:
        out = _ok(
            _cli(
                "cluster",
                "start",
                "--daemon",
                "--brokers",
                "3",
                "--data-dir",
                str(data_dir),
                *FAST,
                env=env,
                cwd=data_dir.parent,
            )
        )
        bootstrap = out.splitlines()[0].split("=", 1)[1]
        yield data_dir, bootstrap
    finally:
        if (data_dir / "cluster.json").exists():
            _cli(
                "cluster",
                "stop",
                "--data-dir",
                str(data_dir),
                "--timeout-ms",
                "20000",
                env=env,
                cwd=data_dir.parent,
            )
        _kill_recorded_brokers(data_dir)


@pytest.fixture
def refused_ports() -> Iterator[list[int]]:
    """Two loopback ports held bound but not listening: a connection to either is refused, and no
    other process can take them while the test runs."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(2)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        yield [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _every_client_command_works(run, topic: str, tmp_path: Path) -> None:
    """Run each client command group through ``run(*args, input=None)`` against a live cluster."""
    _ok(run("topics", "create", "--topic", topic, "--partitions", "3", "--replication-factor", "3"))
    assert topic in _ok(run("topics", "list")).split()
    assert f"Topic: {topic}\tPartitionCount: 3" in _ok(run("topics", "describe", "--topic", topic))
    _ok(run("configs", "alter", "--topic", topic, "--add-config", "retention.ms=3600000"))
    assert "retention.ms=3600000" in _ok(run("configs", "describe", "--topic", topic))
    _ok(
        run(
            "produce",
            "--topic",
            topic,
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
            input="k1:v1\nk1:v2\nk1:v3\n",
        )
    )
    assert _ok(
        run(
            "consume",
            "--topic",
            topic,
            "--from-beginning",
            "--max-messages",
            "3",
            "--group",
            f"{topic}-g",
            "--timeout-ms",
            "60000",
        )
    ).split() == ["v1", "v2", "v3"]
    assert f"{topic}-g" in _ok(run("consumer-groups", "--list")).split()
    assert "3 records sent" in _ok(
        run(
            "perf",
            "produce",
            "--topic",
            topic,
            "--num-records",
            "3",
            "--record-size",
            "10",
            "--throughput",
            "-1",
        )
    )
    offsets = tmp_path / f"{topic}-offsets.json"
    offsets.write_text(
        json.dumps(
            {"version": 1, "partitions": [{"topic": topic, "partition": p, "offset": 0} for p in range(3)]}
        )
    )
    _ok(run("delete-records", "--offset-json-file", str(offsets)))
    assert "LeaderId:" in _ok(run("metadata-quorum", "describe", "--status"))
    status = _ok(run("cluster", "status"))
    assert [row.split()[2] for row in status.splitlines()[1:4]] == ["yes", "yes", "yes"]


def test_every_client_command_reaches_the_cluster_named_only_by_kafkette_bootstrap_servers(
    daemon_cluster, tmp_path
):
    data_dir, bootstrap = daemon_cluster
    env = _environment(**{BOOTSTRAP_SERVERS_ENV: bootstrap})

    def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        assert "--bootstrap-server" not in args and "--data-dir" not in args
        return _cli(*args, env=env, cwd=tmp_path, input=input)

    _every_client_command_works(run, "named-by-env", tmp_path)


def test_every_client_command_reaches_the_cluster_of_its_data_dir_over_the_variable(
    daemon_cluster, tmp_path, refused_ports
):
    data_dir, _ = daemon_cluster
    # the variable names addresses that refuse: a typed --data-dir comes before it
    env = _environment(**{BOOTSTRAP_SERVERS_ENV: ",".join(f"127.0.0.1:{p}" for p in refused_ports)})

    def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return _cli(*args, "--data-dir", str(data_dir), env=env, cwd=tmp_path, input=input)

    _every_client_command_works(run, "named-by-data-dir", tmp_path)


def test_the_sdk_classes_bootstrap_from_kafkette_bootstrap_servers(daemon_cluster, monkeypatch):
    _, bootstrap = daemon_cluster
    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, bootstrap)
    topic = TopicPartition("sdk-from-env", 0)

    async def round_trip() -> list[bytes]:
        async with AdminClient() as admin:
            await admin.create_topics([NewTopic(topic.topic, 1, 3)])
        async with Producer() as producer:
            await producer.send_and_wait(topic.topic, b"found", partition=0)
        async with Consumer(auto_offset_reset="earliest") as consumer:
            consumer.assign([topic])
            records = await consumer.getmany(topic, timeout_ms=30000)
        return [r.value for r in records.get(topic, [])]

    assert asyncio.run(round_trip()) == [b"found"]


def _fails_fast(args: list[str], env: dict[str, str], cwd: Path, expected: str, runs: int) -> list[float]:
    """Run ``kafkette *args`` ``runs`` times; each must end with exactly the line ``expected``
    within FAIL_FAST_BOUND_S.  Returns the wall-clock seconds of each run."""
    elapsed = []
    for _ in range(runs):
        started = time.monotonic()
        result = _cli(*args, env=env, cwd=cwd, timeout_s=60)
        elapsed.append(time.monotonic() - started)
        assert result.returncode == 1, result
        assert result.stderr.splitlines() == [expected], result.stderr
        assert elapsed[-1] < FAIL_FAST_BOUND_S, f"{args} took {elapsed[-1]:.2f} s"
    return elapsed


def test_a_command_whose_every_bootstrap_server_refuses_fails_at_once_naming_them(refused_ports, tmp_path):
    servers = ",".join(f"127.0.0.1:{p}" for p in refused_ports)
    expected = (
        f"Error: No broker of {servers} answers: connection refused (bootstrap servers from "
        f"--bootstrap-server); {HOW_TO_GIVE_OTHERS}"
    )
    elapsed = _fails_fast(
        ["topics", "list", "--bootstrap-server", servers], _environment(), tmp_path, expected, 5
    )
    print(
        f"\ntopics list, two refused addresses: {', '.join(f'{s:.2f}' for s in elapsed)} s "
        f"(median {statistics.median(elapsed):.2f} s)"
    )

    env = _environment(**{BOOTSTRAP_SERVERS_ENV: servers})
    by_env = (
        f"Error: No broker of {servers} answers: connection refused (bootstrap servers from "
        f"{BOOTSTRAP_SERVERS_ENV}); {HOW_TO_GIVE_OTHERS}"
    )
    for command in (
        ["produce", "--topic", "t"],
        ["consume", "--topic", "t"],
        ["cluster", "status"],
        ["perf", "consume", "--topic", "t", "--messages", "1"],
        ["consumer-groups", "--list"],
    ):
        _fails_fast(command, env, tmp_path, by_env, 1)

    stopped = tmp_path / "stopped"  # a data dir whose cluster has gone, its cluster.json left behind
    stopped.mkdir()
    write_pid_file(stopped, servers, (1,), {1: os.getpid()}, {1: refused_ports[0]})
    by_data_dir = (
        f"Error: No broker of {servers} answers: connection refused (bootstrap servers from "
        f"{stopped / 'cluster.json'}); {HOW_TO_GIVE_OTHERS}"
    )
    _fails_fast(["topics", "describe", "--data-dir", str(stopped)], _environment(), tmp_path, by_data_dir, 1)


def test_an_address_that_accepts_but_never_answers_is_left_to_request_timeout_ms(refused_ports, tmp_path):
    silent = socket.create_server(("127.0.0.1", 0))  # the kernel accepts; nothing ever answers
    try:
        servers = f"127.0.0.1:{refused_ports[0]},127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        result = _cli(
            "topics",
            "list",
            "--bootstrap-server",
            servers,
            "--request-timeout-ms",
            "2000",
            env=_environment(),
            cwd=tmp_path,
            timeout_s=60,
        )
        elapsed = time.monotonic() - started
    finally:
        silent.close()
    assert result.returncode == 1
    assert result.stderr.startswith(f"Error: KafkaConnectionError: Unable to bootstrap from {servers}"), (
        result.stderr
    )
    assert elapsed >= 2, f"gave up after {elapsed:.2f} s, before request.timeout.ms"


def test_the_sdk_keeps_retrying_refused_bootstrap_servers_for_request_timeout_ms(refused_ports):
    servers = ",".join(f"127.0.0.1:{p}" for p in refused_ports)

    async def start() -> float:
        started = time.monotonic()
        with pytest.raises(KafkaConnectionError, match=f"Unable to bootstrap from {servers}"):
            async with AdminClient(bootstrap_servers=servers, request_timeout_ms=1500):
                pass
        return time.monotonic() - started

    assert asyncio.run(start()) >= 1.4


def test_a_cluster_with_one_of_three_bootstrap_brokers_down_keeps_serving(
    cluster_factory, tmp_path, monkeypatch
):
    cluster = cluster_factory(3)
    cluster.stop_broker(1)  # killed: its address now refuses, and it comes first in the list
    addresses = cluster.bootstrap_servers.split(",")
    assert addresses[0].endswith(f":{cluster.ports[1]}")
    env = _environment(**{BOOTSTRAP_SERVERS_ENV: cluster.bootstrap_servers})

    def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return _cli(*args, env=env, cwd=tmp_path, input=input)

    _ok(run("topics", "create", "--topic", "one-down", "--partitions", "2", "--replication-factor", "2"))
    assert "one-down" in _ok(run("topics", "list")).split()
    _ok(run("produce", "--topic", "one-down", input="a\nb\n"))
    assert sorted(
        _ok(
            run(
                "consume",
                "--topic",
                "one-down",
                "--from-beginning",
                "--max-messages",
                "2",
                "--timeout-ms",
                "60000",
            )
        ).split()
    ) == ["a", "b"]

    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, cluster.bootstrap_servers)

    async def sdk() -> list[str]:
        async with AdminClient() as admin:
            return sorted(await admin.list_topics())

    assert "one-down" in asyncio.run(sdk())
