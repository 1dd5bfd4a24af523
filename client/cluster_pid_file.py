"""The pid file of a local cluster: which broker processes run a data directory, and stopping them.

Owns: ``<data_dir>/cluster.json`` (written by ``kafkette cluster start`` once its brokers
serve, removed when they stop), reading it back, telling a live broker from a recycled
pid (each process's start time, field 22 of ``/proc/<pid>/stat``, is recorded and
compared), and ``stop_brokers`` (SIGTERM, so that each broker does its controlled
shutdown; the voters of the metadata quorum last, together, so that the quorum keeps its
majority while the others leave; SIGKILL after the timeout).  Does not own starting
brokers (``LocalCluster``).

File format (JSON)::

    {"bootstrap_servers": "127.0.0.1:9092,...", "voter_ids": [1, 2, 3],
     "kafka_bootstrap_servers": "127.0.0.1:9192,...",
     "brokers": [{"id": 1, "pid": 4242, "port": 9092, "start_time": 123456, "kafka_port": 9192}, ...]}

``kafka_bootstrap_servers`` and ``kafka_port`` (the listeners speaking Apache Kafka's protocol,
``cluster start --kafka-protocol``) are ``""`` and ``null`` without them, and may be missing (a
file an older version wrote reads as without them); keys this version does not know are ignored.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

PID_FILE_NAME = "cluster.json"
POLL_INTERVAL_S = 0.1


@dataclass(frozen=True)
class BrokerProcess:
    """One broker of a local cluster: node id, process id, listener port, process start time
    (clock ticks since boot, from ``/proc``; -1 when unknown), port of its Kafka-protocol
    listener (None without one)."""

    id: int
    pid: int
    port: int
    start_time: int
    kafka_port: int | None = None


@dataclass(frozen=True)
class ClusterPidFile:
    """What ``cluster.json`` records (see the module docstring)."""

    bootstrap_servers: str
    voter_ids: tuple[int, ...]
    brokers: tuple[BrokerProcess, ...]
    kafka_bootstrap_servers: str = ""


def process_start_time(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot), or None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after it
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[19])  # field 22 of the whole line


def is_alive(broker: BrokerProcess) -> bool:
    """True when ``broker.pid`` is the recorded broker process, still running (not a zombie)."""
    try:
        state = Path(f"/proc/{broker.pid}/stat").read_text()
    except OSError:
        return False
    if state[state.rindex(")") + 2 :].startswith("Z"):
        return False
    return broker.start_time < 0 or process_start_time(broker.pid) == broker.start_time


def pid_file_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / PID_FILE_NAME


def write_pid_file(
    data_dir: str | os.PathLike[str],
    bootstrap_servers: str,
    voter_ids: tuple[int, ...],
    pids: Mapping[int, int],
    ports: Mapping[int, int],
    kafka_ports: Mapping[int, int] | None = None,
    kafka_bootstrap_servers: str = "",
) -> ClusterPidFile:
    """Record the running brokers (``{node id: pid}``, ``{node id: port}``, and ``{node id: port}``
    of their Kafka-protocol listeners) of ``data_dir``.

    Written to a temporary file and renamed, so a reader never sees half a file.

    Raises:
        OSError: the directory is not writable.
    """
    kafka_ports = kafka_ports or {}
    record = ClusterPidFile(
        bootstrap_servers,
        tuple(voter_ids),
        tuple(
            BrokerProcess(
                broker_id, pid, ports[broker_id], process_start_time(pid) or -1, kafka_ports.get(broker_id)
            )
            for broker_id, pid in sorted(pids.items())
        ),
        kafka_bootstrap_servers,
    )
    path = pid_file_path(data_dir)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**asdict(record), "brokers": [asdict(b) for b in record.brokers]}, indent=1))
    os.replace(tmp, path)
    return record


def read_pid_file(data_dir: str | os.PathLike[str]) -> ClusterPidFile | None:
    """The recorded cluster of ``data_dir``, or None when there is no pid file.

    Raises:
        ValueError: the file is not a pid file this version wrote.
    """
    path = pid_file_path(data_dir)
    try:
        raw = json.loads(path.read_text())
        return ClusterPidFile(
            str(raw["bootstrap_servers"]),
            tuple(int(v) for v in raw["voter_ids"]),
            tuple(_broker_process(b) for b in raw["brokers"]),
            str(raw.get("kafka_bootstrap_servers") or ""),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path} is not a kafkette cluster pid file: {exc}") from None


def _broker_process(raw: Mapping[str, object]) -> BrokerProcess:
    kafka_port = raw.get("kafka_port")
    return BrokerProcess(
        int(raw["id"]),
        int(raw["pid"]),
        int(raw["port"]),  # type: ignore[call-overload]
        int(raw["start_time"]),
        None if kafka_port is None else int(kafka_port),
    )  # type: ignore[call-overload]


def remove_pid_file(data_dir: str | os.PathLike[str]) -> None:
    """Remove ``cluster.json`` (no error when it is already gone)."""
    pid_file_path(data_dir).unlink(missing_ok=True)


def running_brokers(record: ClusterPidFile) -> list[BrokerProcess]:
    """The recorded brokers whose processes still run."""
    return [b for b in record.brokers if is_alive(b)]


def _wait_gone(
    brokers: list[BrokerProcess], deadline: float, sleep: Callable[[float], None]
) -> list[BrokerProcess]:
    left = [b for b in brokers if is_alive(b)]
    while left and time.monotonic() < deadline:
        sleep(POLL_INTERVAL_S)
        left = [b for b in left if is_alive(b)]
    return left


def stop_brokers(
    record: ClusterPidFile, timeout_ms: int, sleep: Callable[[float], None] = time.sleep
) -> tuple[list[BrokerProcess], list[BrokerProcess]]:
    """Stop the running brokers of ``record``: SIGTERM to all but the voters, wait, then to the
    voters together; a broker still running ``timeout_ms`` after its SIGTERM is killed.

    Returns:
        (brokers stopped cleanly, brokers killed with SIGKILL).
    """
    alive = running_brokers(record)
    groups = (
        [b for b in alive if b.id not in record.voter_ids],
        [b for b in alive if b.id in record.voter_ids],
    )
    stopped: list[BrokerProcess] = []
    killed: list[BrokerProcess] = []
    for group in groups:
        for broker in group:
            _signal(broker, signal.SIGTERM)
        left = _wait_gone(group, time.monotonic() + timeout_ms / 1000, sleep)
        for broker in left:
            _signal(broker, signal.SIGKILL)
        _wait_gone(left, time.monotonic() + 10, sleep)
        killed += left
        stopped += [b for b in group if b not in left]
    return stopped, killed


def _signal(broker: BrokerProcess, signum: int) -> None:
    if is_alive(broker):
        try:
            os.kill(broker.pid, signum)
        except ProcessLookupError:
            pass
