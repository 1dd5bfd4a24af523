"""The peers' servers for the benchmark: installing them, starting and stopping them.

Owns: finding or installing Debian's ``nats-server`` and ``redis-server`` (``apt-get``
when run as root) and the peers' Python clients (pip, into this venv); one NATS
JetStream server (R1), a 3-node NATS JetStream cluster (R3) and one Redis server
(``appendonly yes``, ``appendfsync everysec``, as the peer baselines), each on
127.0.0.1 with free ports, under a data directory, stopped (SIGTERM, then SIGKILL
after a timeout) by their owner.  Does not own the clients' workloads
(``peer_clients``) nor the Kafkette cluster (``client.LocalCluster``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kafkette.client.local_cluster import HOST, free_ports

# What the benchmark needs for each peer: Debian binaries (binary, apt package) and Python modules
# (import name, pip requirement).
DEBIAN_BINARIES = {"nats": ("nats-server", "nats-server"), "redis": ("redis-server", "redis-server")}
PYTHON_MODULES = {
    "nats": [("nats", "nats-py>=2.6")],
    "redis": [("redis", "redis>=5.0"), ("hiredis", "hiredis>=2.3")],
}
STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0


def default_search_path() -> str:
    """PATH plus /usr/sbin, /usr/bin and /usr/local/bin (Debian puts nats-server in /usr/sbin)."""
    return os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin", "/usr/local/bin"])


class Installer:
    """Installs what a peer needs, once per run; says exactly what is missing otherwise.

    Args:
        log: where progress lines go.
        is_root: whether ``apt-get install`` may run (default: the effective uid is 0).
        search_path: ``PATH``-style folders searched for the servers (default: ``default_search_path()``).
    """

    def __init__(
        self,
        log: Callable[[str], None] = print,
        *,
        is_root: bool | None = None,
        search_path: str | None = None,
    ) -> None:
        self._log = log
        self._is_root = os.geteuid() == 0 if is_root is None else is_root
        self._search_path = default_search_path() if search_path is None else search_path
        self._apt_updated = False

    def find_binary(self, name: str) -> str | None:
        """Path of the executable ``name`` on the search path, or None."""
        return shutil.which(name, path=self._search_path)

    def _apt_install(self, package: str) -> str | None:
        """Returns None on success, else the reason (the last line apt-get printed)."""
        commands = [] if self._apt_updated else [["apt-get", "update"]]
        commands.append(["apt-get", "install", "-y", package])
        for command in commands:
            self._log(f"  running: {' '.join(command)}")
            try:
                done = subprocess.run(
                    command,
                    capture_output=True,
                    text=True,
                    timeout=600,
                    env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                return f"{' '.join(command)} failed: {exc}"
            if done.returncode != 0:
                tail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
                return f"{' '.join(command)} exited {done.returncode}: {tail[0]}"
            if command[1] == "update":
                self._apt_updated = True
        return None

    def ensure_binary(self, binary: str, package: str) -> tuple[str | None, str | None]:
        """``(path, None)`` when ``binary`` is (or could be) installed, else ``(None, what is missing)``."""
        path = self.find_binary(binary)
        if path:
            return path, None
        if not self._is_root:
            return None, f"{binary} is not installed and this is not root: run `apt-get install -y {package}`"
        problem = self._apt_install(package)
        path = self.find_binary(binary)
        if path:
            return path, None
        return None, problem or f"apt-get install -y {package} did not provide {binary}"

    def ensure_module(self, module: str, requirement: str) -> str | None:
        """None when ``module`` imports (after a pip install if needed), else what is missing."""
        if importlib.util.find_spec(module) is not None:
            return None
        command = [sys.executable, "-m", "pip", "install", "--quiet", requirement]
        self._log(f"  running: {' '.join(command)}")
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"Python package {requirement} is missing and pip failed: {exc}"
        importlib.invalidate_caches()
        if done.returncode != 0 or importlib.util.find_spec(module) is None:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"Python package {requirement} is missing and `pip install {requirement}` failed: {tail}"
        return None

    def ensure_peer(self, peer: str) -> tuple[str | None, str | None]:
        """``(server path, None)`` when ``peer`` ("nats" or "redis") can run, else ``(None, reason)``."""
        binary, package = DEBIAN_BINARIES[peer]
        path, problem = self.ensure_binary(binary, package)
        if problem:
            return None, problem
        for module, requirement in PYTHON_MODULES[peer]:
            problem = self.ensure_module(module, requirement)
            if problem:
                return None, problem
        return path, None


def wait_for_port(
    port: int, proc: subprocess.Popen, log_path: Path, timeout_s: float = STARTUP_TIMEOUT_S
) -> None:
    """Return once 127.0.0.1:``port`` accepts a connection.

    Raises:
        RuntimeError: the process exited or the port stayed closed for ``timeout_s`` (with its log tail).
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    tail = log_path.read_text(errors="replace").splitlines()[-5:] if log_path.exists() else []
    raise RuntimeError(
        f"{Path(proc.args[0]).name} on port {port} did not start (exit {proc.poll()}): " + " | ".join(tail)
    )


