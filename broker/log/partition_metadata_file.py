"""The ``partition.metadata`` file of a partition's log dir: the topic id the log belongs to.

Owns the file's format (Kafka's ``version: 0`` / ``topic_id: <Uuid>`` lines) and its
durable write (temporary file, fsync, rename).  Does not own when the id is written or
checked (``LogManager`` and ``ReplicaManager``).

Kafka concept: ``PartitionMetadataFile`` (KIP-516): a log whose topic id differs from the
metadata's is another topic's log of the same name, never to be mixed with the new one.
"""

from __future__ import annotations

import logging
from pathlib import Path

from kafkette.broker.log.checkpoint import write_file_atomically

logger = logging.getLogger(__name__)

PARTITION_METADATA_FILE = "partition.metadata"
PARTITION_METADATA_VERSION = 0


def read_topic_id(log_dir: Path) -> str | None:
    """The topic id in ``log_dir``'s ``partition.metadata`` (blocking).

    Args:
        log_dir: a partition's directory (``<topic>-<partition>``).

    Returns:
        Kafka's Uuid string, or None when the file is missing or unreadable (a warning is
        logged for a malformed file).
    """
    path = log_dir / PARTITION_METADATA_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.warning("Cannot read %s: %s", path, exc)
        return None
    fields = dict(line.split(": ", 1) for line in lines if ": " in line)
    if fields.get("version") != str(PARTITION_METADATA_VERSION) or not fields.get("topic_id"):
        logger.warning("Ignoring malformed %s: %r", path, lines)
        return None
    return fields["topic_id"]


def write_topic_id(log_dir: Path, topic_id: str) -> None:
    """Write ``topic_id`` to ``log_dir``'s ``partition.metadata`` durably (blocking).

    Raises:
        OSError: the file cannot be written.
    """
    text = f"version: {PARTITION_METADATA_VERSION}\ntopic_id: {topic_id}\n"
    write_file_atomically(log_dir / PARTITION_METADATA_FILE, text.encode("utf-8"))
