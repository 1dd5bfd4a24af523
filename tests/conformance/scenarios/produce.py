"""Produce: acks 0/1/all and the offsets answered, Kafka's checks of a client's batch (required
acks, CRC, sizes, keys on compacted topics, timestamps, one batch per partition), the leader and
ISR checks (unknown partition, not the leader, min.insync.replicas), the idempotent producer's
sequence and epoch rules, compression codecs stored and fetched back, and each Produce version
(v10+'s current leader of a NOT_LEADER_OR_FOLLOWER partition, KIP-951; v13's topics by id, KIP-516).

Requests go raw, batches built with ``record_batch.build_kafka_batch`` as a Kafka client's
``MemoryRecordsBuilder`` would; this module also holds the small request helpers the fetch,
list-offsets and delete-records scenarios share (``produce``, ``fetch``, ``list_offsets``,
``delete_records``, ``new_topic``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from kafkette.protocol import record_batch
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.list_offsets import (
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.apis.produce import (
    PRODUCE_TOPIC_ID_VERSION,
    ProducePartitionData,
    ProduceRequest,
    ProduceTopicData,
)
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.record_batch import (
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.topics import create
from tests.conformance.target import Target, code_name

PRODUCE_V = 9
FETCH_V = 12
LIST_OFFSETS_V = 7
HOUR_MS = 3_600_000


# --- helpers shared by the produce, fetch, list-offsets and delete-records scenarios ---------------


def now_ms() -> int:
    return int(time.time() * 1000)


def new_topic(
    t: Target, name: str, partitions: int = 1, rf: int = 1, configs: dict[str, str] | None = None
) -> str:
    """Create ``name`` (CreateTopics v7) and wait until every broker knows its leaders and each
    leader serves its partition (a leader named in the metadata may take a moment to act as one);
    the error."""
    error = create(t, name, partitions=partitions, rf=rf, configs=dict(configs or {}))["error"]
    if error == "NONE":
        t.wait_topic(name, partitions)
        deadline = time.monotonic() + 15
        for p in range(partitions):
            while list_offsets(t, name, -1, partition=p)["error"] != "NONE" and time.monotonic() < deadline:
                time.sleep(0.05)
    return error


def batch(
    values: list[bytes | None],
    keys: list[bytes | None] | None = None,
    timestamps: list[int] | None = None,
    headers: list[list[tuple[str, bytes | None]]] | None = None,
    **kwargs: Any,
) -> bytes:
    """One batch of Kafka's varint records (``build_kafka_batch``): one record per value, the keys,
    timestamps (default now) and headers given; ``kwargs`` go to ``build_kafka_batch``."""
    stamp = now_ms()
    records = [
        (
            (keys or [None] * len(values))[i],
            v,
            (headers or [[]] * len(values))[i],
            (timestamps or [stamp] * len(values))[i],
        )
        for i, v in enumerate(values)
    ]
    return record_batch.build_kafka_batch(records, **kwargs)


def produce_request(
    topic: str, records: bytes | None, partition: int = 0, acks: int = -1, timeout_ms: int = 10000
) -> ProduceRequest:
    return ProduceRequest(
        transactional_id=None,
        acks=acks,
        timeout_ms=timeout_ms,
        topic_data=[
            ProduceTopicData(
                name=topic, partition_data=[ProducePartitionData(index=partition, records=records)]
            )
        ],
    )


def partition_answer(p: Any, version: int = PRODUCE_V) -> dict[str, Any]:
    """What a client sees of one Produce partition answer (error, offsets, whether a log append
    time came back, the indexes of the batches a v8+ answer blames)."""
    out = {
        "error": code_name(p.error_code),
        "base_offset": p.base_offset,
        "log_append_time": p.log_append_time_ms != -1,
    }
    if version >= 5:
        out["log_start_offset"] = p.log_start_offset
    if version >= 8:
        out["record_errors"] = [e.batch_index for e in p.record_errors]
    return out


def produce(
    t: Target,
    topic: str,
    records: bytes | None,
    partition: int = 0,
    acks: int = -1,
    version: int = PRODUCE_V,
    node: int | None = None,
) -> dict[str, Any]:
    """One Produce of ``records`` to ``topic``-``partition`` at its leader (or ``node``); the
    partition's answer (``partition_answer``)."""
    if node is None:
        node = leader_or_lowest(t, topic, partition)
    answer = t.call("Produce", version, produce_request(topic, records, partition, acks), node)
    parts = [p for r in answer.responses for p in r.partition_responses]
    return partition_answer(parts[0], version) if parts else {"responses": 0}


def leader_or_lowest(t: Target, topic: str, partition: int = 0) -> int:
    """The partition's leader when the topic is known, else the lowest node."""
    view = t.partitions(topic)
    if partition < len(view) and view[partition].leader_id >= 0:
        return view[partition].leader_id
    return min(t.addresses)


