"""The benchmark harness's Kafkette parts against real brokers, on tiny sizes.

A Kafkette workload (``kafkette perf produce`` then ``kafkette perf consume`` on a fresh
cluster) yields a produce row and a consume row for every record; the broker-capacity
load process gets every record it sends acknowledged and appended.  Figures are
reported by the benchmark, never asserted against a bound here.
"""

from __future__ import annotations

import pytest

from kafkette.client import Consumer, TopicPartition
from kafkette.client.cli.shared_options import run_coroutine
from tests.perf import broker_capacity, kafkette_workloads
from tests.perf.bench_report import KAFKETTE

pytestmark = pytest.mark.timeout(180)


def test_a_kafkette_workload_reports_produce_and_consume_rows_from_the_perf_tools(tmp_path):
    rows = kafkette_workloads.workload(
        tmp_path / "workload",
        "100 B x 3,000, 1 node",
        brokers=1,
        acks="1",
        records=3000,
        size=100,
        partitions=2,
    )

    assert [(r.system, r.phase) for r in rows] == [(KAFKETTE, "produce"), (KAFKETTE, "consume")]
    produce, consume = rows
    assert produce.records_per_s > 0 and produce.mb_per_s > 0
    assert produce.p50_ms is not None and produce.p50_ms <= produce.p99_ms <= produce.p999_ms
    assert consume.records_per_s > 0 and consume.mb_per_s > 0


def test_the_capacity_load_process_gets_every_resent_batch_acknowledged_and_appended(cluster_factory):
    cluster = cluster_factory(1)
    kafkette_workloads.kafkette(
        "topics",
        "create",
        broker_capacity.TOPIC,
        "--partitions",
        "2",
        "--replication-factor",
        "1",
        "--bootstrap-server",
        cluster.bootstrap_servers,
    )

    result = run_coroutine(
        broker_capacity.load(
            cluster.ports[1],
            broker_capacity.TOPIC,
            [0, 1],
            requests=7,
            batch_records=50,
            size=100,
            in_flight=3,
        )
    )

    assert result["records"] == 7 * 50 * 2
    assert result["end"] >= result["start"]

    async def end_offsets() -> dict[TopicPartition, int]:
        async with Consumer(bootstrap_servers=cluster.bootstrap_servers) as consumer:
            return await consumer.end_offsets([TopicPartition(broker_capacity.TOPIC, p) for p in (0, 1)])

    assert sorted(run_coroutine(end_offsets()).values()) == [350, 350]


def test_the_default_settings_workload_reports_sdk_and_perf_tool_rows(tmp_path):
    name = "100 B x 2,000, 1 node, 1 partition, default settings"
    rows = kafkette_workloads.defaults(tmp_path / "defaults", name, records=2000, size=100)

    assert [(r.system, r.phase) for r in rows] == [
        (KAFKETTE, "produce"),
        (KAFKETTE, "consume"),
        (KAFKETTE, "perf produce"),
    ]
    assert all(r.workload == name and r.records_per_s > 0 for r in rows)
    assert rows[0].p50_ms is not None and rows[0].p50_ms <= rows[0].p99_ms


def test_the_keyed_scale_run_reports_its_partition_count(tmp_path):
    row = kafkette_workloads.keyed_scale(tmp_path / "keyed", partitions=10, records=2000)

    assert row.phase == "scale produce" and row.records_per_s > 0
    assert row.extra == {"partitions": 10, "scale_group": "keyed"}
