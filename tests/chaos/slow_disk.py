"""A slow disk for one node: its fsync and fdatasync calls wait before they run.

``slow_fsync.c`` (beside this file) is an ``LD_PRELOAD`` library that makes ``fsync(2)`` and
``fdatasync(2)`` wait the milliseconds written in a file of the node's own, re-read at every
call; ``build_library`` compiles it (``tests/chaos/preload.py``) into a directory of the run.
``SlowDisks.slow`` writes a delay, ``restore`` writes 0.  What waits is what the node makes durable: the
metadata quorum's log (KRaft flushes it before acknowledging), checkpoints, segment rolls and flushes.  Kafka
concept: none (Jepsen's ``lazyfs`` and Trogdor's ``DegradedNetworkFaultSpec`` degrade I/O the
same way, from outside the process).
"""

from __future__ import annotations

from pathlib import Path

from tests.chaos.node_dials import NodeDials
from tests.chaos.preload import build_preload


def build_library(directory: Path) -> tuple[Path | None, str | None]:
    """``(path of the built slow_fsync.so, None)``, else ``(None, what is missing)``."""
    return build_preload("slow_fsync.c", directory)


class SlowDisks(NodeDials):
    """One delay file per node (``fsync-delay-<node id>``, ms) and the environment that makes the
    node read it.

    Args:
        directory: where the delay files go.
        node_ids: the nodes.
        library: the built ``slow_fsync.so``.
    """

    def __init__(self, directory: Path, node_ids: list[int], library: Path) -> None:
        super().__init__(directory, "fsync-delay", node_ids, "0")
        self.library = library

    def env(self, node: int, witness: Path | None = None) -> dict[str, str]:
        """The environment variables for ``LocalCluster.node_env[node]``; with ``witness``, each
        fsync that succeeded appends the path of its file there."""
        env = {"LD_PRELOAD": str(self.library), "KAFKETTE_FSYNC_DELAY_FILE": str(self.files[node])}
        if witness is not None:
            env["KAFKETTE_FSYNC_LOG"] = str(witness)
        return env

    def slow(self, node: int, delay_ms: int) -> None:
        """Make every fsync of ``node`` wait ``delay_ms`` ms from its next call."""
        self.turn(node, str(delay_ms))

    def restore(self, node: int) -> None:
        """fsync at the disk's own speed again."""
        self.put_back(node)
