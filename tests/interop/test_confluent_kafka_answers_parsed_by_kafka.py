"""Every answer Kafkette gives a real client, parsed by Apache Kafka's own classes: confluent-kafka
(librdkafka) runs a representative workload against a 3-broker Kafkette through a recording proxy
(``tests.conformance.recording_proxy``, the brokers' Kafka listeners advertised at the proxy's
ports), and each recorded answer goes to ``kafka_parser``'s Java program: it must parse with
``AbstractResponse.parseResponse`` at its API version, write back to the same bytes and, for a
Fetch answer, carry record batches that pass ``RecordBatch.ensureValid``.  The conformance run
does the same for its raw connections; these are the request shapes only librdkafka sends.

The workload: the admin client's topic creation, topic and cluster descriptions, configs (topic
and broker, incremental alter), an idempotent producer with acks=all and zstd, a classic
consumer group (subscribe, poll, synchronous commit, committed offsets, watermarks, offsets by
timestamp), a KIP-848 consumer group (``group.protocol=consumer``), an assignment past the log
end reset by ``auto.offset.reset`` (a Fetch answer with a partition in error), and the groups'
admin view (list, describe, committed offsets, ListOffsets, DeleteRecords, DeleteGroups,
DeleteTopics).  The Kafka jars come from the Apache Kafka peer (``tests.peers.kafka_peer``);
when they cannot be resolved the test fails.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crc32c
import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupTopicPartitions,
    ElectionType,
    KafkaError,
    Producer,
    TopicCollection,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
)

from kafkette.client import LocalCluster
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header
from tests.conformance import kafka_parser
from tests.conformance.kafka_parser import api_name
from tests.conformance.recorder import AnswerRecorder
from tests.conformance.recording_proxy import HOST, RecordingProxy, advertised_listeners, split_request

pytestmark = pytest.mark.timeout(600)

TIMEOUT_S = 30
TOPIC = "ck-answers"
RESET_TOPIC = "ck-answers-reset"
CLASSIC_GROUP = "ck-answers-classic"
CONSUMER_GROUP = "ck-answers-kip848"
RECORDS = 300
BASE_TS = 1_700_000_000_000
OFFSET_OUT_OF_RANGE = 1
EXPECTED_APIS = {
    ApiKey.PRODUCE,
    ApiKey.FETCH,
    ApiKey.LIST_OFFSETS,
    ApiKey.METADATA,
    ApiKey.OFFSET_COMMIT,
    ApiKey.OFFSET_FETCH,
    ApiKey.FIND_COORDINATOR,
    ApiKey.JOIN_GROUP,
    ApiKey.SYNC_GROUP,
    ApiKey.LEAVE_GROUP,
    ApiKey.DESCRIBE_GROUPS,
    ApiKey.LIST_GROUPS,
    ApiKey.API_VERSIONS,
    ApiKey.CREATE_TOPICS,
    ApiKey.DELETE_TOPICS,
    ApiKey.DELETE_RECORDS,
    ApiKey.INIT_PRODUCER_ID,
    ApiKey.DESCRIBE_CONFIGS,
    ApiKey.DELETE_GROUPS,
    ApiKey.INCREMENTAL_ALTER_CONFIGS,
    ApiKey.CREATE_PARTITIONS,
    ApiKey.ELECT_LEADERS,
    ApiKey.CONSUMER_GROUP_HEARTBEAT,
    ApiKey.CONSUMER_GROUP_DESCRIBE,
}
"""The APIs the workload must have been answered (a proxy recording nothing passes no judgement)."""


@dataclass
class Recording:
    """The recorded pairs (``AnswerRecorder.write``'s file) and what Kafka's parser made of each."""

    path: Path
    pairs: list[dict[str, Any]]
    results: list[dict[str, Any]]


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
    assert len(got) == count, f"{len(got)} of {count} records consumed"
    return got


def _admin_topics_and_configs(admin: AdminClient, proxy: RecordingProxy) -> None:
    futures = admin.create_topics(
        [
            NewTopic(TOPIC, 3, 3, config={"retention.ms": "3600000"}),
            NewTopic(RESET_TOPIC, 1, 3),
        ],
        operation_timeout=TIMEOUT_S,
    )
    for future in futures.values():
        future.result(timeout=TIMEOUT_S)
    _wait_for_leaders(admin, TOPIC, 3)
    _wait_for_leaders(admin, RESET_TOPIC, 1)
    meta = admin.list_topics(timeout=10)
    assert {b.port for b in meta.brokers.values()} == set(proxy.ports.values()), (
        "the brokers advertise their own Kafka listeners, not the proxy: the client would bypass it"
    )
    described = admin.describe_topics(
        TopicCollection([TOPIC, RESET_TOPIC]), include_authorized_operations=True
    )
    assert {name: len(f.result(timeout=TIMEOUT_S).partitions) for name, f in described.items()} == {
        TOPIC: 3,
        RESET_TOPIC: 1,
    }
    cluster = admin.describe_cluster(include_authorized_operations=True).result(timeout=TIMEOUT_S)
    assert sorted(n.id for n in cluster.nodes) == [1, 2, 3]
    topic = ConfigResource(ConfigResource.Type.TOPIC, TOPIC)
    broker = ConfigResource(ConfigResource.Type.BROKER, "1")
    configs = admin.describe_configs([topic, broker])
    assert configs[topic].result(timeout=TIMEOUT_S)["retention.ms"].value == "3600000"
    assert configs[broker].result(timeout=TIMEOUT_S)
    alter = ConfigResource(
        ConfigResource.Type.TOPIC,
        TOPIC,
        incremental_configs=[
            ConfigEntry("retention.ms", "7200000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    admin.incremental_alter_configs([alter])[alter].result(timeout=TIMEOUT_S)


def _produce(bootstrap: str) -> None:
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "compression.type": "zstd",
            "linger.ms": 5,
        }
    )
    errors: list = []

    def on_delivery(err, _msg) -> None:
        if err:
            errors.append(err)

    for i in range(RECORDS):
        producer.produce(
            TOPIC,
            key=b"key-%d" % (i % 7),
            value=b"value-%d" % i,
            headers=[("seq", b"%d" % i), ("empty", None)] if i % 2 else None,
            timestamp=BASE_TS + i,
            on_delivery=on_delivery,
        )
        producer.poll(0)
    for i in range(10):
        producer.produce(RESET_TOPIC, value=b"v%d" % i, timestamp=BASE_TS + i, on_delivery=on_delivery)
    assert producer.flush(TIMEOUT_S) == 0, "records left undelivered"
    assert not errors, errors[:3]


def _classic_group(bootstrap: str) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": CLASSIC_GROUP,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe([TOPIC])
        got = _consume(consumer, RECORDS)
        consumer.commit(asynchronous=False)
        committed = consumer.committed([TopicPartition(TOPIC, p) for p in range(3)], timeout=TIMEOUT_S)
        assert sum(tp.offset for tp in committed) == RECORDS
        low, high = consumer.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=TIMEOUT_S)
        assert low == 0 and high == sum(1 for m in got if m.partition() == 0)
        probe = got[RECORDS // 2]
        (found,) = consumer.offsets_for_times(
            [TopicPartition(TOPIC, probe.partition(), probe.timestamp()[1])], timeout=TIMEOUT_S
        )
        assert 0 <= found.offset <= probe.offset()
    finally:
        consumer.close()


def _classic_group_resumes(bootstrap: str) -> None:
    """A member of the classic group again: it starts from the committed offsets (with their
    leader epochs, which librdkafka validates, KIP-320) and finds nothing more to read."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": CLASSIC_GROUP,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    try:
        consumer.subscribe([TOPIC])
        at_end: set[int] = set()
        deadline = time.monotonic() + TIMEOUT_S
        while len(at_end) < 3 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is not None and msg.error().code() == KafkaError._PARTITION_EOF, (
                "a record past the committed offsets"
            )
            at_end.add(msg.partition())
        assert at_end == {0, 1, 2}
    finally:
        consumer.close()


def _kip848_group(bootstrap: str) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": CONSUMER_GROUP,
            "group.protocol": "consumer",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe([TOPIC])
        _consume(consumer, RECORDS)
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def _out_of_range_reset(bootstrap: str) -> None:
    """An assignment past the log end offset (10): the Fetch answer carries the partition with
    OFFSET_OUT_OF_RANGE and librdkafka resets by ``auto.offset.reset``."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "ck-answers-reset",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(RESET_TOPIC, 0, 1000)])
        got = _consume(consumer, 10)
        assert [m.offset() for m in got] == list(range(10))
    finally:
        consumer.close()


def _admin_groups_and_offsets(admin: AdminClient) -> None:
    groups = {g.group_id for g in admin.list_consumer_groups().result(timeout=TIMEOUT_S).valid}
    assert {CLASSIC_GROUP, CONSUMER_GROUP} <= groups, groups
    described = admin.describe_consumer_groups(
        [CLASSIC_GROUP, CONSUMER_GROUP], include_authorized_operations=True
    )
    for future in described.values():
        future.result(timeout=TIMEOUT_S)
    for group in (CLASSIC_GROUP, CONSUMER_GROUP):
        offsets = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(
            timeout=TIMEOUT_S
        )
        assert sum(tp.offset for tp in offsets.topic_partitions) == RECORDS
    specs = {
        TopicPartition(TOPIC, 0): OffsetSpec.earliest(),
        TopicPartition(TOPIC, 1): OffsetSpec.latest(),
        TopicPartition(TOPIC, 2): OffsetSpec.max_timestamp(),
        TopicPartition(RESET_TOPIC, 0): OffsetSpec.for_timestamp(BASE_TS + 5),
    }
    for future in admin.list_offsets(specs).values():
        future.result(timeout=TIMEOUT_S)
    admin.delete_records([TopicPartition(RESET_TOPIC, 0, 5)])[TopicPartition(RESET_TOPIC, 0, 5)].result(
        timeout=TIMEOUT_S
    )
    rewound = ConsumerGroupTopicPartitions(CLASSIC_GROUP, [TopicPartition(TOPIC, 0, 0)])
    admin.alter_consumer_group_offsets([rewound])[CLASSIC_GROUP].result(timeout=TIMEOUT_S)
    admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(TOPIC, p) for p in range(3)]).result(
        timeout=TIMEOUT_S
    )
    admin.create_partitions([NewPartitions(RESET_TOPIC, 2)])[RESET_TOPIC].result(timeout=TIMEOUT_S)
    admin.delete_consumer_groups([CLASSIC_GROUP])[CLASSIC_GROUP].result(timeout=TIMEOUT_S)
    admin.delete_topics([RESET_TOPIC], operation_timeout=TIMEOUT_S)[RESET_TOPIC].result(timeout=TIMEOUT_S)


def _workload(bootstrap: str, proxy: RecordingProxy, recorder: AnswerRecorder) -> None:
    """Each step of the workload, its pairs labelled with the step's name (the recorder's scenario);
    the admin client is gone (its connections closed) when this returns."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    steps: list[tuple[str, Callable[..., None], tuple[Any, ...]]] = [
        ("admin-topics-configs", _admin_topics_and_configs, (admin, proxy)),
        ("idempotent-producer-zstd", _produce, (bootstrap,)),
        ("classic-group", _classic_group, (bootstrap,)),
        ("classic-group-resumes", _classic_group_resumes, (bootstrap,)),
        ("kip848-group", _kip848_group, (bootstrap,)),
        ("out-of-range-reset", _out_of_range_reset, (bootstrap,)),
        ("admin-groups-offsets", _admin_groups_and_offsets, (admin,)),
    ]
    for scenario, step, args in steps:
        recorder.scenario = scenario
        step(*args)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recording]:
    """The workload through the proxies, its pairs written as JSON lines and parsed by Kafka."""
    recorder = AnswerRecorder()
    cluster = LocalCluster(num_brokers=3, data_dir=tmp_path_factory.mktemp("answers"), kafka_protocol=True)
    upstreams = {b: (HOST, cluster.kafka_ports[b]) for b in cluster.broker_ids}
    with RecordingProxy(upstreams, recorder) as proxy:
        for b in cluster.broker_ids:
            cluster.node_configs[b] = {
                "advertised.listeners": advertised_listeners(HOST, cluster.ports[b], proxy.ports[b])
            }
        with cluster:
            _workload(proxy.bootstrap_servers(), proxy, recorder)
        assert not proxy.problems, proxy.problems[:5]
    path = recorder.write(tmp_path_factory.mktemp("answers-pairs") / "confluent-kafka.jsonl", "kafkette")
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    yield Recording(path, pairs, kafka_parser.parse([path]))


