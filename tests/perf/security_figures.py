"""The pure side of the security benchmark (``tests.perf.security_bench``): the ACLs it loads,
the summaries of its timings and its Markdown table.  No I/O.

Owns: ``bench_acls`` (the mixed LITERAL / PREFIXED topic ACLs of other users, the same set for
the in-process and the end-to-end measure), ``latency_summary`` (median and p99 of a list of
timings), ``throughput`` (records/s and MB/s of a timed run), ``median_run`` (the run of median
produce rate of several) and ``markdown_rows`` (the README table).

Kafka concept: ``AclBinding`` (the ACLs), and the figures ``kafka-producer-perf-test`` prints
(records/sec, MB/sec, percentiles).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from kafkette.common.security.acl import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)

MB = 1024 * 1024
BENCH_USER = "bench"
BENCH_TOPIC = "app-7-orders"  # the topic the measured caller reads: under the PREFIXED "app-7-"
BENCH_PREFIX = "app-7-"


def caller_acl() -> AclBinding:
    """The measured caller's own ACL: ALLOW ``User:bench`` READ on topics PREFIXED ``app-7-``
    (READ implies DESCRIBE, which Metadata asks)."""
    return AclBinding(
        ResourcePattern(ResourceType.TOPIC, BENCH_PREFIX, PatternType.PREFIXED),
        AccessControlEntry(f"User:{BENCH_USER}", "*", AclOperation.READ, AclPermissionType.ALLOW),
    )


def bench_acls(count: int) -> list[AclBinding]:
    """``count`` distinct topic ACLs of other users (``User:user-<i % 100>``, host ``*``, ALLOW),
    alternating LITERAL ``topic-<i>`` READ and PREFIXED ``app-<i>-`` WRITE; the caller's topic
    ``app-7-orders`` falls under one of them (``app-7-``), as in a cluster where many teams share
    prefixes.

    Raises:
        ValueError: ``count`` is negative.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    acls = []
    for i in range(count):
        literal = i % 2 == 0
        acls.append(
            AclBinding(
                ResourcePattern(
                    ResourceType.TOPIC,
                    f"topic-{i}" if literal else f"app-{i // 2}-",
                    PatternType.LITERAL if literal else PatternType.PREFIXED,
                ),
                AccessControlEntry(
                    f"User:user-{i % 100}",
                    "*",
                    AclOperation.READ if literal else AclOperation.WRITE,
                    AclPermissionType.ALLOW,
                ),
            )
        )
    return acls


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values``.

    Raises:
        ValueError: ``values`` is empty or ``q`` outside (0, 100].
    """
    if not values:
        raise ValueError("no values")
    if not 0 < q <= 100:
        raise ValueError(f"q must be in (0, 100], got {q}")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100)
    return ordered[int(rank) - 1]


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """``{"count", "median_ms", "p99_ms", "min_ms"}`` of timings given in seconds (ms rounded to
    0.01).

    Raises:
        ValueError: no timings.
    """
    if not seconds:
        raise ValueError("no timings")
    return {
        "count": len(seconds),
        "median_ms": round(statistics.median(seconds) * 1000, 2),
        "p99_ms": round(percentile(seconds, 99) * 1000, 2),
        "min_ms": round(min(seconds) * 1000, 2),
    }


def throughput(records: int, size: int, seconds: float) -> dict[str, float]:
    """``{"records_per_s", "mb_per_s"}`` of ``records`` values of ``size`` bytes moved in
    ``seconds`` (MB = MiB, as Kafka's perf tools).

    Raises:
        ValueError: ``seconds`` is not positive.
    """
    if seconds <= 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    return {
        "records_per_s": round(records / seconds),
        "mb_per_s": round(records * size / MB / seconds, 2),
    }


def median_run(runs: Sequence[dict]) -> dict:
    """Of runs ``{"produce": {"records_per_s", ...}, "consume": {...}}``, a run whose produce
    and consume are each the median of the runs' (the lower middle one for an even count).

    Raises:
        ValueError: no runs.
    """
    if not runs:
        raise ValueError("no runs")

    def middle(key: str) -> dict:
        ordered = sorted((run[key] for run in runs), key=lambda figures: figures["records_per_s"])
        return ordered[(len(ordered) - 1) // 2]

    return {"produce": middle("produce"), "consume": middle("consume")}


def markdown_rows(result: dict) -> list[str]:
    """The README's tables of a ``security_bench`` result: throughput per broker, client and
    security protocol, handshakes, and the authorizer's cost."""
    lines = [
        "| broker | client | security | produce records/s (MB/s) | consume records/s (MB/s) |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for row in result.get("throughput", []):
        produce, consume = row["produce"], row["consume"]
        lines.append(
            f"| {row['broker']} | {row['client']} | {row['security']} | "
            f"{produce['records_per_s']:,} ({produce['mb_per_s']}) | "
            f"{consume['records_per_s']:,} ({consume['mb_per_s']}) |"
        )
    lines += [
        "",
        "| broker | security | connect to first answer, median ms | p99 ms |",
        "| --- | --- | ---: | ---: |",
    ]
    for row in result.get("handshake", []):
        lines.append(f"| {row['broker']} | {row['security']} | {row['median_ms']} | {row['p99_ms']} |")
    lines += ["", "| ACLs | authorize() µs per call | calls/s | decision |", "| ---: | ---: | ---: | --- |"]
    for row in result.get("authorizer", {}).get("in_process", []):
        lines.append(
            f"| {row['acls']:,} | {row['us_per_call']} | {row['calls_per_s']:,} | {row['decision']} |"
        )
    return lines
