"""Running the ``kafkette`` CLI of this venv as a user does, and finding what it left running.

Shared by the CLI tests that start clusters (``cluster start``, ``restart-broker``, ``stop``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from kafkette.client.cluster_pid_file import is_alive, read_pid_file

KAFKETTE = Path(sys.executable).parent / "kafkette"


def run_cli(*args: str, timeout_s: float = 120) -> subprocess.CompletedProcess:
    """``kafkette *args`` with stdin closed, output captured as text.

    Raises:
        subprocess.TimeoutExpired: it ran over ``timeout_s`` seconds.
    """
    return subprocess.run(
        [str(KAFKETTE), *args], capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
    )


def ok_stdout(result: subprocess.CompletedProcess) -> str:
    """The stdout of a command that must have exited 0 (else the test fails, showing both streams)."""
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    return result.stdout


def pids_using(data_dir: Path) -> set[int]:
    """Pids of live (not zombie) processes whose command line names a path under ``data_dir``:
    the brokers of the cluster kept there."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if f"{data_dir}/" in cmdline and not stat[stat.rindex(")") + 2 :].startswith("Z"):
            pids.add(int(entry.name))
    return pids


def kill_recorded_brokers(data_dir: Path) -> None:
    """SIGKILL every live broker ``data_dir/cluster.json`` records (a test's leftovers); nothing
    when there is no such file."""
    record = read_pid_file(data_dir) if (data_dir / "cluster.json").exists() else None
    for broker in record.brokers if record is not None else ():
        if is_alive(broker):
            os.kill(broker.pid, signal.SIGKILL)
