"""A leader broker killed (kill -9) under a running streaming query: the query carries
on after re-election and its sink holds every acknowledged record exactly once."""

from __future__ import annotations

from kafkette.client import LocalCluster
from tests.cluster_configs import FAST_FAILOVER

from .cluster_io import create_topic, leaders, produce
from .streaming import kafkette_stream, wait_for


def test_query_carries_on_after_leader_is_killed(spark, tmp_path):
    with LocalCluster(num_brokers=3, data_dir=tmp_path / "cluster", broker_configs=FAST_FAILOVER) as cluster:
        bootstrap = cluster.bootstrap_servers
        create_topic(bootstrap, "failover", partitions=3, configs={"min.insync.replicas": "2"})
        produce(bootstrap, "failover", [(None, f"before{i}".encode(), i % 3) for i in range(300)])
        query = (
            kafkette_stream(
                spark, bootstrap, subscribe="failover", startingOffsets="earliest", maxOffsetsPerTrigger="60"
            )
            .selectExpr("CAST(value AS STRING) AS value", "partition", "offset")
            .writeStream.format("memory")
            .queryName("failover")
            .trigger(processingTime="200 milliseconds")
            .start()
        )
        try:
            wait_for(lambda: spark.table("failover").count() > 0, query, what="the first micro-batch")
            controller_id = cluster.broker_ids[0]  # the controller itself does not fail over yet
            victim = next(
                leader for leader in leaders(bootstrap, "failover").values() if leader != controller_id
            )
            cluster.stop_broker(victim, hard=True)
            produce(bootstrap, "failover", [(None, f"after{i}".encode(), i % 3) for i in range(300)])
            wait_for(lambda: spark.table("failover").count() >= 600, query, what="all 600 records")
            query.processAllAvailable()
            assert query.isActive and query.exception() is None
        finally:
            query.stop()

    rows = spark.table("failover").collect()
    assert len(rows) == 600
    assert len({(r.partition, r.offset) for r in rows}) == 600
    assert sorted(r.value for r in rows) == sorted(
        [f"before{i}" for i in range(300)] + [f"after{i}" for i in range(300)]
    )
