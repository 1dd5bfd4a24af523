"""A progress line on stderr for the CLI's long work, shown only when stderr is a terminal.

Owns: ``progress_bar`` (a ``tqdm`` bar on stderr, disabled when stderr is not a
terminal, so pipes, files and CI logs get nothing) and ``input_size_bytes`` (the size
of a regular file on stdin, so that ``kafkette produce < file`` shows how far it is).
Used by ``kafkette produce``, ``kafkette consume --max-messages N`` and ``kafkette
perf``.  Does not own what is counted: each command calls ``update``.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import IO

from tqdm import tqdm

REFRESH_INTERVAL_S = 0.5  # at most two redraws a second: the bar must not cost throughput
DEFAULT_COLUMNS, DEFAULT_ROWS = 80, 24  # a terminal that reports no size (a fresh pseudo-terminal)


def progress_bar(description: str, *, total: int | None = None, unit: str = "records",
                 stream: IO[str] | None = None) -> tqdm:
    """A progress bar on ``stream`` (default stderr), a no-op unless it is a terminal.

    Args:
        description: what is counted, printed before the bar (e.g. ``"produce"``).
        total: the count at which the work is done (records, or bytes with
            ``unit="B"``); None shows a running count and rate without a bar.
        unit: ``"records"``, or ``"B"`` for bytes (scaled to KiB/MiB).
        stream: where to draw; default ``sys.stderr``.

    Returns:
        A ``tqdm`` to ``update(n)`` and ``close()`` (or use with ``with``); disabled,
        its calls cost next to nothing.
    """
    out = sys.stderr if stream is None else stream
    try:
        interactive = out.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream
        interactive = False
    try:
        sized = interactive and os.get_terminal_size(out.fileno()).columns > 0
    except (OSError, ValueError, AttributeError):
        sized = False
    return tqdm(desc=description, total=total, unit=unit, unit_scale=unit == "B", unit_divisor=1024,
                file=out, disable=not interactive, mininterval=REFRESH_INTERVAL_S, leave=True,
                dynamic_ncols=sized, ncols=None if sized else DEFAULT_COLUMNS,
                nrows=None if sized else DEFAULT_ROWS)


def input_size_bytes(stream: IO[bytes]) -> int | None:
    """The size of ``stream`` in bytes when it is a regular file, else None (a pipe, a terminal)."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None
