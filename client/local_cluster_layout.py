"""The on-disk layout of a local cluster's data directory, read back from its ``server.properties``.

Owns: finding the nodes of a data directory (``broker-<id>/`` and ``controller-<id>/``, each
with a ``server.properties``), reading from each file what a launcher needs to start the node
again as it was (``node.id``, ``process.roles``, the kafkette listener's host and port, the
``KAFKA`` listener's port, ``controller.quorum.voters``, ``cluster.id``), telling whether a port is taken, and
moving a node's listener to another port by editing its ``server.properties`` in place (the
``listeners`` and ``advertised.listeners`` entries of that port, and the node's entry of
``controller.quorum.voters`` in every node's file), keeping every other line as the user left
it.  Does not own starting nodes or writing new configurations (``LocalCluster``).

Kafka concept: a node's ``server.properties`` is its configuration across restarts; a broker
keeps its ``listeners`` (Kafka's ``KafkaConfig``), so a restarted local cluster keeps its ports.
"""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass
from pathlib import Path

import javaproperties

CONFIG_FILE = "server.properties"
KAFKA_LISTENER_NAME = "KAFKA"  # the listener LocalCluster gives a Kafka-protocol listener
WILDCARD_HOSTS = ("", "0.0.0.0", "::")


@dataclass(frozen=True)
class NodeLayout:
    """One node as its ``server.properties`` describes it.

    Attributes:
        node_id: ``node.id``.
        roles: ``process.roles`` (``broker``, ``controller`` or both).
        host: host of its first kafkette listener (``127.0.0.1`` for a wildcard bind).
        port: port of its first kafkette listener (clients' and brokers' own).
        kafka_port: port of its ``KAFKA`` listener (Apache Kafka's protocol), None without one.
        config_path: its ``server.properties``.
    """

    node_id: int
    roles: tuple[str, ...]
    host: str
    port: int
    kafka_port: int | None
    config_path: Path

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    @property
    def is_voter(self) -> bool:
        return "controller" in self.roles


@dataclass(frozen=True)
class ClusterLayout:
    """Every node of a data directory (``nodes`` by node id), the voters of the metadata quorum
    (``{node id: (host, port)}``) and ``cluster.id`` (None when unset), both from the first node's file."""

    nodes: dict[int, NodeLayout]
    voters: dict[int, tuple[str, int]]
    cluster_id: str | None = None

    @property
    def broker_ids(self) -> list[int]:
        return sorted(n for n, node in self.nodes.items() if node.is_broker)


def node_config_paths(data_dir: str | os.PathLike[str]) -> dict[int, Path]:
    """``{node id: path}`` of the ``server.properties`` under ``data_dir`` (``broker-<id>/``
    and ``controller-<id>/``); empty for a new or empty directory."""
    found: dict[int, Path] = {}
    root = Path(data_dir)
    for kind in ("broker", "controller"):
        for path in root.glob(f"{kind}-*/{CONFIG_FILE}"):
            suffix = path.parent.name[len(kind) + 1 :]
            if suffix.isdigit() and path.is_file():
                found[int(suffix)] = path
    return dict(sorted(found.items()))


def _load(path: Path) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8") as fh:
            return dict(javaproperties.load(fh))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None


