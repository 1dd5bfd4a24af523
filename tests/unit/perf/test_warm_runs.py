"""Warm runs of a comparison (``tests.perf.warm_runs``): the warm-up runs discarded, the median
of the measured runs (never an average), the best, failed runs counted, and the systems taking
turns, on plain figures (no processes)."""

import pytest

from tests.perf.warm_runs import RunSummary, ratio, round_order, summarize

pytestmark = pytest.mark.timeout(10)


def test_the_warm_up_run_is_discarded_and_the_median_of_the_rest_reported():
    summary = summarize([60_000.0, 200_000.0, 180_000.0, 210_000.0])

    assert summary == RunSummary(
        median=200_000.0,
        best=210_000.0,
        measured=[200_000.0, 180_000.0, 210_000.0],
        warmup=[60_000.0],
        failed=0,
    )


def test_a_slow_warm_up_never_becomes_the_median_however_many_runs():
    assert summarize([1.0, 100.0]).median == 100.0
    assert summarize([1.0, 300.0, 100.0, 200.0, 400.0]).median == 200.0


def test_an_even_number_of_measured_runs_gives_the_lower_middle_one_never_an_average():
    assert summarize([0.0, 400.0, 100.0, 300.0, 200.0]).median == 200.0
    assert summarize([500.0, 100.0], warmup_runs=0).median == 100.0


def test_runs_on_fresh_servers_discard_nothing():
    summary = summarize([60_000.0, 200_000.0, 180_000.0], warmup_runs=0)

    assert (summary.median, summary.warmup, summary.measured) == (
        180_000.0,
        [],
        [60_000.0, 200_000.0, 180_000.0],
    )


def test_failed_runs_are_left_out_and_counted_and_no_measured_figure_is_no_summary():
    summary = summarize([None, 100.0, None, 300.0])

    assert (summary.median, summary.best, summary.warmup, summary.failed) == (100.0, 300.0, [], 1)
    assert summarize([100.0, None, None]) is None
    assert summarize([]) is None
    with pytest.raises(ValueError, match="warmup_runs"):
        summarize([1.0], warmup_runs=-1)


def test_the_systems_take_turns_and_the_first_one_changes_every_round():
    systems = ("kafka", "kafkette")

    assert [round_order(systems, r) for r in range(4)] == [
        ["kafka", "kafkette"],
        ["kafkette", "kafka"],
        ["kafka", "kafkette"],
        ["kafkette", "kafka"],
    ]
    assert round_order(["a", "b", "c"], 1) == ["c", "b", "a"]
    with pytest.raises(ValueError, match="round_index"):
        round_order(systems, -1)


def test_the_ratio_is_kafkettes_figure_over_kafkas_or_none_when_either_is_missing():
    assert ratio(203_707.0, 202_204.0) == pytest.approx(1.0074, abs=1e-4)
    assert ratio(None, 1.0) is None
    assert ratio(1.0, 0.0) is None
