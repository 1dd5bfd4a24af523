"""Fetch as a consumer sends it: offsets out of range above the high watermark and below the log
start, a fetch at the high watermark, byte limits smaller than a batch, isolation levels, unknown
topics and partitions, leader epochs, fetching from a follower (KIP-392), min_bytes with
max_wait_ms, and each Fetch version 4..12.

Requests go raw (no fetch session, session id 0, epoch -1), to the partition's leader unless the
scenario says otherwise; records are decoded from the answer's record set.
"""

from __future__ import annotations

import time
from typing import Any

from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.produce import (
    batch,
    batches_of,
    delete_records,
    fetch,
    fetch_raw,
    follower,
    new_topic,
    non_replica,
    produce,
    produce_values,
)
from tests.conformance.target import Target


def _three(t: Target, topic: str, rf: int = 1, **configs: str) -> None:
    """``topic`` with records a, b, c at offsets 0..2."""
    new_topic(t, topic, rf=rf, configs=configs or None)
    produce_values(t, topic, [b"a", b"b", b"c"])


@scenario("fetch/from-zero")
def _from_zero(t: Target) -> Any:
    """Fetch from 0 of a 3-record topic: NONE, high watermark 3, last stable 3, log start 0, all records."""
    _three(t, "f-from-zero")
    return fetch(t, "f-from-zero", 0)


@scenario("fetch/from-middle")
def _from_middle(t: Target) -> Any:
    """Fetch from offset 1, where a one-record batch starts: records 1 and 2."""
    _three(t, "f-from-middle")
    return fetch(t, "f-from-middle", 1)


@scenario("fetch/inside-a-batch")
def _inside_batch(t: Target) -> Any:
    """Fetch from offset 1 inside a 3-record batch: Kafka returns the whole batch (offsets 0..2)."""
    new_topic(t, "f-inside-batch")
    produce(t, "f-inside-batch", batch([b"a", b"b", b"c"]))
    return fetch(t, "f-inside-batch", 1)


@scenario("fetch/at-high-watermark")
def _at_hw(t: Target) -> Any:
    """Fetch at the high watermark: NONE, no records, high watermark, last stable offset and log start
    answered."""
    _three(t, "f-at-hw")
    return fetch(t, "f-at-hw", 3)


@scenario("fetch/empty-topic")
def _empty(t: Target) -> Any:
    """Fetch from 0 of an empty topic: NONE, no records, high watermark 0."""
    new_topic(t, "f-empty")
    return fetch(t, "f-empty", 0)


@scenario("fetch/above-high-watermark")
def _above_hw(t: Target) -> Any:
    """Fetch from 10 with 3 records: OFFSET_OUT_OF_RANGE."""
    _three(t, "f-above-hw")
    return fetch(t, "f-above-hw", 10)


@scenario("fetch/one-past-high-watermark")
def _one_past(t: Target) -> Any:
    """Fetch from 4 with 3 records (one past the log end): OFFSET_OUT_OF_RANGE."""
    _three(t, "f-one-past")
    return fetch(t, "f-one-past", 4)


@scenario("fetch/negative-offset")
def _negative(t: Target) -> Any:
    """Fetch from -1: OFFSET_OUT_OF_RANGE."""
    _three(t, "f-negative")
    return fetch(t, "f-negative", -1)


@scenario("fetch/below-log-start")
def _below_log_start(t: Target) -> Any:
    """After DeleteRecords to 2, fetch from 0: OFFSET_OUT_OF_RANGE; from 2: record c, log start 2."""
    _three(t, "f-below-start")
    deleted = delete_records(t, "f-below-start", 2)
    return {"delete": deleted, "from_0": fetch(t, "f-below-start", 0), "from_2": fetch(t, "f-below-start", 2)}