def follower(t: Target, topic: str, partition: int = 0) -> int:
    """A replica of the partition that is not its leader."""
    p = t.wait_topic(topic)[partition]
    return next(r for r in sorted(p.replica_nodes) if r != p.leader_id)


def non_replica(t: Target, topic: str, partition: int = 0) -> int:
    """A node that holds no replica of the partition."""
    p = t.wait_topic(topic)[partition]
    return next(n for n in sorted(t.addresses) if n not in p.replica_nodes)


def produce_values(
    t: Target, topic: str, values: list[bytes], partition: int = 0, **kwargs: Any
) -> list[int]:
    """Each value in its own batch (acks=all); the base offsets answered."""
    return [produce(t, topic, batch([v], **kwargs), partition)["base_offset"] for v in values]


def decoded(records: Any) -> list[dict[str, Any]]:
    """The records of a fetch answer's record set: offset, key, value, headers (hex), per record."""
    if not records:
        return []
    out = []
    for pos, header in record_batch.iter_batches(bytes(records)):
        for r in record_batch.decode_records(bytes(records), pos, header):
            out.append(
                {
                    "offset": r.offset,
                    "key": r.key.hex() if r.key is not None else None,
                    "value": r.value.hex() if r.value is not None else None,
                    "headers": [[k, v.hex() if v is not None else None] for k, v in r.headers],
                }
            )
    return out


def batches_of(records: Any) -> list[dict[str, Any]]:
    """The batches of a record set: base offset, record count, codec and timestamp type."""
    if not records:
        return []
    return [
        {
            "base_offset": h.base_offset,
            "records": h.records_count,
            "codec": h.compression,
            "log_append_time": h.timestamp_type == record_batch.LOG_APPEND_TIME,
        }
        for _, h in record_batch.iter_batches(bytes(records))
    ]


def fetch_raw(
    t: Target,
    topic: str,
    offset: int,
    partition: int = 0,
    version: int = FETCH_V,
    node: int | None = None,
    max_bytes: int = 1 << 20,
    partition_max_bytes: int = 1 << 20,
    isolation_level: int = 0,
    max_wait_ms: int = 0,
    min_bytes: int = 1,
    current_leader_epoch: int = -1,
    replica_id: int = -1,
) -> Any:
    """One Fetch (no session) of one partition, by topic id from v13 (the id the metadata gives
    ``topic``; zero for a topic it does not know); the partition's answer (None when absent)."""
    if node is None:
        node = leader_or_lowest(t, topic, partition)
    topic_id = bytes(16)
    if version >= 13:
        topic_id = next(
            (x.topic_id for x in t.metadata([topic], version=12).topics if x.error_code == 0), topic_id
        )
    request = FetchRequest(
        replica_id=replica_id,
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        isolation_level=isolation_level,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchTopic(
                topic=topic,
                topic_id=topic_id,
                partitions=[
                    FetchPartition(
                        partition=partition,
                        current_leader_epoch=current_leader_epoch,
                        fetch_offset=offset,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=partition_max_bytes,
                    )
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
    answer = t.call("Fetch", version, request, node)
    parts = [p for r in answer.responses for p in r.partitions]
    return (answer, parts[0] if parts else None)


def fetch(
    t: Target, topic: str, offset: int, partition: int = 0, version: int = FETCH_V, **kwargs: Any
) -> dict[str, Any]:
    """``fetch_raw``'s partition as a client sees it: error, high watermark, last stable offset,
    log start offset (v5+), the records decoded."""
    answer, p = fetch_raw(t, topic, offset, partition, version, **kwargs)
    if p is None:
        return {"partitions": 0, "error": code_name(getattr(answer, "error_code", 0))}
    out = {
        "error": code_name(p.error_code),
        "high_watermark": p.high_watermark,
        "last_stable_offset": p.last_stable_offset,
        "records": decoded(p.records),
    }
    if version >= 5:
        out["log_start_offset"] = p.log_start_offset
    if version >= 7:
        out["top_error"] = code_name(answer.error_code)
    if version >= 11:
        out["preferred_read_replica"] = p.preferred_read_replica
    return out


def list_offsets(
    t: Target,
    topic: str,
    timestamp: int,
    partition: int = 0,
    version: int = LIST_OFFSETS_V,
    isolation_level: int = 0,
    node: int | None = None,
    current_leader_epoch: int = -1,
    base_ms: int | None = None,
) -> dict[str, Any]:
    """One ListOffsets of one partition; error, offset, and the timestamp answered (relative to
    ``base_ms`` when given, else as answered)."""
    if node is None:
        node = leader_or_lowest(t, topic, partition)
    request = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=isolation_level,
        topics=[
            ListOffsetsTopic(
                name=topic,
                partitions=[
                    ListOffsetsPartition(
                        partition_index=partition,
                        current_leader_epoch=current_leader_epoch,
                        timestamp=timestamp,
                    )
                ],
            )
        ],
    )
    answer = t.call("ListOffsets", version, request, node)
    parts = [p for r in answer.topics for p in r.partitions]
    if not parts:
        return {"partitions": 0}
    p = parts[0]
    ts = p.timestamp
    if base_ms is not None and ts >= 0:
        ts = ts - base_ms
    return {"error": code_name(p.error_code), "offset": p.offset, "timestamp": ts}


def delete_records(
    t: Target,
    topic: str,
    offset: int,
    partition: int = 0,
    node: int | None = None,
    version: int = 2,
    timeout_ms: int = 10000,
) -> dict[str, Any]:
    """One DeleteRecords of one partition at its leader; error and low watermark."""
    if node is None:
        node = leader_or_lowest(t, topic, partition)
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsTopic(
                name=topic, partitions=[DeleteRecordsPartition(partition_index=partition, offset=offset)]
            )
        ],
        timeout_ms=timeout_ms,
    )
    answer = t.call("DeleteRecords", version, request, node)
    parts = [p for r in answer.topics for p in r.partitions]
    if not parts:
        return {"partitions": 0}
    return {"error": code_name(parts[0].error_code), "low_watermark": parts[0].low_watermark}