def _coverage(results: list[dict[str, Any]]) -> str:
    """One line per API: its name and key, then each version with how many answers it had."""
    counts: dict[int, Counter[int]] = defaultdict(Counter)
    for r in results:
        counts[r["api_key"]][r["api_version"]] += 1
    return "\n".join(
        f"{api_name(key):28} {key:3}  " + ", ".join(f"v{v} x{n}" for v, n in sorted(counts[key].items()))
        for key in sorted(counts)
    )


def test_every_answer_to_confluent_kafka_parses_with_kafkas_classes(recording):
    results = recording.results
    assert len(results) == len(recording.pairs) > 0
    print(f"\n{len(results)} answers to confluent-kafka, by API and version:\n{_coverage(results)}")
    failures = [
        f"{r['scenario']} #{r['seq']} {api_name(r['api_key'])} v{r['api_version']}: {r['error']}"
        for r in results
        if not r["ok"]
    ]
    assert not failures, f"{len(failures)} answers Kafka's parser refuses:\n" + "\n".join(failures[:20])
    missing = sorted(api_name(k) for k in EXPECTED_APIS - {r["api_key"] for r in results})
    assert not missing, f"the workload was never answered {missing}"

    fetches = [r for r in results if r["api_key"] == ApiKey.FETCH]
    assert any(
        p["errorCode"] == OFFSET_OUT_OF_RANGE
        for r in fetches
        for t in r["parsed"]["responses"]
        for p in t["partitions"]
    ), "no Fetch answer had a partition with OFFSET_OUT_OF_RANGE"
    batches = [b for r in fetches for b in r.get("batches", [])]
    assert any(b["compression"] == "zstd" and b["producer_id"] >= 0 for b in batches), (
        "no Fetch answer carried the idempotent producer's zstd batches"
    )


