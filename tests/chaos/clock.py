"""Wall-clock jumps of one node, with libfaketime: the node's ``time.time()`` moves, its
monotonic clock does not (as when an operator or NTP steps a host's clock).

Each node starts with ``LD_PRELOAD`` of libfaketime reading its offset from a file of its own
(``FAKETIME_TIMESTAMP_FILE``, re-read at every clock reading: with libfaketime's one-second
cache a broker missed a jump back after a jump ahead); ``jump`` writes an offset such as
``-300s``, ``reset`` writes ``+0``.  ``FAKETIME_DONT_FAKE_MONOTONIC`` leaves the monotonic
clock alone, so the event loop's timers (and the ISR's lag, session and request timeouts,
which run on it) keep real time, and what moves is what the broker reads as wall time: log
append times, segment and retention ages, producer state expiry, checkpoint times.
Kafka concept: none (Jepsen's ``clock`` nemesis bumps a node's clock the same way).

libfaketime is Debian's ``faketime`` package; ``find_libfaketime`` installs it as root
(``apt-get``) when missing and says what is missing otherwise.
"""

from __future__ import annotations

import glob
from pathlib import Path

from tests.chaos.node_dials import NodeDials
from tests.perf.peer_servers import Installer

LIBRARY_GLOB = "/usr/lib/*/faketime/libfaketimeMT.so.1"


def find_libfaketime() -> tuple[str | None, str | None]:
    """``(path of libfaketimeMT.so.1, None)``, installing Debian's faketime if needed, else
    ``(None, what is missing)``."""
    found = sorted(glob.glob(LIBRARY_GLOB))
    if found:
        return found[0], None
    _, problem = Installer(log=lambda line: None).ensure_binary("faketime", "faketime")
    found = sorted(glob.glob(LIBRARY_GLOB))
    if found:
        return found[0], None
    return None, problem or f"libfaketime not found at {LIBRARY_GLOB}"


class NodeClocks(NodeDials):
    """One offset file per node (``clock-<node id>``) and the environment that makes the node read it.

    Args:
        directory: where the offset files go.
        node_ids: the nodes.
        library: the path of libfaketimeMT.so.1.
    """

    def __init__(self, directory: Path, node_ids: list[int], library: str) -> None:
        super().__init__(directory, "clock", node_ids, "+0")
        self.library = library

    def env(self, node: int) -> dict[str, str]:
        """The environment variables for ``LocalCluster.node_env[node]``."""
        return {"LD_PRELOAD": self.library, "FAKETIME_TIMESTAMP_FILE": str(self.files[node]),
                "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}

    def jump(self, node: int, offset_s: int) -> None:
        """Set the node's wall clock ``offset_s`` seconds from the real one (from its next reading)."""
        self.turn(node, f"{offset_s:+d}s")

    def reset(self, node: int) -> None:
        """Put the node's wall clock back to the real one."""
        self.put_back(node)