def init_producer_id(
    t: Target, version: int = 4, producer_id: int = -1, producer_epoch: int = -1
) -> tuple[int, int]:
    """InitProducerId (v4 unless told) for an idempotent (non-transactional) producer; (producer id,
    epoch)."""
    deadline = time.monotonic() + 30
    while True:
        answer = t.call(
            "InitProducerId",
            version,
            InitProducerIdRequest(
                transactional_id=None,
                transaction_timeout_ms=60000,
                producer_id=producer_id,
                producer_epoch=producer_epoch,
            ),
        )
        if not answer.error_code:
            return answer.producer_id, answer.producer_epoch
        if time.monotonic() > deadline:  # a coordinator still loading answers a retriable error meanwhile
            raise AssertionError(f"InitProducerId answered {code_name(answer.error_code)}")
        time.sleep(0.2)


# --- acks ------------------------------------------------------------------------------------------


@scenario("produce/acks-all")
def _acks_all(t: Target) -> Any:
    """acks=all to an RF 3 topic: NONE, base offsets 0, 1, 3 (a two-record batch), log start 0."""
    new_topic(t, "p-acks-all", rf=3)
    return [
        produce(t, "p-acks-all", batch([b"a"])),
        produce(t, "p-acks-all", batch([b"b", b"c"])),
        produce(t, "p-acks-all", batch([b"d"])),
    ]


@scenario("produce/acks-1")
def _acks_1(t: Target) -> Any:
    """acks=1 to an RF 3 topic: NONE and the base offset at once."""
    new_topic(t, "p-acks-1", rf=3)
    return [produce(t, "p-acks-1", batch([b"a"]), acks=1), produce(t, "p-acks-1", batch([b"b"]), acks=1)]


@scenario("produce/acks-0")
def _acks_0(t: Target) -> Any:
    """acks=0: no answer at all; the records are there (ListOffsets latest 2, fetched back)."""
    new_topic(t, "p-acks-0")
    node = t.leader("p-acks-0")
    raw = t.raw(node)
    raw.send_only("Produce", PRODUCE_V, produce_request("p-acks-0", batch([b"x"]), acks=0))
    raw.send_only("Produce", PRODUCE_V, produce_request("p-acks-0", batch([b"y"]), acks=0))
    deadline = time.monotonic() + 10
    while list_offsets(t, "p-acks-0", -1)["offset"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    return {
        "latest": list_offsets(t, "p-acks-0", -1)["offset"],
        "values": [r["value"] for r in fetch(t, "p-acks-0", 0)["records"]],
    }


@scenario("produce/acks-0-error-closes-connection")
def _acks_0_error(t: Target) -> Any:
    """acks=0 to an unknown partition: no answer; Kafka closes the connection so the client notices."""
    new_topic(t, "p-acks-0-err")
    node = t.leader("p-acks-0-err")
    t.drop_raw(node)
    raw = t.raw(node)
    raw.send_only("Produce", PRODUCE_V, produce_request("p-acks-0-err", batch([b"x"]), partition=7, acks=0))
    probe = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[
            ListOffsetsTopic(
                name="p-acks-0-err", partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)]
            )
        ],
    )
    try:  # the next request on the same connection
        raw.call("ListOffsets", LIST_OFFSETS_V, probe)
        outcome = "open"
    except OSError:
        outcome = "closed"
    t.drop_raw(node)
    return outcome


for _acks in (2, -2, 5):
    register(
        f"produce/invalid-acks-{_acks}",
        f"acks={_acks}: INVALID_REQUIRED_ACKS for the partition, nothing written",
        lambda t, a=_acks: {
            "answer": (new_topic(t, f"p-acks-bad{a}"), produce(t, f"p-acks-bad{a}", batch([b"x"]), acks=a))[
                1
            ],
            "latest": list_offsets(t, f"p-acks-bad{a}", -1)["offset"],
        },
    )


# --- where the batch goes ------------------------------------------------------------------------------


