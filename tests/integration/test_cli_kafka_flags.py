"""The console tools' habits against a real 3-broker cluster: ``--topic`` everywhere,
``--command-config`` (client properties file, bootstrap servers included, typed flags
winning), ``--producer-property`` / ``--request-required-acks`` / ``--property parse.key``,
``--partition`` / ``--offset`` / ``--property print.*`` / ``--group`` on consume, and bad input (a bad
client property, a Kafka flag we do not take) as one line."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

KAFKETTE = Path(sys.executable).parent / "kafkette"


def _cli(*args: str, input: str | None = None) -> str:
    done = subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, input=input, timeout=90)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    return done.stdout


def test_topic_flag_and_command_config_work_like_kafkas_tools(shared_cluster, tmp_path):
    properties = tmp_path / "client.properties"
    properties.write_text(
        "# as kafka-topics.sh --command-config reads it\n"
        f"bootstrap.servers={shared_cluster.bootstrap_servers}\n"
        "request.timeout.ms=20000\nclient.id=ops-laptop\n"
    )
    config = ["--command-config", str(properties)]
    assert (
        _cli(
            "topics", "create", "--topic", "habits", "--partitions", "2", "--replication-factor", "3", *config
        ).strip()
        == "Created topic habits."
    )
    assert "habits" in _cli("topics", "list", *config).split()
    described = _cli("topics", "describe", "--topic", "habits", *config).splitlines()
    assert described[0] == "Topic: habits\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: "
    assert described[1].split() == ["Topic", "Partition", "Leader", "Replicas", "Isr"]
    assert [line.split()[:2] for line in described[2:]] == [["habits", "0"], ["habits", "1"]]
    assert (
        _cli("configs", "alter", "--topic", "habits", "--add-config", "retention.ms=3600000", *config).strip()
        == "Completed updating config for topic habits."
    )
    assert "retention.ms=3600000" in _cli("configs", "describe", "--topic", "habits", *config)


def test_console_producer_and_consumer_flags(shared_cluster):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    _cli(
        "topics", "create", "--topic", "console", "--partitions", "1", "--replication-factor", "3", *bootstrap
    )
    _cli(
        "produce",
        "--topic",
        "console",
        "--request-required-acks",
        "1",
        "--producer-property",
        "linger.ms=0",
        "--producer-property",
        "enable.idempotence=false",
        "--property",
        "parse.key=true",
        "--property",
        "key.separator=:",
        *bootstrap,
        input="k0:v0\nk1:v1\nk2:v2\n",
    )
    out = _cli(
        "consume",
        "--topic",
        "console",
        "--partition",
        "0",
        "--offset",
        "1",
        "--max-messages",
        "2",
        "--timeout-ms",
        "20000",
        "--property",
        "print.key=true",
        "--property",
        "print.offset=true",
        "--property",
        "print.partition=true",
        "--property",
        "print.timestamp=true",
        "--consumer-property",
        "fetch.max.wait.ms=100",
        *bootstrap,
    )
    lines = out.splitlines()
    assert [line.split("\t", 1)[1] for line in lines] == [
        "Partition:0\tOffset:1\tk1\tv1",
        "Partition:0\tOffset:2\tk2\tv2",
    ]
    assert all(line.startswith("CreateTime:") for line in lines)
    earliest = _cli(
        "consume",
        "--topic",
        "console",
        "--partition",
        "0",
        "--offset",
        "earliest",
        "--max-messages",
        "1",
        "--timeout-ms",
        "20000",
        *bootstrap,
    )
    assert earliest == "v0\n"


def test_console_consumer_group_resumes_where_the_group_committed(shared_cluster):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    _cli(
        "topics", "create", "--topic", "grouped", "--partitions", "1", "--replication-factor", "3", *bootstrap
    )
    _cli("produce", "--topic", "grouped", *bootstrap, input="".join(f"v{i}\n" for i in range(5)))
    first = _cli(
        "consume",
        "--topic",
        "grouped",
        "--group",
        "console-group",
        "--from-beginning",
        "--max-messages",
        "3",
        "--timeout-ms",
        "30000",
        *bootstrap,
    )
    assert first == "v0\nv1\nv2\n"
    # the group committed 3 on exit: the next member starts there, --from-beginning or not
    second = _cli(
        "consume",
        "--topic",
        "grouped",
        "--group",
        "console-group",
        "--from-beginning",
        "--max-messages",
        "2",
        "--timeout-ms",
        "30000",
        *bootstrap,
    )
    assert second == "v3\nv4\n"


def test_typed_flags_win_over_the_properties_files(shared_cluster, tmp_path):
    unreachable = "bootstrap.servers=127.0.0.1:1\n"  # nothing listens there: the typed flag must win
    producer_config = tmp_path / "producer.properties"
    producer_config.write_text(unreachable + "request.timeout.ms=20000\nclient.id=ops-laptop\nacks=0\n")
    consumer_config = tmp_path / "consumer.properties"
    consumer_config.write_text(unreachable + "auto.offset.reset=earliest\nfetch.max.wait.ms=100\n")
    admin_config = tmp_path / "admin.properties"
    admin_config.write_text(unreachable + "request.timeout.ms=20000\nclient.id=ops-laptop\n")
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    assert (
        _cli(
            "topics",
            "create",
            "precedence",
            "--partitions",
            "1",
            "--replication-factor",
            "3",
            "--command-config",
            str(admin_config),
            *bootstrap,
        )
        == "Created topic precedence.\n"
    )
    _cli(
        "produce",
        "--topic",
        "precedence",
        "--producer.config",
        str(producer_config),
        "--producer-property",
        "acks=all",
        "--property",
        "parse.key=true",
        "--property",
        "key.separator=:",
        *bootstrap,
        input="a:1\nb:2\n",
    )
    # auto.offset.reset=earliest comes from the file: without it the consumer would start at the end
    out = _cli(
        "consume",
        "--topic",
        "precedence",
        "--consumer.config",
        str(consumer_config),
        "--max-messages",
        "2",
        "--timeout-ms",
        "20000",
        "--property",
        "print.partition=true",
        "--property",
        "print.key=true",
        "--property",
        "print.value=false",
        *bootstrap,
    )
    assert out == "Partition:0\ta\nPartition:0\tb\n"
    latest = subprocess.run(
        [
            str(KAFKETTE),
            "consume",
            "--topic",
            "precedence",
            "--partition",
            "0",
            "--offset",
            "latest",
            "--timeout-ms",
            "1500",
            *bootstrap,
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert (latest.returncode, latest.stdout, latest.stderr) == (0, "", "Processed a total of 0 messages\n")


def test_perf_tools_take_kafkas_config_file_flags(shared_cluster, tmp_path):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    producer_config = tmp_path / "producer.properties"
    producer_config.write_text("acks=all\nlinger.ms=0\nclient.id=perf\n")
    consumer_config = tmp_path / "consumer.properties"
    consumer_config.write_text("fetch.max.wait.ms=100\nclient.id=perf\n")
    both = tmp_path / "e2e.properties"  # each client of end-to-end takes the properties it knows
    both.write_text("acks=all\nlinger.ms=0\nfetch.max.wait.ms=100\n")
    _cli(
        "topics",
        "create",
        "--topic",
        "perf-configs",
        "--partitions",
        "1",
        "--replication-factor",
        "3",
        *bootstrap,
    )
    produced = _cli(
        "perf",
        "produce",
        "--topic",
        "perf-configs",
        "--num-records",
        "50",
        "--record-size",
        "10",
        "--producer.config",
        str(producer_config),
        *bootstrap,
    )
    assert produced.startswith("50 records sent, "), produced
    consumed = _cli(
        "perf",
        "consume",
        "--topic",
        "perf-configs",
        "--messages",
        "50",
        "--consumer.config",
        str(consumer_config),
        *bootstrap,
    )
    assert consumed.splitlines()[-1].startswith("50 records consumed, "), consumed
    e2e = _cli(
        "perf",
        "end-to-end",
        "--topic",
        "perf-configs",
        "--num-records",
        "20",
        "--throughput",
        "200",
        "--command-config",
        str(both),
        *bootstrap,
    )
    assert e2e.startswith("20 records received, "), e2e


def test_bad_input_is_one_line_against_a_real_cluster(shared_cluster, tmp_path):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    bad = tmp_path / "bad.properties"
    bad.write_text("request.timeout.ms=20000\nsasl.kerberos.service.name=kafka\n")
    cases = [
        (
            ["topics", "list", "--command-config", str(bad), *bootstrap],
            f"Error: Unknown AdminClient property 'sasl.kerberos.service.name' in {bad}",
        ),
        (
            ["produce", "--topic", "habits", "--producer-property", "linger.ms=soon", *bootstrap],
            "Error: Invalid value 'soon' for property 'linger.ms' in --producer-property",
        ),
        (
            ["topics", "describe", "--topic", "habits", "--zookeeper", "127.0.0.1:2181"],
            "Error: kafkette topics describe does not take Kafka's --zookeeper: "
            "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT",
        ),
        (
            ["consume", "--topic", "habits", "--offset", "3", *bootstrap],
            "Error: The partition is required when offset is specified.",
        ),
        (
            ["topics", "delete", "habits", "--topic", "other", *bootstrap],
            "Error: Topic given twice: 'habits' and --topic 'other'",
        ),
    ]
    for args, line in cases:
        done = subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, input="", timeout=90)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n"), args


def _consume_with_stderr_on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run ``kafkette consume ARGS`` with stderr on a pseudo-terminal; (exit code, what the terminal got)."""
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(
            [str(KAFKETTE), "consume", *args],
            stdout=subprocess.DEVNULL,
            stderr=terminal,
            stdin=subprocess.DEVNULL,
        )
        os.close(terminal)
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: the process closed its end
                break
            if not chunk:
                break
            chunks.append(chunk)
        return proc.wait(timeout=60), b"".join(chunks).decode(errors="replace")
    finally:
        os.close(controller)


def test_progress_line_only_when_stderr_is_a_terminal(shared_cluster):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    _cli(
        "topics",
        "create",
        "--topic",
        "progress",
        "--partitions",
        "1",
        "--replication-factor",
        "1",
        *bootstrap,
    )
    _cli("produce", "--topic", "progress", *bootstrap, input="".join(f"v{i}\n" for i in range(50)))
    args = [
        "--topic",
        "progress",
        "--from-beginning",
        "--max-messages",
        "50",
        "--timeout-ms",
        "20000",
        *bootstrap,
    ]
    code, terminal = _consume_with_stderr_on_a_terminal(args)
    assert code == 0, terminal
    assert re.search(r"consume: 100%\|.*\| 50/50", terminal), terminal
    piped = subprocess.run([str(KAFKETTE), "consume", *args], capture_output=True, text=True, timeout=90)
    assert piped.returncode == 0 and piped.stderr == "Processed a total of 50 messages\n", piped.stderr
