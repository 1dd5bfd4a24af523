"""The CLI says what it did, as Kafka's tools do, against a real one-broker cluster.

``kafkette consume`` stopped by SIGINT or SIGTERM closes its consumer (a group member commits
what it printed), prints ``Processed a total of N messages`` and exits 130 or 143.  ``kafkette
perf produce`` prints ProducerPerformance's window line every 5 s when stderr is not a
terminal (and keeps its progress line on one).  ``consumer-groups --reset-offsets`` without
``--dry-run`` or ``--execute`` warns that no action is taken.  ``topics elect-leaders`` with
nothing to elect says so.  A LocalCluster's brokers write ``server.log`` and
``state-change.log`` to their ``$LOG_DIR``.
"""

from __future__ import annotations

import asyncio
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from tests.cluster_configs import FAST_FAILOVER
from tests.terminal_helpers import rendered_lines, run_on_terminal

pytestmark = pytest.mark.timeout(240)

KAFKETTE = Path(sys.executable).parent / "kafkette"
WINDOW_LINE = re.compile(
    r"^(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, "
    r"[\d.]+ ms max latency\.$"
)
NO_EXECUTE_WARNING = (
    "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
    "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
    "explicitly if you are scripting this command and want to keep the current default behavior without "
    "prompting."
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """One broker (and controller); a new group's first rebalance does not wait."""
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("said"),
        broker_configs={**FAST_FAILOVER, "group.initial.rebalance.delay.ms": 0},
    ) as c:
        yield c


def _cli(*args: str, timeout_s: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, timeout=timeout_s)


async def _topic(bootstrap: str, topic: str, partitions: int, records_per_partition: int) -> None:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
    async with Producer(bootstrap_servers=bootstrap) as producer:
        for p in range(partitions):
            for i in range(records_per_partition):
                await producer.send(topic, f"{p}-{i}".encode(), partition=p)
        await producer.flush()