@scenario("produce/unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """Produce to a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION (Produce does not auto-create)."""
    out = produce(t, "p-no-such-topic", batch([b"x"]), node=min(t.addresses))
    time.sleep(0.3)
    out["created"] = bool(t.partitions("p-no-such-topic"))
    return out


@scenario("produce/unknown-partition")
def _unknown_partition(t: Target) -> Any:
    """Produce to partition 5 of a 2-partition topic: UNKNOWN_TOPIC_OR_PARTITION."""
    new_topic(t, "p-unknown-part", partitions=2)
    return produce(t, "p-unknown-part", batch([b"x"]), partition=5, node=t.leader("p-unknown-part"))


@scenario("produce/not-leader-follower")
def _not_leader_follower(t: Target) -> Any:
    """Produce to a follower of an RF 3 partition: NOT_LEADER_OR_FOLLOWER."""
    new_topic(t, "p-not-leader-f", rf=3)
    return produce(t, "p-not-leader-f", batch([b"x"]), node=follower(t, "p-not-leader-f"))


@scenario("produce/not-leader-non-replica")
def _not_leader_non_replica(t: Target) -> Any:
    """Produce to a broker that holds no replica of the partition: NOT_LEADER_OR_FOLLOWER (the
    partition exists in its metadata)."""
    new_topic(t, "p-not-leader-n", rf=1)
    return produce(t, "p-not-leader-n", batch([b"x"]), node=non_replica(t, "p-not-leader-n"))


@scenario("produce/two-partitions-one-unknown")
def _two_partitions(t: Target) -> Any:
    """One Produce to partitions 0 and 3 of a 1-partition topic: NONE for 0, UNKNOWN_TOPIC_OR_PARTITION for
    3."""
    new_topic(t, "p-two-parts")
    request = ProduceRequest(
        transactional_id=None,
        acks=-1,
        timeout_ms=10000,
        topic_data=[
            ProduceTopicData(
                name="p-two-parts",
                partition_data=[
                    ProducePartitionData(index=0, records=batch([b"a"])),
                    ProducePartitionData(index=3, records=batch([b"b"])),
                ],
            )
        ],
    )
    answer = t.call("Produce", PRODUCE_V, request, t.leader("p-two-parts"))
    return sorted([p.index, partition_answer(p)] for r in answer.responses for p in r.partition_responses)


# --- Kafka's checks of a client's batch ------------------------------------------------------------------


@scenario("produce/bad-crc")
def _bad_crc(t: Target) -> Any:
    """A batch whose CRC does not match: CORRUPT_MESSAGE, nothing written."""
    new_topic(t, "p-bad-crc")
    data = bytearray(batch([b"hello world"]))
    data[-1] ^= 0xFF
    return {
        "answer": produce(t, "p-bad-crc", bytes(data)),
        "latest": list_offsets(t, "p-bad-crc", -1)["offset"],
    }


@scenario("produce/two-batches-in-one-partition")
def _two_batches(t: Target) -> Any:
    """Two batches for one partition in one Produce: Kafka takes exactly one v2 batch per partition
    (INVALID_RECORD)."""
    new_topic(t, "p-two-batches")
    out = produce(t, "p-two-batches", batch([b"a"]) + batch([b"b"]))
    return {"answer": out, "latest": list_offsets(t, "p-two-batches", -1)["offset"]}


@scenario("produce/record-larger-than-topic-max-message-bytes")
def _too_large_topic(t: Target) -> Any:
    """A 2,000-byte record on a topic with max.message.bytes=1000: MESSAGE_TOO_LARGE; a small one then goes in
    at 0."""
    new_topic(t, "p-too-large-topic", configs={"max.message.bytes": "1000"})
    return [
        produce(t, "p-too-large-topic", batch([os.urandom(2000)])),
        produce(t, "p-too-large-topic", batch([b"small"])),
    ]


@scenario("produce/batch-larger-than-broker-message-max-bytes")
def _too_large_broker(t: Target) -> Any:
    """A 1.1 MB batch on a topic without override (message.max.bytes 1048588): MESSAGE_TOO_LARGE."""
    new_topic(t, "p-too-large-broker")
    return produce(t, "p-too-large-broker", batch([os.urandom(1_100_000)]))


@scenario("produce/compacted-without-key")
def _compacted_no_key(t: Target) -> Any:
    """A keyless record on a compacted topic: INVALID_RECORD, batch 0 named in record_errors; a keyed one is
    NONE."""
    new_topic(t, "p-compact-nokey", configs={"cleanup.policy": "compact"})
    return [
        produce(t, "p-compact-nokey", batch([b"v"])),
        produce(t, "p-compact-nokey", batch([b"v"], keys=[b"k"])),
    ]


@scenario("produce/compacted-with-keys")
def _compacted_keys(t: Target) -> Any:
    """Keyed records on a compact,delete topic: NONE, offsets 0 then 2."""
    new_topic(t, "p-compact-keys", configs={"cleanup.policy": "compact,delete"})
    return [
        produce(t, "p-compact-keys", batch([b"1", b"2"], keys=[b"a", b"b"])),
        produce(t, "p-compact-keys", batch([b"3"], keys=[b"a"])),
    ]


# --- min.insync.replicas ------------------------------------------------------------------------------------


@scenario("produce/min-isr-above-replication-factor")
def _min_isr(t: Target) -> Any:
    """RF 1 with min.insync.replicas=2: Kafka caps the requirement at the replication factor, so acks=all
    succeeds (offsets 0, then 1 and 2 with acks=1)."""
    new_topic(t, "p-min-isr", configs={"min.insync.replicas": "2"})
    return [
        produce(t, "p-min-isr", batch([b"a"]), acks=-1),
        produce(t, "p-min-isr", batch([b"b"]), acks=1),
        produce(t, "p-min-isr", batch([b"c"]), acks=1),
    ]


@scenario("produce/min-isr-not-met-after-follower-stops", disruptive=True)
def _min_isr_follower_down(t: Target) -> Any:
    """RF 2 on brokers 1 and 2 with min.insync.replicas=2, broker 2 stopped: once the ISR is [1], acks=all
    gets NOT_ENOUGH_REPLICAS (with the log start offset) and acks=1 still succeeds.  The wait also lets
    broker 1's metadata drop broker 2 (Kafka shrinks the ISR at the controlled shutdown and fences the
    broker a moment later), so the last Metadata answer compared is the settled one on both clusters."""
    topic = "p-min-isr-down"
    out: dict[str, Any] = {
        "create": create(
            t, topic, partitions=-1, rf=-1, assignments={0: [1, 2]}, configs={"min.insync.replicas": "2"}
        )["error"]
    }
    t.wait_topic(topic)
    out["before"] = produce(t, topic, batch([b"a"]), node=1)
    t.stop_node(2)
    try:
        deadline = time.monotonic() + 30
        while not _shrunk_to_broker_1(t.metadata([topic], node=1), topic):
            if time.monotonic() > deadline:
                out["isr_shrunk"] = False
                return out
            time.sleep(0.1)
        out["acks_all"] = produce(t, topic, batch([b"b"]), node=1)
        out["acks_1"] = produce(t, topic, batch([b"c"]), acks=1, node=1)
    finally:
        t.start_node(2)
    return out


def _shrunk_to_broker_1(answer: Any, topic: str) -> bool:
    """True when a Metadata answer lists broker 1 alone and ``topic``'s partition 0 with ISR [1]."""
    partitions = [p for x in answer.topics if x.name == topic and x.error_code == 0 for p in x.partitions]
    return (
        [b.node_id for b in answer.brokers] == [1]
        and len(partitions) == 1
        and sorted(partitions[0].isr_nodes) == [1]
    )


