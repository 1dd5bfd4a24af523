"""One benchmark result as JSON under ``tests/perf/results/``, with the date, machine and command.

Owns: the file name (``<name>-<UTC timestamp>.json``) and the envelope
``{"date", "machine": {"cpus", "python", "platform"}, "command", "result"}`` shared by the
benchmarks that report one result (log recovery, controller failover).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def write_result(name: str, module: str, result: dict[str, Any]) -> Path:
    """Write ``result`` as ``tests/perf/results/<name>-<UTC timestamp>.json``.

    Args:
        name: the file's prefix (``recovery``, ``controller-failover``).
        module: the benchmark's module (``tests.perf.recovery_bench``), for the command line.
        result: the figures.

    Returns:
        The path written.

    Raises:
        OSError: the results directory is not writable.
    """
    now = datetime.datetime.now(datetime.UTC)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}-{now:%Y%m%dT%H%M%SZ}.json"
    out.write_text(
        json.dumps(
            {
                "date": now.isoformat(),
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "platform": platform.platform(),
                },
                "command": f"python -m {module} " + " ".join(sys.argv[1:]),
                "result": result,
            },
            indent=2,
        )
    )
    return out