class PeerServers:
    """Server processes of one peer deployment; a context manager that stops them all.

    Attributes:
        url: what the peer's client connects to (``nats://...,nats://...`` or ``redis://...``).
        pids: the server processes (for RSS readings).
    """

    def __init__(self) -> None:
        self.url = ""
        self._procs: list[subprocess.Popen] = []
        self._logs: list = []

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    def _spawn(self, args: list[str], log_path: Path) -> subprocess.Popen:
        log = open(log_path, "ab")  # closed in stop()
        self._logs.append(log)
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._procs.append(proc)
        return proc

    def __enter__(self) -> PeerServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """SIGTERM every server, SIGKILL those still running after ``STOP_TIMEOUT_S``; close logs."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self._procs:
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=STOP_TIMEOUT_S)
        for log in self._logs:
            log.close()
        self._procs.clear()
        self._logs.clear()


def start_nats(binary: str, data_dir: Path, nodes: int) -> PeerServers:
    """Start ``nodes`` NATS JetStream servers (file storage) under ``data_dir``; 3 form a cluster.

    Returns:
        The started servers; ``url`` lists every client port.

    Raises:
        RuntimeError: a server did not start (its log tail in the message).
    """
    servers = PeerServers()
    client_ports = free_ports(nodes)
    route_ports = free_ports(nodes) if nodes > 1 else []
    try:
        for i in range(nodes):
            node_dir = data_dir / f"nats-{i + 1}"
            node_dir.mkdir(parents=True, exist_ok=True)
            lines = [
                f"server_name: n{i + 1}",
                f"listen: {HOST}:{client_ports[i]}",
                f'jetstream {{ store_dir: "{node_dir / "store"}" }}',
            ]
            if nodes > 1:
                routes = ", ".join(f"nats-route://{HOST}:{p}" for p in route_ports)
                lines.append(
                    f"cluster {{ name: bench, listen: {HOST}:{route_ports[i]}, routes: [{routes}] }}"
                )
            config = node_dir / "nats.conf"
            config.write_text("\n".join(lines) + "\n")
            servers._spawn([binary, "-c", str(config)], node_dir / "nats.log")
        for i, proc in enumerate(servers._procs):
            wait_for_port(client_ports[i], proc, data_dir / f"nats-{i + 1}" / "nats.log")
    except BaseException:
        servers.stop()
        raise
    servers.url = ",".join(f"nats://{HOST}:{p}" for p in client_ports)
    return servers


def start_redis(binary: str, data_dir: Path) -> PeerServers:
    """Start one Redis server with ``appendonly yes``, ``appendfsync everysec``, no RDB snapshots.

    Raises:
        RuntimeError: the server did not start (its log tail in the message).
    """
    servers = PeerServers()
    (port,) = free_ports(1)
    node_dir = data_dir / "redis"
    node_dir.mkdir(parents=True, exist_ok=True)
    log_path = node_dir / "redis.log"
    try:
        proc = servers._spawn(
            [
                binary,
                "--bind",
                HOST,
                "--port",
                str(port),
                "--dir",
                str(node_dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
                "--protected-mode",
                "no",
            ],
            log_path,
        )
        wait_for_port(port, proc, log_path)
    except BaseException:
        servers.stop()
        raise
    servers.url = f"redis://{HOST}:{port}"
    return servers
