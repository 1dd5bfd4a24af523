"""Wall-clock jumps of one node: the node's wall clock moves, its monotonic clock does not (as
when an operator or NTP steps a host's clock).

``clock_offset.c`` (beside this file) is an ``LD_PRELOAD`` library that adds the seconds
written in a file of the node's own to every wall-clock reading (``clock_gettime`` of
``CLOCK_REALTIME``, ``gettimeofday``, ``time``), re-reading the file at most every 10 ms;
``build_library`` compiles it (``tests/chaos/preload.py``).  ``NodeClocks.jump`` writes an
offset such as ``-300``, ``reset`` writes ``+0``.  The monotonic clock keeps real time, so
timers keep it too (the event loop's in Kafkette, ``System.nanoTime`` in Kafka's JVM: the
ISR's lag, session and request timeouts), and what moves is what the node reads as wall time
(``time.time()``, ``System.currentTimeMillis``): log append times, segment and retention ages,
producer state expiry, checkpoint times.  The same library runs in Kafkette's brokers and in
Kafka's JVMs (libfaketime, which wraps every clock and timed wait, slowed a Kafka node's start
eightfold here).  Kafka concept: none (Jepsen's ``clock`` nemesis bumps a node's clock the
same way).
"""

from __future__ import annotations

from pathlib import Path

from tests.chaos.node_dials import NodeDials
from tests.chaos.preload import build_preload


def build_library(directory: Path) -> tuple[Path | None, str | None]:
    """``(path of the built clock_offset.so, None)``, else ``(None, what is missing)``."""
    return build_preload("clock_offset.c", directory)


class NodeClocks(NodeDials):
    """One offset file per node (``clock-<node id>``, seconds) and the environment that makes
    the node read it.

    Args:
        directory: where the offset files go.
        node_ids: the nodes.
        library: the built ``clock_offset.so``.
    """

    def __init__(self, directory: Path, node_ids: list[int], library: Path) -> None:
        super().__init__(directory, "clock", node_ids, "+0")
        self.library = library

    def env(self, node: int) -> dict[str, str]:
        """The environment variables for the node's process (``LocalCluster.node_env[node]``,
        ``KafkaPeerCluster.node_env[node]``)."""
        return {"LD_PRELOAD": str(self.library), "KAFKETTE_CLOCK_OFFSET_FILE": str(self.files[node])}

    def jump(self, node: int, offset_s: int) -> None:
        """Set the node's wall clock ``offset_s`` seconds from the real one (within 10 ms)."""
        self.turn(node, f"{offset_s:+d}")

    def reset(self, node: int) -> None:
        """Put the node's wall clock back to the real one."""
        self.put_back(node)
