"""``meta.properties``: which node and cluster a log directory belongs to.

Owns: making a ``log.dirs`` entry (or saying why it cannot be one), writing the file in a new
log directory and refusing one written for another ``node.id`` or ``cluster.id``.  Used by the broker's
LogManager for every ``log.dirs`` entry and by a controller-only node for its metadata log directory (below
both, so that neither imports the other).

Kafka concept: ``MetaProperties`` / ``MetaPropertiesEnsemble`` (``version=1`` with
``node.id`` and ``cluster.id``, as ``kafka-storage format`` writes it).
"""

from __future__ import annotations

import base64
import os
import uuid
from pathlib import Path

import javaproperties

from kafkette.common.config_def import ConfigError
from kafkette.common.durable_files import write_file_atomically

META_PROPERTIES_FILE = "meta.properties"


def random_cluster_id() -> str:
    """A new cluster id as Kafka's ``Uuid.randomUuid().toString()`` writes one (``kafka-storage
    random-uuid``): 22 URL-safe base64 characters, never starting with ``-`` (a command line
    would read it as an option)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def create_log_dir(log_dir: Path) -> None:
    """Blocking: make the ``log.dirs`` entry ``log_dir`` (and its parents) unless it exists, as
    Kafka's ``LogManager.createAndValidateLogDirs`` does.

    Raises:
        OSError: it cannot be made or is not a directory; the message names the ``log.dirs``
            entry and why (``log.dirs entry D is a file, not a directory``), ``errno`` kept.
    """
    if log_dir.is_dir():
        return
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        return
    except OSError as exc:
        failure = exc
    if log_dir.exists() and not log_dir.is_dir():
        error = OSError(f"log.dirs entry {log_dir} is a file, not a directory")
    else:  # a parent is a file, no permission, a read-only file system, ...
        reason = os.strerror(failure.errno) if failure.errno else str(failure)
        error = OSError(f"log.dirs entry {log_dir} cannot be created: {reason[:1].lower()}{reason[1:]}")
    error.errno = failure.errno
    raise error from failure


def read_cluster_id(log_dir: Path) -> str | None:
    """The ``cluster.id`` of ``<log_dir>/meta.properties``, None when there is none.

    Raises:
        OSError: the file exists but cannot be read.
    """
    path = log_dir / META_PROPERTIES_FILE
    if not path.exists():
        return None
    with open(path, encoding="utf-8") as fh:
        return javaproperties.load(fh).get("cluster.id")


def ensure_meta_properties(log_dir: Path, node_id: int, cluster_id: str | None) -> None:
    """Blocking: write ``<log_dir>/meta.properties`` if missing, else check it names this node.

    Args:
        log_dir: an existing log directory.
        node_id: this node's ``node.id``.
        cluster_id: this node's ``cluster.id``.

    Raises:
        ConfigError: the file names another ``node.id`` or ``cluster.id`` (the message names
            the property and the file).
        OSError: the file cannot be read or written.
    """
    path = log_dir / META_PROPERTIES_FILE
    node, cluster = str(node_id), str(cluster_id)
    if not path.exists():
        text = javaproperties.dumps({"version": "1", "node.id": node, "cluster.id": cluster}, timestamp=False)
        write_file_atomically(path, text.encode("utf-8"))
        return
    with open(path, encoding="utf-8") as fh:
        props = javaproperties.load(fh)
    if props.get("node.id", node) != node:
        raise ConfigError(
            f"Invalid value {node} for configuration node.id: log dir {log_dir} belongs to node "
            f"{props.get('node.id')} (see {path})"
        )
    if props.get("cluster.id", cluster) != cluster:
        raise ConfigError(
            f"Invalid value {cluster} for configuration cluster.id: log dir {log_dir} belongs to cluster "
            f"{props.get('cluster.id')} (see {path})"
        )
