"""LocalCluster: N real broker processes (on 127.0.0.1, or at given addresses), for tests, demos and the CLI.

Owns: port choice, one ``server.properties`` per broker under
``<data_dir>/broker-<id>/`` (with ``broker.rack`` when racks are given), the broker processes
(``python -m kafkette.broker --config``, output to ``kafkette.broker.log``), readiness checks (every broker
answers Metadata listing every expected broker id) and teardown (SIGTERM, then SIGKILL after a timeout).
Synchronous and loop-free on purpose (plain blocking sockets for the readiness
Metadata requests), so it works from sync fixtures and from inside async tests.

``LocalCluster.from_data_dir`` starts again the cluster a data directory holds, as its
``server.properties`` files say (ports, roles, every edit a user made), beside brokers of it that
still run (``kafkette cluster start`` on a stopped or partly stopped cluster, ``kafkette cluster
restart-broker``); a port another process took meanwhile moves (``move_taken_ports``).

A node that exits while ``start`` waits fails the start at once, named with its exit code, its
last ``Error:`` line and its log (``broker 2 exited with code 1: cannot listen on
127.0.0.1:9093: address already in use (log: D/broker-2/broker.log)``); when another node
failed because of it (a port of this cluster held by another cluster's node, whose voters
answer with their own ``cluster.id``), the node that could not listen is the one named.

Nodes 1..k (k = ``controllers``, by default 3, or every node of a smaller cluster) are the
voters of the metadata quorum (``process.roles=broker,controller``; their Raft leader is the
active controller); the others are ``broker`` only.  With ``isolated_controllers`` the
voters are k more nodes, 3001..300k, with ``process.roles=controller`` (``controller-<id>/``).  Does not own
any broker logic.  Kafka concept: the test harness of Kafka's ``KafkaClusterTestKit``.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kafkette.client.blocking_requests import HOST, fetch_metadata
from kafkette.client.client_properties import read_properties_file
from kafkette.client.cluster_pid_file import BrokerProcess, is_alive
from kafkette.client.kafka_client import client_security
from kafkette.client.local_cluster_certificates import write_cluster_certificates, write_private_file
from kafkette.client.local_cluster_layout import (
    ClusterLayout,
    move_listener_port,
    move_voter_port,
    port_is_taken,
    read_cluster_layout,
)
from kafkette.client.local_cluster_security import (
    ADMIN_MECHANISM,
    PLAINTEXT,
    SASL_SSL,
    admin_properties,
    admin_properties_path,
    check_security,
    cluster_certificates,
    create_admin_credential,
    librdkafka_properties,
    new_admin_password,
    read_admin_password,
    secure_broker_configs,
    write_admin_properties,
)
from kafkette.common.config_def import render_properties
from kafkette.common.meta_properties import META_PROPERTIES_FILE, random_cluster_id, read_cluster_id
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.security.sasl_client import login_from_jaas
from kafkette.common.security.security_protocol_map import (
    SASL_PROTOCOLS,
    TLS_PROTOCOLS,
    listener_security_protocol,
)
from kafkette.common.security.ssl_factory import ssl_client_context
from kafkette.protocol.errors import KafkaError

logger = logging.getLogger(__name__)

ISOLATED_CONTROLLER_BASE_ID = (
    3000  # controller-only nodes are 3001, 3002, ... (as Kafka's KafkaClusterTestKit)
)
# What BrokerLifecycleManager logs once the controller unfenced this run of the broker.
UNFENCED_LOG_LINE = b"Broker is now unfenced"
DEFAULT_CONTROLLERS = 3  # voters of the metadata quorum: any one may fail
# How long a failed start waits for a node whose port another process holds to exit with its
# own "cannot listen" error, so that the error names the port conflict and not what followed (s).
BIND_FAILURE_GRACE_S = 5.0
# A failed start stops the nodes it started with SIGTERM, and kills those still running after
# this long (s): they never served, and the error should not wait on their controlled shutdown.
FAILED_START_STOP_TIMEOUT_S = 3.0
# What a node's own "Error: ..." line says when it could not start where it was told to.
START_UP_FAILURES = ("cannot listen on ", "log.dirs entry ")


# Like Kafka's own test harness (TestUtils.createBrokerConfig): a local cluster is stopped
# whole, so a broker whose partitions cannot move retries its controlled shutdown briefly.
LOCAL_CLUSTER_DEFAULTS: dict[str, Any] = {"controlled.shutdown.retry.backoff.ms": 100}


class LocalClusterError(RuntimeError):
    """A broker did not start, exited, or did not register in time (message has log tails)."""


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free on 127.0.0.1 right now (bind to port 0)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


class LocalCluster:
    """Starts and stops ``num_brokers`` broker processes (node ids 1..N).

    Args:
        num_brokers: how many brokers (>= 1).
        data_dir: root of the brokers' directories (created if missing).
        base_port: listener ports base_port..base_port+N-1 (default: free ports).
        broker_configs: extra ``server.properties`` entries for every broker
            (e.g. ``{"broker.session.timeout.ms": 3000}``); they override generated ones.
        racks: one ``broker.rack`` per broker in node-id order (None entries leave
            that broker without a rack), for rack-aware replica assignment.
        startup_timeout_s: bound of ``start``/``start_broker`` (s).
        detached: start each broker in a session of its own, so that it outlives this
            process and its terminal (``kafkette cluster start --daemon``).
        controllers: how many of the nodes (the first ones) are voters of the metadata
            quorum, with ``process.roles=broker,controller``; default 3, or all of a smaller
            cluster.  A quorum of 2k+1 voters keeps working with k of them down.
        isolated_controllers: make the voters ``controllers`` more nodes (ids 3001, 3002, ...)
            with ``process.roles=controller`` (Kafka's isolated mode: no broker runs there;
            ``bootstrap_servers`` lists the brokers only); at most 9.
        hosts: ``{node id: address}`` of nodes that do not live on 127.0.0.1 (each in a network
            namespace of its own, say).  Such a node's listener binds ``0.0.0.0`` and publishes
            ``advertised.listeners=PLAINTEXT://<address>:<port>``; the quorum's voters, the
            bootstrap servers and the readiness checks use the address.
        command_prefix: ``{node id: argv prefix}`` put before a node's ``python -m
            kafkette.broker`` (``["ip", "netns", "exec", "ns1"]``); the prefix must exec the
            command, so that the process id is the broker's own (signals reach it).
        kafka_protocol: give every broker a second listener, ``KAFKA://``, speaking Apache Kafka's
            binary protocol (``listener.wire.protocol.map=KAFKA:kafka``) for Kafka's own clients
            and tools; ``kafka_bootstrap_servers`` lists those listeners.
        security: ``"PLAINTEXT"`` (the default) or ``"SASL_SSL"`` (any case): a secure cluster in
            one step.  ``start`` makes a CA and the brokers' certificate under ``<data_dir>/ssl/``
            (once), the brokers' listeners (and ``KAFKA``'s) SASL_SSL, the brokers logging in to
            each other as ``admin`` with PLAIN, ``User:admin`` a super user of the
            StandardAuthorizer (``allow.everyone.if.no.acl.found=false``), the admin's
            SCRAM-SHA-512 credential, and ``<data_dir>/admin.properties`` (mode 0600, see
            ``admin_properties_path``); the admin's password is random.  See
            ``kafkette.client.local_cluster_security``.

    Raises:
        ValueError, TypeError: a bad argument (named in the message).

    Use as ``with LocalCluster(...) as cluster:`` or ``start()``/``stop()``.
    """

    def __init__(
        self,
        num_brokers: int = 3,
        data_dir: str | os.PathLike[str] = "kafkette-data",
        base_port: int | None = None,
        broker_configs: Mapping[str, Any] | None = None,
        startup_timeout_s: float = 60,
        racks: Sequence[str | None] | None = None,
        detached: bool = False,
        controllers: int | None = None,
        isolated_controllers: bool = False,
        hosts: Mapping[int, str] | None = None,
        command_prefix: Mapping[int, Sequence[str]] | None = None,
        kafka_protocol: bool = False,
        security: str = PLAINTEXT,
    ) -> None:
        self.security = check_security(security)
        if type(num_brokers) is not int or num_brokers < 1:
            raise ValueError("num_brokers must be an int >= 1")
        if controllers is None:
            controllers = min(DEFAULT_CONTROLLERS, num_brokers)
        if type(controllers) is not int or not 1 <= controllers <= (
            9 if isolated_controllers else num_brokers
        ):
            raise ValueError(
                f"controllers must be an int from 1 to the number of brokers ({num_brokers}), "
                f"got {controllers!r}"
            )
        if racks is not None:
            if isinstance(racks, str) or not isinstance(racks, Sequence):
                raise TypeError("racks must be a list with one rack name (or None) per broker")
            if len(racks) != num_brokers:
                raise ValueError(
                    f"racks names {len(racks)} racks for {num_brokers} brokers; give one per broker"
                )
            if any(r is not None and (not isinstance(r, str) or not r.strip()) for r in racks):
                raise ValueError("each rack must be a non-empty string or None")
        if base_port is not None and not 0 < base_port <= 65535 - 2 * num_brokers - 9:
            raise ValueError(f"base_port {base_port} leaves no room for {num_brokers} ports")
        self.num_brokers = num_brokers
        self.data_dir = Path(data_dir).resolve()
        self.broker_ids = list(range(1, num_brokers + 1))
        self.isolated_controllers = isolated_controllers
        self.voter_ids = (
            [ISOLATED_CONTROLLER_BASE_ID + i for i in range(1, controllers + 1)]
            if isolated_controllers
            else self.broker_ids[:controllers]
        )
        self.node_ids = self.broker_ids + (self.voter_ids if isolated_controllers else [])
        count = len(self.node_ids)
        total = count + (num_brokers if kafka_protocol else 0)
        self._ports = list(range(base_port, base_port + total)) if base_port else free_ports(total)
        self.ports = dict(zip(self.node_ids, self._ports[:count], strict=True))
        self.kafka_protocol = kafka_protocol
        # broker id -> port of its KAFKA listener (empty without kafka_protocol)
        self.kafka_ports: dict[int, int] = dict(zip(self.broker_ids, self._ports[count:], strict=False))
        unknown = sorted(set(hosts or {}) - set(self.node_ids)) + sorted(
            set(command_prefix or {}) - set(self.node_ids)
        )
        if unknown:
            raise ValueError(
                f"hosts and command_prefix name nodes {unknown}; this cluster has {self.node_ids}"
            )
        self.hosts: dict[int, str] = {n: (hosts or {}).get(n, HOST) for n in self.node_ids}
        self._command_prefix = {n: list(p) for n, p in (command_prefix or {}).items()}
        self._admin_password: str | None = None
        secure: dict[str, str] = {}
        if self.security == SASL_SSL:  # a restarted cluster keeps its admin's password
            self._admin_password = read_admin_password(self.data_dir) or new_admin_password()
            secure = secure_broker_configs(self.data_dir, self._admin_password)
        self._broker_configs = {**secure, **(broker_configs or {})}
        self.node_configs: dict[int, dict[str, Any]] = {}  # per node, over broker_configs, at its next start
        self.node_env: dict[
            int, dict[str, str]
        ] = {}  # per node, extra environment variables at its next start
        self.racks: dict[int, str | None] = dict(
            zip(self.broker_ids, racks or [None] * num_brokers, strict=True)
        )
        self.racks.update({v: None for v in self.voter_ids if v not in self.racks})
        self.startup_timeout_s = startup_timeout_s
        self.detached = detached
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self._adopted: dict[int, BrokerProcess] = {}  # nodes running, started by another launcher
        self._keep_configs = False  # from_data_dir: start nodes with their server.properties as on disk
        self._log_starts: dict[int, int] = {}  # broker id -> size of its log when it was last started
        self.cluster_id = self._cluster_id()

    # --- layout ------------------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        """``"host1:p1,host2:p2,..."`` of every broker (``127.0.0.1`` unless ``hosts`` says otherwise)."""
        return ",".join(f"{self.hosts[b]}:{self.ports[b]}" for b in self.broker_ids)

    @functools.cached_property
    def security_protocol(self) -> str:
        """The security protocol of the brokers' own listener (``PLAINTEXT``, or ``SSL`` when
        ``broker_configs``' ``listener.security.protocol.map`` makes it so), for the SDK's
        ``security_protocol``."""
        return listener_security_protocol(self._broker_configs, "PLAINTEXT")

    @functools.cached_property
    def ssl_context(self) -> ssl.SSLContext | None:
        """The client TLS context of the brokers' own listener when it is SSL or SASL_SSL (None
        otherwise): the one the brokers use to reach each other, from ``broker_configs``' ``ssl.*``
        (and ``listener.name.plaintext.ssl.*``) trust and key stores, for the SDK's ``ssl_context``.

        Raises:
            ConfigError: a bad ``ssl.*`` setting (named).
        """
        if self.security_protocol not in TLS_PROTOCOLS:
            return None
        return ssl_client_context(self._broker_configs, "PLAINTEXT")

    @functools.cached_property
    def sasl_login(self) -> tuple[str, str, str] | None:
        """``(mechanism, user name, password)`` the brokers log in to each other with on a SASL
        listener (``sasl.mechanism.inter.broker.protocol`` and the username / password of
        ``listener.name.plaintext.<mechanism>.sasl.jaas.config``), None without SASL or login.

        Raises:
            ValueError: an unparseable JAAS config.
        """
        if self.security_protocol not in SASL_PROTOCOLS:
            return None
        mechanism = str(self._broker_configs.get("sasl.mechanism.inter.broker.protocol", "GSSAPI"))
        jaas = self._broker_configs.get(f"listener.name.plaintext.{mechanism.lower()}.sasl.jaas.config")
        if not jaas:
            return None
        return (mechanism, *login_from_jaas(str(jaas)))

    @property
    def client_config(self) -> dict[str, Any]:
        """Keyword arguments that reach this cluster with the SDK (``Producer(**cluster.client_config)``):
        ``bootstrap_servers``, and for a secured listener ``security_protocol``, ``ssl_context`` and
        the brokers' own SASL login (``sasl_mechanism``, ``sasl_plain_username``,
        ``sasl_plain_password``)."""
        config: dict[str, Any] = {"bootstrap_servers": self.bootstrap_servers}
        if self.security_protocol != "PLAINTEXT":
            config.update(security_protocol=self.security_protocol, ssl_context=self.ssl_context)
        if self.sasl_login is not None:
            mechanism, username, password = self.sasl_login
            config.update(
                sasl_mechanism=mechanism, sasl_plain_username=username, sasl_plain_password=password
            )
        return config

    @property
    def _security(self) -> ClientSecurity:
        config = self.client_config
        config.pop("bootstrap_servers")
        return client_security(**config)

    @property
    def kafka_bootstrap_servers(self) -> str:
        """``"host1:p1,..."`` of every broker's Kafka-protocol listener (for kcat, librdkafka,
        kafka-python, aiokafka and Kafka's tools).

        Raises:
            ValueError: the cluster was made without ``kafka_protocol``.
        """
        if not self.kafka_protocol:
            raise ValueError("this cluster has no Kafka-protocol listeners; make it with kafka_protocol=True")
        return ",".join(
            f"{self.hosts[b]}:{self.kafka_ports[b]}" for b in self.broker_ids if b in self.kafka_ports
        )

    @property
    def admin_properties_path(self) -> Path:
        """``<data_dir>/admin.properties``: the admin's Kafka client properties (mode 0600), written by
        ``start`` for a ``security="SASL_SSL"`` cluster; ``--command-config`` of Kafka's tools (with
        ``--bootstrap-server`` naming the Kafka-protocol listener) and of Kafkette's CLI."""
        return admin_properties_path(self.data_dir)

    @property
    def admin_client_config(self) -> dict[str, str]:
        """The admin's Kafka client properties for the brokers' own listener, as
        ``admin.properties`` holds them: ``bootstrap.servers``, ``security.protocol=SASL_SSL``,
        ``sasl.mechanism=SCRAM-SHA-512``, ``sasl.jaas.config`` (ScramLoginModule, user ``admin``),
        ``ssl.truststore.type=PEM``, ``ssl.truststore.location`` and ``ssl.ca.location`` (the CA
        certificate).  For ``client_settings(config, Producer)`` and ``--command-config``.

        Raises:
            ValueError: the cluster was made without ``security="SASL_SSL"``.
        """
        return admin_properties(self.bootstrap_servers, self.data_dir, self._checked_admin_password())

    @property
    def kafka_admin_client_config(self) -> dict[str, str]:
        """The admin's client configuration for the Kafka-protocol listeners under librdkafka's names,
        usable unchanged by confluent-kafka (``confluent_kafka.Producer(config)``): ``bootstrap.servers``,
        ``security.protocol=SASL_SSL``, ``sasl.mechanism=SCRAM-SHA-512``, ``sasl.username``,
        ``sasl.password``, ``ssl.ca.location``.

        Raises:
            ValueError: the cluster was made without ``security="SASL_SSL"`` or ``kafka_protocol``.
        """
        password = self._checked_admin_password()
        return librdkafka_properties(self.kafka_bootstrap_servers, self.data_dir, password)

    def _checked_admin_password(self) -> str:
        if self._admin_password is None:
            raise ValueError(
                f"this cluster has no admin user (security {self.security}); make it with security='SASL_SSL'"
            )
        return self._admin_password

    @classmethod
    def from_data_dir(
        cls,
        data_dir: str | os.PathLike[str],
        *,
        running: Sequence[BrokerProcess] = (),
        detached: bool = False,
        startup_timeout_s: float = 60,
    ) -> LocalCluster:
        """The cluster ``data_dir`` holds, to start again as its ``server.properties`` say.

        Each node is started with its ``server.properties`` as it is on disk (a user's edits
        stay; ``node_configs`` entries still rewrite a node's file); ports, roles and the voters
        come from those files.

        Args:
            data_dir: a data directory a LocalCluster wrote (``broker-<id>/server.properties``, ...).
            running: nodes of it that run now (from ``cluster.json``): ``start`` leaves those
                alone and waits until they list the nodes it starts; ``stop`` does not stop them.
            detached: as for the constructor.
            startup_timeout_s: as for the constructor.

        Returns:
            The cluster, not started.

        Raises:
            ValueError: ``data_dir`` holds no cluster, or one whose files do not fit together
                (the message names the file).
        """
        layout = read_cluster_layout(data_dir)
        if layout is None:
            raise ValueError(
                f"{Path(data_dir).resolve()} holds no cluster (no broker-<id>/server.properties)"
            )
        brokers = layout.broker_ids
        voters = sorted(layout.voters)
        isolated = bool(voters) and all(not layout.nodes[v].is_broker for v in voters if v in layout.nodes)
        if brokers != list(range(1, len(brokers) + 1)) or not voters or not set(voters) <= set(layout.nodes):
            raise ValueError(
                f"{Path(data_dir).resolve()} holds nodes {sorted(layout.nodes)} with voters {voters}; "
                f"a local cluster has brokers 1..N and voters among its nodes"
            )
        security_configs = _security_configs(Path(data_dir).resolve() / f"broker-{brokers[0]}")
        secure = listener_security_protocol(security_configs, "PLAINTEXT") == SASL_SSL and (
            admin_properties_path(Path(data_dir).resolve()).is_file()
        )
        cluster = cls(
            len(brokers),
            data_dir,
            startup_timeout_s=startup_timeout_s,
            detached=detached,
            controllers=len(voters),
            isolated_controllers=isolated,
            kafka_protocol=any(n.kafka_port is not None for n in layout.nodes.values()),
            broker_configs=security_configs,
            security=SASL_SSL if secure else PLAINTEXT,
        )
        if cluster.voter_ids != voters or sorted(cluster.node_ids) != sorted(layout.nodes):
            raise ValueError(
                f"{Path(data_dir).resolve()} has voters {voters} among nodes {sorted(layout.nodes)}; "
                f"a local cluster's voters are its first nodes (or 3001.. when isolated)"
            )
        cluster._use_layout(layout)
        cluster._adopted = {b.id: b for b in running if b.id in cluster.ports}
        return cluster

    def _use_layout(self, layout: ClusterLayout) -> None:
        self.ports = {n: node.port for n, node in layout.nodes.items()}
        self.kafka_ports = {
            n: node.kafka_port
            for n, node in layout.nodes.items()
            if node.kafka_port is not None and node.is_broker
        }
        self.hosts = {n: node.host for n, node in layout.nodes.items()}
        if layout.cluster_id:
            self.cluster_id = layout.cluster_id
        self._keep_configs = True

    def move_taken_ports(self, node_ids: Sequence[int]) -> list[str]:
        """Give each of ``node_ids`` whose listener port another process holds a free port, in its
        ``server.properties`` (and, for a voter, in every node's ``controller.quorum.voters``).

        For a cluster of ``from_data_dir``, before starting those nodes.

        Returns:
            One line per moved port (``Port 9093 of broker 2 is taken; broker 2 listens on
            127.0.0.1:40123 now (listeners in D/broker-2/server.properties)``).

        Raises:
            LocalClusterError: a voter's port is taken while other nodes run (they know the voter by
                that port: stop the cluster and start it again to move it).
        """
        lines = []
        for node_id in node_ids:
            self._check_id(node_id)
            kind = self.node_kind(node_id)
            for port_map in (self.ports, self.kafka_ports):
                old = port_map.get(node_id)
                if old is None or not port_is_taken(self.hosts[node_id], old):
                    continue
                is_voter_port = port_map is self.ports and node_id in self.voter_ids
                others = sorted(n for n in self.node_ids if n != node_id and self.is_running(n))
                if is_voter_port and others:
                    raise LocalClusterError(
                        f"port {old} of {kind} {node_id} (a voter of the metadata quorum) is taken by "
                        f"another process, and nodes {', '.join(map(str, others))} know the voter by that "
                        f"port; free the port, or stop the cluster and start it again to move it"
                    )
                (new,) = free_ports(1)
                move_listener_port(self.config_path(node_id), old, new)
                if is_voter_port:
                    for other in self.node_ids:
                        if self.config_path(other).is_file():
                            move_voter_port(self.config_path(other), old, new)
                port_map[node_id] = new
                lines.append(
                    f"Port {old} of {kind} {node_id} is taken; {kind} {node_id} listens on "
                    f"{self.hosts[node_id]}:{new} now (listeners in {self.config_path(node_id)})"
                )
        return lines

    def _cluster_id(self) -> str:
        """The cluster's ``cluster.id``: ``broker_configs``' when given, else the one a node's
        ``meta.properties`` under ``data_dir`` already names (a restarted cluster), else a new
        one as ``kafka-storage random-uuid`` makes."""
        if "cluster.id" in self._broker_configs:
            return str(self._broker_configs["cluster.id"])
        for meta in sorted(self.data_dir.glob(f"*/logs/{META_PROPERTIES_FILE}")):
            existing = read_cluster_id(meta.parent)
            if existing:
                return existing
        return random_cluster_id()

    def broker_dir(self, broker_id: int) -> Path:
        """``<data_dir>/broker-<id>`` (``controller-<id>`` for a controller-only node)."""
        self._check_id(broker_id)
        return self.data_dir / f"{self.node_kind(broker_id)}-{broker_id}"

    def config_path(self, broker_id: int) -> Path:
        return self.broker_dir(broker_id) / "server.properties"

    def log_path(self, broker_id: int) -> Path:
        return self.broker_dir(broker_id) / "broker.log"

    def node_kind(self, node_id: int) -> str:
        """``"broker"`` for a node with ``process.roles`` broker, ``"controller"`` for a
        controller-only one (the word its directory, log lines and errors use)."""
        return "broker" if node_id in self.broker_ids else "controller"

    def _check_id(self, broker_id: int) -> None:
        if broker_id not in self.ports:
            raise ValueError(f"unknown node id {broker_id}; this cluster has {self.node_ids}")

    def broker_properties(self, broker_id: int) -> dict[str, str]:
        """The ``server.properties`` entries of ``broker_id`` (overrides applied)."""
        props: dict[str, Any] = {
            "node.id": broker_id,
            "process.roles": (
                "controller"
                if broker_id not in self.broker_ids
                else "broker,controller"
                if broker_id in self.voter_ids
                else "broker"
            ),
            "listeners": f"PLAINTEXT://{HOST}:{self.ports[broker_id]}",
            "log.dirs": str(self.broker_dir(broker_id) / "logs"),
            "cluster.id": self.cluster_id,
            "controller.quorum.voters": ",".join(
                f"{v}@{self.hosts[v]}:{self.ports[v]}" for v in self.voter_ids
            ),
        }
        if self.hosts[broker_id] != HOST:
            props["listeners"] = f"PLAINTEXT://0.0.0.0:{self.ports[broker_id]}"
            props["advertised.listeners"] = f"PLAINTEXT://{self.hosts[broker_id]}:{self.ports[broker_id]}"
        if broker_id in self.kafka_ports:
            bind = HOST if self.hosts[broker_id] == HOST else "0.0.0.0"
            props["listeners"] += f",KAFKA://{bind}:{self.kafka_ports[broker_id]}"
            if "advertised.listeners" in props:
                props["advertised.listeners"] += (
                    f",KAFKA://{self.hosts[broker_id]}:{self.kafka_ports[broker_id]}"
                )
        if self.racks[broker_id] is not None:
            props["broker.rack"] = self.racks[broker_id]
        props.update(LOCAL_CLUSTER_DEFAULTS)
        props.update(self._broker_configs)
        props.update(self.node_configs.get(broker_id, {}))
        return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in props.items()}

    def _write_config(self, broker_id: int) -> Path:
        """Write the node's ``server.properties``: mode 0600 when it holds a secret (a JAAS config
        or a password)."""
        path = self.config_path(broker_id)
        if self._keep_configs and broker_id not in self.node_configs and path.is_file():
            return path  # as the user left it
        props = self.broker_properties(broker_id)
        if any(k.endswith(("sasl.jaas.config", "password")) for k in props):
            write_private_file(path, render_properties(props))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render_properties(props), encoding="utf-8")
        return path

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> LocalCluster:
        """Start every node (but those of ``from_data_dir``'s ``running``) and wait until every
        broker is registered (see ``wait_for_broker``).

        With ``security="SASL_SSL"`` it first writes the certificates (when missing) and
        ``admin.properties``, and last gives the admin its SCRAM credential and waits until every
        running broker logs the admin in with it.

        A node that exits meanwhile ends the wait at once; then every node this call started is
        stopped (SIGTERM, SIGKILL after ``FAILED_START_STOP_TIMEOUT_S``) before the error is raised.

        Raises:
            LocalClusterError: a node exited (named, with its exit code, last ``Error:`` line and
                log path on the first line, log tails after it) or the cluster was not ready in time.
        """
        started = [n for n in self.node_ids if n not in self._adopted or not is_alive(self._adopted[n])]
        try:
            if self.security == SASL_SSL:
                self._write_security_files()
            for node_id in started:
                self._spawn(node_id)
            deadline = time.monotonic() + self.startup_timeout_s
            for broker_id in self.broker_ids:
                self._wait_registered(broker_id, deadline, watched=started)
            self._check_exited(started)
            if self.security == SASL_SSL:
                self._create_admin_credential(deadline, watched=started)
        except BaseException:
            self.stop(timeout_s=FAILED_START_STOP_TIMEOUT_S)
            raise
        return self

    def _write_security_files(self) -> None:
        """Write the CA and broker certificates (unless the data directory has them) and
        ``admin.properties`` (mode 0600)."""
        certificates = cluster_certificates(self.data_dir)
        if not certificates.exist():
            write_cluster_certificates(certificates.ca_certificate.parent, self.hosts.values())
        write_admin_properties(self.admin_properties_path, self.admin_client_config)

    def _create_admin_credential(self, deadline: float, watched: Sequence[int]) -> None:
        """See ``local_cluster_security.create_admin_credential``.

        Raises:
            LocalClusterError: a watched node exited, or the deadline (``time.monotonic()``) passed
                (the message says what was last refused).
        """
        problem = create_admin_credential(
            [(self.hosts[b], self.ports[b]) for b in self.broker_ids if self.is_running(b)],
            self._security,
            self.ssl_context,
            self._checked_admin_password(),
            deadline,
            lambda: self._check_exited(watched),
        )
        if problem is not None:
            raise LocalClusterError(
                f"the admin user's {ADMIN_MECHANISM} credential was not usable on every broker after "
                f"{self.startup_timeout_s:.0f} s ({problem})\n{self._log_tails(self.node_ids)}"
            )
        logger.info("[LocalCluster] The admin user logs in with %s on every broker", ADMIN_MECHANISM)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, broker_id: int) -> None:
        pid = self.pid(broker_id)
        if pid is not None:
            raise LocalClusterError(f"broker {broker_id} is already running (pid {pid})")
        self._adopted.pop(broker_id, None)
        config = self._write_config(broker_id)
        env = dict(os.environ)
        env["LOG_DIR"] = str(self.broker_dir(broker_id))  # state-change.log beside broker.log
        env.update(self.node_env.get(broker_id, {}))
        log = open(self.log_path(broker_id), "ab")  # handed to the child process, closed below
        self._log_starts[broker_id] = log.seek(0, os.SEEK_END)
        try:
            self._procs[broker_id] = subprocess.Popen(
                [
                    *self._command_prefix.get(broker_id, []),
                    sys.executable,
                    "-m",
                    "kafkette.broker",
                    "--config",
                    str(config),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=str(self.data_dir),
                env=env,
                start_new_session=self.detached,
            )
        finally:
            log.close()
        logger.info(
            "[LocalCluster] Started broker %d (pid %d) on port %d",
            broker_id,
            self._procs[broker_id].pid,
            self.ports[broker_id],
        )

    def pid(self, broker_id: int) -> int | None:
        """Process id of a running broker (also one of ``from_data_dir``'s ``running``), or None
        when it is stopped."""
        self._check_id(broker_id)
        proc = self._procs.get(broker_id)
        if proc is not None and proc.poll() is None:
            return proc.pid
        adopted = self._adopted.get(broker_id)
        return adopted.pid if adopted is not None and is_alive(adopted) else None

    def exit_code(self, node_id: int, pid: int | None = None) -> int | None:
        """Exit code of the node's process this cluster last started (negative: killed by that
        signal); None while it runs, when this cluster did not start it, or when ``pid`` is given
        and is not that process."""
        self._check_id(node_id)
        proc = self._procs.get(node_id)
        return None if proc is None or (pid is not None and proc.pid != pid) else proc.poll()

    def pids(self) -> dict[int, int]:
        """``{node id: process id}`` of the running brokers."""
        return {b: pid for b in self.node_ids if (pid := self.pid(b)) is not None}

    def is_running(self, broker_id: int) -> bool:
        return self.pid(broker_id) is not None

    def stop_broker(self, broker_id: int, hard: bool = True, timeout_s: float = 30) -> None:
        """Stop one broker: SIGKILL when ``hard``, else SIGTERM; waits for the exit.

        A SIGTERM'd broker that has not exited after ``timeout_s`` is killed.
        """
        self._check_id(broker_id)
        proc = self._procs.get(broker_id)
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            logger.warning(
                "[LocalCluster] Broker %d ignored SIGTERM for %.0f s; killing it", broker_id, timeout_s
            )
            proc.kill()
            proc.wait(timeout=timeout_s)
        logger.info("[LocalCluster] Stopped broker %d (%s)", broker_id, "SIGKILL" if hard else "SIGTERM")

    def start_broker(self, broker_id: int) -> None:
        """Restart a stopped broker with the same config and port; waits until registered.

        Raises:
            LocalClusterError: it exited or did not register within ``startup_timeout_s``.
        """
        self._check_id(broker_id)
        self._spawn(broker_id)
        if broker_id in self.broker_ids:
            self.wait_for_broker(broker_id)
        else:
            self._wait_listening(broker_id, time.monotonic() + self.startup_timeout_s)

    def wait_for_broker(self, broker_id: int, timeout_s: float | None = None) -> None:
        """Wait until ``broker_id`` answers Metadata listing itself and every other running
        broker lists it too (it registered and was unfenced).

        Raises:
            LocalClusterError: it exited or the timeout passed.
        """
        self._check_id(broker_id)
        deadline = time.monotonic() + (self.startup_timeout_s if timeout_s is None else timeout_s)
        self._wait_registered(broker_id, deadline)

    def _check_alive(self, node_id: int) -> None:
        """Raise ``LocalClusterError`` (see ``_check_exited``) when the node exited."""
        self._check_exited([node_id])

    def _check_exited(self, node_ids: Sequence[int]) -> None:
        """Raise ``LocalClusterError`` when one of ``node_ids`` (started by this cluster) exited.

        The node named is the one whose failure explains the others (see ``_root_failure``):
        ``<kind> <id> exited with code <code>: <its Error: line> (log: <path>)``, then log tails.
        """
        exited = [n for n in node_ids if (proc := self._procs.get(n)) is None or proc.poll() is not None]
        if not exited:
            return
        node_id = self._root_failure(exited, node_ids)
        proc = self._procs.get(node_id)
        code = None if proc is None else proc.poll()
        reason = self._last_error_line(node_id)
        raise LocalClusterError(
            f"{self.node_kind(node_id)} {node_id} exited with code {code}{': ' + reason if reason else ''} "
            f"(log: {self.log_path(node_id)})\n{self._log_tails(sorted(set(exited) | {node_id}))}"
        )

    def _root_failure(self, exited: list[int], watched: Sequence[int]) -> int:
        """Of the nodes that exited, the one to name: one that could not listen or use its log
        dir; else a node still starting whose port another process holds (another cluster's node
        there answers this cluster's nodes with its own ``cluster.id``, and they stop on that),
        once it exits too, within ``BIND_FAILURE_GRACE_S``; else the first that exited."""
        for node_id in exited:
            if self._last_error_line(node_id).startswith(START_UP_FAILURES):
                return node_id
        for node_id in watched:
            if node_id in exited or not self._port_held_by_another_process(node_id):
                continue
            proc = self._procs[node_id]
            try:
                proc.wait(timeout=BIND_FAILURE_GRACE_S)
            except subprocess.TimeoutExpired:
                continue
            if self._last_error_line(node_id).startswith(START_UP_FAILURES):
                return node_id
        return exited[0]

    def _port_held_by_another_process(self, node_id: int) -> bool:
        """True when something accepts connections on the node's port although the node has
        not logged, since it started, that it listens there."""
        try:
            socket.create_connection((self.hosts[node_id], self.ports[node_id]), timeout=0.5).close()
        except OSError:
            return False
        listening = f":{self.ports[node_id]} ("  # SocketServer's "Listening on HOST:PORT (codec)"
        return not any(
            "Listening on " in line and listening in line
            for line in self._log_since_start(node_id).splitlines()
        )

    def _wait_listening(self, node_id: int, deadline: float) -> None:
        """Wait until a controller-only node accepts connections."""
        while True:
            self._check_alive(node_id)
            try:
                socket.create_connection((self.hosts[node_id], self.ports[node_id]), timeout=1).close()
                return
            except OSError as exc:
                if time.monotonic() >= deadline:
                    raise LocalClusterError(
                        f"controller {node_id} not listening after {self.startup_timeout_s:.0f} s "
                        f"({exc})\n{self._log_tails([node_id])}"
                    ) from None
            time.sleep(0.05)

    def _wait_registered(self, broker_id: int, deadline: float, watched: Sequence[int] = ()) -> None:
        """Wait until ``broker_id`` is registered; ``watched`` (besides ``broker_id``) are nodes
        whose exit ends the wait with their error."""
        expected_self = {b for b in self.broker_ids if self.is_running(b)} | {broker_id}
        watched = sorted(set(watched) | ({broker_id} if broker_id not in self._adopted else set()))
        pause = 0.05
        last_problem = "no answer yet"
        while True:
            self._check_exited(watched)
            problem = self._registration_problem(
                broker_id, expected_self, lambda: self._check_exited(watched)
            )
            if problem is None:
                return
            last_problem = problem
            if time.monotonic() >= deadline:
                raise LocalClusterError(
                    f"broker {broker_id} not registered after {self.startup_timeout_s:.0f} s "
                    f"({last_problem})\n"
                    f"{self._log_tails(self.node_ids)}"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.5)

    def _unfenced_since_start(self, broker_id: int) -> bool:
        """True when this run of the broker logged that the controller unfenced it.

        A restarted broker answers Metadata from the metadata it replays at once, and the others
        still list its previous incarnation until the controller fences it: only the broker's
        own BrokerLifecycleManager knows that this incarnation registered and was unfenced.
        A broker adopted from ``from_data_dir``'s ``running`` was registered before.
        """
        return broker_id in self._adopted or UNFENCED_LOG_LINE.decode() in self._log_since_start(broker_id)

    def _log_since_start(self, node_id: int) -> str:
        """What the node logged since this cluster last started it ("" when there is no log)."""
        try:
            with open(self.log_path(node_id), "rb") as fh:
                fh.seek(self._log_starts.get(node_id, 0))
                return fh.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def _registration_problem(
        self, broker_id: int, expected: set[int], check_exits: Callable[[], None] = lambda: None
    ) -> str | None:
        if not self._unfenced_since_start(broker_id):
            return f"broker {broker_id} not yet registered and unfenced by the controller"
        for asked in sorted(b for b in expected if self.is_running(b)):
            check_exits()
            try:
                response = fetch_metadata(self.ports[asked], host=self.hosts[asked], security=self._security)
            except (OSError, ValueError, KafkaError) as exc:
                return f"broker {asked} does not answer Metadata: {exc}"
            listed = {b.node_id for b in response.brokers}
            wanted = expected if asked == broker_id else {broker_id}
            if not wanted <= listed:
                return f"broker {asked} lists brokers {sorted(listed)}, waiting for {sorted(wanted)}"
        return None

    def _last_error_line(self, broker_id: int) -> str:
        """The broker's last one-line ``Error: ...`` since this cluster last started it (how it
        reports a bad config or a busy port), without the prefix; empty when there is none."""
        text = self._log_since_start(broker_id)
        errors = [line[len("Error: ") :].strip() for line in text.splitlines() if line.startswith("Error: ")]
        return errors[-1] if errors else ""

    def _log_tails(self, broker_ids: list[int], lines: int = 20) -> str:
        out = []
        for broker_id in broker_ids:
            path = self.log_path(broker_id)
            try:
                tail = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            except OSError:
                tail = ["<no log>"]
            out.append(f"--- {path} (last {len(tail)} lines) ---\n" + "\n".join(tail))
        return "\n".join(out)

    def stop(self, timeout_s: float = 15) -> None:
        """Stop every broker this cluster started: SIGTERM, then SIGKILL after ``timeout_s``.

        Brokers that are not voters stop first (together), so that their controlled shutdown
        still finds a live controller; the voters last, together (one by one, the last ones
        would have no majority left to elect a controller for their controlled shutdown).
        """
        running = {b: p for b, p in self._procs.items() if p.poll() is None}
        followers = {b: p for b, p in running.items() if b not in self.voter_ids}
        last = {b: p for b, p in running.items() if b in self.voter_ids}
        for group in (followers, last):
            for proc in group.values():
                proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + timeout_s
            for broker_id, proc in group.items():
                try:
                    proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
                except subprocess.TimeoutExpired:
                    logger.warning(
                        "[LocalCluster] Broker %d did not stop after SIGTERM; killing it", broker_id
                    )
                    proc.kill()
                    proc.wait(timeout=10)


def _security_configs(node_dir: Path) -> dict[str, str]:
    """The client-facing security entries of ``<node_dir>/server.properties`` (the listener map,
    ``ssl.*``, ``sasl.*``, ``listener.name.*``): how a restarted cluster's launcher reaches its
    listener; empty when the file cannot be read."""
    try:
        on_disk = read_properties_file(str(node_dir / "server.properties"))
    except ValueError:
        return {}
    return {
        k: v
        for k, v in on_disk.items()
        if k == "listener.security.protocol.map" or k.startswith(("ssl.", "sasl.", "listener.name."))
    }
