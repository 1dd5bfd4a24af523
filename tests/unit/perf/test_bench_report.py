"""The benchmark's pure parts: ratio math, the project's performance targets, the table and the result
JSON shape, the workload labels and ``--only`` parsing (no processes, no sockets)."""

from __future__ import annotations

import json

import pytest

from tests.perf.bench import PARTS, Plan, parse_only, run, workload_name
from tests.perf.bench_report import (
    KAFKETTE,
    LOOPBACK,
    RESULT_SCHEMA_VERSION,
    TABLE_HEADERS,
    Row,
    apply_ratios,
    format_table,
    ratio,
    result_document,
)
from tests.perf.kafkette_workloads import consume_row, end_to_end_row, produce_row
from tests.perf.peer_servers import Installer

SMALL = "100 B x 1,000,000, 1 node"
LARGE = "10 KiB x 100,000, 1 node"


def rows_of_one_run() -> list[Row]:
    return [
        Row(SMALL, KAFKETTE, "produce", records_per_s=300_000.0, mb_per_s=28.6, p50_ms=5.0, p99_ms=9.0),
        Row(SMALL, KAFKETTE, "consume", records_per_s=400_000.0, mb_per_s=38.1),
        Row(SMALL, "nats-r1", "produce", records_per_s=60_000.0, mb_per_s=5.7, p50_ms=50.0, p99_ms=90.0),
        Row(SMALL, "nats-r1", "consume", records_per_s=200_000.0, mb_per_s=19.1),
        Row(SMALL, "redis", "produce", records_per_s=100_000.0, mb_per_s=9.5),
        Row(SMALL, "redis", "consume", records_per_s=1_000_000.0, mb_per_s=95.4),
        Row(LARGE, KAFKETTE, "produce", records_per_s=100_000.0, mb_per_s=1_200.0),
        Row(
            "end-to-end, 10,000 records/s for 30 s, 3 nodes",
            KAFKETTE,
            "end-to-end",
            10_000.0,
            None,
            3.0,
            25.0,
            40.0,
        ),
        Row("broker capacity, 100 B in batches of 1,000, 2 load processes", KAFKETTE, "capacity", 900_000.0),
        Row("limit: 4,096 MiB", LOOPBACK, "limit", mb_per_s=5_000.0),
    ]


def test_ratio_is_none_when_a_figure_is_missing_or_the_denominator_not_positive():
    assert ratio(6.0, 3.0) == 2.0
    assert ratio(None, 3.0) is None
    assert ratio(6.0, None) is None
    assert ratio(6.0, 0.0) is None


def test_each_peer_row_gets_kafkette_over_peer_of_the_same_workload_and_phase_with_its_target():
    rows = {(r.system, r.phase, r.workload): r for r in apply_ratios(rows_of_one_run())}

    nats_produce = rows[("nats-r1", "produce", SMALL)]
    assert nats_produce.vs_peer == pytest.approx(5.0)
    assert nats_produce.target == ">=3x: met"
    assert rows[("redis", "produce", SMALL)].vs_peer == pytest.approx(3.0)
    assert rows[("nats-r1", "consume", SMALL)].vs_peer == pytest.approx(2.0)
    assert rows[("nats-r1", "consume", SMALL)].target == ">=3x: MISSED"
    assert rows[("redis", "consume", SMALL)].vs_peer == pytest.approx(0.4)
    assert rows[("redis", "consume", SMALL)].target == ">=0.5x: MISSED"
    assert rows[(KAFKETTE, "produce", SMALL)].vs_peer is None


def test_kafkette_rows_get_their_share_of_the_loopback_limit_and_the_large_record_target():
    rows = {(r.system, r.phase, r.workload): r for r in apply_ratios(rows_of_one_run())}

    large = rows[(KAFKETTE, "produce", LARGE)]
    assert large.vs_limit == pytest.approx(0.24)
    assert large.target.endswith(": met")
    assert rows[(KAFKETTE, "consume", SMALL)].vs_limit == pytest.approx(38.1 / 5000)
    end_to_end = next(r for r in rows.values() if r.phase == "end-to-end")
    assert end_to_end.target == "p99 <20 ms: MISSED"
    capacity = next(r for r in rows.values() if r.phase == "capacity")
    assert capacity.target == ">=1,000,000 records/s: MISSED"


def test_a_peer_without_a_kafkette_row_and_a_run_without_limits_leave_ratios_empty():
    rows = apply_ratios(
        [
            Row(SMALL, "redis", "produce", records_per_s=1.0),
            Row(SMALL, KAFKETTE, "consume", records_per_s=1.0, mb_per_s=1.0),
        ]
    )

    assert rows[0].vs_peer is None and rows[0].target == ""
    assert rows[1].vs_limit is None


def test_the_table_has_one_line_per_row_with_ratios_formatted():
    table = format_table(apply_ratios(rows_of_one_run()))
    lines = table.splitlines()

    assert [h.strip() for h in lines[0].strip("|").split("|")] == TABLE_HEADERS
    assert len(lines) == 2 + len(rows_of_one_run())
    nats_line = next(line for line in lines if "nats-r1" in line and "produce" in line)
    assert "60,000" in nats_line and "5.00x" in nats_line and "50.00" in nats_line
    large_line = next(line for line in lines if LARGE in line)
    assert "24.0%" in large_line and "1,200.0" in large_line