@scenario("fetch/max-bytes-smaller-than-batch")
def _max_bytes_small(t: Target) -> Any:
    """max_bytes 10, smaller than the first batch: Kafka still returns that one whole batch (and no more)."""
    new_topic(t, "f-max-bytes")
    produce_values(t, "f-max-bytes", [b"x" * 300, b"y" * 300, b"z" * 300])
    _, p = fetch_raw(t, "f-max-bytes", 0, max_bytes=10)
    return {"batches": batches_of(p.records), "high_watermark": p.high_watermark}


@scenario("fetch/partition-max-bytes-smaller-than-batch")
def _partition_max_small(t: Target) -> Any:
    """partition_max_bytes 10, smaller than the first batch: one whole batch."""
    new_topic(t, "f-part-max-bytes")
    produce_values(t, "f-part-max-bytes", [b"x" * 300, b"y" * 300, b"z" * 300])
    _, p = fetch_raw(t, "f-part-max-bytes", 0, partition_max_bytes=10)
    return {"batches": batches_of(p.records), "high_watermark": p.high_watermark}


@scenario("fetch/partition-max-bytes-two-batches")
def _partition_max_two(t: Target) -> Any:
    """partition_max_bytes a little over two batches: whole batches only (Kafka may end with a partial one;
    the client sees two records)."""
    new_topic(t, "f-part-max-two")
    produce_values(t, "f-part-max-two", [b"x" * 300, b"y" * 300, b"z" * 300])
    _, whole = fetch_raw(t, "f-part-max-two", 0)
    first = [b["records"] for b in batches_of(whole.records)]
    size = len(bytes(whole.records)) // 3
    _, p = fetch_raw(t, "f-part-max-two", 0, partition_max_bytes=2 * size + 20)
    return {"batches_whole": first, "batches": batches_of(p.records)}


