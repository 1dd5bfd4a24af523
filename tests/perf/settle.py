"""A settled machine before every benchmark run: earlier runs' dirty page cache written back.

Owns: reading how much dirty data the kernel still has to write back (``Dirty`` +
``Writeback`` in ``/proc/meminfo``) and waiting, bounded, until it is small.  Does not
own what runs afterwards, nor dropping the page cache (reads stay warm; only pending
writes are drained).

Why: this VM (Firecracker, virtio-balloon with free page reporting) makes writes into
fresh page cache several times slower while earlier runs' dirty data is being written
back, so without settling, a run's figure depends on what ran before it.  ``bench.py``
calls ``settle_page_cache`` before every measured run, the same way for every system.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from pathlib import Path

MIB = 1024 * 1024
MEMINFO = Path("/proc/meminfo")
SETTLED_BELOW_BYTES = 64 * MIB
MAX_WAIT_S = 30.0
POLL_S = 0.2
_PENDING_FIELDS = ("Dirty", "Writeback")


def pending_writeback_bytes(meminfo: str) -> int:
    """Bytes the kernel still has to write back: ``Dirty`` + ``Writeback`` of ``/proc/meminfo`` text.

    Args:
        meminfo: the text of ``/proc/meminfo`` (lines ``Name:   <n> kB``).

    Returns:
        ``Dirty`` + ``Writeback`` in bytes (``WritebackTmp`` and other fields are not counted).

    Raises:
        ValueError: ``Dirty`` or ``Writeback`` is missing or not a number of kB.
    """
    found: dict[str, int] = {}
    for line in meminfo.splitlines():
        name, sep, value = line.partition(":")
        if not sep or name.strip() not in _PENDING_FIELDS:
            continue
        fields = value.split()
        if len(fields) != 2 or fields[1] != "kB" or not fields[0].isdigit():
            raise ValueError(f"unexpected /proc/meminfo line: {line.strip()!r}")
        found[name.strip()] = int(fields[0]) * 1024
    missing = [name for name in _PENDING_FIELDS if name not in found]
    if missing:
        raise ValueError(f"/proc/meminfo has no {' or '.join(missing)} line")
    return sum(found.values())


@dataclasses.dataclass(frozen=True)
class Settled:
    """How settling went.

    Attributes:
        settled: pending writeback fell below the threshold within the bound.
        pending_bytes: ``Dirty`` + ``Writeback`` at the last reading (bytes); None if unreadable.
        waited_s: time spent after ``os.sync()`` (seconds, from the injected clock).
    """

    settled: bool
    pending_bytes: int | None
    waited_s: float


def settle_page_cache(
    log: Callable[[str], None],
    *,
    below_bytes: int = SETTLED_BELOW_BYTES,
    max_wait_s: float = MAX_WAIT_S,
    poll_s: float = POLL_S,
    read_meminfo: Callable[[], str] = MEMINFO.read_text,
    sync: Callable[[], None] = os.sync,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Settled:
    """``os.sync()``, then poll until ``Dirty`` + ``Writeback`` is below ``below_bytes``, at most
    ``max_wait_s``.

    Never fails the benchmark: when the bound is hit, or ``/proc/meminfo`` cannot be read
    or parsed, it logs one line saying so and returns.

    Args:
        log: where the one line goes when the machine did not settle.
        below_bytes: settled when pending writeback is below this (bytes; default 64 MiB).
        max_wait_s: the bound on waiting after ``os.sync()`` (seconds; default 30).
        poll_s: time between readings (seconds; default 0.2).
        read_meminfo, sync, sleep, clock: the machine (``/proc/meminfo``, ``os.sync``,
            ``time.sleep``, ``time.monotonic``); tests pass fakes.

    Returns:
        Whether it settled, the last pending figure and the time waited.
    """
    sync()
    started = clock()
    while True:
        waited_s = clock() - started
        try:
            pending = pending_writeback_bytes(read_meminfo())
        except (OSError, ValueError) as exc:
            log(f"settle: cannot read pending writeback ({exc}); running unsettled")
            return Settled(False, None, waited_s)
        if pending < below_bytes:
            return Settled(True, pending, waited_s)
        if waited_s >= max_wait_s:
            log(
                f"settle: still {pending / MIB:,.0f} MiB dirty + writeback after {waited_s:.0f} s "
                f"(want < {below_bytes / MIB:,.0f} MiB); running anyway"
            )
            return Settled(False, pending, waited_s)
        sleep(min(poll_s, max_wait_s - waited_s))
