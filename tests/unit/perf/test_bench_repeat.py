"""Medians of repeated runs: the median run by records/s (odd and even counts), failed runs
left out of the median but reported, and the repeat plumbing (fresh data dir per run, the
machine settled before each, systems taking turns), on fake runs (no processes)."""

from __future__ import annotations

import pytest

from tests.perf.bench import Contender, PeerRunError, repeat_count, repeat_workload
from tests.perf.bench_report import KAFKETTE, Row, format_table, median_rows, median_run
from tests.perf.kafkette_workloads import KafketteRunError

SMALL = "100 B x 100,000, 1 node"


def produce(records_per_s: float, p99_ms: float, system: str = KAFKETTE) -> Row:
    return Row(
        SMALL,
        system,
        "produce",
        records_per_s,
        records_per_s / 10_000,
        p50_ms=p99_ms / 2,
        p99_ms=p99_ms,
        p999_ms=p99_ms * 2,
        note="6 partitions",
    )


def consume(records_per_s: float, system: str = KAFKETTE) -> Row:
    return Row(SMALL, system, "consume", records_per_s, records_per_s / 10_000, note="6 partitions")


def test_the_median_of_an_odd_number_of_runs_is_the_middle_run_whole():
    runs = [produce(300.0, 30.0), produce(100.0, 10.0), produce(200.0, 20.0)]

    chosen = median_run(runs)

    assert chosen is runs[2]
    assert (chosen.records_per_s, chosen.p50_ms, chosen.p99_ms, chosen.p999_ms) == (200.0, 10.0, 20.0, 40.0)


def test_the_median_of_an_even_number_of_runs_is_the_lower_middle_run_never_an_average():
    assert (
        median_run(
            [produce(400.0, 4.0), produce(100.0, 1.0), produce(300.0, 3.0), produce(200.0, 2.0)]
        ).records_per_s
        == 200.0
    )
    assert median_run([produce(500.0, 5.0), produce(100.0, 1.0)]).records_per_s == 100.0
    assert median_run([produce(7.0, 7.0)]).records_per_s == 7.0


def test_ties_keep_run_order_and_no_runs_is_an_error():
    first, second = produce(100.0, 1.0), produce(100.0, 2.0)

    assert median_run([first, second, produce(900.0, 3.0)]) is second
    assert median_run([first, second]) is first
    with pytest.raises(ValueError, match="no runs"):
        median_run([])


def test_produce_and_consume_medians_are_chosen_independently_with_every_run_in_run_order():
    runs = [
        [produce(300.0, 30.0), consume(1000.0)],
        [produce(100.0, 10.0), consume(3000.0)],
        [produce(200.0, 20.0), consume(2000.0)],
    ]

    produce_row, consume_row = median_rows(runs, attempted=3)

    assert (produce_row.phase, produce_row.records_per_s, produce_row.p99_ms) == ("produce", 200.0, 20.0)
    assert (consume_row.phase, consume_row.records_per_s) == ("consume", 2000.0)
    assert produce_row.extra == {"runs_records_per_s": [300.0, 100.0, 200.0], "runs_failed": 0}
    assert consume_row.extra["runs_records_per_s"] == [1000.0, 3000.0, 2000.0]
    assert produce_row.note == "6 partitions (median of 3)"
    assert runs[2][0].note == "6 partitions" and runs[2][0].extra == {}
    assert "(median of 3)" in format_table([produce_row])


def test_failed_runs_are_left_out_of_the_median_and_counted_in_the_note():
    runs = [[produce(100.0, 1.0), consume(10.0)], [produce(300.0, 3.0), consume(30.0)]]

    produce_row, consume_row = median_rows(runs, attempted=3)

    assert produce_row.records_per_s == 100.0
    assert produce_row.extra == {"runs_records_per_s": [100.0, 300.0], "runs_failed": 1}
    assert produce_row.note == "6 partitions (median of 2, 1 of 3 runs failed)"
    assert median_rows([], attempted=3) == []
    with pytest.raises(ValueError, match="only 1 attempted"):
        median_rows(runs, attempted=1)


def test_a_single_run_keeps_its_note_and_still_lists_its_records_per_s():
    (row,) = median_rows([[produce(100.0, 1.0)]], attempted=1)

    assert row.note == "6 partitions"
    assert row.extra["runs_records_per_s"] == [100.0]


