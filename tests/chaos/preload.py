"""Building the chaos harness's ``LD_PRELOAD`` libraries (``slow_fsync.c``, ``clock_offset.c``,
beside this file) with the machine's C compiler, installing Debian's ``gcc`` as root when
missing.  A library preloaded into a node's process (Kafkette's broker or Kafka's JVM alike)
reads a small file of that node's own (``tests/chaos/node_dials.NodeDials``).  Kafka concept:
none (test tooling, not part of Kafkette)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.perf.peer_servers import Installer

HERE = Path(__file__).parent


def build_preload(source: str, directory: Path) -> tuple[Path | None, str | None]:
    """Compile ``source`` (a file name beside this module, ``"clock_offset.c"``) into
    ``directory/<stem>.so``.

    Returns:
        ``(path of the shared library, None)``, else ``(None, what is missing or failed)``.
    """
    compiler, problem = Installer(log=lambda line: None).ensure_binary("gcc", "gcc")
    if compiler is None:
        return None, problem
    directory.mkdir(parents=True, exist_ok=True)
    path = HERE / source
    library = directory / f"{path.stem}.so"
    done = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(library), str(path), "-ldl"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        return None, f"gcc could not build {path.name}: {done.stderr.strip()[-500:]}"
    return library, None
