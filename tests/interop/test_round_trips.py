"""A record produced through either listener is read back the same through either: key, value,
headers, timestamp and offset identical.

Each case is one client of Kafka's protocol (confluent-kafka, kafka-python, aiokafka, kcat) in
one direction, on its own single-partition topic:

* Kafkette's SDK (msgpack listener) produces one batch per codec (none, gzip, snappy, lz4,
  zstd), the Kafka client reads them all back through the Kafka listener;
* the Kafka client produces one batch per codec it supports, the SDK Consumer reads them back.

The records cover the corners of the record format: a null key, an empty key, a null value,
binary bytes, repeated header keys, a header with a null value (where the producing client
allows one), an empty header value, and explicit CreateTime timestamps that are not monotonic
within a batch (negative deltas).  Before reading, the test checks in the partition leader's
segment files that every record really sits in a batch of the intended codec (librdkafka, say,
sends a batch uncompressed when compression would not make it smaller).

kafka-python compresses and decompresses snappy only with python-snappy, which is not installed
(it does not use cramjam): its cases cover the other codecs.  kcat 1.7.1 is built on librdkafka
2.0.2, which sends gzip, snappy and lz4 batches uncompressed to a broker whose Produce versions
start at 3, as Kafka 4.0's do (KIP-896; librdkafka issue #4956, fixed in later librdkafka): it
produces uncompressed and zstd batches here, and reads every codec.  kcat cannot set a record's
timestamp: its records carry the CreateTime kcat gave them, checked against the wall clock
around the run and against kcat's own reading of them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Awaitable, Callable

import confluent_kafka
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka import TopicPartition as AIOKafkaTopicPartition
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KafkaPythonTopicPartition

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.protocol.compression import NAME_BY_CODEC
from kafkette.protocol.record_batch import iter_batches
from tests.cluster_helpers import (
    consume_from_beginning,
    describe_partitions,
    partition_dir,
    wait_for_partitions,
)

Header = tuple[str, bytes | None]
Sent = tuple[bytes | None, bytes | None, list[Header], int]
"""A record as produced: (key, value, headers, CreateTime timestamp in ms)."""
Seen = tuple[int, bytes | None, bytes | None, list[Header], int, int]
"""A record as read: (offset, key, value, headers, timestamp in ms, timestamp type: 0 CreateTime)."""

BASE_TIMESTAMP_MS = 1_700_000_000_000
ALL_CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
# The codecs each client reads, and those it compresses with (see the module docstring).
READER_CODECS = {
    "confluent-kafka": ALL_CODECS,
    "kafka-python": ("none", "gzip", "lz4", "zstd"),
    "aiokafka": ALL_CODECS,
    "kcat": ALL_CODECS,
}
PRODUCER_CODECS = {**READER_CODECS, "kcat": ("none", "zstd")}
CLIENTS = tuple(READER_CODECS)
# Clients whose producer takes a header with a null value (kafka-python's rejects it).
NULL_HEADER_PRODUCERS = {"confluent-kafka", "aiokafka", "kcat"}
TEXT_ONLY_CLIENTS = {"kcat"}  # kcat reads and writes text lines
RECORDS_PER_BATCH = 4
LINGER_MS = 100
# Clients that flush: flush() sends at once whatever linger.ms (librdkafka's rd_kafka_flush, kafka-python's
# flush), so a long linger only keeps a loaded machine from splitting a batch of 4 in two, and librdkafka
# sends a lone record uncompressed when compressing it saves nothing.
FLUSHED_LINGER_MS = 5000
READ_TIMEOUT_S = 30
KCAT_TIMEOUT_S = 30
CREATE_TIME = 0


def _records(codec: str, batch_index: int, *, binary: bool, null_header: bool) -> list[Sent]:
    """The records of one batch: compressible values (so that every client really compresses),
    a null key, an empty key, a null value, repeated and null-valued headers, and timestamps
    out of order (the third is older than the first)."""
    base_ms = BASE_TIMESTAMP_MS + 1000 * batch_index
    filler = f"compressible-{codec}-".encode() * 30
    raw = b"\x00\xff\xfe" if binary else b""
    null = [("null", None)] if null_header else []
    return [
        (
            f"key-{codec}-0".encode(),
            filler + b"0" + raw,
            [("trace", f"t-{codec}".encode() + raw), ("dup", b"1"), ("dup", b"2"), *null],
            base_ms,
        ),
        (None, filler + b"1", [], base_ms + 5),
        (f"key-{codec}-2".encode(), None, [("only", b"")], base_ms - 3),
        (b"", filler + b"3", [*null, ("last", b"x")], base_ms + 2),
    ]


def _compression(codec: str) -> str | None:
    """A Python client's ``compression_type`` for ``codec`` (None: uncompressed)."""
    return None if codec == "none" else codec