@scenario("produce/min-isr-met")
def _min_isr_met(t: Target) -> Any:
    """RF 3 with min.insync.replicas=2: acks=all is NONE."""
    new_topic(t, "p-min-isr-met", rf=3, configs={"min.insync.replicas": "2"})
    return produce(t, "p-min-isr-met", batch([b"a"]), acks=-1)


# --- timestamps ---------------------------------------------------------------------------------------------


@scenario("produce/log-append-time")
def _log_append_time(t: Target) -> Any:
    """LogAppendTime topic: the answer carries log_append_time_ms, and fetched records carry that time."""
    new_topic(t, "p-log-append", configs={"message.timestamp.type": "LogAppendTime"})
    out = produce(t, "p-log-append", batch([b"a"], timestamps=[1000]))
    _, p = fetch_raw(t, "p-log-append", 0)
    _, header = next(record_batch.iter_batches(bytes(p.records)))
    out["fetched"] = batches_of(p.records)
    out["fetched_timestamp_recent"] = abs(header.max_timestamp - now_ms()) < 60000
    return out


@scenario("produce/create-time")
def _create_time(t: Target) -> Any:
    """CreateTime (the default): log_append_time_ms is -1 and the record keeps its own timestamp."""
    new_topic(t, "p-create-time")
    sent_ms = now_ms() - 5000
    out = produce(t, "p-create-time", batch([b"a"], timestamps=[sent_ms]))
    _, p = fetch_raw(t, "p-create-time", 0)
    _, header = next(record_batch.iter_batches(bytes(p.records)))
    out["fetched_timestamp_minus_sent_ms"] = header.max_timestamp - sent_ms
    return out


@scenario("produce/timestamp-before-max-violated")
def _before_max(t: Target) -> Any:
    """message.timestamp.before.max.ms=60000 and a record an hour old: INVALID_TIMESTAMP; a current one is
    NONE."""
    new_topic(t, "p-ts-before", configs={"message.timestamp.before.max.ms": "60000"})
    return [
        produce(t, "p-ts-before", batch([b"old"], timestamps=[now_ms() - HOUR_MS])),
        produce(t, "p-ts-before", batch([b"now"])),
    ]