def _split_address(text: str, what: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ValueError(f"{what} {text!r} has no port")
    return host.strip("[]"), int(port)


def _listeners(value: str, path: Path) -> list[tuple[str, str, int]]:
    """``[(name, host, port)]`` of a ``listeners`` value."""
    out = []
    for item in filter(None, (i.strip() for i in value.split(","))):
        name, sep, address = item.partition("://")
        if not sep:
            raise ValueError(f"listeners entry {item!r} of {path} is not NAME://HOST:PORT")
        out.append((name, *_split_address(address, f"listeners entry of {path}")))
    return out


def _voters(value: str, path: Path) -> dict[int, tuple[str, int]]:
    voters = {}
    for item in filter(None, (i.strip() for i in value.split(","))):
        node, at, address = item.partition("@")
        if not at or not node.isdigit():
            raise ValueError(f"controller.quorum.voters entry {item!r} of {path} is not ID@HOST:PORT")
        voters[int(node)] = _split_address(address, f"controller.quorum.voters entry of {path}")
    return voters


def _wire_protocols(value: str) -> dict[str, str]:
    """``{listener name: protocol}`` of ``listener.wire.protocol.map``, read as the broker reads it."""
    pairs = (item.split(":", 1) for item in value.split(",") if ":" in item)
    return {name.strip(): protocol.strip().lower() for name, protocol in pairs}


def read_node_layout(node_id: int, path: Path) -> NodeLayout:
    """What ``path`` (the ``server.properties`` of node ``node_id``) says of the node.

    Raises:
        ValueError: unreadable, another ``node.id``, or no listener (the message names the file).
    """
    props = _load(path)
    if props.get("node.id", str(node_id)).strip() != str(node_id):
        raise ValueError(f"{path} has node.id={props['node.id']}, not {node_id}")
    # the broker's default map, replaced whole when the file sets one (a listener not in it speaks kafkette)
    protocols = _wire_protocols(props.get("listener.wire.protocol.map", f"{KAFKA_LISTENER_NAME}:kafka"))
    listeners = _listeners(props.get("listeners", ""), path)
    own = [(h, p) for name, h, p in listeners if protocols.get(name, "kafkette") == "kafkette"]
    kafka = [p for name, _h, p in listeners if protocols.get(name, "kafkette") == "kafka"]
    if not own:
        raise ValueError(f"{path} has no kafkette listener in listeners")
    host, port = own[0]
    roles = tuple(r.strip() for r in props.get("process.roles", "broker").split(",") if r.strip())
    return NodeLayout(
        node_id,
        roles,
        "127.0.0.1" if host in WILDCARD_HOSTS else host,
        port,
        kafka[0] if kafka else None,
        path,
    )


def read_cluster_layout(data_dir: str | os.PathLike[str]) -> ClusterLayout | None:
    """The layout of ``data_dir``'s nodes, or None when it holds no ``server.properties``.

    Raises:
        ValueError: a file cannot be read or names no listener (the message names it).
    """
    paths = node_config_paths(data_dir)
    if not paths:
        return None
    nodes = {node_id: read_node_layout(node_id, path) for node_id, path in paths.items()}
    first = next(iter(paths.values()))
    props = _load(first)
    return ClusterLayout(
        nodes, _voters(props.get("controller.quorum.voters", ""), first), props.get("cluster.id")
    )


def port_is_taken(host: str, port: int) -> bool:
    """True when another socket holds ``host:port`` (a bind with ``SO_REUSEADDR``, as the broker's
    listener makes, fails with EADDRINUSE)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def _replace_port(value: str, old_port: int, new_port: int, sep: str) -> str:
    """``value`` (comma-separated ``PREFIX<sep>HOST:PORT`` entries) with ``old_port`` made ``new_port``."""
    out = []
    for item in value.split(","):
        head, colon, port = item.rpartition(":")
        out.append(f"{head}:{new_port}" if colon and sep in head and port.strip() == str(old_port) else item)
    return ",".join(out)


def move_listener_port(path: Path, old_port: int, new_port: int) -> None:
    """Edit ``path`` so that its ``listeners`` (and ``advertised.listeners``) entries on
    ``old_port`` use ``new_port``; every other line stays as it was.

    Raises:
        OSError: the file cannot be read or written.
    """
    _edit(
        path, {"listeners": ("://", old_port, new_port), "advertised.listeners": ("://", old_port, new_port)}
    )


def move_voter_port(path: Path, old_port: int, new_port: int) -> None:
    """Edit ``path``'s ``controller.quorum.voters`` entries on ``old_port`` to ``new_port``.

    Raises:
        OSError: the file cannot be read or written.
    """
    _edit(path, {"controller.quorum.voters": ("@", old_port, new_port)})


def set_properties(path: Path, entries: dict[str, str]) -> None:
    """Set ``entries`` in ``path`` (an entry already there keeps its place, a new one is appended).

    Raises:
        OSError: the file cannot be read or written.
    """
    with open(path, encoding="utf-8") as fh:
        props = javaproperties.PropertiesFile.load(fh)
    for key, value in entries.items():
        props[key] = value
    _write(path, props)


def _edit(path: Path, edits: dict[str, tuple[str, int, int]]) -> None:
    with open(path, encoding="utf-8") as fh:
        props = javaproperties.PropertiesFile.load(fh)
    for key, (sep, old_port, new_port) in edits.items():
        if key in props:
            props[key] = _replace_port(props[key], old_port, new_port, sep)
    _write(path, props)


def _write(path: Path, props: javaproperties.PropertiesFile) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        props.dump(fh)
    os.replace(tmp, path)
