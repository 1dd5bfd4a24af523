"""Warm runs of a comparison: which runs count, in which order the systems take turns, and
what a row reports.

Owns: the order of each round's runs (the systems taking turns, the first one changing every
round) and the summary of one system's figures for one phase: the warm-up runs discarded, the
median of the measured runs (the lower middle one for an even count, never an average), the
best, and every run listed.  Does not own starting servers or running anything
(``kafka_tools_bench``, ``python_clients_bench``).

Why: Apache Kafka's brokers are JVMs, which interpret and then compile their hot paths while
the first records go through (C1, then C2), so a broker's first run after its start is slower
than the next ones.  One run of Kafka's ProducerPerformance (2,000,000 records of 100 B, acks=1,
one node) against a freshly started Kafka gave Kafkette 2.60x Kafka's rate; the same run after
a warm-up run on the same broker, 1.01x.  A fair comparison starts each system's brokers once, discards
their first run, and measures the next ones, the systems taking turns.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
WARMUP_RUNS = 1


def round_order(items: Sequence[T], round_index: int) -> list[T]:
    """The order of round ``round_index``'s runs: ``items`` as given in even rounds (0, the
    warm-up, included), reversed in odd ones, so that no system always runs first after another.

    Args:
        items: the systems (or client and server pairs) of a round.
        round_index: 0 for the first round.

    Returns:
        A new list of ``items``.

    Raises:
        ValueError: ``round_index`` is negative.
    """
    if round_index < 0:
        raise ValueError(f"round_index must be >= 0, not {round_index}")
    return list(items) if round_index % 2 == 0 else list(reversed(items))


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """One system's figures for one phase (records/s, or whatever the runs measured).

    Attributes:
        median: the median of the measured runs (the lower middle one for an even count).
        best: the highest measured figure.
        measured: every measured figure, in run order (failed runs left out).
        warmup: the discarded warm-up figures, in run order (failed ones left out).
        failed: how many measured runs gave no figure.
    """

    median: float
    best: float
    measured: list[float]
    warmup: list[float]
    failed: int

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


def summarize(figures: Sequence[float | None], warmup_runs: int = WARMUP_RUNS) -> RunSummary | None:
    """Summarize one system's runs of one phase, the first ``warmup_runs`` discarded.

    Args:
        figures: each run's figure in run order, warm-up runs first; None for a run that failed
            or did not measure this phase.
        warmup_runs: how many of the first runs are warm-up runs (0 for runs on fresh servers).

    Returns:
        The summary, or None when no measured run gave a figure.

    Raises:
        ValueError: ``warmup_runs`` is negative.
    """
    if warmup_runs < 0:
        raise ValueError(f"warmup_runs must be >= 0, not {warmup_runs}")
    warmup = [f for f in figures[:warmup_runs] if f is not None]
    rest = figures[warmup_runs:]
    measured = [f for f in rest if f is not None]
    if not measured:
        return None
    return RunSummary(
        median=statistics.median_low(measured),
        best=max(measured),
        measured=measured,
        warmup=warmup,
        failed=len(rest) - len(measured),
    )


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """``ours / theirs`` (Kafkette's figure over Kafka's), or None when either is missing or zero."""
    return ours / theirs if ours and theirs else None
