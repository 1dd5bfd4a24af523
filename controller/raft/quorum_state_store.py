"""The quorum state a voter must not forget: its epoch, whom it voted for, whom it follows.

Owns: ``ElectionState``, the ``QuorumStateStore`` protocol, ``MemoryQuorumStateStore``
(the simulation's: it survives a simulated crash) and ``FileQuorumStateStore`` (KRaft's
``quorum-state`` file: JSON written to ``quorum-state.tmp``, fsynced, renamed over the
old file, and the directory fsynced, so a crash leaves the old state or the new one,
never half of one).  The core writes the state before it grants a vote, asks for votes
or acts on a new epoch.  Does not own deciding what the state is (``QuorumState``).

File format (KRaft's ``QuorumStateData`` version 0, JSON on one line)::

    {"clusterId": "", "leaderId": 1, "leaderEpoch": 3, "votedId": -1, "appliedOffset": 0,
     "currentVoters": [{"voterId": 1}, {"voterId": 2}, {"voterId": 3}], "data_version": 0}

``leaderId`` and ``votedId`` are -1 when unknown / not voted; ``currentVoters`` is null
when the store was not told the voters; ``clusterId`` and ``appliedOffset`` are written
as KRaft writes them (empty, 0) and not read.

Kafka concept: ``FileQuorumStateStore`` / ``ElectionState`` / ``QuorumStateStore``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

QUORUM_STATE_FILE = "quorum-state"
DATA_VERSION = 0


@dataclass(frozen=True)
class ElectionState:
    """``epoch``; ``voted_id`` (-1 none) and ``leader_id`` (-1 unknown) in that epoch."""

    epoch: int = 0
    voted_id: int = -1
    leader_id: int = -1


class QuorumStateStore(Protocol):
    """Where a voter's ``ElectionState`` is kept; ``write`` returns once it is durable."""

    def read(self) -> ElectionState:
        """The last state written, or ``ElectionState()`` when none was."""

    def write(self, state: ElectionState) -> None:
        """Replace the stored state durably."""


class MemoryQuorumStateStore:
    """Keeps the last written state in memory (it is durable in the simulation).

    ``writes`` counts the writes; ``fail_writes`` set to True makes ``write`` raise
    ``OSError`` (a disk that refuses the write) without changing the state.
    """

    def __init__(self) -> None:
        self._state = ElectionState()
        self.writes = 0
        self.fail_writes = False

    def read(self) -> ElectionState:
        return self._state

    def write(self, state: ElectionState) -> None:
        """Keep ``state``.

        Raises:
            OSError: ``fail_writes`` is set.
        """
        if self.fail_writes:
            raise OSError("quorum-state write refused")
        self._state = state
        self.writes += 1


class FileQuorumStateStore:
    """``<directory>/quorum-state``, replaced atomically and fsynced on every write.

    Args:
        directory: the metadata log's partition directory (created on the first write).
        voters: written as ``currentVoters``; None writes null.
    """

    def __init__(self, directory: str | os.PathLike[str], voters: Iterable[int] | None = None) -> None:
        self.dir = Path(directory)
        self.path = self.dir / QUORUM_STATE_FILE
        self._voters = None if voters is None else sorted(voters)

    def read(self) -> ElectionState:
        """The stored state, or the initial one when there is no file.

        A ``quorum-state.tmp`` left by a crash during a write is ignored: the rename had not
        happened, so the file holds the previous state.

        Raises:
            ValueError: the file is not a quorum-state file (its path named in the message).
        """
        try:
            raw = json.loads(self.path.read_text())
            if raw.get("data_version", DATA_VERSION) != DATA_VERSION:
                raise ValueError(f"data_version {raw['data_version']} is not {DATA_VERSION}")
            state = ElectionState(int(raw["leaderEpoch"]), int(raw["votedId"]), int(raw["leaderId"]))
        except FileNotFoundError:
            return ElectionState()
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{self.path} is not a quorum-state file: {exc}") from None
        if state.epoch < 0:
            raise ValueError(f"{self.path} is not a quorum-state file: leaderEpoch {state.epoch}")
        return state

    def stored_voters(self) -> list[int] | None:
        """The voters the file was written with (``currentVoters``), None when it has none.

        Raises:
            ValueError: the file is not a quorum-state file.
        """
        try:
            raw = json.loads(self.path.read_text())
            voters = raw.get("currentVoters")
            return None if voters is None else sorted(int(v["voterId"]) for v in voters)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{self.path} is not a quorum-state file: {exc}") from None

    def write(self, state: ElectionState) -> None:
        """Replace the file with ``state`` durably (temp file, fsync, rename, directory fsync).

        Raises:
            OSError: the directory is not writable (the file on disk is unchanged; the
                temporary file is removed).
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(QUORUM_STATE_FILE + ".tmp")
        voters = None if self._voters is None else [{"voterId": v} for v in self._voters]
        data = json.dumps(
            {
                "clusterId": "",
                "leaderId": state.leader_id,
                "leaderEpoch": state.epoch,
                "votedId": state.voted_id,
                "appliedOffset": 0,
                "currentVoters": voters,
                "data_version": DATA_VERSION,
            }
        ).encode()
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class DeferredQuorumStateStore:
    """A ``FileQuorumStateStore`` whose writes the driver makes durable off its event loop.

    ``write`` keeps the state at once (what ``read`` answers) and counts a version; the driver
    takes ``staged``, runs ``store.write`` on a worker thread and then ``mark_durable``, and sends
    nothing the core produced after a write until that write is durable, so a vote is granted
    (and an epoch acted on) only once it would survive a crash, as Kafka's ``QuorumState``
    writes the quorum-state file before it answers.

    Args:
        store: the file store (its ``read`` gives the starting state).

    Raises:
        ValueError: the file is not a quorum-state file.
    """

    def __init__(self, store: FileQuorumStateStore) -> None:
        self.store = store
        self._state = store.read()
        self.version = 0  # writes so far
        self.durable_version = 0  # the newest write known durable

    def read(self) -> ElectionState:
        return self._state

    def write(self, state: ElectionState) -> None:
        """Keep ``state``; it is durable once the driver's ``store.write`` of it returns."""
        self._state = state
        self.version += 1

    @property
    def pending(self) -> bool:
        """True while the newest state written is not yet durable."""
        return self.durable_version < self.version

    def staged(self) -> tuple[int, ElectionState]:
        """The newest state written and its version (for the driver to write durably)."""
        return self.version, self._state

    def mark_durable(self, version: int) -> None:
        """The state of ``version`` (and every older one) is durable."""
        self.durable_version = max(self.durable_version, version)
