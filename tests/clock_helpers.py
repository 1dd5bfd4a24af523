"""Moving a MockTime in tests: advance the node's clock, then let what it woke run."""

from __future__ import annotations

import asyncio

from kafkette.common.clock import MockTime

SETTLE_ROUNDS = 10
SETTLE_ROUND_S = 0.01  # real time per round, for jobs that write in the default executor


async def advance(time: MockTime, ms: float) -> None:
    """``time.advance(ms)``, then a few short event-loop rounds so the woken jobs finish
    (including their file writes in executor threads)."""
    time.advance(ms)
    for _ in range(SETTLE_ROUNDS):
        await asyncio.sleep(SETTLE_ROUND_S)