@scenario("produce/timestamp-after-max-violated")
def _after_max(t: Target) -> Any:
    """message.timestamp.after.max.ms=60000 and a record an hour ahead: INVALID_TIMESTAMP; an old one is
    NONE."""
    new_topic(t, "p-ts-after", configs={"message.timestamp.after.max.ms": "60000"})
    return [
        produce(t, "p-ts-after", batch([b"future"], timestamps=[now_ms() + HOUR_MS])),
        produce(t, "p-ts-after", batch([b"old"], timestamps=[now_ms() - 10 * HOUR_MS])),
    ]


@scenario("produce/timestamp-after-max-default")
def _after_max_default(t: Target) -> Any:
    """With the default message.timestamp.after.max.ms (one hour in Kafka 4) a record two hours ahead is
    INVALID_TIMESTAMP."""
    new_topic(t, "p-ts-after-default")
    return [
        produce(t, "p-ts-after-default", batch([b"future"], timestamps=[now_ms() + 2 * HOUR_MS])),
        produce(t, "p-ts-after-default", batch([b"soon"], timestamps=[now_ms() + 60000])),
    ]


@scenario("produce/timestamp-violation-log-append-time")
def _ts_log_append(t: Target) -> Any:
    """A LogAppendTime topic ignores message.timestamp.before.max.ms: an hour-old record is NONE."""
    new_topic(
        t,
        "p-ts-lat",
        configs={"message.timestamp.type": "LogAppendTime", "message.timestamp.before.max.ms": "60000"},
    )
    return produce(t, "p-ts-lat", batch([b"old"], timestamps=[now_ms() - HOUR_MS]))


# --- compression --------------------------------------------------------------------------------------------

CODECS = {
    "none": COMPRESSION_NONE,
    "gzip": COMPRESSION_GZIP,
    "snappy": COMPRESSION_SNAPPY,
    "lz4": COMPRESSION_LZ4,
    "zstd": COMPRESSION_ZSTD,
}


def _codec_roundtrip(t: Target, name: str, codec: int, topic_config: dict[str, str] | None = None) -> Any:
    topic = f"p-codec-{name}"
    new_topic(t, topic, configs=topic_config)
    values = [b"value-%d-" % i * 20 for i in range(5)] + [None]
    keys = [b"k%d" % i for i in range(5)] + [b"tombstone"]
    headers = [[("h", b"1"), ("empty", None)]] + [[] for _ in range(5)]
    out = produce(t, topic, batch(values, keys=keys, headers=headers, compression=codec))
    _, p = fetch_raw(t, topic, 0)
    out["batches"] = batches_of(p.records)
    out["records"] = decoded(p.records)
    return out


for _name, _codec in CODECS.items():
    register(
        f"produce/compression-{_name}",
        f"A {_name} batch of keys, values, a null value and headers: stored and fetched back identical, "
        "codec kept",
        lambda t, n=_name, c=_codec: _codec_roundtrip(t, n, c),
    )

register(
    "produce/compression-topic-gzip-recompresses",
    "compression.type=gzip and an uncompressed batch: the fetched batch is gzip, records identical",
    lambda t: _codec_roundtrip(t, "topic-gzip", COMPRESSION_NONE, {"compression.type": "gzip"}),
)
register(
    "produce/compression-topic-uncompressed-decompresses",
    "compression.type=uncompressed and a zstd batch: the fetched batch is uncompressed, records identical",
    lambda t: _codec_roundtrip(t, "topic-none", COMPRESSION_ZSTD, {"compression.type": "uncompressed"}),
)


@scenario("produce/unknown-codec")
def _unknown_codec(t: Target) -> Any:
    """A batch whose attributes name codec 6 (none exists): Kafka refuses it."""
    new_topic(t, "p-codec-unknown")
    data = bytearray(batch([b"x"]))
    data[record_batch.ATTRIBUTES_OFFSET + 1] |= 6
    header = record_batch.read_header(data)
    crc = record_batch.compute_crc(data, 0, header.size_in_bytes)
    data[record_batch.CRC_OFFSET : record_batch.CRC_OFFSET + 4] = crc.to_bytes(4, "big")
    return produce(t, "p-codec-unknown", bytes(data))


# --- versions -----------------------------------------------------------------------------------------------


def _version(t: Target, version: int) -> Any:
    topic = f"p-version-{version}"
    new_topic(t, topic)
    return [
        produce(t, topic, batch([b"a"]), version=version),
        produce(t, topic, batch([b"b", b"c"]), version=version),
        produce(t, topic, batch([b"d"]), partition=4, version=version),
    ]


for _v in range(3, PRODUCE_TOPIC_ID_VERSION):
    register(
        f"produce/version-{_v}",
        f"Produce v{_v}: offsets 0 and 1, then an unknown partition, in v{_v}'s fields",
        lambda t, v=_v: _version(t, v),
    )


def topic_id_of(t: Target, topic: str) -> bytes:
    """The id of ``topic`` (Metadata v12)."""
    return bytes(t.metadata([topic]).topics[0].topic_id)


