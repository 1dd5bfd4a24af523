"""The benchmark's figures as rows: ratios, targets, the one table and the JSON document.

Owns: the ``Row`` shape every measurement is reported in, the choice of the median run
among repeated runs, the ratio math (Kafkette / peer for the same workload and phase,
Kafkette / the machine's limit), the project's performance targets, the printed table and the result document
written under ``tests/perf/results/``.  Pure: no processes, sockets or files; ``bench.py`` runs the
measurements and hands their rows here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from tabulate import tabulate

KAFKETTE = "kafkette"
LOOPBACK = "loopback"  # system name of the raw asyncio+uvloop loopback limit row
RESULT_SCHEMA_VERSION = 2  # 2: throughput rows are the median of repeated runs


@dataclasses.dataclass
class Row:
    """One measured figure set.

    Attributes:
        workload: what was run, identical across systems (e.g. ``"100 B x 1,000,000, 1 node"``).
        system: ``"kafkette"``, a peer (``"nats-r1"``, ``"nats-r3"``, ``"redis"``) or a limit.
        phase: ``"produce"``, ``"consume"``, ``"end-to-end"``, ``"scale produce"``, ``"capacity"``,
            ``"limit"``.
        records_per_s, mb_per_s: throughput (MB = 2**20 bytes); None when not applicable.
        p50_ms, p99_ms, p999_ms: latency percentiles (ms); produce: send to acknowledgement.
        note: free text (settings, RSS, create time).
        extra: further figures for the JSON (e.g. ``{"rss_bytes": ...}``).
        vs_peer: Kafkette / this peer, records/s of the same workload and phase (peer rows);
            on the Kafkette rows of the default-settings workload, Kafkette / Redis instead.
        vs_limit: this row's MB/s / the loopback limit's MB/s (Kafkette rows).
        target: the project's performance target for this ratio, and whether it was met.
    """

    workload: str
    system: str
    phase: str
    records_per_s: float | None = None
    mb_per_s: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    note: str = ""
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    vs_peer: float | None = None
    vs_limit: float | None = None
    target: str = ""


# (workload prefix, peer system, phase) -> minimum Kafkette / peer ratio (the benchmark's targets).
PEER_TARGETS: dict[tuple[str, str, str], float] = {
    ("100 B", "nats-r1", "produce"): 3.0,
    ("100 B", "redis", "produce"): 2.0,
    ("100 B", "nats-r3", "produce"): 3.0,
    ("100 B", "nats-r1", "consume"): 3.0,
    ("100 B", "nats-r3", "consume"): 3.0,
    ("100 B", "redis", "consume"): 0.5,
}
# Kafkette 10 KiB produce on 1 node: at least this many MB/s and this share of the loopback limit.
LARGE_PRODUCE_MIN_MB_PER_S = 1000.0
LARGE_PRODUCE_MIN_SHARE_OF_LOOPBACK = 0.2
# The default-settings workload: Kafkette row phase -> (Redis phase it is compared with, minimum ratio).
DEFAULTS_WORKLOAD_SUFFIX = "default settings"
DEFAULTS_TARGETS: dict[str, tuple[str, float]] = {
    "produce": ("produce", 2.0),  # the SDK, ``await send()`` per record
    "perf produce": ("produce", 3.0),  # ``kafkette perf produce`` with its defaults
    "consume": ("consume", 1.0),  # ``async for`` one record at a time, against XRANGE
}
DEFAULTS_MAX_P50_MS = 20.0
# Scale: producer throughput at many partitions, as a share of the same producer at SCALE_BASE_PARTITIONS.
SCALE_BASE_PARTITIONS = 100
SCALE_MIN_SHARE = 0.9
END_TO_END_MAX_P99_MS = 20.0
BROKER_CAPACITY_MIN_RECORDS_PER_S = 1_000_000.0


def median_run(runs: Sequence[Row]) -> Row:
    """The median of repeated runs of one workload, system and phase, by records/s.

    The whole row of that one run is returned (its MB/s and p50/p99/p99.9 are that run's,
    never a mix of runs).  With an even number of runs it is the lower-middle run (the
    slower of the two middle ones), so the reported figure is one that was really
    measured; ties keep run order (the earlier run ranks lower).  A run without
    records/s ranks lowest.

    Args:
        runs: the rows of the runs that succeeded, in run order.

    Returns:
        The median run's row (not a copy).

    Raises:
        ValueError: no runs.
    """
    if not runs:
        raise ValueError("no runs to take the median of")
    ranked = sorted(runs, key=lambda r: (r.records_per_s is not None, r.records_per_s or 0.0))
    return ranked[(len(ranked) - 1) // 2]


def median_rows(runs: Sequence[Sequence[Row]], attempted: int) -> list[Row]:
    """One row per (workload, system, phase) out of repeated runs: each phase's ``median_run``.

    Produce and consume medians are chosen independently (the median produce run and the
    median consume run may be different runs).  Each returned row is a copy of its median
    run's row with ``extra["runs_records_per_s"]`` (records/s of every run that succeeded,
    in run order) and ``extra["runs_failed"]``; when more than one run was attempted its
    note ends with ``(median of N)``, and with ``K of M runs failed`` when some did.

    Args:
        runs: the rows of each run that succeeded, in run order (a failed run has no rows).
        attempted: how many runs were attempted, those that failed included.

    Returns:
        The median rows, in the order their (workload, system, phase) first appear; empty
        when no run succeeded.

    Raises:
        ValueError: ``attempted`` is smaller than the number of runs given.
    """
    if attempted < len(runs):
        raise ValueError(f"{len(runs)} runs given but only {attempted} attempted")
    failed = attempted - len(runs)
    by_key: dict[tuple[str, str, str], list[Row]] = {}
    for rows in runs:
        for row in rows:
            by_key.setdefault((row.workload, row.system, row.phase), []).append(row)
    medians = []
    for same in by_key.values():
        chosen = median_run(same)
        note = chosen.note
        if attempted > 1:
            summary = f"median of {len(same)}" + (f", {failed} of {attempted} runs failed" if failed else "")
            note = f"{note} ({summary})" if note else f"({summary})"
        extra = {**chosen.extra, "runs_records_per_s": [r.records_per_s for r in same], "runs_failed": failed}
        medians.append(dataclasses.replace(chosen, note=note, extra=extra))
    return medians


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``, or None when either is missing or the denominator is not positive."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def apply_ratios(rows: Sequence[Row]) -> list[Row]:
    """Fill ``vs_peer``, ``vs_limit`` and ``target`` in place (and return the rows).

    A peer row gets Kafkette's records/s of the same workload and phase divided by its
    own; a Kafkette produce/consume row gets its MB/s divided by the loopback limit's.
    A ratio whose figures are missing (a skipped system) stays None.
    """
    kafkette = {(r.workload, r.phase): r for r in rows if r.system == KAFKETTE}
    peers = {(r.workload, r.system, r.phase): r for r in rows if r.system != KAFKETTE}
    loopback = next((r.mb_per_s for r in rows if r.system == LOOPBACK), None)
    for row in rows:
        if row.system == KAFKETTE and row.workload.endswith(DEFAULTS_WORKLOAD_SUFFIX):
            _apply_defaults_target(row, peers)
        elif row.system == KAFKETTE and row.phase == "scale produce":
            _apply_scale_target(row, rows)
        elif row.system == KAFKETTE and row.phase in ("produce", "consume"):
            row.vs_limit = ratio(row.mb_per_s, loopback)
            large_on_one_node = row.workload.startswith("10 KiB") and row.workload.endswith("1 node")
            if row.phase == "produce" and large_on_one_node:
                ok = (row.mb_per_s or 0) >= LARGE_PRODUCE_MIN_MB_PER_S and (
                    row.vs_limit or 0
                ) >= LARGE_PRODUCE_MIN_SHARE_OF_LOOPBACK
                row.target = (
                    f">={LARGE_PRODUCE_MIN_MB_PER_S:,.0f} MB/s and "
                    f">={LARGE_PRODUCE_MIN_SHARE_OF_LOOPBACK:.0%} of loopback: {_met(ok)}"
                )
        elif row.system == KAFKETTE and row.phase == "capacity" and row.records_per_s is not None:
            ok = row.records_per_s >= BROKER_CAPACITY_MIN_RECORDS_PER_S
            row.target = f">={BROKER_CAPACITY_MIN_RECORDS_PER_S:,.0f} records/s: {_met(ok)}"
        elif row.system == KAFKETTE and row.phase == "end-to-end" and row.p99_ms is not None:
            row.target = f"p99 <{END_TO_END_MAX_P99_MS:.0f} ms: {_met(row.p99_ms < END_TO_END_MAX_P99_MS)}"
        elif (
            row.phase in ("produce", "consume")
            and row.system != KAFKETTE
            and not row.workload.endswith(DEFAULTS_WORKLOAD_SUFFIX)
        ):
            ours = kafkette.get((row.workload, row.phase))
            row.vs_peer = ratio(ours.records_per_s if ours else None, row.records_per_s)
            size = row.workload.split(" x ", 1)[0]
            minimum = PEER_TARGETS.get((size, row.system, row.phase))
            if minimum is not None and row.vs_peer is not None:
                row.target = f">={minimum:g}x: {_met(row.vs_peer >= minimum)}"
    return list(rows)


def _apply_defaults_target(row: Row, peers: dict[tuple[str, str, str], Row]) -> None:
    """A default-settings Kafkette row: its records/s over Redis's in the same workload (on
    the Kafkette row, since three Kafkette phases compare with two Redis ones), its target,
    and the produce latency target."""
    compared = DEFAULTS_TARGETS.get(row.phase)
    if compared is None:
        return
    peer_phase, minimum = compared
    peer = peers.get((row.workload, "redis", peer_phase))
    row.vs_peer = ratio(row.records_per_s, peer.records_per_s if peer else None)
    targets = []
    if row.vs_peer is not None:
        targets.append(f">={minimum:g}x redis {peer_phase}: {_met(row.vs_peer >= minimum)}")
    if row.phase == "produce" and row.p50_ms is not None:
        targets.append(f"p50 <{DEFAULTS_MAX_P50_MS:.0f} ms: {_met(row.p50_ms < DEFAULTS_MAX_P50_MS)}")
    row.target = "; ".join(targets)


def _apply_scale_target(row: Row, rows: Sequence[Row]) -> None:
    """A scale row above ``SCALE_BASE_PARTITIONS`` partitions: its records/s over the same
    producer's (``extra["scale_group"]``) at ``SCALE_BASE_PARTITIONS``."""
    partitions = row.extra.get("partitions")
    if partitions is None or partitions <= SCALE_BASE_PARTITIONS:
        return
    group = row.extra.get("scale_group")
    base = next(
        (
            r
            for r in rows
            if r.system == KAFKETTE
            and r.phase == "scale produce"
            and r.extra.get("scale_group") == group
            and r.extra.get("partitions") == SCALE_BASE_PARTITIONS
        ),
        None,
    )
    share = ratio(row.records_per_s, base.records_per_s if base else None)
    if share is not None:
        row.target = (
            f">={SCALE_MIN_SHARE:.0%} of {SCALE_BASE_PARTITIONS} partitions ({share:.0%}): "
            f"{_met(share >= SCALE_MIN_SHARE)}"
        )


