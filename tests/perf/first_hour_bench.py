"""``python -m tests.perf.first_hour_bench``: how fast the CLI says what went wrong, as figures.

Two measurements, each ``--runs`` times (default 5), the median and the worst reported:

- **a broker that fails at start-up**: ``kafkette cluster start --daemon --base-port P`` of 3
  brokers with broker 2's port held by another socket (``busy-port``), or with broker 2's log
  dir a regular file (``log-dir-file``).  A watcher thread polls ``/proc`` every 2 ms for broker
  2's process and records when it exits; the figure is the time from that exit to the
  command's ``Error:`` line on stderr (also: from the command's start, and until the command
  returned with the other brokers stopped).
- **nothing listening**: ``kafkette topics list`` against two addresses where nothing listens
  (ports just freed by the OS), wall clock of the whole command, beside ``kafkette --version``
  (the interpreter's start-up, which every command pays).

Prints the figures and writes ``tests/perf/results/first-hour-<UTC timestamp>.json``.  A
measurement, not a test: it asserts nothing about the figures
(``tests/integration/test_cli_cluster_start_failures.py`` and ``test_cli_bootstrap_servers.py``
check the behaviour).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kafkette.client.local_cluster import free_ports
from tests.perf.results_file import write_result

KAFKETTE = Path(sys.executable).parent / "kafkette"
COMMAND_TIMEOUT_S = 120
POLL_S = 0.002


def _free_base_port(count: int = 3) -> int:
    """A port P such that P..P+count-1 are free on 127.0.0.1 right now."""
    for _ in range(1000):
        base = free_ports(1)[0]
        probes = [socket.socket() for _ in range(count)]
        try:
            for offset, probe in enumerate(probes):
                probe.bind(("127.0.0.1", base + offset))
            return base
        except OSError:
            continue
        finally:
            for probe in probes:
                probe.close()
    raise RuntimeError("no run of free ports found")


def _watch_exit(config: bytes, stop: threading.Event, seen: dict[str, float]) -> None:
    """Record in ``seen["exit"]`` the monotonic time the process whose command line holds
    ``config`` ended (or became a zombie); gives up when ``stop`` is set."""
    pid = None
    while pid is None and not stop.is_set():
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if config in (entry / "cmdline").read_bytes():
                        pid = int(entry.name)
                        break
                except OSError:
                    continue
        time.sleep(POLL_S)
    while pid is not None and not stop.is_set():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        if stat[stat.rindex(")") + 2 :].startswith("Z"):
            break
        time.sleep(POLL_S)
    seen["exit"] = time.monotonic()


def failed_start(kind: str) -> dict[str, float | str]:
    """One ``cluster start`` whose broker 2 fails (``kind``: ``busy-port`` or ``log-dir-file``).

    Returns:
        ``{"exit_to_error_s", "start_to_error_s", "exit_to_return_s", "error"}``.

    Raises:
        RuntimeError: the command printed no ``Error:`` line.
    """
    with tempfile.TemporaryDirectory(prefix="first-hour-") as root:
        return _failed_start(kind, Path(root) / "cluster")


def _failed_start(kind: str, data_dir: Path) -> dict[str, float | str]:
    base = _free_base_port()
    held = None
    if kind == "busy-port":
        held = socket.socket()
        held.bind(("127.0.0.1", base + 1))
        held.listen()
    else:
        (data_dir / "broker-2").mkdir(parents=True)
        (data_dir / "broker-2" / "logs").write_text("a file where broker 2's log dir should be\n")
    seen: dict[str, float] = {}
    stop = threading.Event()
    watcher = threading.Thread(
        target=_watch_exit, args=(f"{data_dir}/broker-2/server.properties".encode(), stop, seen)
    )
    watcher.start()
    try:
        started = time.monotonic()
        proc = subprocess.Popen(
            [
                str(KAFKETTE),
                "cluster",
                "start",
                "--daemon",
                "--data-dir",
                str(data_dir),
                "--base-port",
                str(base),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        error, error_at = "", 0.0
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("Error: "):
                error, error_at = line.strip(), time.monotonic()
                break
        proc.communicate(timeout=COMMAND_TIMEOUT_S)
        returned_at = time.monotonic()
    finally:
        stop.set()
        watcher.join(timeout=10)
        if held is not None:
            held.close()
    if not error or "exit" not in seen:
        raise RuntimeError(f"{kind}: no Error line or no exit of broker 2 seen (error {error!r})")
    return {
        "exit_to_error_s": error_at - seen["exit"],
        "start_to_error_s": error_at - started,
        "exit_to_return_s": returned_at - seen["exit"],
        "error": error,
    }


def wall_clock(args: list[str]) -> float:
    """Seconds ``kafkette args`` took, without ``KAFKETTE_BOOTSTRAP_SERVERS`` in its environment."""
    env = {k: v for k, v in os.environ.items() if k != "KAFKETTE_BOOTSTRAP_SERVERS"}
    started = time.monotonic()
    subprocess.run(
        [str(KAFKETTE), *args],
        capture_output=True,
        env=env,
        timeout=COMMAND_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    return time.monotonic() - started


def summary(values: list[float]) -> dict[str, float]:
    """``{"median", "max", "runs"}`` of ``values`` (seconds)."""
    return {"median": statistics.median(values), "max": max(values), "runs": values}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.perf.first_hour_bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement (default 5)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    result: dict[str, object] = {"load_before": os.getloadavg()[0]}
    for kind in ("busy-port", "log-dir-file"):
        runs = [failed_start(kind) for _ in range(args.runs)]
        result[kind] = {
            key: summary([float(r[key]) for r in runs])
            for key in ("exit_to_error_s", "start_to_error_s", "exit_to_return_s")
        }
        result[kind]["error"] = runs[-1]["error"]  # type: ignore[index]
        print(
            f"{kind}: broker 2's exit -> Error line median {result[kind]['exit_to_error_s']['median']:.2f} s "  # type: ignore[index]
            f"(max {result[kind]['exit_to_error_s']['max']:.2f}); command start -> Error line median "  # type: ignore[index]
            f"{result[kind]['start_to_error_s']['median']:.2f} s\n    {runs[-1]['error']}"
        )  # type: ignore[index]
    refused = ",".join(f"127.0.0.1:{port}" for port in free_ports(2))
    for name, command in (
        ("version", ["--version"]),
        ("nothing_listening", ["topics", "list", "--bootstrap-server", refused]),
    ):
        result[name] = summary([wall_clock(command) for _ in range(args.runs)])
        print(
            f"kafkette {' '.join(command)}: median {result[name]['median']:.2f} s "  # type: ignore[index]
            f"(max {result[name]['max']:.2f})"
        )  # type: ignore[index]
    result["load_after"] = os.getloadavg()[0]
    print(f"load average (1 min) before {result['load_before']:.2f}, after {result['load_after']:.2f}")
    print(f"written to {write_result('first-hour', 'tests.perf.first_hour_bench', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