async def _create_topic(cluster: LocalCluster, topic: str) -> None:
    """Create the single-partition ``topic`` (replication factor 3) through the SDK; wait for its leader."""
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=3)])
    await wait_for_partitions(
        cluster.bootstrap_servers, topic, lambda ps: len(ps) == 1 and ps[0].leader >= 0, "a leader"
    )


async def _codec_by_offset(cluster: LocalCluster, tp: TopicPartition) -> dict[int, str]:
    """Offset -> codec name of the batch holding it, from the segment files of ``tp``'s leader."""
    (partition,) = await describe_partitions(cluster.bootstrap_servers, tp.topic)
    codecs: dict[int, str] = {}
    directory = partition_dir(cluster, partition.leader, tp)
    for segment in sorted(directory.glob("*.log"), key=lambda p: int(p.stem)):
        for _, header in iter_batches(segment.read_bytes()):
            for offset in range(header.base_offset, header.next_offset):
                codecs[offset] = NAME_BY_CODEC[header.compression]
    return codecs


async def _assert_batches_compressed(
    cluster: LocalCluster, tp: TopicPartition, codecs: tuple[str, ...]
) -> None:
    """Every record of batch ``i`` (offsets ``4i..4i+3``) is stored in a batch of ``codecs[i]``."""
    expected = {
        RECORDS_PER_BATCH * i + j: codec for i, codec in enumerate(codecs) for j in range(RECORDS_PER_BATCH)
    }
    assert await _codec_by_offset(cluster, tp) == expected


# --- producing ----------------------------------------------------------------------------------


async def _produce_sdk(
    cluster: LocalCluster, tp: TopicPartition, codec: str, records: list[Sent]
) -> list[int]:
    """Send ``records`` as one batch through Kafkette's SDK; their offsets."""
    async with Producer(
        bootstrap_servers=cluster.bootstrap_servers,
        acks="all",
        linger_ms=LINGER_MS,
        compression_type=_compression(codec),
    ) as producer:
        futures = [
            await producer.send(
                tp.topic,
                value,
                key=key,
                partition=tp.partition,
                headers=headers or None,
                timestamp_ms=timestamp_ms,
            )
            for key, value, headers, timestamp_ms in records
        ]
        metas = await asyncio.wait_for(asyncio.gather(*futures), READ_TIMEOUT_S)
    assert [m.timestamp for m in metas] == [r[3] for r in records]
    return [m.offset for m in metas]


def _produce_confluent(bootstrap: str, tp: TopicPartition, codec: str, records: list[Sent]) -> list[int]:
    reports: list[tuple[object, int, tuple[int, int]]] = []
    producer = confluent_kafka.Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "linger.ms": FLUSHED_LINGER_MS,
            "compression.type": codec,
        }
    )
    for key, value, headers, timestamp_ms in records:
        producer.produce(
            tp.topic,
            value=value,
            key=key,
            partition=tp.partition,
            headers=headers,
            timestamp=timestamp_ms,
            on_delivery=lambda err, msg: reports.append((err, msg.offset(), msg.timestamp())),
        )
    assert producer.flush(READ_TIMEOUT_S) == 0, "records left undelivered"
    assert [err for err, _, _ in reports] == [None] * len(records)
    assert [ts for _, _, ts in reports] == [(confluent_kafka.TIMESTAMP_CREATE_TIME, r[3]) for r in records]
    return [offset for _, offset, _ in reports]


