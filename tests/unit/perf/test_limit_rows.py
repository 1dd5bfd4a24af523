"""limit_rows: loopback, the better of two disk runs (page cache, fdatasync), and one write into
fresh page cache after the idle wait, each after settling (fake measurements, no processes)."""

from __future__ import annotations

from pathlib import Path

from tests.perf import limits
from tests.perf.bench import FRESH_PAGES_IDLE_S, Plan, limit_rows


def test_limits_include_a_fresh_page_cache_write_after_settling_and_idling(monkeypatch, tmp_path):
    events: list[object] = []
    disk_figures = iter([100.0, 300.0, 50.0, 70.0, 40.0])

    def disk(directory: Path, total_bytes: int, sync: bool) -> float:
        events.append(("disk", sync))
        return next(disk_figures)

    monkeypatch.setattr(limits, "loopback_mb_per_s", lambda total_bytes: events.append("loopback") or 2000.0)
    monkeypatch.setattr(limits, "disk_write_mb_per_s", disk)

    rows = limit_rows(
        Plan.quick(),
        tmp_path,
        settle_machine=lambda: events.append("settle"),
        idle=lambda seconds: events.append(("idle", seconds)),
    )

    assert [(row.system, row.mb_per_s) for row in rows] == [
        ("loopback", 2000.0),
        ("disk (page cache)", 300.0),
        ("disk (fdatasync)", 70.0),
        ("disk (fresh page cache)", 40.0),
    ]
    assert events[-3:] == ["settle", ("idle", FRESH_PAGES_IDLE_S), ("disk", False)]
    assert "after 20 s idle" in rows[-1].note
