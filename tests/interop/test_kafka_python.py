"""kafka-python (3.0) against the Kafka-protocol listener of a 3-broker cluster: the admin client
(topics, configs, partitions, records, cluster, groups), the producer (acks=all, keys, values,
headers, explicit CreateTime timestamps) and the group consumer (commits, committed offsets,
a second member splitting the partitions).

Every test uses its own topic and group on the module's ``kafka_cluster``; every wait is
bounded by a deadline and every poll loop by a count.  kafka-python is synchronous, so the
tests are plain functions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import AlterConfigOp, ConfigResource, OffsetSpec
from kafka.consumer.fetcher import ConsumerRecord
from kafka.structs import OffsetAndMetadata

from kafkette.client import LocalCluster

BASE_TIMESTAMP_MS = 1_700_000_000_000
REQUEST_TIMEOUT_MS = 15_000
POLL_TIMEOUT_MS = 200
WAIT_INTERVAL_S = 0.1


@pytest.fixture(scope="module")
def admin(kafka_cluster: LocalCluster):
    """A KafkaAdminClient on the Kafka listeners, closed after the module's tests."""
    client = KafkaAdminClient(
        bootstrap_servers=kafka_cluster.kafka_bootstrap_servers,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
        client_id="kp-admin",
    )
    yield client
    client.close()


def _kafka_ports(cluster: LocalCluster) -> dict[int, int]:
    """Broker id -> port of its Kafka listener (``kafka_bootstrap_servers`` lists them by id)."""
    ports = [int(address.rsplit(":", 1)[1]) for address in cluster.kafka_bootstrap_servers.split(",")]
    return dict(zip(cluster.broker_ids, ports, strict=True))


def _wait_for(predicate: Callable[[], bool], what: str, timeout_s: float = 20) -> None:
    """Poll ``predicate`` every 0.1 s until true; fail the test after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout_s} s waiting for {what}"
        time.sleep(WAIT_INTERVAL_S)


def _create_topic(
    admin: KafkaAdminClient, topic: str, partitions: int = 3, configs: dict[str, str] | None = None
) -> dict:
    """Create ``topic`` (replication factor 3) and wait until every partition has a leader;
    the topic's entry of the CreateTopics answer."""
    result = admin.create_topics(
        {topic: {"num_partitions": partitions, "replication_factor": 3, "configs": configs or {}}}
    )
    admin.wait_for_topics([topic], timeout_ms=20_000)
    (entry,) = result["topics"]
    return entry


