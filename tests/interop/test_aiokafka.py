"""aiokafka (0.14) against the Kafka-protocol listener of a 3-broker cluster: the idempotent
producer (``send_and_wait``, ``send_batch``), the group consumer (``getmany``, ``commit``,
``committed``, seeks, ``beginning_offsets``/``end_offsets``, ``offsets_for_times``, a second
member splitting the partitions) and ``AIOKafkaAdminClient`` (topics, configs, partitions,
records, groups).

Every test uses its own topic and group on the module's ``kafka_cluster``, starts its clients
in ``try``/``finally`` and bounds every loop by a deadline.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic, RecordsToDelete
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.coordinator.protocol import ConsumerProtocol
from aiokafka.structs import ConsumerRecord, OffsetAndMetadata, OffsetAndTimestamp

from kafkette.client import LocalCluster
from kafkette.protocol.record_batch import BatchHeader, iter_batches
from tests.cluster_helpers import partition_dir

BASE_TIMESTAMP_MS = 1_700_000_000_000
REQUEST_TIMEOUT_MS = 15_000
CONFIG_SOURCE_DYNAMIC_TOPIC = 1
CONFIG_SOURCE_DEFAULT = 5


@asynccontextmanager
async def _admin(cluster: LocalCluster) -> AsyncIterator[AIOKafkaAdminClient]:
    """A started AIOKafkaAdminClient on the Kafka listeners, closed on exit."""
    admin = AIOKafkaAdminClient(
        bootstrap_servers=cluster.kafka_bootstrap_servers, request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    await admin.start()
    try:
        yield admin
    finally:
        await admin.close()


async def _wait_for(predicate: Callable[[], Awaitable[bool]], what: str, timeout_s: float = 20) -> None:
    """Await ``predicate`` every 0.1 s until true; fail the test after ``timeout_s`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not await predicate():
        assert loop.time() < deadline, f"timed out after {timeout_s} s waiting for {what}"
        await asyncio.sleep(0.1)


async def _describe_topic(admin: AIOKafkaAdminClient, topic: str) -> dict:
    (described,) = await admin.describe_topics([topic])
    return described


async def _create_topic(
    admin: AIOKafkaAdminClient, topic: str, partitions: int = 3, configs: dict[str, str] | None = None
):
    """Create ``topic`` (replication factor 3), wait until every partition has a leader; the
    CreateTopics answer."""
    response = await admin.create_topics([NewTopic(topic, partitions, 3, topic_configs=configs or {})])

    async def led() -> bool:
        described = await _describe_topic(admin, topic)
        return (
            described["error_code"] == 0
            and len(described["partitions"]) == partitions
            and all(p["leader"] >= 0 for p in described["partitions"])
        )

    await _wait_for(led, f"{topic} to have {partitions} led partitions")
    return response


async def _consume(consumer: AIOKafkaConsumer, count: int, timeout_s: float = 30) -> list[ConsumerRecord]:
    """``getmany`` until ``count`` records arrived (bounded by ``timeout_s`` seconds)."""
    records: list[ConsumerRecord] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while len(records) < count:
        assert loop.time() < deadline, f"consumed {len(records)} of {count} records in {timeout_s} s"
        for batch in (await consumer.getmany(timeout_ms=200)).values():
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


def _stored_batches(cluster: LocalCluster, broker_id: int, tp: TopicPartition) -> list[BatchHeader]:
    """The batch headers of ``tp``'s log on ``broker_id``, oldest first (read from its segment files)."""
    directory = partition_dir(cluster, broker_id, tp)
    headers: list[BatchHeader] = []
    for segment in sorted(directory.glob("*.log"), key=lambda p: int(p.stem)):
        headers.extend(header for _, header in iter_batches(segment.read_bytes()))
    return headers


async def test_admin_creates_a_topic_with_a_config_and_describes_topic_configs_and_cluster(
    kafka_cluster: LocalCluster,
):
    async with _admin(kafka_cluster) as admin:
        response = await _create_topic(admin, "ak-admin", configs={"retention.ms": "3600000"})
        assert [tuple(t) for t in response.topic_errors] == [("ak-admin", 0, None)]
        assert "ak-admin" in await admin.list_topics()

        described = await _describe_topic(admin, "ak-admin")
        assert (described["topic"], described["error_code"], described["is_internal"]) == (
            "ak-admin",
            0,
            False,
        )
        partitions = sorted(described["partitions"], key=lambda p: p["partition"])
        assert [p["partition"] for p in partitions] == [0, 1, 2]
        for p in partitions:
            assert (p["error_code"], p["offline_replicas"]) == (0, [])
            assert sorted(p["replicas"]) == sorted(kafka_cluster.broker_ids)
            assert sorted(p["isr"]) == sorted(kafka_cluster.broker_ids)
            assert p["leader"] == p["replicas"][0]

        (answer,) = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "ak-admin")])
        (resource,) = answer.resources
        error_code, error_message, resource_type, resource_name, entries = resource[:5]
        # Kafka's answer on success carries the empty error message, not null (ConfigHelper).
        assert (error_code, error_message, resource_type, resource_name) == (
            0,
            "",
            ConfigResourceType.TOPIC,
            "ak-admin",
        )
        by_name = {entry[0]: entry for entry in entries}
        # (name, value, read_only, config_source, is_sensitive, synonyms)
        assert tuple(by_name["retention.ms"][:5]) == (
            "retention.ms",
            "3600000",
            False,
            CONFIG_SOURCE_DYNAMIC_TOPIC,
            False,
        )
        assert tuple(by_name["cleanup.policy"][:5]) == (
            "cleanup.policy",
            "delete",
            False,
            CONFIG_SOURCE_DEFAULT,
            False,
        )
        assert len(by_name) == len(entries), "each config is described once"

        (answer,) = await admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, "ak-admin", configs={"retention.ms": None})]
        )
        (resource,) = answer.resources
        assert [entry[:2] for entry in resource[4]] == [("retention.ms", "3600000")]

        cluster = await admin.describe_cluster()
        ports = [
            int(address.rsplit(":", 1)[1]) for address in kafka_cluster.kafka_bootstrap_servers.split(",")
        ]
        assert sorted((b["node_id"], b["host"], b["port"]) for b in cluster["brokers"]) == [
            (broker_id, "127.0.0.1", port)
            for broker_id, port in zip(kafka_cluster.broker_ids, ports, strict=True)
        ]
        assert cluster["controller_id"] in kafka_cluster.broker_ids
        assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"]


async def test_admin_deletes_a_topic(kafka_cluster: LocalCluster):
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-doomed", partitions=2)
        response = await admin.delete_topics(["ak-doomed"])
        assert [tuple(t[:2]) for t in response.topic_error_codes] == [("ak-doomed", 0)]

        async def gone() -> bool:
            return "ak-doomed" not in await admin.list_topics()

        await _wait_for(gone, "ak-doomed to leave the topic list")


async def test_admin_creates_partitions_and_deletes_records(kafka_cluster: LocalCluster):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-trim", partitions=1)
        response = await admin.create_partitions({"ak-trim": NewPartitions(total_count=2)})
        assert [tuple(r[:2]) for r in response.topic_errors] == [("ak-trim", 0)]

        async def two_led() -> bool:
            described = await _describe_topic(admin, "ak-trim")
            return len(described["partitions"]) == 2 and all(
                p["leader"] >= 0 for p in described["partitions"]
            )

        await _wait_for(two_led, "ak-trim to have 2 led partitions")

        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap, acks="all", request_timeout_ms=REQUEST_TIMEOUT_MS
        )
        await producer.start()
        try:
            for i in range(10):
                await producer.send_and_wait(
                    "ak-trim", b"v%d" % i, key=b"k%d" % i, partition=0, timestamp_ms=BASE_TIMESTAMP_MS + i
                )
            meta = await producer.send_and_wait(
                "ak-trim", b"second", partition=1, timestamp_ms=BASE_TIMESTAMP_MS
            )
            assert (meta.partition, meta.offset) == (1, 0)
        finally:
            await producer.stop()

        tp = TopicPartition("ak-trim", 0)
        assert await admin.delete_records({tp: RecordsToDelete(before_offset=4)}) == {tp: 4}

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    await consumer.start()
    try:
        consumer.assign([tp])
        assert await consumer.beginning_offsets([tp]) == {tp: 4}
        assert await consumer.end_offsets([tp]) == {tp: 10}
        await consumer.seek_to_beginning(tp)
        records = await _consume(consumer, 6)
        assert [(r.offset, r.key, r.value, r.timestamp) for r in records] == [
            (i, b"k%d" % i, b"v%d" % i, BASE_TIMESTAMP_MS + i) for i in range(4, 10)
        ]
    finally:
        await consumer.stop()


async def test_idempotent_send_and_wait_and_send_batch_are_read_back_exactly(kafka_cluster: LocalCluster):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    tp = TopicPartition("ak-idempotent", 0)
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-idempotent", partitions=1)
        leader = (await _describe_topic(admin, "ak-idempotent"))["partitions"][0]["leader"]

    sent = [
        (
            f"key-{i}".encode(),
            b"value-%d-\x00\xff" % i,
            [("seq", str(i).encode()), ("null", None)],
            BASE_TIMESTAMP_MS + 10 * i,
        )
        for i in range(10)
    ]
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, enable_idempotence=True, request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    await producer.start()
    try:
        metas = []
        for key, value, headers, timestamp_ms in sent[:5]:
            metas.append(
                await producer.send_and_wait(
                    "ak-idempotent", value, key=key, partition=0, headers=headers, timestamp_ms=timestamp_ms
                )
            )
        assert [(m.topic, m.partition, m.offset, m.timestamp, m.timestamp_type) for m in metas] == [
            ("ak-idempotent", 0, i, sent[i][3], 0) for i in range(5)
        ]

        batch = producer.create_batch()
        for key, value, headers, timestamp_ms in sent[5:]:
            assert batch.append(key=key, value=value, timestamp=timestamp_ms, headers=headers) is not None
        batch.close()
        batch_meta = await asyncio.wait_for(
            await producer.send_batch(batch, "ak-idempotent", partition=0), 30
        )
        assert (batch_meta.partition, batch_meta.offset) == (0, 5)
    finally:
        await producer.stop()

    # Idempotence: every batch carries the producer id, epoch 0 and its first record's sequence.
    batches = _stored_batches(kafka_cluster, leader, tp)
    assert [(h.base_offset, h.records_count) for h in batches] == [
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 5),
    ]
    producer_ids = {h.producer_id for h in batches}
    assert len(producer_ids) == 1 and min(producer_ids) >= 0, f"producer ids {producer_ids}"
    assert [(h.producer_epoch, h.base_sequence) for h in batches] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (0, 5),
    ]

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    await consumer.start()
    try:
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        records = await _consume(consumer, 10)
        assert [_view(r) for r in records] == [
            (0, i, key, value, headers, timestamp_ms, 0)
            for i, (key, value, headers, timestamp_ms) in enumerate(sent)
        ]
    finally:
        await consumer.stop()


async def test_group_consumer_getmany_commit_and_committed_match_what_was_consumed(
    kafka_cluster: LocalCluster,
):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    group = "ak-group"
    tps = [TopicPartition("ak-group-topic", p) for p in range(3)]
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-group-topic")
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap, acks="all", linger_ms=5, request_timeout_ms=REQUEST_TIMEOUT_MS
        )
        await producer.start()
        try:
            futures = [
                await producer.send(
                    "ak-group-topic",
                    b"value-%d" % i,
                    key=b"key-%d" % i,
                    partition=i % 3,
                    headers=[("seq", str(i).encode())],
                    timestamp_ms=BASE_TIMESTAMP_MS + i,
                )
                for i in range(30)
            ]
            metas = await asyncio.wait_for(asyncio.gather(*futures), 30)
        finally:
            await producer.stop()
        expected = sorted(
            (
                m.partition,
                m.offset,
                b"key-%d" % i,
                b"value-%d" % i,
                [("seq", str(i).encode())],
                BASE_TIMESTAMP_MS + i,
                0,
            )
            for i, m in enumerate(metas)
        )
        assert sorted((m.partition, m.offset) for m in metas) == [(p, o) for p in range(3) for o in range(10)]

        consumer = AIOKafkaConsumer(
            "ak-group-topic",
            bootstrap_servers=bootstrap,
            group_id=group,
            client_id="ak-group-reader",
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            request_timeout_ms=REQUEST_TIMEOUT_MS,
        )
        await consumer.start()
        try:
            records = await _consume(consumer, 30)
            assert sorted(_view(r) for r in records) == expected
            await consumer.commit()
            assert {tp: await consumer.committed(tp) for tp in tps} == {tp: 10 for tp in tps}
            assert await admin.list_consumer_group_offsets(group) == {
                tp: OffsetAndMetadata(10, "") for tp in tps
            }

            await consumer.commit({tps[1]: OffsetAndMetadata(4, "checkpoint-4")})
            assert await consumer.committed(tps[1]) == 4
            offsets = await admin.list_consumer_group_offsets(group)
            assert offsets[tps[1]] == OffsetAndMetadata(4, "checkpoint-4")

            assert (group, "consumer") in await admin.list_consumer_groups()
            (response,) = await admin.describe_consumer_groups([group])
            (described,) = response.groups
            error_code, group_id, state, protocol_type, protocol, members = described[:6]
            assert (error_code, group_id, state, protocol_type, protocol) == (
                0,
                group,
                "Stable",
                "consumer",
                "roundrobin",
            )
            (member,) = members
            member_id, client_id, _client_host, metadata, assignment = member[:5]
            assert client_id == "ak-group-reader"
            assert ConsumerProtocol.METADATA.decode(metadata).subscription == ["ak-group-topic"]
            assert sorted(ConsumerProtocol.ASSIGNMENT.decode(assignment).partitions()) == tps
        finally:
            await consumer.stop()

        # The only member left: the group is empty and keeps its committed offsets.
        (response,) = await admin.describe_consumer_groups([group])
        (described,) = response.groups
        assert (described[0], described[2], list(described[5])) == (0, "Empty", [])
        assert (await admin.list_consumer_group_offsets(group))[tps[0]] == OffsetAndMetadata(10, "")


async def test_seeks_beginning_and_end_offsets_and_offsets_for_times(kafka_cluster: LocalCluster):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    tp = TopicPartition("ak-seek", 0)
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-seek", partitions=1)
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", request_timeout_ms=REQUEST_TIMEOUT_MS
    )
    await producer.start()
    try:
        for i in range(10):
            await producer.send_and_wait(
                "ak-seek", b"v%d" % i, partition=0, timestamp_ms=BASE_TIMESTAMP_MS + 10 * i
            )
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id="ak-seek-group",
        enable_auto_commit=False,
        auto_offset_reset="latest",
        request_timeout_ms=REQUEST_TIMEOUT_MS,
    )
    await consumer.start()
    try:
        consumer.assign([tp])
        assert await consumer.committed(tp) is None
        assert await consumer.position(tp) == 10, "no committed offset: auto_offset_reset=latest"
        assert await consumer.beginning_offsets([tp]) == {tp: 0}
        assert await consumer.end_offsets([tp]) == {tp: 10}
        assert await consumer.offsets_for_times({tp: BASE_TIMESTAMP_MS + 35}) == {
            tp: OffsetAndTimestamp(4, BASE_TIMESTAMP_MS + 40)
        }
        assert await consumer.offsets_for_times({tp: BASE_TIMESTAMP_MS}) == {
            tp: OffsetAndTimestamp(0, BASE_TIMESTAMP_MS)
        }
        assert await consumer.offsets_for_times({tp: BASE_TIMESTAMP_MS + 91}) == {tp: None}

        await consumer.seek_to_beginning(tp)
        assert await consumer.position(tp) == 0
        records = await _consume(consumer, 10)
        assert [(r.offset, r.value, r.timestamp) for r in records] == [
            (i, b"v%d" % i, BASE_TIMESTAMP_MS + 10 * i) for i in range(10)
        ]

        consumer.seek(tp, 7)
        assert [(r.offset, r.value) for r in await _consume(consumer, 3)] == [
            (7, b"v7"),
            (8, b"v8"),
            (9, b"v9"),
        ]
        await consumer.commit({tp: 6})
        assert await consumer.committed(tp) == 6
    finally:
        await consumer.stop()


async def test_a_second_member_joins_and_the_partitions_are_split_between_the_two(
    kafka_cluster: LocalCluster,
):
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    all_tps = {TopicPartition("ak-split", p) for p in range(3)}
    async with _admin(kafka_cluster) as admin:
        await _create_topic(admin, "ak-split")

        def member(name: str) -> AIOKafkaConsumer:
            return AIOKafkaConsumer(
                "ak-split",
                bootstrap_servers=bootstrap,
                group_id="ak-split-group",
                client_id=name,
                enable_auto_commit=False,
                request_timeout_ms=REQUEST_TIMEOUT_MS,
            )

        async def poll_until(
            consumers: list[AIOKafkaConsumer], check: Callable[[], bool], what: str, timeout_s: float = 40
        ) -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout_s
            while not check():
                assert loop.time() < deadline, f"timed out waiting for {what}: " + ", ".join(
                    str(sorted(tp.partition for tp in c.assignment())) for c in consumers
                )
                await asyncio.gather(*(c.getmany(timeout_ms=100) for c in consumers))

        first, second = member("ak-split-1"), member("ak-split-2")
        await first.start()
        try:
            await poll_until(
                [first], lambda: first.assignment() == all_tps, "the first member to own every partition"
            )
            await second.start()
            try:
                await poll_until(
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
                (response,) = await admin.describe_consumer_groups(["ak-split-group"])
                (described,) = response.groups
                assert described[2] == "Stable"
                assignments = {
                    m[1]: sorted(ConsumerProtocol.ASSIGNMENT.decode(m[4]).partitions()) for m in described[5]
                }
                assert assignments == {
                    "ak-split-1": sorted(first.assignment()),
                    "ak-split-2": sorted(second.assignment()),
                }
            finally:
                await second.stop()
            await poll_until(
                [first],
                lambda: first.assignment() == all_tps,
                "the first member to own every partition again",
            )
        finally:
            await first.stop()