def _read_lines(proc: subprocess.Popen, count: int, timeout_s: float) -> list[bytes]:
    """Read ``count`` lines of ``proc``'s stdout (a pipe), waiting at most ``timeout_s``."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    data = b""
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while data.count(b"\n") < count:
            remaining = deadline - time.monotonic()
            assert remaining > 0 and proc.poll() is None, f"read {data!r}; exit {proc.poll()}"
            if selector.select(timeout=min(remaining, 0.5)):
                chunk = os.read(fd, 65536)
                assert chunk, f"stdout closed after {data!r}"
                data += chunk
    return data.splitlines()


@pytest.mark.parametrize(
    ("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
async def test_consume_stopped_by_a_signal_commits_prints_its_total_and_exits_as_kafkas(
    cluster, signum, exit_code
):
    bootstrap = cluster.bootstrap_servers
    topic = group = f"stopped-by-{signum.name.lower()}"
    await _topic(bootstrap, topic, 2, 5)
    proc = subprocess.Popen(
        [
            str(KAFKETTE),
            "consume",
            "--topic",
            topic,
            "--group",
            group,
            "--from-beginning",
            "--consumer-property",
            "auto.commit.interval.ms=600000",  # only the close commits
            "--bootstrap-server",
            bootstrap,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        printed = _read_lines(proc, 10, timeout_s=60)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert sorted(printed) == sorted(f"{p}-{i}".encode() for p in range(2) for i in range(5))
    assert proc.returncode == exit_code, stderr.decode()
    assert stderr.decode().splitlines()[-1] == "Processed a total of 10 messages", stderr.decode()
    assert "Traceback" not in stderr.decode()
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        committed = await admin.list_consumer_group_offsets(group)
    assert {tp: o.offset for tp, o in committed.items()} == {
        TopicPartition(topic, 0): 5,
        TopicPartition(topic, 1): 5,
    }


def _perf_produce(bootstrap: str, topic: str) -> list[str]:
    """``perf produce`` of 600 records at 100 records/s (6 s: one 5-s window and the rest)."""
    return [
        str(KAFKETTE),
        "perf",
        "produce",
        "--topic",
        topic,
        "--num-records",
        "600",
        "--record-size",
        "100",
        "--throughput",
        "100",
        "--bootstrap-server",
        bootstrap,
    ]


def test_perf_produce_prints_a_window_line_every_5_s_when_stderr_is_not_a_terminal(cluster):
    bootstrap = cluster.bootstrap_servers
    assert (
        _cli(
            "topics",
            "create",
            "perf-windows",
            "--partitions",
            "1",
            "--replication-factor",
            "1",
            "--bootstrap-server",
            bootstrap,
        ).returncode
        == 0
    )
    done = subprocess.run(
        _perf_produce(bootstrap, "perf-windows"), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    windows = [WINDOW_LINE.match(line) for line in done.stderr.splitlines()]
    assert windows and all(windows), done.stderr
    assert 0 < sum(int(m.group(1)) for m in windows if m) <= 600, done.stderr
    summary = done.stdout.splitlines()
    assert (
        len(summary) == 1
        and summary[0].startswith("600 records sent, ")
        and summary[0].endswith(" ms 99.9th.")
    )


def test_perf_produce_on_a_terminal_draws_its_progress_line_instead_of_window_lines(cluster):
    bootstrap = cluster.bootstrap_servers
    assert (
        _cli(
            "topics",
            "create",
            "perf-terminal",
            "--partitions",
            "1",
            "--replication-factor",
            "1",
            "--bootstrap-server",
            bootstrap,
        ).returncode
        == 0
    )
    run = run_on_terminal(_perf_produce(bootstrap, "perf-terminal"), timeout_s=120)
    lines = rendered_lines(run.output)
    assert run.returncode == 0, lines
    assert any(line.startswith("perf produce: 100%") and "600/600" in line for line in lines), lines
    assert not [line for line in lines if WINDOW_LINE.match(line)], lines
    assert lines[-1].startswith("600 records sent, "), lines


async def test_reset_offsets_without_dry_run_or_execute_warns_that_no_action_is_taken(cluster):
    bootstrap = cluster.bootstrap_servers
    await _topic(bootstrap, "reset-plan", 1, 4)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.alter_consumer_group_offsets("planner", {TopicPartition("reset-plan", 0): 3})
    reset = [
        "consumer-groups",
        "--reset-offsets",
        "--group",
        "planner",
        "--topic",
        "reset-plan",
        "--to-earliest",
        "--bootstrap-server",
        bootstrap,
    ]
    default = _cli(*reset)
    assert default.returncode == 0, default.stderr
    assert default.stderr.splitlines() == [NO_EXECUTE_WARNING]
    assert default.stdout.split() == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "NEW-OFFSET",
        "planner",
        "reset-plan",
        "0",
        "0",
    ]
    dry_run = _cli(*reset, "--dry-run")
    assert (dry_run.returncode, dry_run.stderr, dry_run.stdout) == (0, "", default.stdout)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        committed = await admin.list_consumer_group_offsets("planner")
    assert committed[TopicPartition("reset-plan", 0)].offset == 3  # nothing was reset


def test_elect_leaders_with_nothing_to_elect_says_so(cluster):
    bootstrap = cluster.bootstrap_servers
    assert (
        _cli(
            "topics",
            "create",
            "elected",
            "--partitions",
            "2",
            "--replication-factor",
            "1",
            "--bootstrap-server",
            bootstrap,
        ).returncode
        == 0
    )
    everything = _cli("topics", "elect-leaders", "--bootstrap-server", bootstrap)
    assert (everything.returncode, everything.stderr) == (0, ""), everything.stderr
    assert (
        everything.stdout
        == "Valid replica already elected for all partitions: no leader election (PREFERRED) "
        "was needed\n"
    )
    named = _cli("topics", "elect-leaders", "--topic", "elected", "--bootstrap-server", bootstrap)
    assert named.stdout == "Valid replica already elected for partitions elected-0, elected-1\n", named.stderr


def test_local_cluster_brokers_write_server_log_and_state_change_log_to_their_log_dir(cluster):
    asyncio.run(_topic(cluster.bootstrap_servers, "logged", 1, 1))
    broker_dir = cluster.broker_dir(1)
    server_log = (broker_dir / "server.log").read_text()
    assert "[node 1]" in server_log and "INFO" in server_log
    assert (broker_dir / "state-change.log").is_file()  # illegal state transitions go there (ERROR)
    assert not (cluster.data_dir / "logs").exists()  # the brokers' working directory