def test_repeat_defaults_to_three_for_the_full_run_and_one_for_quick_unless_given():
    assert repeat_count(None, quick=False) == 3
    assert repeat_count(None, quick=True) == 1
    assert repeat_count(5, quick=True) == 5
    with pytest.raises(ValueError, match="at least 1"):
        repeat_count(0, quick=False)


class FakeSystem:
    """A system's runs: records/s per run in turn; ``None`` fails that run with ``error``."""

    def __init__(
        self,
        name: str,
        rates: list[float | None],
        events: list[str],
        error: Exception = PeerRunError("nats consumer read 5 of 10 records"),
    ) -> None:
        self.name, self.rates, self.events, self.error = name, rates, events, error
        self.dirs: list = []

    def attempt(self, run_dir) -> list[Row]:
        assert not run_dir.exists()
        run_dir.mkdir(parents=True)
        (run_dir / "segment.log").write_bytes(b"x" * 10)
        self.dirs.append(run_dir)
        self.events.append(f"{self.name} run {len(self.dirs)}")
        rate = self.rates[len(self.dirs) - 1]
        if rate is None:
            raise self.error
        return [produce(rate, rate / 10, system=self.name), consume(rate * 10, system=self.name)]


def test_every_system_runs_in_turn_on_a_fresh_data_dir_after_settling_and_reports_its_median(tmp_path):
    events: list[str] = []
    ours = FakeSystem(KAFKETTE, [300.0, 100.0, 200.0], events)
    peer = FakeSystem("nats-r1", [50.0, 70.0, 60.0], events)
    contenders = [
        Contender("kafkette: " + SMALL, tmp_path / "kafkette", ours.attempt),
        Contender("nats: " + SMALL, tmp_path / "nats", peer.attempt, failures=(PeerRunError,)),
    ]

    rows = repeat_workload(contenders, 3, {}, settle_machine=lambda: events.append("settle"))

    assert events == [
        "settle",
        "kafkette run 1",
        "settle",
        "nats-r1 run 1",
        "settle",
        "kafkette run 2",
        "settle",
        "nats-r1 run 2",
        "settle",
        "kafkette run 3",
        "settle",
        "nats-r1 run 3",
    ]
    assert len(set(ours.dirs + peer.dirs)) == 6 and not any(d.exists() for d in ours.dirs + peer.dirs)
    assert [(r.system, r.phase, r.records_per_s) for r in rows] == [
        (KAFKETTE, "produce", 200.0),
        (KAFKETTE, "consume", 2000.0),
        ("nats-r1", "produce", 60.0),
        ("nats-r1", "consume", 600.0),
    ]


def test_a_failed_peer_run_is_skipped_with_its_reason_and_the_other_runs_still_make_the_median(tmp_path):
    events: list[str] = []
    peer = FakeSystem("nats-r1", [50.0, None, 70.0], events)
    skipped: dict[str, str] = {}

    rows = repeat_workload(
        [Contender("nats: " + SMALL, tmp_path / "nats", peer.attempt, failures=(PeerRunError,))],
        3,
        skipped,
        settle_machine=lambda: None,
    )

    assert skipped == {f"nats: {SMALL}, run 2 of 3": "nats consumer read 5 of 10 records"}
    assert [r.records_per_s for r in rows] == [50.0, 500.0]
    assert rows[0].extra == {"runs_records_per_s": [50.0, 70.0], "runs_failed": 1}
    assert rows[0].note.endswith("(median of 2, 1 of 3 runs failed)")
    assert not any(d.exists() for d in peer.dirs)


def test_a_peer_failing_every_run_gives_no_rows_and_a_kafkette_failure_stops_the_benchmark(tmp_path):
    skipped: dict[str, str] = {}
    peer = FakeSystem("redis", [None], [])

    assert (
        repeat_workload(
            [Contender("redis: " + SMALL, tmp_path / "redis", peer.attempt, failures=(PeerRunError,))],
            1,
            skipped,
            settle_machine=lambda: None,
        )
        == []
    )
    assert skipped == {f"redis: {SMALL}": "nats consumer read 5 of 10 records"}

    ours = FakeSystem(KAFKETTE, [None], [], error=KafketteRunError("kafkette perf produce exited 1"))
    with pytest.raises(KafketteRunError):
        repeat_workload(
            [Contender("kafkette: " + SMALL, tmp_path / "kafkette", ours.attempt)],
            3,
            skipped,
            settle_machine=lambda: None,
        )
    assert not ours.dirs[0].exists()