def produce_by_id(
    t: Target, topic_id: bytes, records: bytes | None, partition: int = 0, node: int | None = None
) -> tuple[Any, Any]:
    """One Produce v13 naming its topic by ``topic_id`` (KIP-516), to ``node`` (default the lowest);
    the answer and its first partition answer (None when it has none)."""
    request = ProduceRequest(
        transactional_id=None,
        acks=-1,
        timeout_ms=10000,
        topic_data=[
            ProduceTopicData(
                topic_id=topic_id, partition_data=[ProducePartitionData(index=partition, records=records)]
            )
        ],
    )
    answer = t.call("Produce", PRODUCE_TOPIC_ID_VERSION, request, node)
    parts = [p for r in answer.responses for p in r.partition_responses]
    return answer, parts[0] if parts else None


@scenario("produce/version-13")
def _version_13(t: Target) -> Any:
    """Produce v13, the topic named by its id (KIP-516): offsets 0 and 1, then an unknown partition
    (UNKNOWN_TOPIC_OR_PARTITION); every answer names the topic by the id it was asked by."""
    topic = "p-version-13"
    new_topic(t, topic)
    topic_id = topic_id_of(t, topic)
    out = []
    for values, partition in (([b"a"], 0), ([b"b", b"c"], 0), ([b"d"], 4)):
        answer, part = produce_by_id(t, topic_id, batch(values), partition, t.leader(topic))
        out.append(
            {
                "partition": partition_answer(part, PRODUCE_TOPIC_ID_VERSION),
                "topic_ids_echoed": [r.topic_id == topic_id for r in answer.responses],
            }
        )
    return out


@scenario("produce/version-13/unknown-topic-id")
def _unknown_topic_id(t: Target) -> Any:
    """Produce v13 to a topic id no topic has: UNKNOWN_TOPIC_ID (offsets -1), the id echoed."""
    unknown = os.urandom(16)
    answer, part = produce_by_id(t, unknown, batch([b"x"]), partition=2)
    return {
        "partition": partition_answer(part, PRODUCE_TOPIC_ID_VERSION),
        "index": part.index,
        "topic_ids_echoed": [r.topic_id == unknown for r in answer.responses],
    }


def current_leader_answer(t: Target, topic: str, answer: Any) -> dict[str, Any]:
    """A NOT_LEADER_OR_FOLLOWER answer as KIP-951 (Produce v10+) has it: the error, whether its current
    leader is the partition's leader, and each node endpoint's id check and address (the node's Kafka
    listener) and rack."""
    (part,) = [p for r in answer.responses for p in r.partition_responses]
    leader = t.leader(topic)
    return {
        "error": code_name(part.error_code),
        "current_leader_is_the_leader": part.current_leader.leader_id == leader,
        "current_leader_epoch_known": part.current_leader.leader_epoch >= 0,
        "node_endpoints": [
            {
                "is_the_leader": e.node_id == leader,
                "address_matches": t.addresses.get(e.node_id) == (e.host, e.port),
                "rack": e.rack,
            }
            for e in answer.node_endpoints
        ],
    }


@scenario("produce/not-leader-follower/current-leader")
def _not_leader_follower_current_leader(t: Target) -> Any:
    """Produce v12 to a follower of an RF 3 partition: NOT_LEADER_OR_FOLLOWER with the leader the
    follower's replica follows, and that leader's address on the listener asked (KIP-951)."""
    topic = "p-not-leader-f-cl"
    new_topic(t, topic, rf=3)
    request = produce_request(topic, batch([b"x"]))
    return current_leader_answer(t, topic, t.call("Produce", 12, request, follower(t, topic)))


@scenario("produce/not-leader-non-replica/current-leader")
def _not_leader_non_replica_current_leader(t: Target) -> Any:
    """Produce v10 to a broker holding no replica of the partition: NOT_LEADER_OR_FOLLOWER with the
    leader its metadata names, and that leader's address (KIP-951)."""
    topic = "p-not-leader-n-cl"
    new_topic(t, topic, rf=1)
    request = produce_request(topic, batch([b"x"]))
    return current_leader_answer(t, topic, t.call("Produce", 10, request, non_replica(t, topic)))


@scenario("produce/not-leader-non-replica/by-topic-id")
def _not_leader_by_topic_id(t: Target) -> Any:
    """Produce v13, by topic id, to a broker holding no replica of the partition:
    NOT_LEADER_OR_FOLLOWER with the current leader and its address (KIP-951, KIP-516)."""
    topic = "p-not-leader-n-id"
    new_topic(t, topic, rf=1)
    answer, _ = produce_by_id(t, topic_id_of(t, topic), batch([b"x"]), node=non_replica(t, topic))
    return current_leader_answer(t, topic, answer)


# --- the idempotent producer --------------------------------------------------------------------------------