def _produce_kafka_python(bootstrap: str, tp: TopicPartition, codec: str, records: list[Sent]) -> list[int]:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=FLUSHED_LINGER_MS,
        compression_type=_compression(codec),
    )
    try:
        futures = [
            producer.send(
                tp.topic,
                value=value,
                key=key,
                partition=tp.partition,
                headers=headers,
                timestamp_ms=timestamp_ms,
            )
            for key, value, headers, timestamp_ms in records
        ]
        producer.flush(timeout=READ_TIMEOUT_S)
        metas = [future.get(timeout=READ_TIMEOUT_S) for future in futures]
    finally:
        producer.close(timeout=10)
    assert [m.timestamp for m in metas] == [r[3] for r in records]
    return [m.offset for m in metas]


async def _produce_aiokafka(bootstrap: str, tp: TopicPartition, codec: str, records: list[Sent]) -> list[int]:
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        acks="all",
        linger_ms=FLUSHED_LINGER_MS,
        compression_type=_compression(codec),
    )
    await producer.start()
    try:
        futures = [
            await producer.send(
                tp.topic, value, key=key, partition=tp.partition, headers=headers, timestamp_ms=timestamp_ms
            )
            for key, value, headers, timestamp_ms in records
        ]
        metas = await asyncio.wait_for(asyncio.gather(*futures), READ_TIMEOUT_S)
    finally:
        await producer.stop()
    # Not compared: aiokafka's RecordMetadata.timestamp (MessageBatch.done hands every record of a
    # batch its first record's CreateTime).  The timestamps are checked where the SDK reads them.
    return [m.offset for m in metas]


