"""Where a node's own log lines go: stderr, ``server.log`` and ``state-change.log`` in its logs
folder.

Owns: choosing the logs folder (``kafka_logs_dir``: Kafka's ``kafka.logs.dir``, which its
``kafka-run-class.sh`` takes from ``$LOG_DIR``) and ``configure_logging`` (INFO and above to
stderr, as Kafka's console appender, and to ``server.log``, as its ``kafkaAppender``; the
controller's partition and replica state transitions, ``state.change.logger``, also to
``state-change.log``, as its ``stateChangeAppender``).  The folder is, first to last: the
``--log-dir`` flag, ``$LOG_DIR``, else a ``logs`` folder beside the first of ``log.dirs``
(``/var/lib/kafka/data`` -> ``/var/lib/kafka/logs``), or the folder holding it when that is
itself named ``logs`` (the ``kafkette cluster`` layout: ``broker-1/logs`` holds the data,
``broker-1`` the log files): never the working directory, never inside a log dir (whose
folders are partitions).  Does not own the partitions' logs (``log.dirs``,
``kafkette.broker.log``).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

SERVER_LOG_FILE = "server.log"
STATE_CHANGE_LOG_FILE = "state-change.log"
LOG_DIR_ENV = "LOG_DIR"
LOGS_FOLDER = "logs"


def kafka_logs_dir(
    log_dirs: Sequence[str], log_dir: str | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The folder of a node's ``server.log`` and ``state-change.log`` (Kafka's ``kafka.logs.dir``).

    Args:
        log_dirs: the node's ``log.dirs`` (its partitions' data), at least one.
        log_dir: the ``--log-dir`` flag, None when not given.
        environ: the environment (default ``os.environ``), read for ``$LOG_DIR``.

    Returns:
        ``log_dir``, else ``$LOG_DIR``, else ``logs`` beside the first log dir (the folder
        holding the first log dir when that one is itself named ``logs``); an absolute path.

    Raises:
        ValueError: ``log_dirs`` is empty.
    """
    env = os.environ if environ is None else environ
    if log_dir:
        return Path(log_dir).absolute()
    if env.get(LOG_DIR_ENV):
        return Path(env[LOG_DIR_ENV]).absolute()
    if not log_dirs:
        raise ValueError("log.dirs names no directory")
    first = Path(log_dirs[0]).absolute()
    beside = first.parent / LOGS_FOLDER
    return first.parent if beside == first else beside


def configure_logging(node_id: int | str, logs_dir: Path) -> None:
    """Log at INFO to stderr and to ``logs_dir/server.log``, and the controller's state
    transitions (``state.change.logger``) also to ``logs_dir/state-change.log``.

    Replaces any handler the process had on its root logger (the ``kafkette`` console
    script sets up its tools' WARN handler before it knows the command is ``broker start``).

    Args:
        node_id: the node's ``node.id``, in every line.
        logs_dir: the folder (made when missing), see ``kafka_logs_dir``.

    Raises:
        OSError: the folder cannot be made or a log file cannot be opened.
    """
    fmt = f"%(asctime)s %(levelname)s [node {node_id}] %(name)s: %(message)s"
    logs_dir.mkdir(parents=True, exist_ok=True)
    server_log = logging.FileHandler(logs_dir / SERVER_LOG_FILE, encoding="utf-8")
    server_log.setFormatter(logging.Formatter(fmt))
    logging.basicConfig(
        level=logging.INFO, format=fmt, handlers=[logging.StreamHandler(sys.stderr), server_log], force=True
    )
    state_change = logging.getLogger("state.change.logger")
    for handler in list(state_change.handlers):
        state_change.removeHandler(handler)
        handler.close()
    handler = logging.FileHandler(logs_dir / STATE_CHANGE_LOG_FILE, encoding="utf-8")
    handler.setFormatter(logging.Formatter(fmt))
    state_change.addHandler(handler)
