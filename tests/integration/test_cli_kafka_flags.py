"""The console tools' habits against a real 3-broker cluster: ``--topic`` everywhere,
``--command-config`` (client properties file, bootstrap servers included),
``--producer-property`` / ``--request-required-acks`` / ``--property parse.key``, and
``--partition`` / ``--offset`` / ``--property print.*`` on consume."""

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
    properties.write_text(f"# as kafka-topics.sh --command-config reads it\nbootstrap.servers={shared_cluster.bootstrap_servers}\n"
                          "request.timeout.ms=20000\nclient.id=ops-laptop\n")
    config = ["--command-config", str(properties)]
    assert _cli("topics", "create", "--topic", "habits", "--partitions", "2", "--replication-factor", "3",
                *config).strip() == "Created topic habits."
    assert "habits" in _cli("topics", "list", *config).split()
    described = _cli("topics", "describe", "--topic", "habits", *config)
    assert described.count("habits") >= 3 and "Partition" in described
    assert _cli("configs", "alter", "--topic", "habits", "--add-config", "retention.ms=3600000", *config).strip() \
        == "Completed updating config for topic habits."
    assert "retention.ms=3600000" in _cli("configs", "describe", "--topic", "habits", *config)


def test_console_producer_and_consumer_flags(shared_cluster):
    bootstrap = ["--bootstrap-server", shared_cluster.bootstrap_servers]
    _cli("topics", "create", "--topic", "console", "--partitions", "1", "--replication-factor", "3", *bootstrap)
    _cli("produce", "--topic", "console", "--request-required-acks", "1", "--producer-property", "linger.ms=0",
         "--producer-property", "enable.idempotence=false", "--property", "parse.key=true",
         "--property", "key.separator=:", *bootstrap, input="k0:v0\nk1:v1\nk2:v2\n")
    out = _cli("consume", "--topic", "console", "--partition", "0", "--offset", "1", "--max-messages", "2",
               "--timeout-ms", "20000", "--property", "print.key=true", "--property", "print.offset=true",
               "--property", "print.partition=true", "--property", "print.timestamp=true",
               "--consumer-property", "fetch.max.wait.ms=100", *bootstrap)
    lines = out.splitlines()
    assert [line.split("\t", 1)[1] for line in lines] == ["Partition:0\tOffset:1\tk1\tv1",
                                                          "Partition:0\tOffset:2\tk2\tv2"]
    assert all(line.startswith("CreateTime:") for line in lines)
    earliest = _cli("consume", "--topic", "console", "--partition", "0", "--offset", "earliest",
                    "--max-messages", "1", "--timeout-ms", "20000", *bootstrap)
    assert earliest == "v0\n"


def _consume_with_stderr_on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run ``kafkette consume ARGS`` with stderr on a pseudo-terminal; (exit code, what the terminal got)."""
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.Popen([str(KAFKETTE), "consume", *args], stdout=subprocess.DEVNULL, stderr=terminal,
                                stdin=subprocess.DEVNULL)
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
    _cli("topics", "create", "--topic", "progress", "--partitions", "1", "--replication-factor", "1", *bootstrap)
    _cli("produce", "--topic", "progress", *bootstrap, input="".join(f"v{i}\n" for i in range(50)))
    args = ["--topic", "progress", "--from-beginning", "--max-messages", "50", "--timeout-ms", "20000", *bootstrap]
    code, terminal = _consume_with_stderr_on_a_terminal(args)
    assert code == 0, terminal
    assert re.search(r"consume: 100%\|.*\| 50/50", terminal), terminal
    piped = subprocess.run([str(KAFKETTE), "consume", *args], capture_output=True, text=True, timeout=90)
    assert piped.returncode == 0 and piped.stderr == "Processed a total of 50 messages\n", piped.stderr
