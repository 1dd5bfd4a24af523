"""The pure side of the transactions benchmark (``tests.perf.transactions_bench``): the modes it
measures, the transactions each mode's records are cut into, the summary of one client run and
the Markdown tables.  No I/O.

Owns: ``MODES`` (idempotent-only, then transactions of 1, 100 and 10,000 records),
``transaction_sizes`` (a record count cut into transactions, the transactions of 1 capped),
``run_summary`` (records/s, MB/s, commit latency of a run) and ``markdown_rows`` (the README
tables).  Throughput and latency summaries are ``tests.perf.security_figures``'.

Kafka concept: KIP-98's transactional producer (``beginTransaction`` / ``commitTransaction``)
against the idempotent-only producer, and ``isolation.level`` read_committed against
read_uncommitted.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.perf.security_figures import latency_summary, throughput

IDEMPOTENT = "idempotent"
# mode name -> records per transaction (None: idempotent only, no transactions)
MODES: dict[str, int | None] = {
    IDEMPOTENT: None,
    "txn-1": 1,
    "txn-100": 100,
    "txn-10000": 10_000,
}


def transaction_sizes(records: int, per_transaction: int | None, max_transactions: int) -> list[int]:
    """The records of each transaction when ``records`` records are produced ``per_transaction``
    at a time (the last one holds the remainder), at most ``max_transactions`` of them;
    ``[records]`` for the idempotent-only mode (``per_transaction`` None).

    Raises:
        ValueError: ``records``, ``per_transaction`` or ``max_transactions`` below 1.
    """
    if records < 1:
        raise ValueError(f"records must be >= 1, got {records}")
    if per_transaction is None:
        return [records]
    if per_transaction < 1 or max_transactions < 1:
        raise ValueError(
            f"per_transaction and max_transactions must be >= 1, got {per_transaction}, {max_transactions}"
        )
    full, rest = divmod(records, per_transaction)
    sizes = [per_transaction] * full + ([rest] if rest else [])
    return sizes[:max_transactions]


def run_summary(records: int, size: int, produce_s: float, commit_s: Sequence[float]) -> dict:
    """One produce run: ``{"records", "transactions", "produce": {"records_per_s", "mb_per_s"},
    "commit": {"count", "median_ms", "p99_ms", "min_ms"} | None}`` of ``records`` values of
    ``size`` bytes produced in ``produce_s`` seconds with the commit_transaction timings
    ``commit_s`` (s; empty for the idempotent-only mode).

    Raises:
        ValueError: ``produce_s`` is not positive.
    """
    return {
        "records": records,
        "transactions": len(commit_s),
        "produce": throughput(records, size, produce_s),
        "commit": latency_summary(commit_s) if commit_s else None,
    }


def markdown_rows(result: dict) -> list[str]:
    """The README's tables of a ``transactions_bench`` result: per broker, client and mode, the
    produce throughput and commit latency; then read_committed against read_uncommitted."""
    lines = [
        "| broker | client | mode | records (transactions) | produce records/s (MB/s) "
        "| commit p50 ms | commit p99 ms |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in result.get("runs", []):
        if "error" in row:
            lines.append(
                f"| {row['broker']} | {row['client']} | {row['mode']} | failed: {row['error'][:200]} | | | |"
            )
            continue
        produce, commit = row["produce"], row["commit"]
        transactions = f"{row['transactions']:,}" if commit else "-"
        lines.append(
            f"| {row['broker']} | {row['client']} | {row['mode']} | {row['records']:,} ({transactions}) | "
            f"{produce['records_per_s']:,} ({produce['mb_per_s']}) | "
            f"{commit['median_ms'] if commit else '-'} | {commit['p99_ms'] if commit else '-'} |"
        )
    lines += [
        "",
        "| broker | client | data of mode | read_committed records/s (MB/s) "
        "| read_uncommitted records/s (MB/s) |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for row in result.get("runs", []):
        consume = row.get("consume")
        if not consume:
            continue
        committed, uncommitted = consume["read_committed"], consume["read_uncommitted"]
        lines.append(
            f"| {row['broker']} | {row['client']} | {row['mode']} | "
            f"{committed['records_per_s']:,} ({committed['mb_per_s']}) | "
            f"{uncommitted['records_per_s']:,} ({uncommitted['mb_per_s']}) |"
        )
    return lines
