"""The quorum state a voter must not forget: its epoch, whom it voted for, whom it follows.

Owns: ``ElectionState``, ``MemoryQuorumStateStore`` (the simulation's: survives a
simulated crash) and ``FileQuorumStateStore`` (KRaft's ``quorum-state`` file: JSON
written to a temporary file, fsynced, renamed over the old one, the directory fsynced,
so a crash leaves the old state or the new one, never half).  The core writes the state
before it grants a vote or acts on a new epoch.

File format (JSON)::

    {"leaderId": 1, "leaderEpoch": 3, "votedId": -1, "data_version": 0}

Kafka concept: ``FileQuorumStateStore`` / ``ElectionState``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

QUORUM_STATE_FILE = "quorum-state"


@dataclass(frozen=True)
class ElectionState:
    """``epoch``; ``voted_id`` (-1 none) and ``leader_id`` (-1 unknown) in that epoch."""

    epoch: int = 0
    voted_id: int = -1
    leader_id: int = -1


class MemoryQuorumStateStore:
    """Keeps the last written state in memory (it is durable in the simulation)."""

    def __init__(self) -> None:
        self._state = ElectionState()
        self.writes = 0

    def read(self) -> ElectionState:
        return self._state

    def write(self, state: ElectionState) -> None:
        self._state = state
        self.writes += 1


class FileQuorumStateStore:
    """``<dir>/quorum-state``, replaced atomically and fsynced on every write.

    Args:
        directory: the metadata log's partition directory (created if missing).
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = Path(directory)
        self.path = self.dir / QUORUM_STATE_FILE

    def read(self) -> ElectionState:
        """The stored state, or the initial one when there is no file.

        Raises:
            ValueError: the file is not a quorum-state file (named in the message).
        """
        try:
            raw = json.loads(self.path.read_text())
            return ElectionState(int(raw["leaderEpoch"]), int(raw["votedId"]), int(raw["leaderId"]))
        except FileNotFoundError:
            return ElectionState()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{self.path} is not a quorum-state file: {exc}") from None

    def write(self, state: ElectionState) -> None:
        """Replace the file with ``state`` durably (temp file, fsync, rename, dir fsync).

        Raises:
            OSError: the directory is not writable (the state is unchanged on disk).
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        data = json.dumps({"leaderId": state.leader_id, "leaderEpoch": state.epoch, "votedId": state.voted_id,
                           "data_version": 0}).encode()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