def _run_kcat(kcat: str, *args: str, stdin: str | None = None) -> str:
    """``kcat args`` (killed after KCAT_TIMEOUT_S); its stdout.  It must exit 0."""
    done = subprocess.run(
        [kcat, *args], input=stdin, capture_output=True, text=True, timeout=KCAT_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, f"kcat {' '.join(args)} exited {done.returncode}: {done.stderr}"
    return done.stdout


KCAT_HEADERS = [("trace", b"abc"), ("dup", b"1"), ("dup", b"2"), ("null", None), ("empty", b"")]


def _kcat_records(codec: str) -> list[tuple[bytes | None, bytes | None]]:
    """The (key, value) of one kcat batch: with ``-Z`` an empty key or value is sent as null."""
    filler = f"compressible-{codec}-" * 30
    return [
        (f"key-{codec}-0".encode(), f"{filler}0".encode()),
        (None, f"{filler}1".encode()),
        (f"key-{codec}-2".encode(), None),
        (f"key-{codec}-3".encode(), f"{filler}3".encode()),
    ]


def _produce_kcat(kcat: str, bootstrap: str, tp: TopicPartition, codec: str) -> None:
    lines = [f"{(key or b'').decode()}:{(value or b'').decode()}" for key, value in _kcat_records(codec)]
    header_args = [
        arg
        for name, value in KCAT_HEADERS
        for arg in ("-H", name if value is None else f"{name}={value.decode()}")
    ]
    compression = [] if codec == "none" else ["-z", codec]
    _run_kcat(
        kcat,
        "-b",
        bootstrap,
        "-P",
        "-t",
        tp.topic,
        "-p",
        str(tp.partition),
        "-K:",
        "-Z",
        "-X",
        f"linger.ms={LINGER_MS}",
        *compression,
        *header_args,
        stdin="\n".join(lines) + "\n",
    )


# --- reading ------------------------------------------------------------------------------------


async def _read_sdk(cluster: LocalCluster, tp: TopicPartition, count: int) -> list[Seen]:
    records = await consume_from_beginning(cluster.bootstrap_servers, [tp], count, timeout_s=READ_TIMEOUT_S)
    return [(r.offset, r.key, r.value, list(r.headers), r.timestamp, r.timestamp_type) for r in records]


def _read_confluent(bootstrap: str, tp: TopicPartition, count: int) -> list[Seen]:
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"{tp.topic}-reader",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    timestamp_types = {confluent_kafka.TIMESTAMP_CREATE_TIME: 0, confluent_kafka.TIMESTAMP_LOG_APPEND_TIME: 1}
    seen: list[Seen] = []
    try:
        consumer.assign(
            [confluent_kafka.TopicPartition(tp.topic, tp.partition, confluent_kafka.OFFSET_BEGINNING)]
        )
        deadline = time.monotonic() + READ_TIMEOUT_S
        while len(seen) < count:
            assert time.monotonic() < deadline, f"read {len(seen)} of {count} records"
            for message in consumer.consume(num_messages=count, timeout=0.5):
                assert message.error() is None, message.error()
                timestamp_type, timestamp = message.timestamp()
                seen.append(
                    (
                        message.offset(),
                        message.key(),
                        message.value(),
                        list(message.headers() or []),
                        timestamp,
                        timestamp_types.get(timestamp_type, -1),
                    )
                )
    finally:
        consumer.close()
    return seen


def _read_kafka_python(bootstrap: str, tp: TopicPartition, count: int) -> list[Seen]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    seen: list[Seen] = []
    try:
        partition = KafkaPythonTopicPartition(tp.topic, tp.partition)
        consumer.assign([partition])
        consumer.seek_to_beginning(partition)
        deadline = time.monotonic() + READ_TIMEOUT_S
        while len(seen) < count:
            assert time.monotonic() < deadline, f"read {len(seen)} of {count} records"
            for batch in consumer.poll(timeout_ms=200).values():
                seen.extend(
                    (r.offset, r.key, r.value, list(r.headers), r.timestamp, r.timestamp_type) for r in batch
                )
    finally:
        consumer.close()
    return seen


async def _read_aiokafka(bootstrap: str, tp: TopicPartition, count: int) -> list[Seen]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    seen: list[Seen] = []
    try:
        partition = AIOKafkaTopicPartition(tp.topic, tp.partition)
        consumer.assign([partition])
        await consumer.seek_to_beginning(partition)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + READ_TIMEOUT_S
        while len(seen) < count:
            assert loop.time() < deadline, f"read {len(seen)} of {count} records"
            for batch in (await consumer.getmany(timeout_ms=200)).values():
                seen.extend(
                    (r.offset, r.key, r.value, list(r.headers), r.timestamp, r.timestamp_type) for r in batch
                )
    finally:
        await consumer.stop()
    return seen


def _read_kcat(kcat: str, bootstrap: str, tp: TopicPartition, count: int) -> list[Seen]:
    """Read ``tp`` from the beginning to its end with ``kcat -C -J`` (text: keys, values and header
    values are UTF-8 strings or null)."""
    out = _run_kcat(
        kcat, "-b", bootstrap, "-C", "-t", tp.topic, "-p", str(tp.partition), "-o", "beginning", "-e", "-J"
    )
    seen: list[Seen] = []
    for line in out.splitlines():
        envelope = json.loads(line)
        flat = envelope.get("headers", [])
        headers = [
            (flat[i], None if flat[i + 1] is None else flat[i + 1].encode()) for i in range(0, len(flat), 2)
        ]
        seen.append(
            (
                envelope["offset"],
                None if envelope["key"] is None else envelope["key"].encode(),
                None if envelope["payload"] is None else envelope["payload"].encode(),
                headers,
                envelope["ts"],
                {"create": 0, "logappend": 1}.get(envelope["tstype"], -1),
            )
        )
    assert len(seen) == count, f"kcat read {len(seen)} of {count} records"
    return seen


def _reader(
    client: str, cluster: LocalCluster, kcat_path: str
) -> Callable[[TopicPartition, int], Awaitable[list[Seen]]]:
    """``read(tp, count)`` through ``client`` on the Kafka listeners."""
    bootstrap = cluster.kafka_bootstrap_servers
    if client == "aiokafka":
        return lambda tp, count: _read_aiokafka(bootstrap, tp, count)
    if client == "kcat":
        return lambda tp, count: asyncio.to_thread(_read_kcat, kcat_path, bootstrap, tp, count)
    blocking = {"confluent-kafka": _read_confluent, "kafka-python": _read_kafka_python}[client]
    return lambda tp, count: asyncio.to_thread(blocking, bootstrap, tp, count)


# --- the cases ----------------------------------------------------------------------------------


@pytest.mark.parametrize("client", CLIENTS)
async def test_records_produced_through_the_sdk_are_read_back_the_same_through_a_kafka_client(
    kafka_cluster: LocalCluster, kcat: str, client: str
):
    tp = TopicPartition(f"rt-sdk-to-{client}", 0)
    await _create_topic(kafka_cluster, tp.topic)
    codecs = READER_CODECS[client]
    expected: list[Seen] = []
    for batch_index, codec in enumerate(codecs):
        records = _records(codec, batch_index, binary=client not in TEXT_ONLY_CLIENTS, null_header=True)
        offsets = await _produce_sdk(kafka_cluster, tp, codec, records)
        expected += [
            (offset, key, value, headers, timestamp_ms, CREATE_TIME)
            for offset, (key, value, headers, timestamp_ms) in zip(offsets, records, strict=True)
        ]
    assert [seen[0] for seen in expected] == list(range(len(expected)))
    await _assert_batches_compressed(kafka_cluster, tp, codecs)

    seen = await _reader(client, kafka_cluster, kcat)(tp, len(expected))
    assert seen == expected


@pytest.mark.parametrize("client", CLIENTS)
async def test_records_produced_by_a_kafka_client_are_read_back_the_same_through_the_sdk(
    kafka_cluster: LocalCluster, kcat: str, client: str
):
    tp = TopicPartition(f"rt-{client}-to-sdk", 0)
    await _create_topic(kafka_cluster, tp.topic)
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    codecs = PRODUCER_CODECS[client]
    expected: list[Seen] = []
    before_ms = int(time.time() * 1000)
    for batch_index, codec in enumerate(codecs):
        if client == "kcat":
            await asyncio.to_thread(_produce_kcat, kcat, bootstrap, tp, codec)
            continue
        records = _records(codec, batch_index, binary=True, null_header=client in NULL_HEADER_PRODUCERS)
        if client == "aiokafka":
            offsets = await _produce_aiokafka(bootstrap, tp, codec, records)
        else:
            produce = {"confluent-kafka": _produce_confluent, "kafka-python": _produce_kafka_python}[client]
            offsets = await asyncio.to_thread(produce, bootstrap, tp, codec, records)
        expected += [
            (offset, key, value, headers, timestamp_ms, CREATE_TIME)
            for offset, (key, value, headers, timestamp_ms) in zip(offsets, records, strict=True)
        ]
    after_ms = int(time.time() * 1000)
    count = RECORDS_PER_BATCH * len(codecs)
    await _assert_batches_compressed(kafka_cluster, tp, codecs)

    if client == "kcat":
        # kcat stamps CreateTime itself: take its own reading of the records as the reference.
        expected = await asyncio.to_thread(_read_kcat, kcat, bootstrap, tp, count)
        written = [
            (key, value, KCAT_HEADERS, CREATE_TIME) for codec in codecs for key, value in _kcat_records(codec)
        ]
        assert [(key, value, headers, kind) for _, key, value, headers, _, kind in expected] == written
        assert all(before_ms <= seen[4] <= after_ms for seen in expected), [seen[4] for seen in expected]
    assert [seen[0] for seen in expected] == list(range(count))

    assert await _read_sdk(kafka_cluster, tp, count) == expected
