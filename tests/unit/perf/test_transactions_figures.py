"""The transactions benchmark's pure side (``tests.perf.transactions_figures``): how a record
count is cut into transactions (remainder last, the cap on their number), the summary of one
run (records/s, MiB/s, commit latency or none for the idempotent-only mode) and the Markdown
rows; plain figures, no processes."""

import pytest

from tests.perf.transactions_figures import IDEMPOTENT, MODES, markdown_rows, run_summary, transaction_sizes

pytestmark = pytest.mark.timeout(10)


def test_the_modes_are_idempotent_only_then_transactions_of_1_100_and_10000():
    assert MODES == {IDEMPOTENT: None, "txn-1": 1, "txn-100": 100, "txn-10000": 10_000}


def test_records_are_cut_into_full_transactions_with_the_remainder_last():
    assert transaction_sizes(250, 100, 10**9) == [100, 100, 50]
    assert transaction_sizes(20_000, 10_000, 10**9) == [10_000, 10_000]
    assert transaction_sizes(500, 10_000, 10**9) == [500]


def test_the_idempotent_mode_is_one_run_of_every_record():
    assert transaction_sizes(20_000, None, 3) == [20_000]


def test_the_transactions_of_one_record_are_capped():
    assert transaction_sizes(20_000, 1, 300) == [1] * 300


@pytest.mark.parametrize(("records", "per", "cap"), [(0, 1, 1), (10, 0, 1), (10, 1, 0)])
def test_counts_below_one_are_refused(records, per, cap):
    with pytest.raises(ValueError, match="must be >= 1"):
        transaction_sizes(records, per, cap)


def test_a_run_summary_gives_throughput_and_commit_percentiles():
    summary = run_summary(2048, 1024, 2.0, [0.010] * 99 + [0.500])
    assert summary["records"] == 2048
    assert summary["transactions"] == 100
    assert summary["produce"] == {"records_per_s": 1024, "mb_per_s": 1.0}
    assert summary["commit"]["median_ms"] == 10.0
    assert summary["commit"]["p99_ms"] == 10.0  # nearest rank: the 99th of 100
    assert run_summary(10, 1, 1.0, [0.1] * 50 + [0.9] * 2)["commit"]["p99_ms"] == 900.0


def test_an_idempotent_run_has_no_commit_latency():
    assert run_summary(10, 1024, 1.0, [])["commit"] is None


def test_the_markdown_rows_hold_produce_commit_and_both_isolation_levels():
    idempotent = run_summary(20_000, 1024, 2.0, [])
    single = run_summary(300, 1024, 3.0, [0.01] * 300)
    consume = {
        "read_committed": {"records_per_s": 9_000, "mb_per_s": 8.79},
        "read_uncommitted": {"records_per_s": 10_000, "mb_per_s": 9.77},
    }
    result = {
        "runs": [
            {
                "broker": "Kafkette",
                "client": "confluent-kafka",
                "mode": IDEMPOTENT,
                **idempotent,
                "consume": consume,
            },
            {"broker": "Apache Kafka", "client": "confluent-kafka", "mode": "txn-1", **single},
        ]
    }
    lines = markdown_rows(result)
    assert lines[2] == "| Kafkette | confluent-kafka | idempotent | 20,000 (-) | 10,000 (9.77) | - | - |"
    assert lines[3] == "| Apache Kafka | confluent-kafka | txn-1 | 300 (300) | 100 (0.1) | 10.0 | 10.0 |"
    consume_rows = lines[lines.index("") + 3 :]
    assert consume_rows == ["| Kafkette | confluent-kafka | idempotent | 9,000 (8.79) | 10,000 (9.77) |"]


def test_a_failed_run_is_a_row_naming_its_error():
    result = {
        "runs": [
            {"broker": "Kafkette", "client": "Kafkette SDK", "mode": "txn-100", "error": "KafkaError: boom"}
        ]
    }
    lines = markdown_rows(result)
    assert lines[2] == "| Kafkette | Kafkette SDK | txn-100 | failed: KafkaError: boom | | | |"
    assert lines[-1].startswith("| --- |")  # no consume row for it
