"""NodeDials: one small file per node that a library preloaded into the node re-reads, turned by
the nemesis (a clock offset, an fsync delay) and put back to its neutral value when healed."""

from __future__ import annotations

from pathlib import Path


class NodeDials:
    """``<directory>/<name>-<node id>`` per node, each holding ``neutral`` until ``turn``ed.

    Args:
        directory: where the files go (created).
        name: the files' name before the node id.
        node_ids: the nodes.
        neutral: the text that means "no fault".
    """

    def __init__(self, directory: Path, name: str, node_ids: list[int], neutral: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.files = {n: directory / f"{name}-{n}" for n in node_ids}
        self.neutral = neutral
        self.turned: dict[int, str] = {}  # node -> the text written, while not neutral
        for node in node_ids:
            self.put_back(node)

    def turn(self, node: int, text: str) -> None:
        """Write ``text`` to the node's file (the library reads it at its next call)."""
        self.files[node].write_text(text + "\n")
        self.turned[node] = text

    def put_back(self, node: int) -> None:
        """Write the neutral value to the node's file."""
        self.files[node].write_text(self.neutral + "\n")
        self.turned.pop(node, None)
