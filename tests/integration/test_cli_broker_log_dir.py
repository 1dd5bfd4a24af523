"""``kafkette broker start`` writes its log files (``server.log``, ``state-change.log``) to its
logs folder, never into the working directory: ``--log-dir DIR``, else ``$LOG_DIR`` (Kafka's
``kafka-run-class.sh`` variable), else ``logs`` beside the first of ``log.dirs``.  Its log lines
still go to stderr too.  (``$LOG_DIR`` as LocalCluster sets it: test_cli_says_what_it_did.py.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkette.client.local_cluster import fetch_metadata, free_ports

pytestmark = pytest.mark.timeout(180)

KAFKETTE = Path(sys.executable).parent / "kafkette"
STARTUP_TIMEOUT_S = 60


def _server_properties(path: Path, data_dir: Path, port: int) -> Path:
    """A one-node (broker and controller) server.properties with ``log.dirs=data_dir``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "node.id=1\nprocess.roles=broker,controller\n"
        f"listeners=PLAINTEXT://127.0.0.1:{port}\nlog.dirs={data_dir}\n"
        f"controller.quorum.voters=1@127.0.0.1:{port}\ncontrolled.shutdown.retry.backoff.ms=100\n"
    )
    return path


def _run_broker_until_registered_then_sigterm(
    args: list[str], *, port: int, cwd: Path, env: dict[str, str], console: Path
) -> str:
    """Run ``kafkette broker start ARGS`` until it lists itself in Metadata, then SIGTERM it;
    returns what it wrote to stdout and stderr (checked: exit 0, no traceback)."""
    with open(console, "wb") as out:
        proc = subprocess.Popen(
            [str(KAFKETTE), "broker", "start", *args], stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            assert proc.poll() is None, f"broker exited with {proc.returncode}: {console.read_text()}"
            try:
                if [b.node_id for b in fetch_metadata(port).brokers] == [1]:
                    break
            except (OSError, ValueError):
                pass
            assert time.monotonic() < deadline, "the broker never answered Metadata listing itself"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    output = console.read_text()
    assert exit_code == 0 and "Traceback" not in output, output
    return output


def _environment_without_log_dir() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "LOG_DIR"}


def test_broker_start_writes_its_logs_beside_its_first_log_dir_and_nothing_into_the_working_directory(
    tmp_path,
):
    (port,) = free_ports(1)
    node = tmp_path / "node"
    config = _server_properties(node / "server.properties", node / "data", port)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    console = _run_broker_until_registered_then_sigterm(
        ["--config", str(config)],
        port=port,
        cwd=cwd,
        env=_environment_without_log_dir(),
        console=tmp_path / "console.out",
    )
    assert list(cwd.iterdir()) == []
    server_log = (node / "logs" / "server.log").read_text()
    assert "[node 1]" in server_log and "Shut down completed" in server_log
    assert "Shut down completed" in console  # stderr keeps the lines
    assert (node / "logs" / "state-change.log").is_file()
    assert not (node / "data" / "server.log").exists()  # never inside a log dir


def test_broker_start_log_dir_flag_comes_before_the_LOG_DIR_variable(tmp_path):
    (port,) = free_ports(1)
    node = tmp_path / "node"
    config = _server_properties(node / "server.properties", node / "data", port)
    flag, variable = tmp_path / "from-flag", tmp_path / "from-variable"
    _run_broker_until_registered_then_sigterm(
        ["--config", str(config), "--log-dir", str(flag)],
        port=port,
        cwd=tmp_path,
        env={**os.environ, "LOG_DIR": str(variable)},
        console=tmp_path / "console.out",
    )
    assert sorted(p.name for p in flag.iterdir()) == ["server.log", "state-change.log"]
    assert "Shut down completed" in (flag / "server.log").read_text()
    assert not variable.exists() and not (node / "logs").exists()
