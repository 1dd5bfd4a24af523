"""The rows of ``tests.perf.python_clients_bench``: each client's median over its measured runs,
its warm-up round left out, on plain figures (no processes)."""

import pytest

from tests.perf.python_clients_bench import PAIRS, how_taken, summarize_rows

pytestmark = pytest.mark.timeout(10)


def _run(produce: float, consume: float) -> dict:
    return {"produce_rps": produce, "consume_rps": consume}


def test_each_pair_reports_the_median_of_its_measured_runs_without_the_warm_up_round():
    runs = {pair: [] for pair in PAIRS}
    runs[("aiokafka", "kafka")] = [
        _run(50_000.0, 200_000.0),
        _run(110_000.0, 630_000.0),
        _run(100_000.0, 600_000.0),
        _run(120_000.0, 640_000.0),
    ]
    runs[("kafkette", "kafkette")] = [
        _run(300_000.0, 550_000.0),
        None,
        _run(330_000.0, 590_000.0),
        _run(340_000.0, 600_000.0),
    ]

    rows = summarize_rows(runs, warmup_runs=1)

    by_client = {(r["client"], r["server"]): r for r in rows}
    assert set(by_client) == {("aiokafka", "Apache Kafka"), ("kafkette", "Kafkette")}
    aiokafka = by_client[("aiokafka", "Apache Kafka")]
    assert (aiokafka["produce_rps"], aiokafka["consume_rps"], aiokafka["runs"]) == (110_000.0, 630_000.0, 3)
    assert aiokafka["produce_summary"]["warmup"] == [50_000.0]
    ours = by_client[("kafkette", "Kafkette")]
    assert (ours["produce_rps"], ours["runs"], ours["produce_summary"]["failed"]) == (330_000.0, 2, 1)


def test_a_pair_with_only_its_warm_up_run_has_no_row():
    runs = {pair: [] for pair in PAIRS}
    runs[("aiokafka", "kafka")] = [_run(50_000.0, 200_000.0), None]

    assert summarize_rows(runs, warmup_runs=1) == []
    assert [r["produce_rps"] for r in summarize_rows(runs, warmup_runs=0)] == [50_000.0]


def test_the_output_says_how_the_figures_were_taken():
    assert "1 warm-up round discarded, median of 3" in how_taken(False, 3)
    assert "cold" in how_taken(True, 3)
