"""Offset checkpoint files: ``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint``
and ``replication-offset-checkpoint`` in each log dir.

Owns the text format and the atomic write (``write_file_atomically``, also used for
each partition's ``leader-epoch-checkpoint`` by ``kafkette.broker.log.leader_epoch_cache``).
Does not decide what is checkpointed or when (``LogManager``, ``UnifiedLog`` and the
ReplicaManager do).  All functions are synchronous and
block on disk: callers on the event loop run them in an executor.

Kafka concept: ``OffsetCheckpointFile`` / ``CheckpointFile``.
"""

from __future__ import annotations

from pathlib import Path

from kafkette.common.durable_files import fsync_dir, write_file_atomically
from kafkette.protocol.topic_partition import TopicPartition

__all__ = [
    "CHECKPOINT_VERSION",
    "CorruptCheckpointError",
    "OffsetCheckpointFile",
    "fsync_dir",
    "write_file_atomically",
]

CHECKPOINT_VERSION = 0


class CorruptCheckpointError(ValueError):
    """A checkpoint file exists but cannot be parsed; the message names the file."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"Malformed checkpoint file {path}: {reason}")
        self.path = path


class OffsetCheckpointFile:
    """A file mapping each partition to one offset, written atomically.

    Format (Kafka's, UTF-8 text)::

        0                       <- version
        2                       <- number of entries
        flights 0 1234          <- "<topic> <partition> <offset>"
        flights 1 99

    Args:
        path: the checkpoint file; its directory must exist.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def write(self, offsets: dict[TopicPartition, int]) -> None:
        """Atomically replace the file with ``offsets`` (temp file, fsync, rename, dir fsync).

        Args:
            offsets: ``{TopicPartition: offset}``; topic names never contain spaces.

        Raises:
            OSError: the file could not be written.
        """
        lines = [str(CHECKPOINT_VERSION), str(len(offsets))]
        for tp, offset in sorted(offsets.items()):
            if " " in tp.topic or "\n" in tp.topic:
                raise ValueError(f"topic name {tp.topic!r} cannot be checkpointed")
            lines.append(f"{tp.topic} {tp.partition} {int(offset)}")
        write_file_atomically(self.path, ("\n".join(lines) + "\n").encode("utf-8"))

    def read(self) -> dict[TopicPartition, int]:
        """Read the file.

        Returns:
            ``{TopicPartition: offset}``; ``{}`` when the file does not exist.

        Raises:
            CorruptCheckpointError: wrong version, wrong count, or a malformed line.
            OSError: the file exists but cannot be read.
        """
        try:
            text = self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError as exc:
            raise CorruptCheckpointError(self.path, f"not UTF-8 ({exc})") from None
        lines = text.splitlines()
        if len(lines) < 2:
            raise CorruptCheckpointError(self.path, "missing version or entry count")
        if lines[0].strip() != str(CHECKPOINT_VERSION):
            raise CorruptCheckpointError(self.path, f"unrecognised version {lines[0]!r}")
        try:
            expected = int(lines[1])
        except ValueError:
            raise CorruptCheckpointError(self.path, f"bad entry count {lines[1]!r}") from None
        entries = [line for line in lines[2:] if line.strip()]
        if len(entries) != expected:
            raise CorruptCheckpointError(self.path, f"expected {expected} entries, found {len(entries)}")
        offsets: dict[TopicPartition, int] = {}
        for line in entries:
            parts = line.split()
            if len(parts) != 3:
                raise CorruptCheckpointError(self.path, f"malformed line {line!r}")
            try:
                offsets[TopicPartition(parts[0], int(parts[1]))] = int(parts[2])
            except ValueError:
                raise CorruptCheckpointError(self.path, f"malformed line {line!r}") from None
        return offsets