def test_the_result_document_is_json_with_every_row_and_the_skipped_peers():
    rows = apply_ratios(rows_of_one_run())
    document = result_document(
        rows,
        {"redis": "redis-server is not installed"},
        date="2026-11-23T03:00:00+00:00",
        machine={"cpus": 2},
        command="python -m tests.perf.bench --quick",
        options={"quick": True},
    )

    decoded = json.loads(json.dumps(document))
    assert decoded["schema_version"] == RESULT_SCHEMA_VERSION
    assert decoded["skipped"] == {"redis": "redis-server is not installed"}
    assert decoded["command"] == "python -m tests.perf.bench --quick"
    assert len(decoded["results"]) == len(rows)
    first = decoded["results"][0]
    assert set(first) >= {
        "workload",
        "system",
        "phase",
        "records_per_s",
        "mb_per_s",
        "p50_ms",
        "p99_ms",
        "p999_ms",
        "vs_peer",
        "vs_limit",
        "target",
        "note",
        "extra",
    }


def test_the_perf_tools_output_lines_parse_into_rows():
    produced = produce_row(
        "1000 records sent, 250000.0 records/sec (23.84 MB/sec), 4.10 ms avg latency, "
        "9.00 ms max latency, 3.50 ms 50th, 7.00 ms 95th, 8.25 ms 99th, 8.90 ms 99.9th.",
        SMALL,
        "",
    )
    consumed = consume_row("1000 records consumed, 500000.0 records/sec (47.68 MB/sec)", SMALL, "")
    latency = end_to_end_row(
        "300000 records received, 9999.1 records/sec, Avg latency: 2.1000 ms\n"
        "Percentiles: 50th = 1.50 ms, 99th = 12.00 ms, 99.9th = 18.40 ms",
        "e2e",
        "",
    )

    figures = (produced.records_per_s, produced.mb_per_s, produced.p50_ms, produced.p99_ms, produced.p999_ms)
    assert figures == (250000.0, 23.84, 3.5, 8.25, 8.9)
    assert (consumed.phase, consumed.records_per_s, consumed.mb_per_s) == ("consume", 500000.0, 47.68)
    percentiles = (latency.p50_ms, latency.p99_ms, latency.p999_ms, latency.extra["avg_ms"])
    assert percentiles == (1.5, 12.0, 18.4, 2.1)


def test_workload_labels_are_shared_by_every_system_and_quick_runs_ten_times_fewer_records():
    assert workload_name(100, 1_000_000, 1) == SMALL
    assert workload_name(10 * 1024, 100_000, 3) == "10 KiB x 100,000, 3 nodes"
    assert Plan.quick().small_records * 10 == Plan().small_records
    assert Plan.quick().large_records * 10 == Plan().large_records


def test_only_selects_parts_and_rejects_unknown_ones():
    assert parse_only(None) == set(PARTS)
    assert parse_only("kafkette, limits") == {"kafkette", "limits"}
    with pytest.raises(ValueError, match="unknown --only part"):
        parse_only("kafkette,kafka")


def test_a_peer_whose_server_is_missing_and_cannot_be_installed_is_skipped_saying_exactly_what_is_missing(
    tmp_path,
):
    installer = Installer(log=lambda line: None, is_root=False, search_path=str(tmp_path))
    skipped: dict[str, str] = {}

    rows = run(Plan.quick(), {"redis"}, tmp_path, skipped, installer=installer)

    assert rows == []
    assert skipped == {
        "redis": "redis-server is not installed and this is not root: run `apt-get install -y redis-server`"
    }


def test_default_settings_rows_are_compared_with_redis_on_the_kafkette_rows():
    name = "100 B x 300,000, 1 node, 1 partition, default settings"
    rows = apply_ratios(
        [
            Row(name, "kafkette", "produce", records_per_s=250.0, p50_ms=8.0),
            Row(name, "kafkette", "consume", records_per_s=90.0),
            Row(name, "kafkette", "perf produce", records_per_s=280.0, p50_ms=30.0),
            Row(name, "redis", "produce", records_per_s=100.0),
            Row(name, "redis", "consume", records_per_s=100.0),
        ]
    )
    ours = {r.phase: r for r in rows if r.system == "kafkette"}
    assert (
        ours["produce"].vs_peer == 2.5
        and ours["produce"].target == ">=2x redis produce: met; p50 <20 ms: met"
    )
    assert ours["perf produce"].target == ">=3x redis produce: MISSED"
    assert ours["consume"].target == ">=1x redis consume: MISSED"
    assert all(r.vs_peer is None and r.target == "" for r in rows if r.system == "redis")


def test_a_scale_row_is_compared_with_the_same_producer_at_100_partitions():
    def scale(group: str, partitions: int, rate: float) -> Row:
        return Row(
            f"{group} {partitions}",
            "kafkette",
            "scale produce",
            records_per_s=rate,
            extra={"partitions": partitions, "scale_group": group},
        )

    rows = apply_ratios(
        [
            scale("keyless", 100, 100.0),
            scale("keyless", 1000, 95.0),
            scale("keyed", 100, 100.0),
            scale("keyed", 1000, 50.0),
        ]
    )
    assert [r.target for r in rows] == [
        "",
        ">=90% of 100 partitions (95%): met",
        "",
        ">=90% of 100 partitions (50%): MISSED",
    ]
