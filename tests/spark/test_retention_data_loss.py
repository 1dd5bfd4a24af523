"""A range whose oldest segment is gone (what retention does: the log start offset moves
past it) fails a read with failOnDataLoss=true and is skipped with it false.

The segment is removed from every replica while the brokers are down, so the brokers'
own log loading sets the log start offset (ListOffsets -2 answers it) without
depending on the retention task."""

from __future__ import annotations

import pytest

from .cluster_io import create_topic, produce, wait_for_end_offset

TOPIC = "aged"


def _read(spark, bootstrap: str, fail_on_data_loss: str):
    return (
        spark.read.format("kafkette")
        .option("kafkette.bootstrap.servers", bootstrap)
        .option("subscribe", TOPIC)
        .option("startingOffsets", f'{{"{TOPIC}":{{"0":0}}}}')
        .option("failOnDataLoss", fail_on_data_loss)
        .load()
        .collect()
    )


def test_range_deleted_from_the_log_fails_or_is_skipped_per_fail_on_data_loss(spark, cluster_factory):
    cluster = cluster_factory(3)
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, TOPIC, partitions=1, configs={"segment.bytes": "1024"})
    for chunk in range(4):  # each call is one batch of ~2 KB: a segment of its own
        produce(bootstrap, TOPIC, [(None, f"{chunk}-{i}-".encode() + b"x" * 200, 0) for i in range(10)])
    cluster.stop()
    for broker_id in cluster.broker_ids:
        first_segment = sorted((cluster.broker_dir(broker_id) / "logs" / f"{TOPIC}-0").glob("*.log"))[0]
        assert first_segment.name == "00000000000000000000.log"
        for path in first_segment.parent.glob("00000000000000000000.*"):
            path.unlink()
    cluster.start()
    wait_for_end_offset(cluster.bootstrap_servers, TOPIC, 0, 40)

    with pytest.raises(Exception, match=f"offsets 0..9 of {TOPIC}-0.*failOnDataLoss"):
        _read(spark, cluster.bootstrap_servers, "true")
    rows = _read(spark, cluster.bootstrap_servers, "false")
    assert sorted(r.offset for r in rows) == list(range(10, 40))