@scenario("fetch/max-bytes-two-partitions")
def _max_bytes_two_partitions(t: Target) -> Any:
    """max_bytes 10 over two partitions led by one broker: the first partition gets one batch, the second
    none."""
    new_topic(t, "f-max-bytes-2p", partitions=2)
    view = t.wait_topic("f-max-bytes-2p")
    if view[0].leader_id != view[1].leader_id:
        return "leaders-differ"
    produce_values(t, "f-max-bytes-2p", [b"x" * 300], partition=0)
    produce_values(t, "f-max-bytes-2p", [b"y" * 300], partition=1)
    from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic

    request = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=10,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchTopic(
                topic="f-max-bytes-2p",
                partitions=[
                    FetchPartition(partition=i, fetch_offset=0, partition_max_bytes=1 << 20) for i in (0, 1)
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
    answer = t.call("Fetch", 12, request, view[0].leader_id)
    return sorted(
        [p.partition_index, len(batches_of(p.records))] for r in answer.responses for p in r.partitions
    )


@scenario("fetch/read-committed")
def _read_committed(t: Target) -> Any:
    """isolation_level read_committed without transactions: every record, last stable offset = high
    watermark."""
    _three(t, "f-read-committed")
    return fetch(t, "f-read-committed", 0, isolation_level=1)


@scenario("fetch/read-committed-at-end")
def _read_committed_end(t: Target) -> Any:
    """read_committed at the high watermark: empty, last stable offset 3."""
    _three(t, "f-read-committed-end")
    return fetch(t, "f-read-committed-end", 3, isolation_level=1)


@scenario("fetch/unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """Fetch of a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION for the partition."""
    return fetch(t, "f-no-such-topic", 0, node=min(t.addresses))


@scenario("fetch/unknown-partition")
def _unknown_partition(t: Target) -> Any:
    """Fetch of partition 3 of a 1-partition topic: UNKNOWN_TOPIC_OR_PARTITION."""
    _three(t, "f-unknown-part")
    return fetch(t, "f-unknown-part", 0, partition=3, node=t.leader("f-unknown-part"))


@scenario("fetch/non-replica-broker")
def _non_replica(t: Target) -> Any:
    """Fetch from a broker holding no replica of the partition: NOT_LEADER_OR_FOLLOWER."""
    _three(t, "f-non-replica")
    return fetch(t, "f-non-replica", 0, node=non_replica(t, "f-non-replica"))


def _from_follower(t: Target, topic: str, version: int) -> Any:
    new_topic(t, topic, rf=3)
    produce_values(t, topic, [b"a", b"b"])
    node = follower(t, topic)
    deadline = time.monotonic() + 10
    out = fetch(t, topic, 0, version=version, node=node)
    while out["error"] == "NONE" and out["high_watermark"] < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        out = fetch(t, topic, 0, version=version, node=node)
    return out


register(
    "fetch/follower-v12",
    "A consumer (replica id -1) fetching from a follower at v12: Kafka serves it (KIP-392)",
    lambda t: _from_follower(t, "f-follower-v12", 12),
)
register(
    "fetch/follower-v10",
    "A consumer fetching from a follower at v10 (before KIP-392): NOT_LEADER_OR_FOLLOWER",
    lambda t: _from_follower(t, "f-follower-v10", 10),
)


@scenario("fetch/min-bytes-max-wait")
def _min_bytes_wait(t: Target) -> Any:
    """min_bytes 1, max_wait_ms 500 at the high watermark: an empty answer after about the wait."""
    _three(t, "f-min-bytes")
    started = time.monotonic()
    out = fetch(t, "f-min-bytes", 3, max_wait_ms=500, min_bytes=1)
    elapsed = time.monotonic() - started
    out["waited"] = 0.4 <= elapsed < 3
    return out


@scenario("fetch/min-bytes-satisfied")
def _min_bytes_satisfied(t: Target) -> Any:
    """min_bytes 1 and data available with max_wait_ms 5000: the answer comes at once."""
    _three(t, "f-min-bytes-ok")
    started = time.monotonic()
    out = fetch(t, "f-min-bytes-ok", 0, max_wait_ms=5000, min_bytes=1)
    out["prompt"] = time.monotonic() - started < 2
    return out


@scenario("fetch/min-bytes-large-returns-available")
def _min_bytes_large(t: Target) -> Any:
    """min_bytes 1 MB with 3 small records and max_wait_ms 300: after the wait, what there is."""
    _three(t, "f-min-bytes-large")
    return fetch(t, "f-min-bytes-large", 0, max_wait_ms=300, min_bytes=1 << 20)


def _epoch(t: Target, topic: str) -> int:
    return t.wait_topic(topic)[0].leader_epoch


@scenario("fetch/current-leader-epoch-matches")
def _epoch_ok(t: Target) -> Any:
    """current_leader_epoch equal to the leader's: NONE."""
    _three(t, "f-epoch-ok")
    return fetch(t, "f-epoch-ok", 0, current_leader_epoch=_epoch(t, "f-epoch-ok"))


@scenario("fetch/current-leader-epoch-future")
def _epoch_future(t: Target) -> Any:
    """current_leader_epoch above the leader's: UNKNOWN_LEADER_EPOCH."""
    _three(t, "f-epoch-future")
    return fetch(t, "f-epoch-future", 0, current_leader_epoch=_epoch(t, "f-epoch-future") + 5)


@scenario("fetch/lso-and-log-start-after-delete")
def _after_delete(t: Target) -> Any:
    """DeleteRecords to 1 then fetch at the high watermark: log start 1, high watermark 3."""
    _three(t, "f-after-delete")
    delete_records(t, "f-after-delete", 1)
    return fetch(t, "f-after-delete", 3)


def _version(t: Target, version: int) -> Any:
    topic = f"f-version-{version}"
    _three(t, topic)
    return {
        "from_0": fetch(t, topic, 0, version=version),
        "at_hw": fetch(t, topic, 3, version=version),
        "out_of_range": fetch(t, topic, 9, version=version),
    }


for _v in range(4, 13):
    register(
        f"fetch/version-{_v}",
        f"Fetch v{_v}: from 0, at the high watermark, out of range, in v{_v}'s fields",
        lambda t, v=_v: _version(t, v),
    )
