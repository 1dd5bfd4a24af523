"""Compression and LogAppendTime against real brokers: producer codecs, topic
``compression.type`` recompression read back from the brokers' segment files,
``message.timestamp.type=LogAppendTime`` in RecordMetadata and consumed records, and
replicas holding the leader's compressed bytes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.sender import PRODUCE_BY_NAME_VERSION
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.compression import CODEC_BY_NAME
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import (
    HEADER_SIZE,
    LOG_APPEND_TIME,
    RECORDS_MSGPACK_MASK,
    build_batch,
    build_batch_from_payload,
    iter_batches,
)
from tests.cluster_helpers import consume_from_beginning

KAFKETTE = Path(sys.executable).with_name("kafkette")


async def _create(bootstrap: str, topic: str, **configs: str) -> None:
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics(
            [NewTopic(topic, num_partitions=1, replication_factor=3, configs=configs or None)]
        )


async def _consume(bootstrap: str, topic: str, expected: int) -> list:
    return await consume_from_beginning(bootstrap, [TopicPartition(topic, 0)], expected, timeout_s=60)


def _segment_bytes(cluster, topic: str) -> dict[int, bytes]:
    """``{broker id: bytes of the partition's first segment file}`` on every broker."""
    return {
        b: (cluster.broker_dir(b) / "logs" / f"{topic}-0" / f"{0:020d}.log").read_bytes()
        for b in cluster.broker_ids
    }


def _stored_codecs(data: bytes) -> list[int]:
    return [header.compression for _, header in iter_batches(data, verify_crc=True)]


def _records(n: int, tag: str) -> list[tuple[bytes, bytes, list]]:
    return [
        (
            f"{tag}-key-{i % 13}".encode(),
            f"{tag} value {i} ".encode() * (1 + i % 9),
            [("seq", str(i).encode()), ("none", None)] if i % 2 else [],
        )
        for i in range(n)
    ]


async def _produce(
    bootstrap: str, topic: str, records, timestamp_ms: int | None = None, **producer_args
) -> list:
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, **producer_args) as producer:
        futures = [
            await producer.send(topic, v, key=k, headers=h or None, timestamp_ms=timestamp_ms)
            for k, v, h in records
        ]
        return await asyncio.gather(*futures)


@pytest.mark.parametrize("codec_name", list(CODEC_BY_NAME))
async def test_each_producer_codec_is_stored_as_sent_on_every_replica_and_consumed_identically(
    shared_cluster, codec_name
):
    bootstrap = shared_cluster.bootstrap_servers
    topic = f"codec-{codec_name}"
    await _create(bootstrap, topic)
    sent = _records(600, codec_name)
    metas = await _produce(
        bootstrap, topic, sent, compression_type=None if codec_name == "none" else codec_name
    )
    assert [m.offset for m in metas] == list(range(len(sent)))
    got = await _consume(bootstrap, topic, len(sent))
    assert [(r.key, r.value, list(r.headers)) for r in got] == [(k, v, h) for k, v, h in sent]
    segments = _segment_bytes(shared_cluster, topic)
    leader_bytes = next(iter(segments.values()))
    assert set(_stored_codecs(leader_bytes)) == {CODEC_BY_NAME[codec_name]}
    assert len(set(segments.values())) == 1, "followers must hold the leader's compressed bytes"