def _with_response(pair: dict[str, Any], frame: bytes, scenario: str) -> dict[str, Any]:
    return {**pair, "scenario": scenario, "response": base64.b64encode(frame).decode()}


def _batch_crc_offset(frame: bytes, base_offset: int) -> int:
    """Where the CRC of the record batch at ``base_offset`` sits in a Fetch answer's frame: after
    its baseOffset (int64), batchLength (int32), partitionLeaderEpoch (int32) and magic 2, the
    one place where that CRC-32C is the checksum of the batchLength - 9 bytes after it."""
    for found in re.finditer(
        b"(?=" + re.escape(struct.pack(">q", base_offset)) + b".{8}\x02)", frame, re.DOTALL
    ):
        start = found.start()
        (length,) = struct.unpack_from(">i", frame, start + 8)
        (crc,) = struct.unpack_from(">I", frame, start + 17)
        end = start + 12 + length
        if 9 <= length and end <= len(frame) and crc32c.crc32c(frame[start + 21 : end]) == crc:
            return start + 17
    raise AssertionError(f"no record batch at offset {base_offset} in the frame")


def test_kafkas_parser_reports_a_corrupted_recorded_answer(recording, tmp_path):
    """The judgement above fails on a malformed answer: recorded answers, each corrupted one way
    (a byte too many, a byte too few, a record batch's CRC flipped), are refused by Kafka's
    parser while the same answers as recorded pass."""
    by_key = {r["api_key"]: r for r in recording.results if r["ok"]}
    pairs = {(p["scenario"], p["seq"]): p for p in recording.pairs}
    metadata = pairs[(by_key[ApiKey.METADATA]["scenario"], by_key[ApiKey.METADATA]["seq"])]
    offsets = pairs[(by_key[ApiKey.LIST_OFFSETS]["scenario"], by_key[ApiKey.LIST_OFFSETS]["seq"])]
    fetch_result = next(
        r for r in recording.results if r["ok"] and r["api_key"] == ApiKey.FETCH and r.get("batches")
    )
    fetch = pairs[(fetch_result["scenario"], fetch_result["seq"])]
    fetch_frame = bytearray(base64.b64decode(fetch["response"]))
    crc_at = _batch_crc_offset(bytes(fetch_frame), fetch_result["batches"][0]["base_offset"])
    fetch_frame[crc_at] ^= 0xFF
    metadata_frame = base64.b64decode(metadata["response"])
    offsets_frame = base64.b64decode(offsets["response"])
    checked = [
        _with_response(metadata, metadata_frame, "as-recorded-metadata"),
        _with_response(offsets, offsets_frame, "as-recorded-list-offsets"),
        _with_response(fetch, base64.b64decode(fetch["response"]), "as-recorded-fetch"),
        _with_response(metadata, metadata_frame + b"\x00", "trailing-byte"),
        _with_response(offsets, offsets_frame[:-1], "truncated"),
        _with_response(fetch, bytes(fetch_frame), "batch-crc"),
    ]
    path = tmp_path / "corrupted.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in checked), encoding="utf-8")
    results = {r["scenario"]: r for r in kafka_parser.parse([path])}
    assert all(results[s]["ok"] for s in results if s.startswith("as-recorded")), results
    assert not results["trailing-byte"]["ok"]
    assert "1 bytes left after parsing METADATA" in results["trailing-byte"]["error"]
    assert not results["truncated"]["ok"]
    assert not results["batch-crc"]["ok"]
    assert "corrupt" in results["batch-crc"]["error"].lower(), results["batch-crc"]["error"]


@pytest.mark.parametrize("flexible", [False, True])
def test_the_proxy_splits_a_request_header_from_its_body(flexible):
    """Header v1 (int16 client id) for an older API version, v2 (tagged fields too) for a
    flexible one (KIP-482): the body starts after either."""
    version = 12 if flexible else 8
    header = KafkaRequestHeader(ApiKey.METADATA, version, 42, "rdkafka", {} if not flexible else {0: b"x"})
    body = b"\x01\x02\x03"
    request = split_request(encode_request_header(header, 2 if flexible else 1) + body)
    assert (request.api_key, request.api_version, request.correlation_id, request.body) == (
        ApiKey.METADATA,
        version,
        42,
        body,
    )