def _produce(bootstrap: str, topic: str, records: Iterable[tuple], **configs: object) -> list:
    """Send ``(partition, key, value, headers, timestamp_ms)`` tuples with acks=all; their
    RecordMetadata, in send order."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, **configs)
    try:
        futures = [
            producer.send(
                topic, key=key, value=value, partition=partition, headers=headers, timestamp_ms=timestamp_ms
            )
            for partition, key, value, headers, timestamp_ms in records
        ]
        producer.flush(timeout=30)
        return [future.get(timeout=30) for future in futures]
    finally:
        producer.close(timeout=10)


def _poll_records(consumer: KafkaConsumer, count: int, timeout_s: float = 30) -> list[ConsumerRecord]:
    """Poll until ``count`` records arrived (at most ``count`` polls' worth of records, bounded by
    ``timeout_s`` seconds); the records in fetch order."""
    records: list[ConsumerRecord] = []
    deadline = time.monotonic() + timeout_s
    while len(records) < count:
        assert time.monotonic() < deadline, f"consumed {len(records)} of {count} records in {timeout_s} s"
        for batch in consumer.poll(timeout_ms=POLL_TIMEOUT_MS).values():
            records.extend(batch)
    assert len(records) == count, f"expected {count} records, got {len(records)}"
    return records


def _view(record: ConsumerRecord) -> tuple:
    """What a record carries end to end: (partition, offset, key, value, headers, timestamp, type)."""
    return (
        record.partition,
        record.offset,
        record.key,
        record.value,
        list(record.headers),
        record.timestamp,
        record.timestamp_type,
    )


def test_create_topics_then_metadata_shows_three_partitions_with_leaders_and_full_isr(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    entry = _create_topic(admin, "kp-topic", configs={"retention.ms": "3600000"})
    assert (entry["name"], entry["error_code"], entry["error_message"]) == ("kp-topic", 0, None)
    assert (entry["num_partitions"], entry["replication_factor"]) == (3, 3)

    assert "kp-topic" in admin.list_topics()
    (topic,) = admin.describe_topics(["kp-topic"])
    assert (topic["name"], topic["error_code"], topic["is_internal"]) == ("kp-topic", 0, False)
    partitions = sorted(topic["partitions"], key=lambda p: p["partition_index"])
    assert [p["partition_index"] for p in partitions] == [0, 1, 2]
    for p in partitions:
        assert p["error_code"] == 0
        assert sorted(p["replica_nodes"]) == sorted(kafka_cluster.broker_ids)
        assert sorted(p["isr_nodes"]) == sorted(kafka_cluster.broker_ids)
        assert p["leader_id"] == p["replica_nodes"][0], "a new partition is led by its preferred replica"
        assert p["leader_epoch"] >= 0
        assert p["offline_replicas"] == []
    # Replica assignment spreads the leaders over the three brokers.
    assert sorted(p["leader_id"] for p in partitions) == sorted(kafka_cluster.broker_ids)


def test_create_topics_answer_carries_the_configs_of_the_new_topic(admin: KafkaAdminClient):
    # CreateTopics v5+ (KIP-525) answers with the created topic's configs.
    entry = _create_topic(admin, "kp-create-configs", partitions=1, configs={"retention.ms": "3600000"})
    assert entry["error_code"] == 0
    configs = entry.get("configs") or {}
    assert configs.get("retention.ms", {}).get("value") == "3600000", f"CreateTopics answer: {entry}"
    assert configs["cleanup.policy"]["value"] == "delete"


def test_describe_configs_shows_the_config_set_at_creation(admin: KafkaAdminClient):
    _create_topic(admin, "kp-configs", partitions=1, configs={"retention.ms": "3600000"})
    resource = ConfigResource("TOPIC", "kp-configs")

    modified = admin.describe_configs([resource])
    assert list(modified) == ["topic"]
    assert list(modified["topic"]) == ["kp-configs"]
    (name,) = modified["topic"]["kp-configs"]
    entry = modified["topic"]["kp-configs"][name]
    assert name == "retention.ms"
    assert (entry["value"], entry["config_source"], entry["read_only"], entry["is_sensitive"]) == (
        "3600000",
        "DYNAMIC_TOPIC_CONFIG",
        False,
        False,
    )

    every = admin.describe_configs([resource], config_filter="all")["topic"]["kp-configs"]
    assert every["retention.ms"]["value"] == "3600000"
    assert (every["cleanup.policy"]["value"], every["cleanup.policy"]["config_source"]) == (
        "delete",
        "DEFAULT_CONFIG",
    )
    assert every["min.insync.replicas"]["value"] == "1"

    only = admin.describe_configs(
        [ConfigResource("TOPIC", "kp-configs", configs=["cleanup.policy"])], config_filter="all"
    )["topic"]["kp-configs"]
    assert list(only) == ["cleanup.policy"]


def test_describe_configs_names_the_type_of_each_config(admin: KafkaAdminClient):
    # DescribeConfigs v3+ carries each config's type (Kafka's ConfigDef.Type).
    _create_topic(admin, "kp-config-types", partitions=1)
    every = admin.describe_configs([ConfigResource("TOPIC", "kp-config-types")], config_filter="all")[
        "topic"
    ]["kp-config-types"]
    types = {
        name: every[name]["config_type"]
        for name in (
            "retention.ms",
            "cleanup.policy",
            "min.insync.replicas",
            "unclean.leader.election.enable",
            "compression.type",
            "min.cleanable.dirty.ratio",
        )
    }
    assert types == {
        "retention.ms": "LONG",
        "cleanup.policy": "LIST",
        "min.insync.replicas": "INT",
        "unclean.leader.election.enable": "BOOLEAN",
        "compression.type": "STRING",
        "min.cleanable.dirty.ratio": "DOUBLE",
    }


def test_incremental_alter_configs_sets_and_deletes_configs_read_back_by_describe(admin: KafkaAdminClient):
    _create_topic(admin, "kp-alter", partitions=1, configs={"retention.ms": "3600000"})

    answer = admin.alter_configs(
        [
            ConfigResource(
                "TOPIC", "kp-alter", configs={"retention.ms": "7200000", "cleanup.policy": "compact"}
            )
        ],
        incremental=True,
    )
    assert answer == {"topic": {"kp-alter": "OK"}}
    modified = admin.describe_configs([ConfigResource("TOPIC", "kp-alter")])["topic"]["kp-alter"]
    assert {name: (c["value"], c["config_source"]) for name, c in modified.items()} == {
        "retention.ms": ("7200000", "DYNAMIC_TOPIC_CONFIG"),
        "cleanup.policy": ("compact", "DYNAMIC_TOPIC_CONFIG"),
    }

    answer = admin.alter_configs(
        [ConfigResource("TOPIC", "kp-alter", configs={"cleanup.policy": (AlterConfigOp.DELETE, None)})],
        incremental=True,
    )
    assert answer == {"topic": {"kp-alter": "OK"}}
    modified = admin.describe_configs([ConfigResource("TOPIC", "kp-alter")])["topic"]["kp-alter"]
    assert {name: c["value"] for name, c in modified.items()} == {"retention.ms": "7200000"}
    every = admin.describe_configs([ConfigResource("TOPIC", "kp-alter")], config_filter="all")["topic"][
        "kp-alter"
    ]
    assert (every["cleanup.policy"]["value"], every["cleanup.policy"]["config_source"]) == (
        "delete",
        "DEFAULT_CONFIG",
    )


def test_create_partitions_grows_the_topic_to_five_led_partitions(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    _create_topic(admin, "kp-grow")
    response = admin.create_partitions({"kp-grow": 5})
    assert [(r.name, r.error_code, r.error_message) for r in response.results] == [("kp-grow", 0, None)]

    def five_led() -> bool:
        (topic,) = admin.describe_topics(["kp-grow"])
        return len(topic["partitions"]) == 5 and all(
            p["leader_id"] in kafka_cluster.broker_ids for p in topic["partitions"]
        )

    _wait_for(five_led, "kp-grow to have 5 partitions with leaders")
    (topic,) = admin.describe_topics(["kp-grow"])
    partitions = sorted(topic["partitions"], key=lambda p: p["partition_index"])
    assert [p["partition_index"] for p in partitions] == [0, 1, 2, 3, 4]
    assert all(sorted(p["replica_nodes"]) == sorted(kafka_cluster.broker_ids) for p in partitions)

    (meta,) = _produce(
        kafka_cluster.kafka_bootstrap_servers,
        "kp-grow",
        [(4, b"k", b"to the new partition", [], BASE_TIMESTAMP_MS)],
    )
    assert (meta.topic, meta.partition, meta.offset, meta.timestamp) == ("kp-grow", 4, 0, BASE_TIMESTAMP_MS)


def test_describe_cluster_lists_the_three_brokers_on_their_kafka_ports(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    cluster = admin.describe_cluster()
    assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"]
    assert cluster["controller_id"] in kafka_cluster.broker_ids
    brokers = sorted(cluster["brokers"], key=lambda b: b["broker_id"])
    assert [(b["broker_id"], b["host"], b["port"], b["rack"]) for b in brokers] == [
        (broker_id, "127.0.0.1", port, None)
        for broker_id, port in sorted(_kafka_ports(kafka_cluster).items())
    ]


def test_list_offsets_answers_earliest_latest_by_timestamp_and_max_timestamp(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    _create_topic(admin, "kp-offsets", partitions=1)
    # Record 7 has the largest timestamp; the others increase by 10 ms.
    timestamps = [BASE_TIMESTAMP_MS + 10 * i for i in range(10)]
    timestamps[7] = BASE_TIMESTAMP_MS + 100_000
    _produce(
        kafka_cluster.kafka_bootstrap_servers,
        "kp-offsets",
        [(0, b"k%d" % i, b"v%d" % i, [], ts) for i, ts in enumerate(timestamps)],
    )
    tp = TopicPartition("kp-offsets", 0)

    def offset(spec: int) -> tuple[int, int]:
        answer = admin.list_partition_offsets({tp: spec})[tp]
        return answer.offset, answer.timestamp

    assert offset(OffsetSpec.EARLIEST) == (0, -1)
    assert offset(OffsetSpec.LATEST) == (10, -1)
    assert offset(BASE_TIMESTAMP_MS + 35) == (4, BASE_TIMESTAMP_MS + 40)
    assert offset(BASE_TIMESTAMP_MS + 90) == (7, BASE_TIMESTAMP_MS + 100_000)
    assert offset(OffsetSpec.MAX_TIMESTAMP) == (7, BASE_TIMESTAMP_MS + 100_000)


def test_delete_records_moves_the_low_watermark(admin: KafkaAdminClient, kafka_cluster: LocalCluster):
    _create_topic(admin, "kp-trim", partitions=1)
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    _produce(
        bootstrap, "kp-trim", [(0, b"k%d" % i, b"v%d" % i, [], BASE_TIMESTAMP_MS + i) for i in range(10)]
    )
    tp = TopicPartition("kp-trim", 0)

    answer = admin.delete_records({tp: 4})
    assert {key: (value["low_watermark"], value["error_code"]) for key, value in answer.items()} == {
        tp: (4, 0)
    }
    assert admin.list_partition_offsets({tp: OffsetSpec.EARLIEST})[tp].offset == 4
    assert admin.list_partition_offsets({tp: OffsetSpec.LATEST})[tp].offset == 10

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    try:
        consumer.assign([tp])
        assert consumer.beginning_offsets([tp]) == {tp: 4}
        assert consumer.end_offsets([tp]) == {tp: 10}
        consumer.seek_to_beginning(tp)
        records = _poll_records(consumer, 6)
        assert [(r.offset, r.key, r.value, r.timestamp) for r in records] == [
            (i, b"k%d" % i, b"v%d" % i, BASE_TIMESTAMP_MS + i) for i in range(4, 10)
        ]
    finally:
        consumer.close()


def test_delete_topics_removes_the_topic_from_metadata(admin: KafkaAdminClient):
    _create_topic(admin, "kp-doomed", partitions=2)
    answer = admin.delete_topics(["kp-doomed"])
    assert [(t["name"], t["error_code"]) for t in answer["topics"]] == [("kp-doomed", 0)]
    _wait_for(lambda: "kp-doomed" not in admin.list_topics(), "kp-doomed to leave the topic list")


def test_produced_records_are_consumed_by_a_group_with_exact_keys_values_headers_and_timestamps(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    _create_topic(admin, "kp-records")
    sent = [
        (
            i % 3,
            f"key-{i}".encode(),
            b"value-%d-\x00\xff" % i,
            [("seq", str(i).encode()), ("bytes", bytes([i, 0, 255])), ("seq", b"again")],
            BASE_TIMESTAMP_MS + 1000 * i,
        )
        for i in range(30)
    ]
    metas = _produce(bootstrap, "kp-records", sent)
    assert [(m.topic, m.partition, m.timestamp) for m in metas] == [("kp-records", s[0], s[4]) for s in sent]
    for partition in range(3):
        assert sorted(m.offset for m in metas if m.partition == partition) == list(range(10))
    expected = sorted(
        (m.partition, m.offset, key, value, headers, ts, 0)
        for m, (_, key, value, headers, ts) in zip(metas, sent, strict=True)
    )

    consumer = KafkaConsumer(
        "kp-records",
        bootstrap_servers=bootstrap,
        group_id="kp-records-group",
        client_id="kp-records-reader",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
    )
    tps = [TopicPartition("kp-records", p) for p in range(3)]
    try:
        records = _poll_records(consumer, len(sent))
        assert sorted(_view(r) for r in records) == expected
        for tp in tps:
            offsets = [r.offset for r in records if r.partition == tp.partition]
            assert offsets == list(range(10)), "a partition's records arrive in offset order"

        consumer.commit()
        assert {tp: consumer.committed(tp) for tp in tps} == {tp: 10 for tp in tps}
        assert consumer.end_offsets(tps) == {tp: 10 for tp in tps}
        committed = admin.list_group_offsets({"kp-records-group": None})["kp-records-group"]
        assert {tp: (o.offset, o.metadata) for tp, o in committed.items()} == {tp: (10, "") for tp in tps}

        # A commit's metadata and leader epoch come back as committed.
        consumer.commit({tps[0]: OffsetAndMetadata(7, "checkpoint-7", 0)})
        assert consumer.committed(tps[0], metadata=True) == OffsetAndMetadata(7, "checkpoint-7", 0)
        committed = admin.list_group_offsets({"kp-records-group": None})["kp-records-group"]
        assert committed[tps[0]] == OffsetAndMetadata(7, "checkpoint-7", 0)

        (group,) = [g for g in admin.list_groups() if g["group_id"] == "kp-records-group"]
        assert (group["protocol_type"], group["group_state"]) == ("consumer", "Stable")
        description = admin.describe_groups(["kp-records-group"])["kp-records-group"]
        assert (description["group_state"], description["protocol_type"], description["error"]) == (
            "Stable",
            "consumer",
            None,
        )
        (member,) = description["members"]
        assert (member["client_id"], member["group_instance_id"]) == ("kp-records-reader", None)
        assert member["member_metadata"]["topics"] == ["kp-records"]
        assert member["member_assignment"]["assigned_partitions"] == [
            {"topic": "kp-records", "partitions": [0, 1, 2]}
        ]
    finally:
        consumer.close()


def test_a_member_host_and_an_emptied_group_protocol_type(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    # Kafka records a member's client host as its address with a leading slash ("/127.0.0.1"),
    # and its ClassicGroup keeps protocolType when its last member leaves (initNextGeneration
    # clears only the protocol name): DescribeGroups and ListGroups still answer "consumer".
    _create_topic(admin, "kp-host", partitions=1)
    consumer = KafkaConsumer(
        "kp-host",
        bootstrap_servers=kafka_cluster.kafka_bootstrap_servers,
        group_id="kp-host-group",
        enable_auto_commit=False,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
    )
    try:
        deadline = time.monotonic() + 30
        while not consumer.assignment():
            assert time.monotonic() < deadline, "the consumer never got an assignment"
            consumer.poll(timeout_ms=POLL_TIMEOUT_MS)
        (member,) = admin.describe_groups(["kp-host-group"])["kp-host-group"]["members"]
        assert member["client_host"] == "/127.0.0.1"
    finally:
        consumer.close()
    description = admin.describe_groups(["kp-host-group"])["kp-host-group"]
    assert (description["group_state"], description["protocol_type"]) == ("Empty", "consumer")
    (listed,) = [g for g in admin.list_groups() if g["group_id"] == "kp-host-group"]
    assert (listed["group_state"], listed["protocol_type"]) == ("Empty", "consumer")


def test_an_emptied_group_is_described_then_deleted_with_its_offsets(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    _create_topic(admin, "kp-group-life", partitions=1)
    _produce(
        bootstrap, "kp-group-life", [(0, b"k%d" % i, b"v%d" % i, [], BASE_TIMESTAMP_MS + i) for i in range(3)]
    )
    tp = TopicPartition("kp-group-life", 0)
    consumer = KafkaConsumer(
        "kp-group-life",
        bootstrap_servers=bootstrap,
        group_id="kp-life-group",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
    )
    try:
        assert [r.offset for r in _poll_records(consumer, 3)] == [0, 1, 2]
        consumer.commit()
    finally:
        consumer.close()
    committed = admin.list_group_offsets({"kp-life-group": None})["kp-life-group"]
    assert {key: (o.offset, o.metadata) for key, o in committed.items()} == {tp: (3, "")}

    # Every member left: the group is Empty.
    description = admin.describe_groups(["kp-life-group"])["kp-life-group"]
    assert (
        description["group_state"],
        description["protocol_data"],
        description["members"],
        description["error"],
    ) == ("Empty", "", [], None)
    (listed,) = [g for g in admin.list_groups() if g["group_id"] == "kp-life-group"]
    assert listed["group_state"] == "Empty"

    assert admin.delete_groups(["kp-life-group"]) == {"kp-life-group": "OK"}
    assert "kp-life-group" not in [g["group_id"] for g in admin.list_groups()]
    assert admin.list_group_offsets({"kp-life-group": None}) == {"kp-life-group": {}}
    description = admin.describe_groups(["kp-life-group"])["kp-life-group"]
    # DescribeGroups v6 (KIP-1043): a group that is gone is Dead and GROUP_ID_NOT_FOUND
    assert (description["group_state"], description["members"]) == ("Dead", [])
    assert "GroupIdNotFoundError" in description["error"]


def test_a_second_member_joins_and_the_partitions_are_split_between_the_two(
    admin: KafkaAdminClient, kafka_cluster: LocalCluster
):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    _create_topic(admin, "kp-split")
    all_tps = {TopicPartition("kp-split", p) for p in range(3)}

    def member(name: str) -> KafkaConsumer:
        return KafkaConsumer(
            "kp-split",
            bootstrap_servers=bootstrap,
            group_id="kp-split-group",
            client_id=name,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            request_timeout_ms=REQUEST_TIMEOUT_MS,
        )

    def poll_until(
        consumers: list[KafkaConsumer], check: Callable[[], bool], what: str, timeout_s: float = 40
    ) -> None:
        deadline = time.monotonic() + timeout_s
        while not check():
            assert time.monotonic() < deadline, f"timed out waiting for {what}: " + ", ".join(
                f"{c.config['client_id']}={sorted(tp.partition for tp in c.assignment())}" for c in consumers
            )
            for c in consumers:
                c.poll(timeout_ms=POLL_TIMEOUT_MS)

    first = member("kp-split-1")
    second = None
    try:
        poll_until([first], lambda: first.assignment() == all_tps, "the first member to own every partition")
        second = member("kp-split-2")
        poll_until(
            [first, second],
            lambda: (
                bool(first.assignment())
                and bool(second.assignment())
                and not first.assignment() & second.assignment()
                and first.assignment() | second.assignment() == all_tps
            ),
            "the two members to split the partitions",
        )
        assert sorted([len(first.assignment()), len(second.assignment())]) == [1, 2]

        description = admin.describe_groups(["kp-split-group"])["kp-split-group"]
        assert (description["group_state"], description["protocol_type"], description["protocol_data"]) == (
            "Stable",
            "consumer",
            "range",
        )
        described = {
            m["client_id"]: m["member_assignment"]["assigned_partitions"] for m in description["members"]
        }
        assert described == {
            "kp-split-1": [
                {"topic": "kp-split", "partitions": sorted(tp.partition for tp in first.assignment())}
            ],
            "kp-split-2": [
                {"topic": "kp-split", "partitions": sorted(tp.partition for tp in second.assignment())}
            ],
        }

        # The second member leaves: the first one gets every partition back.
        second.close()
        second = None
        poll_until(
            [first], lambda: first.assignment() == all_tps, "the first member to own every partition again"
        )
        (remaining,) = admin.describe_groups(["kp-split-group"])["kp-split-group"]["members"]
        assert remaining["client_id"] == "kp-split-1"
    finally:
        if second is not None:
            second.close()
        first.close()
