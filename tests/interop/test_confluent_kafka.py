"""confluent-kafka (librdkafka) against Kafkette's Kafka-protocol listener, unchanged: the admin
client's topic lifecycle, configs and cluster description; produce and consume with keys,
headers and timestamps; a consumer group with commits, two members and the groups' admin
view; and the idempotent producer across a kill -9 of the partition leader."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
)

from kafkette.client import LocalCluster
from tests.cluster_configs import FAST_FAILOVER

TIMEOUT_S = 30


def _admin(cluster: LocalCluster) -> AdminClient:
    return AdminClient({"bootstrap.servers": cluster.kafka_bootstrap_servers})


def _create(admin: AdminClient, topic: str, partitions: int, replication: int, **config: str) -> None:
    futures = admin.create_topics(
        [NewTopic(topic, partitions, replication, config=config)], operation_timeout=TIMEOUT_S
    )
    futures[topic].result(timeout=TIMEOUT_S)


def _wait_for_leaders(admin: AdminClient, topic: str, partitions: int) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        meta = admin.list_topics(topic, timeout=10).topics.get(topic)
        if (
            meta is not None
            and meta.error is None
            and len(meta.partitions) == partitions
            and all(p.leader >= 0 for p in meta.partitions.values())
        ):
            return
        time.sleep(0.2)
    raise AssertionError(f"{topic} has no leader for each of its {partitions} partitions after {TIMEOUT_S} s")


def _produce(producer: Producer, topic: str, records: list[tuple[bytes, bytes, list, int]]) -> list:
    """Produce ``(key, value, headers, timestamp_ms)`` records; returns the delivered messages in order."""
    delivered: list = []
    errors: list = []

    def on_delivery(err, msg) -> None:
        (errors if err else delivered).append(err or msg)

    for key, value, headers, ts in records:
        producer.produce(topic, value=value, key=key, headers=headers, timestamp=ts, on_delivery=on_delivery)
        producer.poll(0)
    assert producer.flush(TIMEOUT_S) == 0, "records left undelivered"
    assert not errors, errors[:3]
    return delivered


def _consume(consumer: Consumer, count: int) -> list:
    got: list = []
    deadline = time.monotonic() + TIMEOUT_S
    while len(got) < count and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        assert msg.error() is None or msg.error().code() == KafkaError._PARTITION_EOF, msg.error()
        if msg.error() is None:
            got.append(msg)
    return got


def test_admin_topic_lifecycle_configs_and_cluster(kafka_cluster):
    admin = _admin(kafka_cluster)
    _create(admin, "ck-admin", 3, 3, **{"retention.ms": "3600000", "cleanup.policy": "delete"})
    _wait_for_leaders(admin, "ck-admin", 3)
    meta = admin.list_topics(timeout=10)
    assert sorted(meta.brokers) == [1, 2, 3]
    assert {b.port for b in meta.brokers.values()} == {
        int(s.split(":")[1]) for s in kafka_cluster.kafka_bootstrap_servers.split(",")
    }
    topic = meta.topics["ck-admin"]
    assert sorted(topic.partitions) == [0, 1, 2]
    assert all(
        sorted(p.replicas) == [1, 2, 3] and sorted(p.isrs) == [1, 2, 3] for p in topic.partitions.values()
    )

    # an existing topic and a bad replication factor are refused with Kafka's errors
    again = admin.create_topics([NewTopic("ck-admin", 1, 1)])["ck-admin"]
    with pytest.raises(Exception) as exc_info:
        again.result(timeout=TIMEOUT_S)
    assert exc_info.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
    too_many = admin.create_topics([NewTopic("ck-rf", 1, 4)])["ck-rf"]
    with pytest.raises(Exception) as exc_info:
        too_many.result(timeout=TIMEOUT_S)
    assert exc_info.value.args[0].code() == KafkaError.INVALID_REPLICATION_FACTOR

    resource = ConfigResource(ConfigResource.Type.TOPIC, "ck-admin")
    configs = admin.describe_configs([resource])[resource].result(timeout=TIMEOUT_S)
    assert configs["retention.ms"].value == "3600000"
    assert configs["segment.bytes"].value is not None
    alter = ConfigResource(
        ConfigResource.Type.TOPIC,
        "ck-admin",
        incremental_configs=[
            ConfigEntry("retention.ms", "7200000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    admin.incremental_alter_configs([alter])[alter].result(timeout=TIMEOUT_S)
    deadline = time.monotonic() + TIMEOUT_S
    while (
        admin.describe_configs([resource])[resource].result(timeout=TIMEOUT_S)["retention.ms"].value
        != "7200000"
    ):
        assert time.monotonic() < deadline, "retention.ms did not change"
        time.sleep(0.2)

    admin.create_partitions([NewPartitions("ck-admin", 5)])["ck-admin"].result(timeout=TIMEOUT_S)
    _wait_for_leaders(admin, "ck-admin", 5)

    cluster = admin.describe_cluster(request_timeout=10).result(timeout=TIMEOUT_S)
    assert sorted(n.id for n in cluster.nodes) == [1, 2, 3]
    assert cluster.controller is not None and cluster.controller.id in (1, 2, 3)

    admin.delete_topics(["ck-admin"], operation_timeout=TIMEOUT_S)["ck-admin"].result(timeout=TIMEOUT_S)
    deadline = time.monotonic() + TIMEOUT_S
    while "ck-admin" in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, "ck-admin still listed after its deletion"
        time.sleep(0.2)


def test_produce_and_consume_keys_values_headers_and_timestamps(kafka_cluster):
    admin = _admin(kafka_cluster)
    _create(admin, "ck-records", 3, 3)
    _wait_for_leaders(admin, "ck-records", 3)
    base_ts = 1_700_000_000_000
    records = [
        (
            b"key-%d" % (i % 11),
            b"value-%d" % i,
            [("seq", b"%d" % i), ("empty", None)] if i % 2 else [],
            base_ts + i,
        )
        for i in range(600)
    ]
    producer = Producer(
        {
            "bootstrap.servers": kafka_cluster.kafka_bootstrap_servers,
            "acks": "all",
            "linger.ms": 5,
            "compression.type": "lz4",
        }
    )
    delivered = _produce(producer, "ck-records", records)
    by_value = {value: i for i, (_, value, _, _) in enumerate(records)}
    offsets = {(m.partition(), m.offset()): by_value[m.value()] for m in delivered}
    assert len(offsets) == len(records)

    consumer = Consumer(
        {
            "bootstrap.servers": kafka_cluster.kafka_bootstrap_servers,
            "group.id": "ck-records-group",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe(["ck-records"])
        got = _consume(consumer, len(records))
        assert len(got) == len(records)
        for msg in got:
            key, value, headers, ts = records[offsets[(msg.partition(), msg.offset())]]
            assert (msg.key(), msg.value(), msg.headers() or [], msg.timestamp()[1]) == (
                key,
                value,
                headers,
                ts,
            )
        per_partition: dict[int, list[int]] = {}
        for msg in got:
            per_partition.setdefault(msg.partition(), []).append(msg.offset())
        assert all(offs == list(range(len(offs))) for offs in per_partition.values())
        consumer.commit(asynchronous=False)
        committed = consumer.committed([TopicPartition("ck-records", p) for p in range(3)], timeout=TIMEOUT_S)
        assert {tp.partition: tp.offset for tp in committed} == {p: len(o) for p, o in per_partition.items()}
        low, high = consumer.get_watermark_offsets(TopicPartition("ck-records", 0), timeout=TIMEOUT_S)
        assert (low, high) == (0, len(per_partition[0]))
        # ListOffsets by timestamp: the first record at or after a timestamp
        probe = delivered[300]
        (found,) = consumer.offsets_for_times(
            [TopicPartition("ck-records", probe.partition(), probe.timestamp()[1])], timeout=TIMEOUT_S
        )
        first = min(
            m.offset()
            for m in delivered
            if m.partition() == probe.partition() and m.timestamp()[1] >= probe.timestamp()[1]
        )
        assert found.offset == first
    finally:
        consumer.close()

    groups = admin.list_consumer_groups().result(timeout=TIMEOUT_S)
    assert "ck-records-group" in {g.group_id for g in groups.valid}
    described = admin.describe_consumer_groups(["ck-records-group"])["ck-records-group"].result(
        timeout=TIMEOUT_S
    )
    assert described.group_id == "ck-records-group"


def test_a_consumer_whose_offset_is_out_of_range_resets_by_auto_offset_reset(kafka_cluster):
    """A Fetch answer for a partition in error (here OFFSET_OUT_OF_RANGE) carries an empty record
    set, as Kafka's: librdkafka refuses a null one as a protocol parse failure of the whole
    response ("invalid MessageSetSize -1") and refetches forever, never applying
    ``auto.offset.reset``."""
    admin = _admin(kafka_cluster)
    _create(admin, "ck-out-of-range", 1, 3)
    _wait_for_leaders(admin, "ck-out-of-range", 1)
    producer = Producer({"bootstrap.servers": kafka_cluster.kafka_bootstrap_servers})
    _produce(producer, "ck-out-of-range", [(None, b"v%d" % i, [], 1_700_000_000_000 + i) for i in range(10)])
    consumer = Consumer(
        {
            "bootstrap.servers": kafka_cluster.kafka_bootstrap_servers,
            "group.id": "ck-out-of-range",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition("ck-out-of-range", 0, 1000)])  # past the log end offset, 10
        got = _consume(consumer, 10)
        assert [m.value() for m in got] == [b"v%d" % i for i in range(10)]
        assert [m.offset() for m in got] == list(range(10))
    finally:
        consumer.close()


def test_two_members_of_a_group_split_the_partitions(kafka_cluster):
    admin = _admin(kafka_cluster)
    _create(admin, "ck-group", 4, 3)
    _wait_for_leaders(admin, "ck-group", 4)
    producer = Producer({"bootstrap.servers": kafka_cluster.kafka_bootstrap_servers})
    _produce(producer, "ck-group", [(None, b"v%d" % i, [], int(time.time() * 1000)) for i in range(200)])
    conf = {
        "bootstrap.servers": kafka_cluster.kafka_bootstrap_servers,
        "group.id": "ck-two",
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
    }
    first, second = Consumer(conf), Consumer(conf)
    try:
        first.subscribe(["ck-group"])
        second.subscribe(["ck-group"])
        seen: set[bytes] = set()
        deadline = time.monotonic() + 2 * TIMEOUT_S
        while (
            len(seen) < 200 or not first.assignment() or not second.assignment()
        ) and time.monotonic() < deadline:
            for consumer in (first, second):
                msg = consumer.poll(0.2)
                if msg is not None and msg.error() is None:
                    seen.add(msg.value())
        one = {tp.partition for tp in first.assignment()}
        two = {tp.partition for tp in second.assignment()}
        assert one and two and not one & two and one | two == {0, 1, 2, 3}
        assert len(seen) == 200
    finally:
        first.close()
        second.close()


def test_idempotent_producer_keeps_order_without_duplicates_across_a_leader_kill(tmp_path):
    """enable.idempotence=true with acks=all: kill -9 the partition leader while producing;
    every record is in the log exactly once, in the order sent."""
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path, broker_configs=FAST_FAILOVER, kafka_protocol=True
    ) as cluster:
        admin = _admin(cluster)
        _create(admin, "ck-idempotent", 1, 3, **{"min.insync.replicas": "2"})
        _wait_for_leaders(admin, "ck-idempotent", 1)
        producer = Producer(
            {
                "bootstrap.servers": cluster.kafka_bootstrap_servers,
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 2,
                "message.timeout.ms": 60000,
                "retry.backoff.ms": 100,
            }
        )
        errors: list = []
        total = 4000
        killed = None
        for i in range(total):
            producer.produce(
                "ck-idempotent",
                value=b"%06d" % i,
                on_delivery=lambda err, msg: errors.append(err) if err else None,
            )
            producer.poll(0)
            if i == total // 2:  # batches are in flight: kill -9 their leader
                leader = (
                    admin.list_topics("ck-idempotent", timeout=10)
                    .topics["ck-idempotent"]
                    .partitions[0]
                    .leader
                )
                cluster.stop_broker(leader, hard=True)  # kill -9
                killed = leader
            if i % 200 == 0:
                time.sleep(0.01)
        assert producer.flush(90) == 0, "records left undelivered"
        assert not errors, errors[:3]
        assert killed is not None
        cluster.start_broker(killed)
        consumer = Consumer(
            {
                "bootstrap.servers": cluster.kafka_bootstrap_servers,
                "group.id": "ck-idem-check",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        try:
            consumer.assign([TopicPartition("ck-idempotent", 0, 0)])
            got = _consume(consumer, total)
        finally:
            consumer.close()
        values = [int(m.value()) for m in got]
        assert values == list(range(total)), (
            f"{len(values)} records read, {len(set(values))} distinct; first difference at "
            f"""{
                next(
                    (i for i, (a, b) in enumerate(zip(values, range(total), strict=False)) if a != b),
                    len(values),
                )
            }"""
        )
