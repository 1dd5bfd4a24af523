"""Reading the figures out of Kafka's ProducerPerformance and ConsumerPerformance output
(``tests.perf.kafka_tools_bench``), on lines those tools printed here."""

import pytest

from tests.perf.kafka_tools_bench import (
    WORKLOADS,
    consumer_rate,
    format_table,
    how_taken,
    producer_rate,
    spread_ratios,
    summarize_row,
)

PRODUCER = """Option --producer-props has been deprecated and will be removed in a future version.
49981 records sent, 9996.2 records/sec (0.95 MB/sec), 1.2 ms avg latency, 250.0 ms max latency.
100000 records sent, 86281.276963 records/sec (8.23 MB/sec), 104.91 ms avg latency, 403.00 ms max latency, \
105 ms 50th, 180 ms 95th, 186 ms 99th, 200 ms 99.9th.
"""

CONSUMER = """start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, \
rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-11-25 20:58:28:522, 2026-11-25 20:58:32:356, 9.5367, 2.4874, 100000, 26082.4204, \
3531, 303, 31.4744, 330033.0033
"""


def test_the_producer_summary_is_its_last_records_per_second():
    assert producer_rate(PRODUCER) == pytest.approx(86281.276963)


def test_the_consumer_rate_is_the_fetch_nmsg_sec_column():
    assert consumer_rate(CONSUMER) == pytest.approx(330033.0033)


def test_output_without_figures_is_an_error():
    with pytest.raises(ValueError):
        producer_rate("Exception in thread main")
    with pytest.raises(ValueError):
        consumer_rate(CONSUMER.splitlines()[0])


def test_spread_ratios_divide_each_systems_1000_partition_rate_by_its_100_partition_rate():
    rows = [
        {
            "workload": "single",
            "partitions": 1,
            "spread": False,
            "kafka_produce_rps": 9.0,
            "kafkette_produce_rps": 9.0,
        },
        {
            "workload": "100",
            "partitions": 100,
            "spread": True,
            "kafka_produce_rps": 200.0,
            "kafkette_produce_rps": 100.0,
            "kafka_produce_fresh_rps": 100.0,
            "kafkette_produce_fresh_rps": 80.0,
        },
        {
            "workload": "1000",
            "partitions": 1000,
            "spread": True,
            "kafka_produce_rps": 50.0,
            "kafkette_produce_rps": None,
            "kafka_produce_fresh_rps": 10.0,
            "kafkette_produce_fresh_rps": 40.0,
        },
    ]
    assert spread_ratios(rows) == {"kafka": 0.25, "kafkette": None}
    assert spread_ratios(rows, "produce_fresh_rps") == {"kafka": 0.1, "kafkette": 0.5}


def _run(produce: float, consume: float | None, fresh: float | None = None) -> dict:
    return {"produce_rps": produce, "produce_fresh_rps": fresh, "consume_rps": consume}


def test_a_warm_row_reports_the_median_of_the_measured_runs_the_warm_up_apart():
    workload = WORKLOADS[0]
    runs = {
        "kafka": [
            _run(80_000.0, 300_000.0),
            _run(200_000.0, 700_000.0),
            _run(190_000.0, 650_000.0),
            _run(210_000.0, 600_000.0),
        ],
        "kafkette": [
            _run(200_000.0, 800_000.0),
            None,
            _run(205_000.0, 900_000.0),
            _run(195_000.0, 850_000.0),
        ],
    }

    row = summarize_row(workload, 300_000, runs, warmup_runs=1)

    assert (row["kafka_produce_rps"], row["kafka_consume_rps"]) == (200_000.0, 650_000.0)
    assert (row["kafkette_produce_rps"], row["kafkette_consume_rps"]) == (195_000.0, 850_000.0)
    assert row["kafka_produce_rps_summary"]["warmup"] == [80_000.0]
    assert row["kafkette_produce_rps_summary"]["failed"] == 1
    assert row["kafka_produce_fresh_rps"] is None and row["kafka_runs"] is runs["kafka"]
    table = format_table([row])
    assert table[2] == "| 100 B, 1 node, acks=1 | 200,000 | 195,000 | 0.97x | 650,000 | 850,000 | 1.31x |"
    assert "100 B, 1 node, acks=1, kafka: produce 200,000 / 190,000 / 210,000 (warm-up 80,000)" in table[3]


def test_a_row_on_fresh_nodes_keeps_every_run():
    row = summarize_row(
        WORKLOADS[0],
        300_000,
        {"kafka": [_run(80_000.0, 1.0), _run(120_000.0, 2.0)], "kafkette": [_run(190_000.0, 3.0)]},
        warmup_runs=0,
    )

    assert (row["kafka_produce_rps"], row["kafka_produce_rps_summary"]["warmup"]) == (80_000.0, [])
    assert "warm-up" not in "\n".join(format_table([row]))


def test_the_long_workload_keeps_its_own_record_count_and_the_groups_are_told_apart():
    groups = {w.group for w in WORKLOADS}
    (long,) = [w for w in WORKLOADS if w.group == "long"]

    assert groups == {"single", "long", "spread"}
    assert (long.records, long.size, long.nodes, long.acks) == (2_000_000, 100, 1, "1")


def test_the_output_says_how_the_figures_were_taken():
    assert how_taken(False, 3) == (
        "nodes started once per system and workload, 1 warm-up run discarded, "
        "median of 3 measured runs taking turns"
    )
    assert "cold JVMs" in how_taken(True, 1)