def _number(value: float | None, digits: int = 0) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def _times(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


TABLE_HEADERS = [
    "workload",
    "system",
    "phase",
    "records/s",
    "MB/s",
    "p50 ms",
    "p99 ms",
    "p99.9 ms",
    "Kafkette/peer",
    "Kafkette/limit",
    "target",
    "note",
]


def format_table(rows: Iterable[Row], tablefmt: str = "github") -> str:
    """The one table ``make bench`` prints (GitHub markdown, pasteable into README.md)."""
    return tabulate(
        [
            [
                r.workload,
                r.system,
                r.phase,
                _number(r.records_per_s),
                _number(r.mb_per_s, 1),
                _number(r.p50_ms, 2),
                _number(r.p99_ms, 2),
                _number(r.p999_ms, 2),
                _times(r.vs_peer),
                "" if r.vs_limit is None else f"{r.vs_limit:.1%}",
                r.target,
                r.note,
            ]
            for r in rows
        ],
        headers=TABLE_HEADERS,
        tablefmt=tablefmt,
        disable_numparse=True,
    )


def result_document(
    rows: Sequence[Row],
    skipped: dict[str, str],
    *,
    date: str,
    machine: dict[str, Any],
    command: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The JSON written under ``tests/perf/results/`` so runs can be compared.

    Args:
        rows: every measured row, ratios applied.
        skipped: system -> exactly what was missing (or failed), for each skipped peer.
        date: ISO 8601 UTC time of the run.
        machine: cpus, python, platform, ...
        command: the exact command line.
        options: the harness's parsed options (records, sizes, subsets).

    Returns:
        ``{"schema_version", "date", "machine", "command", "options", "skipped", "results": [row, ...]}``.
    """
    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "date": date,
        "machine": machine,
        "command": command,
        "options": options,
        "skipped": dict(skipped),
        "results": [dataclasses.asdict(r) for r in rows],
    }
