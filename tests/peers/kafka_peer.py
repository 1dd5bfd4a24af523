"""Apache Kafka on this machine, beside Kafkette: the peer of the benchmark and the oracle of the tests.

``python -m tests.peers.kafka_peer [--nodes 1|3] [--data-dir DIR]`` (``make kafka-peer``) starts
Apache Kafka (``KAFKA_VERSION``, KRaft combined mode, no ZooKeeper, no Docker) on loopback and
keeps it up until Ctrl-C, printing ``bootstrap.servers``; tests and benchmarks use ``KafkaPeer``.
``KafkaPeer(hosts=..., command_prefix=...)`` places nodes elsewhere (each in a network namespace
of its own, say: the chaos harness), as ``LocalCluster`` does with the same arguments.

Owns: resolving the pinned jars (``tests/peers/kafka/pom.xml``, ``mvn
dependency:copy-dependencies``) into a cache outside the repository (``KAFKETTE_PEER_CACHE``, by
default ``~/.cache/kafkette/kafka-<version>``), one ``server.properties`` per node (static
``controller.quorum.voters``, a PLAINTEXT and a CONTROLLER listener on free loopback ports, the
internal topics replicated as far as the node count allows), formatting storage
(``kafka.tools.StorageTool format``), the JVMs (``kafka.Kafka``, a bounded heap), readiness (each
node logged that it started and its listener accepts) and a clean stop (SIGTERM, SIGKILL after a
timeout).  Nothing of Kafka is committed but the pom.  A missing Java or Maven, or a registry
that cannot be reached, raises ``PeerUnavailable`` with one line naming what is missing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafkette.client.local_cluster import HOST, free_ports
from kafkette.common.config_def import render_properties
from kafkette.common.meta_properties import random_cluster_id

KAFKA_VERSION = "4.3.1"
POM = Path(__file__).parent / "kafka" / "pom.xml"
LOG4J_CONFIG = Path(__file__).parent / "kafka" / "log4j2.properties"
TOOLS_LOG4J_CONFIG = Path(__file__).parent / "kafka" / "tools-log4j2.properties"
STARTED_LOG_LINE = "Kafka Server started"
RESOLVE_TIMEOUT_S = 900
DEFAULT_HEAP_MB = 512


class PeerUnavailable(RuntimeError):
    """Apache Kafka cannot run here; the message names what is missing, in one line."""


def cache_dir() -> Path:
    """Where the resolved jars live (``KAFKETTE_PEER_CACHE`` or ``~/.cache/kafkette/kafka-<version>``)."""
    override = os.environ.get("KAFKETTE_PEER_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "kafkette" / f"kafka-{KAFKA_VERSION}"


def java_binary() -> str:
    """``$JAVA_HOME/bin/java`` or ``java`` on the PATH.

    Raises:
        PeerUnavailable: no Java.
    """
    home = os.environ.get("JAVA_HOME")
    candidate = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not candidate or not Path(candidate).exists():
        raise PeerUnavailable("Apache Kafka needs Java 17 or newer: no java on the PATH and no JAVA_HOME")
    return candidate


def copy_dependencies(pom: Path, libs: Path, what: str, timeout_s: float = RESOLVE_TIMEOUT_S) -> None:
    """Resolve ``pom``'s runtime dependencies with Maven (``mvn dependency:copy-dependencies``)
    into ``libs``, emptied first so that no jar of an older pom stays on a classpath.

    Args:
        pom: the pom.xml to resolve.
        libs: the directory the jars go to.
        what: what the pom brings, for messages (``Apache Kafka 4.3.1``).
        timeout_s: the bound of Maven's run (s).

    Raises:
        PeerUnavailable: no Maven, Maven did not finish within ``timeout_s``, or it failed
            (its first error line).
    """
    mvn = shutil.which("mvn")
    if mvn is None:
        raise PeerUnavailable(f"resolving {what} needs Maven: no mvn on the PATH (apt-get install maven)")
    if libs.exists():
        shutil.rmtree(libs)
    libs.mkdir(parents=True)
    command = [
        mvn,
        "-B",
        "-q",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        f"-DoutputDirectory={libs}",
        "-DincludeScope=runtime",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise PeerUnavailable(
            f"mvn did not resolve {what} within {timeout_s:g} s (is Maven Central reachable?)"
        ) from None
    if done.returncode != 0:
        errors = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line] or [
            "no output"
        ]
        raise PeerUnavailable(f"mvn could not resolve {what}: {errors[0].strip()[:300]}")


def resolve() -> Path:
    """The directory of Kafka's jars, resolved with Maven on first use (minutes; cached after).

    Raises:
        PeerUnavailable: no Maven, or Maven could not resolve the pom (its last error line).
    """
    libs = cache_dir() / "libs"
    marker = cache_dir() / "resolved"
    if marker.exists() and (libs / f"kafka_2.13-{KAFKA_VERSION}.jar").exists():
        return libs
    copy_dependencies(POM, libs, f"Apache Kafka {KAFKA_VERSION}")
    marker.write_text(KAFKA_VERSION + "\n")
    return libs


def print_from_kafka(source: Path, timeout_s: float) -> str:
    """Run a single-file Java program of ours (``tests/peers/kafka/Print*.java``) with Kafka's jars
    on its classpath and return what it printed: how tests read facts from Kafka's own code.

    Args:
        source: the ``.java`` file (Java 11+ runs it from source).
        timeout_s: the bound of the run (s).

    Raises:
        PeerUnavailable: no Java or Maven, or the jars could not be resolved.
        RuntimeError: the program failed (its exit code and the end of its stderr).
    """
    libs = resolve()
    done = subprocess.run(
        [java_binary(), "-Xmx256m", "-cp", f"{libs}/*", str(source)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{source.name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


class KafkaPeer:
    """``nodes`` Apache Kafka nodes in KRaft combined mode, on 127.0.0.1 unless ``hosts`` says otherwise.

    Args:
        data_dir: where each node's config, logs and output go (``node-<id>/``).
        nodes: 1 or more (every node is a voter of the metadata quorum and a broker).
        heap_mb: each JVM's heap (``-Xms``/``-Xmx``, MiB).
        broker_configs: extra ``server.properties`` entries for every node.
        startup_timeout_s: bound of ``start`` (s).
        hosts: ``{node id: address}`` of nodes that do not live on 127.0.0.1 (each in a network
            namespace of its own, say).  Such a node's PLAINTEXT and CONTROLLER listeners bind
            ``0.0.0.0`` on its ports and it publishes ``advertised.listeners=PLAINTEXT://<address>:<port>``;
            ``controller.quorum.voters``, ``bootstrap_servers`` and the readiness check use the
            address.  Nodes not named stay on 127.0.0.1.
        command_prefix: ``{node id: argv prefix}`` put before the node's ``java ... kafka.Kafka``
            (``["ip", "netns", "exec", ns]``, which execs, so ``pid`` stays the JVM's own).

    ``node_configs`` (``{node id: {property: value}}``, empty at first) is laid over
    ``broker_configs`` for that node; set it before ``start`` (``log.dirs`` on a tmpfs, say).
    ``node_env`` (``{node id: {variable: value}}``, empty at first) is added to the environment
    of that node's JVM (not of the storage tool), as ``LocalCluster.node_env`` is to a broker's
    (an ``LD_PRELOAD`` library and its settings, say).

    Use as ``with KafkaPeer(...) as peer:``; ``peer.bootstrap_servers`` is
    ``"127.0.0.1:p1,..."`` (each node's address from ``hosts``).  Raises ``PeerUnavailable`` (no Java, Maven
    or registry) and ``RuntimeError`` (a node exited or did not start in time; the message has its log's
    tail).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        nodes: int = 1,
        heap_mb: int = DEFAULT_HEAP_MB,
        broker_configs: dict[str, object] | None = None,
        startup_timeout_s: float = 120,
        hosts: Mapping[int, str] | None = None,
        command_prefix: Mapping[int, Sequence[str]] | None = None,
    ) -> None:
        if nodes < 1:
            raise ValueError("nodes must be >= 1")
        self.data_dir = Path(data_dir).resolve()
        self.node_ids = list(range(1, nodes + 1))
        unknown = sorted(set(hosts or {}) - set(self.node_ids)) + sorted(
            set(command_prefix or {}) - set(self.node_ids)
        )
        if unknown:
            raise ValueError(f"hosts and command_prefix name nodes {unknown}; this peer has {self.node_ids}")
        self.hosts: dict[int, str] = {n: (hosts or {}).get(n, HOST) for n in self.node_ids}
        self._command_prefix = {n: list(p) for n, p in (command_prefix or {}).items()}
        self.node_configs: dict[int, dict[str, object]] = {}
        self.node_env: dict[int, dict[str, str]] = {}
        ports = free_ports(2 * nodes)
        self.ports = dict(zip(self.node_ids, ports[:nodes], strict=True))
        self.controller_ports = dict(zip(self.node_ids, ports[nodes:], strict=True))
        self.heap_mb = heap_mb
        self.broker_configs = dict(broker_configs or {})
        self.startup_timeout_s = startup_timeout_s
        self.cluster_id = random_cluster_id()
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self._log_starts: dict[int, int] = {}  # node -> size of its log when it was last started

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"{self.hosts[n]}:{self.ports[n]}" for n in self.node_ids)

    def add_listener(
        self,
        name: str,
        security_protocol: str,
        configs: dict[str, object],
        internal_security_protocol: str = "PLAINTEXT",
    ) -> str:
        """Give every node a third listener ``name`` (its own free port) of ``security_protocol``,
        with ``configs`` (its ``listener.name.<name>.*`` settings), beside PLAINTEXT and CONTROLLER;
        call before ``start``.  ``internal_security_protocol`` is that of the nodes' own
        PLAINTEXT (inter-broker) and CONTROLLER listeners (``SASL_PLAINTEXT``: the nodes log in to
        each other, with the login ``configs`` gives them).

        Returns:
            The bootstrap servers of the new listener.
        """
        ports = dict(zip(self.node_ids, free_ports(len(self.node_ids)), strict=True))
        for node, port in ports.items():
            host = self.hosts[node]
            self.node_configs.setdefault(node, {}).update(
                {
                    "listeners": f"PLAINTEXT://{HOST}:{self.ports[node]},"
                    f"CONTROLLER://{HOST}:{self.controller_ports[node]},{name}://{HOST}:{port}",
                    "advertised.listeners": f"PLAINTEXT://{host}:{self.ports[node]},{name}://{host}:{port}",
                    "listener.security.protocol.map": (
                        f"PLAINTEXT:{internal_security_protocol},"
                        f"CONTROLLER:{internal_security_protocol},{name}:{security_protocol}"
                    ),
                    **configs,
                }
            )
        return ",".join(f"{self.hosts[n]}:{port}" for n, port in ports.items())

    def node_dir(self, node: int) -> Path:
        return self.data_dir / f"node-{node}"

    def log_path(self, node: int) -> Path:
        """The node's stdout and stderr (Kafka's log4j2 console output)."""
        return self.node_dir(node) / "kafka.out"

    def properties(self, node: int) -> dict[str, str]:
        """The node's ``server.properties``."""
        replication = min(3, len(self.node_ids))
        host = self.hosts[node]
        bind = HOST if host == HOST else "0.0.0.0"
        props: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": node,
            "controller.quorum.voters": ",".join(
                f"{n}@{self.hosts[n]}:{self.controller_ports[n]}" for n in self.node_ids
            ),
            "listeners": f"PLAINTEXT://{bind}:{self.ports[node]},CONTROLLER://{bind}:{self.controller_ports[node]}",
            "advertised.listeners": f"PLAINTEXT://{host}:{self.ports[node]}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(self.node_dir(node) / "logs"),
            "offsets.topic.replication.factor": replication,
            "transaction.state.log.replication.factor": replication,
            "transaction.state.log.min.isr": min(2, replication),
            "share.coordinator.state.topic.replication.factor": replication,
            "share.coordinator.state.topic.min.isr": min(2, replication),
            "group.initial.rebalance.delay.ms": 0,
        }
        props.update(self.broker_configs)
        props.update(self.node_configs.get(node, {}))
        return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in props.items()}

    def _java(self, libs: Path, *args: str) -> list[str]:
        return [
            java_binary(),
            f"-Xms{self.heap_mb}m",
            f"-Xmx{self.heap_mb}m",
            "-XX:+UseG1GC",
            f"-Dlog4j2.configurationFile={LOG4J_CONFIG}",
            "-cp",
            f"{libs}/*",
            *args,
        ]

    def start(self) -> KafkaPeer:
        """Resolve, format every node's storage, launch every node and wait until each serves.

        Raises:
            PeerUnavailable: no Java, Maven or registry.
            RuntimeError: formatting failed, or a node exited or did not start in time.
        """
        self.format_storage()
        self.launch()
        return self

    def format_storage(self) -> None:
        """Resolve the jars, write each node's ``server.properties`` and format its storage
        (Kafka's ``StorageTool format`` with this peer's cluster id).

        Raises:
            PeerUnavailable: no Java, Maven or registry.
            RuntimeError: the StorageTool failed (its output's tail).
        """
        libs = resolve()
        for node in self.node_ids:
            self.node_dir(node).mkdir(parents=True, exist_ok=True)
            config = self.node_dir(node) / "server.properties"
            config.write_text(render_properties(self.properties(node)), encoding="utf-8")
            done = subprocess.run(
                self._java(
                    libs,
                    "kafka.tools.StorageTool",
                    "format",
                    f"--cluster-id={self.cluster_id}",
                    "-c",
                    str(config),
                ),
                capture_output=True,
                text=True,
                timeout=120,
            )
            if done.returncode != 0:
                raise RuntimeError(
                    f"Kafka's StorageTool could not format node {node}: "
                    f"{(done.stderr or done.stdout).strip()[-500:]}"
                )

    def launch(self) -> None:
        """Start every formatted node (``kafka.Kafka``) and wait until each serves.

        Raises:
            RuntimeError: a node exited or did not start within ``startup_timeout_s`` (every
                node is stopped then).
        """
        try:
            for node in self.node_ids:
                self._spawn(node)
            deadline = time.monotonic() + self.startup_timeout_s
            for node in self.node_ids:
                self._wait_started(node, deadline)
        except BaseException:
            self.stop()
            raise

    def _spawn(self, node: int) -> None:
        libs = resolve()
        log = self.log_path(node)
        self._log_starts[node] = log.stat().st_size if log.exists() else 0
        with open(log, "ab") as out:
            self._procs[node] = subprocess.Popen(
                [
                    *self._command_prefix.get(node, []),
                    *self._java(libs, "kafka.Kafka", str(self.node_dir(node) / "server.properties")),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=str(self.node_dir(node)),
                env={**os.environ, **self.node_env.get(node, {})},
            )

    def stop_node(self, node: int, hard: bool = False, timeout_s: float = 60) -> None:
        """Stop one node: SIGTERM (Kafka's controlled shutdown), or SIGKILL when ``hard``; waits
        for the exit (SIGKILL after ``timeout_s``)."""
        proc = self._procs.get(node)
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def start_node(self, node: int) -> None:
        """Start a stopped node again with the same config, port and storage; waits until it serves.

        Raises:
            RuntimeError: it exited or did not start within ``startup_timeout_s``.
        """
        self._spawn(node)
        self._wait_started(node, time.monotonic() + self.startup_timeout_s)

    def _wait_started(self, node: int, deadline: float) -> None:
        while True:
            proc = self._procs[node]
            if proc.poll() is not None:
                raise RuntimeError(
                    f"Kafka node {node} exited with code {proc.returncode}\n{self._tail(node)}"
                )
            with open(self.log_path(node), "rb") as log:
                log.seek(self._log_starts.get(node, 0))
                started = STARTED_LOG_LINE.encode() in log.read()
            if started:
                try:
                    socket.create_connection((self.hosts[node], self.ports[node]), timeout=1).close()
                    return
                except OSError:
                    pass
            if time.monotonic() >= deadline:
                raise RuntimeError(
                    f"Kafka node {node} did not start within {self.startup_timeout_s:.0f} s\n"
                    f"{self._tail(node)}"
                )
            time.sleep(0.2)

    def _tail(self, node: int, lines: int = 20) -> str:
        try:
            text = self.log_path(node).read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            text = ["<no output>"]
        return f"--- {self.log_path(node)} ---\n" + "\n".join(text)

    def run_tool(
        self, main_class: str, *args: str, timeout_s: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """Run one of Kafka's command-line tools (``org.apache.kafka.tools.TopicCommand``, ...)
        with ``args``, on Kafka's own classpath; returns the finished process (text output).

        Raises:
            PeerUnavailable: no Java, Maven or registry.
            subprocess.TimeoutExpired: it ran longer than ``timeout_s``.
        """
        return subprocess.run(
            [*self.tool_command(main_class), *args], capture_output=True, text=True, timeout=timeout_s
        )

    @staticmethod
    def tool_command(main_class: str) -> list[str]:
        """The command line (without the tool's arguments) running ``main_class`` on Kafka's
        classpath, pointed at whatever ``--bootstrap-server`` the arguments name.

        Raises:
            PeerUnavailable: no Java, Maven or registry.
        """
        libs = resolve()
        return [
            java_binary(),
            "-Xmx256m",
            f"-Dlog4j2.configurationFile={TOOLS_LOG4J_CONFIG}",
            "-cp",
            f"{libs}/*",
            main_class,
        ]

    def pid(self, node: int) -> int | None:
        proc = self._procs.get(node)
        return proc.pid if proc is not None and proc.poll() is None else None

    def stop(self, timeout_s: float = 60) -> None:
        """SIGTERM every node (Kafka's controlled shutdown), SIGKILL the ones still up after ``timeout_s``."""
        running = [p for p in self._procs.values() if p.poll() is None]
        for proc in running:
            proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for proc in running:
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    def __enter__(self) -> KafkaPeer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_or_fail(peer: KafkaPeer) -> KafkaPeer:
    """Start ``peer`` for a test; when Apache Kafka cannot run here (no Java, Maven or registry)
    the test fails, never skips, naming what is missing.

    Returns:
        ``peer``, started.

    Raises:
        RuntimeError: from ``KafkaPeer.start`` (a node did not start).
    """
    import pytest  # only tests call this; the benchmarks use the peer without pytest

    try:
        return peer.start()
    except PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1, help="nodes (each a broker and a voter; default 1)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where the nodes keep their data (default: a temporary one, removed at the end)",
    )
    parser.add_argument("--heap-mb", type=int, default=DEFAULT_HEAP_MB, help="each node's heap (MiB)")
    args = parser.parse_args(argv)
    if args.nodes < 1 or args.heap_mb < 64:
        parser.error("--nodes must be >= 1 and --heap-mb >= 64")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="kafka-peer-"))
    try:
        peer = KafkaPeer(data_dir, nodes=args.nodes, heap_mb=args.heap_mb)
        print(f"Starting Apache Kafka {KAFKA_VERSION} ({args.nodes} node(s)) in {data_dir} ...", flush=True)
        peer.start()
    except PeerUnavailable as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    print(f"bootstrap.servers={peer.bootstrap_servers}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    code = 0
    try:
        while not stopping.wait(1.0):
            dead = [n for n in peer.node_ids if peer.pid(n) is None]
            if dead:
                print(f"Error: Kafka node(s) {dead} exited; see {peer.log_path(dead[0])}", file=sys.stderr)
                code = 1
                break
    except KeyboardInterrupt:
        pass
    finally:
        print("Stopping Apache Kafka ...", flush=True)
        peer.stop()
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
