"""How busy the machine is around a benchmark: the load average, and a bounded wait for a quiet machine.

Owns: reading ``/proc/loadavg`` (the 1-, 5- and 15-minute load averages) and waiting, bounded,
until the 1-minute load average is below a threshold, so that a benchmark's figures are taken
while nothing else runs (on a shared 2-core machine another process's work lowers every figure,
and lowers them unevenly between systems measured minutes apart).  Does not own what runs
afterwards, nor settling the page cache (``settle``).

The benchmarks record the load before and after each measured run in their JSON, so that a
figure taken on a busy machine can be told from one taken on a quiet one.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

LOADAVG = Path("/proc/loadavg")
QUIET_BELOW = 1.0
POLL_S = 60.0


def parse_load_average(text: str) -> dict[str, float]:
    """The three load averages of ``/proc/loadavg`` text.

    Args:
        text: the file's text (``"0.65 0.58 1.33 6/119 2217"``).

    Returns:
        ``{"1m": ..., "5m": ..., "15m": ...}`` (runnable and uninterruptible tasks, averaged).

    Raises:
        ValueError: fewer than three numbers at the start of the text.
    """
    fields = text.split()[:3]
    try:
        one, five, fifteen = (float(field) for field in fields)
    except ValueError:
        raise ValueError(f"unexpected /proc/loadavg text: {text.strip()[:80]!r}") from None
    return {"1m": one, "5m": five, "15m": fifteen}


def load_average(read: Callable[[], str] = LOADAVG.read_text) -> dict[str, float] | None:
    """The machine's load averages now (``parse_load_average``), or None when ``/proc/loadavg``
    cannot be read or parsed (a benchmark records None rather than failing)."""
    try:
        return parse_load_average(read())
    except (OSError, ValueError):
        return None


@dataclasses.dataclass(frozen=True)
class Quiet:
    """How waiting for a quiet machine went.

    Attributes:
        quiet: the 1-minute load average fell below the threshold within the bound.
        load: the last reading (``parse_load_average``); None if unreadable.
        waited_s: seconds spent waiting (from the injected clock).
    """

    quiet: bool
    load: dict[str, float] | None
    waited_s: float


def wait_until_quiet(
    log: Callable[[str], None],
    *,
    below: float = QUIET_BELOW,
    max_wait_s: float = 0.0,
    poll_s: float = POLL_S,
    read: Callable[[], str] = LOADAVG.read_text,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Quiet:
    """Poll the 1-minute load average every ``poll_s`` until it is below ``below``, at most ``max_wait_s``.

    Never fails the benchmark: when the bound is hit, or ``/proc/loadavg`` cannot be read, it logs
    one line saying so and returns (the benchmark then measures on a busy machine, and says so).

    Args:
        log: where progress lines go (one per reading that was not quiet, one when giving up).
        below: quiet when the 1-minute load average is below this (default 1.0).
        max_wait_s: the bound on waiting (seconds; 0 reads once and never waits).
        poll_s: time between readings (seconds; default 60).
        read, sleep, clock: the machine (``/proc/loadavg``, ``time.sleep``, ``time.monotonic``);
            tests pass fakes.

    Returns:
        Whether the machine was quiet, the last reading and the time waited.
    """
    started = clock()
    while True:
        waited_s = clock() - started
        load = load_average(read)
        if load is None:
            log("load: cannot read /proc/loadavg; measuring without knowing the load")
            return Quiet(False, None, waited_s)
        if load["1m"] < below:
            return Quiet(True, load, waited_s)
        if waited_s >= max_wait_s:
            if max_wait_s > 0:
                log(
                    f"load: 1-minute load average still {load['1m']:.2f} after {waited_s:.0f} s "
                    f"(want < {below:.2f}); measuring on a busy machine"
                )
            return Quiet(False, load, waited_s)
        log(
            f"load: 1-minute load average {load['1m']:.2f} (want < {below:.2f}); waiting "
            f"({waited_s:.0f} of {max_wait_s:.0f} s)"
        )
        sleep(min(poll_s, max_wait_s - waited_s))


def add_quiet_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--wait-quiet-s`` (s, default 0: do not wait) and ``--quiet-below`` (a 1-minute load
    average, default ``QUIET_BELOW``), the arguments of ``wait_until_quiet``, to a benchmark's parser."""
    parser.add_argument(
        "--wait-quiet-s",
        type=float,
        default=0.0,
        help="wait up to this long (s) before measuring for a quiet machine (default 0)",
    )
    parser.add_argument(
        "--quiet-below",
        type=float,
        default=QUIET_BELOW,
        help="quiet: the 1-minute load average below this (default 1.0)",
    )
