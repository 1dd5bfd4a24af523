"""Reading the figures out of Kafka's ProducerPerformance and ConsumerPerformance output
(``tests.perf.kafka_tools_bench``), on lines those tools printed here."""

import pytest

from tests.perf.kafka_tools_bench import consumer_rate, producer_rate, spread_ratios

PRODUCER = """Option --producer-props has been deprecated and will be removed in a future version.
49981 records sent, 9996.2 records/sec (0.95 MB/sec), 1.2 ms avg latency, 250.0 ms max latency.
100000 records sent, 86281.276963 records/sec (8.23 MB/sec), 104.91 ms avg latency, 403.00 ms max latency, \
105 ms 50th, 180 ms 95th, 186 ms 99th, 200 ms 99.9th.
"""

CONSUMER = """start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, \
rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-11-25 20:58:28:522, 2026-11-25 20:58:32:356, 9.5367, 2.4874, 100000, 26082.4204, 3531, 303, 31.4744, 330033.0033
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
        {"workload": "single", "partitions": 1, "spread": False, "kafka_produce_rps": 9.0, "kafkette_produce_rps": 9.0},
        {"workload": "100", "partitions": 100, "spread": True, "kafka_produce_rps": 200.0, "kafkette_produce_rps": 100.0,
         "kafka_produce_fresh_rps": 100.0, "kafkette_produce_fresh_rps": 80.0},
        {"workload": "1000", "partitions": 1000, "spread": True, "kafka_produce_rps": 50.0, "kafkette_produce_rps": None,
         "kafka_produce_fresh_rps": 10.0, "kafkette_produce_fresh_rps": 40.0},
    ]
    assert spread_ratios(rows) == {"kafka": 0.25, "kafkette": None}
    assert spread_ratios(rows, "produce_fresh_rps") == {"kafka": 0.1, "kafkette": 0.5}