async def test_topic_compression_type_zstd_recompresses_uncompressed_and_gzip_batches(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "topic-zstd"
    await _create(bootstrap, topic, **{"compression.type": "zstd"})
    plain, gzipped = _records(300, "plain"), _records(300, "gzip")
    await _produce(bootstrap, topic, plain)
    await _produce(bootstrap, topic, gzipped, compression_type="gzip")
    segments = _segment_bytes(shared_cluster, topic)
    for broker_id, data in segments.items():
        codecs = _stored_codecs(data)
        assert codecs and set(codecs) == {CODEC_BY_NAME["zstd"]}, f"broker {broker_id} stored codecs {codecs}"
    got = await _consume(bootstrap, topic, 600)
    assert [(r.key, r.value, list(r.headers)) for r in got] == [(k, v, h) for k, v, h in plain + gzipped]
    assert [r.offset for r in got] == list(range(600))


async def test_topic_compression_type_uncompressed_stores_plain_batches(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "topic-uncompressed"
    await _create(bootstrap, topic, **{"compression.type": "uncompressed"})
    sent = _records(200, "lz4")
    await _produce(bootstrap, topic, sent, compression_type="lz4")
    assert set(_stored_codecs(_segment_bytes(shared_cluster, topic)[1])) == {CODEC_BY_NAME["none"]}
    got = await _consume(bootstrap, topic, 200)
    assert [r.value for r in got] == [v for _, v, _ in sent]


async def test_log_append_time_topic_returns_broker_time_in_metadata_and_consumed_records(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    await _create(bootstrap, "append-time", **{"message.timestamp.type": "LogAppendTime"})
    await _create(bootstrap, "create-time")
    create_time_ms = 1_000_000  # 1970: far from any broker clock
    before_ms = int(time.time() * 1000)
    async with Producer(bootstrap_servers=bootstrap, acks="all", compression_type="lz4") as producer:
        appended = [
            await producer.send("append-time", f"a{i}", timestamp_ms=create_time_ms + i) for i in range(50)
        ]
        created = [
            await producer.send("create-time", f"c{i}", timestamp_ms=create_time_ms + i) for i in range(50)
        ]
        appended_metas = await asyncio.gather(*appended)
        created_metas = await asyncio.gather(*created)
    after_ms = int(time.time() * 1000)
    assert all(before_ms <= m.timestamp <= after_ms for m in appended_metas), appended_metas[:3]
    assert [m.timestamp for m in created_metas] == [create_time_ms + i for i in range(50)]
    got = await _consume(bootstrap, "append-time", 50)
    assert {r.timestamp_type for r in got} == {LOG_APPEND_TIME}
    assert [r.timestamp for r in got] == [m.timestamp for m in appended_metas]
    kept = await _consume(bootstrap, "create-time", 50)
    assert [(r.timestamp, r.timestamp_type) for r in kept] == [(create_time_ms + i, 0) for i in range(50)]


async def test_console_producer_compression_codec_reaches_the_segment_files(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    await _create(bootstrap, "cli-codec")
    lines = "".join(f"k{i}:line {i}\n" for i in range(40))
    result = await asyncio.to_thread(
        subprocess.run,
        [
            str(KAFKETTE),
            "produce",
            "--topic",
            "cli-codec",
            "--key-separator",
            ":",
            "--compression-codec",
            "lz4",
            "--bootstrap-server",
            bootstrap,
        ],
        input=lines,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    assert set(_stored_codecs(_segment_bytes(shared_cluster, "cli-codec")[1])) == {CODEC_BY_NAME["lz4"]}
    got = await _consume(bootstrap, "cli-codec", 40)
    assert [(r.key, r.value) for r in got] == [(f"k{i}".encode(), f"line {i}".encode()) for i in range(40)]


async def test_broker_defaults_compression_type_and_log_append_time_apply_to_auto_created_topics(
    cluster_factory,
):
    cluster = cluster_factory(
        num_brokers=1, compression_type="gzip", log_message_timestamp_type="LogAppendTime"
    )
    bootstrap = cluster.bootstrap_servers
    sent = _records(100, "auto")
    before_ms = int(time.time() * 1000)
    metas = await _produce(bootstrap, "auto-created", sent, timestamp_ms=1_000_000, compression_type="snappy")
    after_ms = int(time.time() * 1000)
    assert all(before_ms <= m.timestamp <= after_ms for m in metas), metas[:3]
    assert set(_stored_codecs(_segment_bytes(cluster, "auto-created")[1])) == {CODEC_BY_NAME["gzip"]}
    got = await _consume(bootstrap, "auto-created", 100)
    assert {r.timestamp_type for r in got} == {LOG_APPEND_TIME}
    assert [r.timestamp for r in got] == [m.timestamp for m in metas]
    assert [r.value for r in got] == [v for _, v, _ in sent]


async def _produce_raw(bootstrap: str, topic: str, records: bytes) -> tuple[int, int]:
    """Send one ProduceRequest (acks=all) with ``records`` to the leader of partition 0;
    return (error code, base offset)."""
    client = KafkaClient(bootstrap)
    await client.start()
    try:
        await client.wait_for_metadata(topic, 10_000)
        leader = client.cluster.leader_for(TopicPartition(topic, 0))
        response = await client.send(
            leader,
            ProduceRequest(
                acks=-1,
                timeout_ms=10_000,
                topic_data=[
                    ProduceTopicData(
                        name=topic, partition_data=[ProducePartitionData(index=0, records=records)]
                    )
                ],
            ),
            api_version=PRODUCE_BY_NAME_VERSION,
        )
    finally:
        await client.close()
    part = response.responses[0].partition_responses[0]
    return part.error_code, part.base_offset


async def test_bad_compressed_batches_are_refused_with_clear_codes_and_the_log_stays_intact(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers
    topic = "bad-compressed"
    await _create(bootstrap, topic, **{"compression.type": "zstd"})
    good = _records(10, "good")
    await _produce(bootstrap, topic, good)
    not_gzip = build_batch_from_payload(
        b"\x1f\x8b\x08 truncated",
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=CODEC_BY_NAME["gzip"] | RECORDS_MSGPACK_MASK,
    )
    assert await _produce_raw(bootstrap, topic, not_gzip) == (Errors.CORRUPT_MESSAGE, -1)
    unknown_codec = build_batch_from_payload(
        build_batch([(None, b"v", None, 1)])[HEADER_SIZE:],
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=6 | RECORDS_MSGPACK_MASK,
    )
    assert await _produce_raw(bootstrap, topic, unknown_codec) == (Errors.UNSUPPORTED_COMPRESSION_TYPE, -1)
    # A request with a second batch (here a bad one) appends neither: a producer sends one batch per
    # partition (Kafka's INVALID_RECORD), and nothing is half-written.
    mixed = build_batch([(None, b"lost?", None, 1)]) + not_gzip
    assert await _produce_raw(bootstrap, topic, mixed) == (Errors.INVALID_RECORD, -1)
    error, base_offset = await _produce_raw(bootstrap, topic, build_batch([(None, b"after", None, 1)]))
    assert (error, base_offset) == (Errors.NONE, 10)
    got = await _consume(bootstrap, topic, 11)
    assert [r.value for r in got] == [v for _, v, _ in good] + [b"after"]
    assert set(_stored_codecs(_segment_bytes(shared_cluster, topic)[1])) == {CODEC_BY_NAME["zstd"]}