def _idempotent(t: Target, topic: str, steps: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    """Produce one record per step ``(epoch offset, base sequence, record count)`` with a fresh
    producer id (epoch = the one InitProducerId gave plus the offset); each answer."""
    new_topic(t, topic)
    producer_id, epoch = init_producer_id(t)
    out = []
    for epoch_delta, sequence, count in steps:
        data = batch(
            [b"r%d" % (sequence + i) for i in range(count)],
            producer_id=producer_id,
            producer_epoch=epoch + epoch_delta,
            base_sequence=sequence,
        )
        out.append(produce(t, topic, data))
    return out


IDEMPOTENT: dict[str, tuple[str, list[tuple[int, int, int]]]] = {
    "in-sequence": (
        "sequences 0, 1, 2 (two records), 3: NONE at offsets 0, 1, 3",
        [(0, 0, 1), (0, 1, 2), (0, 3, 1)],
    ),
    "duplicate": (
        "sequence 0 twice: the retry is NONE with the original offset 0, nothing written twice",
        [(0, 0, 1), (0, 0, 1), (0, 1, 1)],
    ),
    "duplicate-of-older-batch": (
        "sequences 0, 1, 2 then 1 again: NONE with offset 1 (one of the last five batches)",
        [(0, 0, 1), (0, 1, 1), (0, 2, 1), (0, 1, 1)],
    ),
    "gap": (
        "sequence 0 then 2: OUT_OF_ORDER_SEQUENCE_NUMBER; 1 then goes in",
        [(0, 0, 1), (0, 2, 1), (0, 1, 1)],
    ),
    "stale-epoch": (
        "epoch e then e+1 at sequence 0 then e again: INVALID_PRODUCER_EPOCH",
        [(0, 0, 1), (1, 0, 1), (0, 1, 1)],
    ),
    "new-epoch-nonzero-sequence": (
        "epoch e then e+1 at sequence 5: OUT_OF_ORDER_SEQUENCE_NUMBER",
        [(0, 0, 1), (1, 5, 1)],
    ),
    "unknown-producer-nonzero-sequence": (
        "a first batch at sequence 7: accepted (Kafka has no state to check it against)",
        [(0, 7, 1), (0, 8, 1), (0, 10, 1)],
    ),
    "overlapping-sequence": (
        "sequence 0 (two records) then 1: not a duplicate and out of order",
        [(0, 0, 2), (0, 1, 1)],
    ),
}
for _label, (_doc, _steps) in IDEMPOTENT.items():
    register(
        f"produce/idempotent-{_label}",
        f"Idempotent producer: {_doc}",
        lambda t, s=_steps, lbl=_label: _idempotent(t, f"p-idem-{lbl}", s),
    )


@scenario("produce/init-producer-id-v5")
def _init_producer_id_v5(t: Target) -> Any:
    """InitProducerId v5 (KIP-890's TRANSACTION_ABORTABLE, the same fields) for an idempotent producer: a new
    producer id at epoch 0, again a new id at epoch 0 when the producer passes its id and epoch (KIP-360),
    and its records accepted in sequence."""
    new_topic(t, "p-init-pid-v5")
    producer_id, epoch = init_producer_id(t, version=5)
    again_id, again_epoch = init_producer_id(t, version=5, producer_id=producer_id, producer_epoch=epoch)
    answers = [
        produce(
            t,
            "p-init-pid-v5",
            batch([b"r%d" % seq], producer_id=producer_id, producer_epoch=epoch, base_sequence=seq),
        )
        for seq in (0, 1)
    ]
    return {
        "epoch": epoch,
        "id_assigned": producer_id >= 0,
        "again_epoch": again_epoch,
        "again_new_id": again_id >= 0 and again_id != producer_id,
        "produce": answers,
    }


@scenario("produce/idempotent-no-sequence")
def _idempotent_no_sequence(t: Target) -> Any:
    """A batch with a producer id but base sequence -1: INVALID_RECORD."""
    new_topic(t, "p-idem-no-seq")
    producer_id, epoch = init_producer_id(t)
    return produce(
        t, "p-idem-no-seq", batch([b"x"], producer_id=producer_id, producer_epoch=epoch, base_sequence=-1)
    )


@scenario("produce/idempotent-unallocated-producer-id")
def _idempotent_unallocated(t: Target) -> Any:
    """A producer id no InitProducerId handed out, sequence 0: Kafka does not check ids of idempotent batches
    (NONE)."""
    new_topic(t, "p-idem-unallocated")
    return produce(
        t, "p-idem-unallocated", batch([b"x"], producer_id=987654321, producer_epoch=0, base_sequence=0)
    )


@scenario("produce/transactional-batch-without-transaction")
def _transactional_no_txn(t: Target) -> Any:
    """A batch with the transactional bit from a producer with no transactional id: Kafka refuses it."""
    new_topic(t, "p-txn-bit")
    producer_id, epoch = init_producer_id(t)
    return produce(
        t,
        "p-txn-bit",
        batch([b"x"], producer_id=producer_id, producer_epoch=epoch, base_sequence=0, transactional=True),
    )
