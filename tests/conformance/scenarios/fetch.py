"""Fetch as a consumer sends it: offsets out of range above the high watermark and below the log
start, a fetch at the high watermark, byte limits smaller than a batch, isolation levels, unknown
topics and partitions, leader epochs, fetching from a follower (KIP-392), min_bytes with
max_wait_ms, each Fetch version 4..18 (by topic id from v13, KIP-516), an unknown topic id, the
current leader of a NOT_LEADER_OR_FOLLOWER answer (v16, KIP-951), and fetch sessions (KIP-227):
one created and used incrementally, a wrong epoch, an unknown session id.

Requests go raw, to the partition's leader unless the scenario says otherwise, without a session
(session id 0, epoch -1) but in the session scenarios; records are decoded from the answer's record
set.  Session ids and topic ids are random in each cluster: scenarios answer whether they are set.
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.fetch import (
    FetchPartition,
    FetchRequest,
    FetchTopic,
    ForgottenTopic,
    ReplicaState,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.produce import (
    batch,
    batches_of,
    decoded,
    delete_records,
    fetch,
    fetch_raw,
    follower,
    list_offsets,
    new_topic,
    non_replica,
    produce,
    produce_values,
)
from tests.conformance.scenarios.topics import create
from tests.conformance.target import Target, code_name


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


for _v in range(4, 19):
    register(
        f"fetch/version-{_v}",
        f"Fetch v{_v}: from 0, at the high watermark, out of range, in v{_v}'s fields"
        + (" (the topic by its id)" if _v >= 13 else ""),
        lambda t, v=_v: _version(t, v),
    )


def _topic_id(t: Target, topic: str) -> bytes:
    return next(x.topic_id for x in t.metadata([topic], version=12).topics)


def _request(
    topics: list[tuple[bytes, list[tuple[int, int]]]],
    session_id: int = 0,
    session_epoch: int = -1,
    forgotten: list[tuple[bytes, list[int]]] | None = None,
) -> FetchRequest:
    """A consumer's Fetch (v13+) of ``topics``: ``(topic id, [(partition, fetch offset)])``."""
    return FetchRequest(
        replica_id=-1,
        replica_state=ReplicaState(replica_id=-1, replica_epoch=-1),
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=0,
        session_id=session_id,
        session_epoch=session_epoch,
        topics=[
            FetchTopic(
                topic="",
                topic_id=topic_id,
                partitions=[
                    FetchPartition(partition=p, fetch_offset=offset, partition_max_bytes=1 << 20)
                    for p, offset in partitions
                ],
            )
            for topic_id, partitions in topics
        ],
        forgotten_topics_data=[
            ForgottenTopic(topic="", topic_id=topic_id, partitions=ps) for topic_id, ps in forgotten or []
        ],
        rack_id="",
    )


def _answer(answer: Any, ids: dict[bytes, str]) -> dict[str, Any]:
    """A Fetch answer with its topics named (``ids``: topic id -> a name; ``other`` for an id not
    asked, ``zero`` for none) and the session id as set or not."""
    return {
        "error": code_name(answer.error_code),
        "session": answer.session_id != 0,
        "topics": [
            {
                "topic": "zero" if r.topic_id == bytes(16) else ids.get(r.topic_id, "other"),
                "partitions": sorted(
                    [
                        p.partition_index,
                        code_name(p.error_code),
                        p.high_watermark,
                        p.last_stable_offset,
                        p.log_start_offset,
                        [r["value"] for r in decoded(p.records)],
                    ]
                    for p in r.partitions
                ),
            }
            for r in answer.responses
        ],
    }


UNKNOWN_TOPIC_ID = bytes.fromhex("0123456789abcdef0123456789abcdef")


def _unknown_topic_id(t: Target, version: int, session_epoch: int) -> Any:
    answer = t.call(
        "Fetch", version, _request([(UNKNOWN_TOPIC_ID, [(0, 0), (1, 0)])], session_epoch=session_epoch)
    )
    return _answer(answer, {UNKNOWN_TOPIC_ID: "unknown"})


register(
    "fetch/unknown-topic-id-v13",
    "Fetch v13 of an id no topic has: UNKNOWN_TOPIC_ID for each partition, the id answered, no session",
    lambda t: _unknown_topic_id(t, 13, -1),
)
register(
    "fetch/unknown-topic-id-v18-full-session",
    "Fetch v18 at epoch 0 (a new session) of an id no topic has: UNKNOWN_TOPIC_ID per partition",
    lambda t: _unknown_topic_id(t, 18, 0),
)


@scenario("fetch/unknown-and-known-topic-id")
def _known_and_unknown_id(t: Target) -> Any:
    """Fetch v13 of a known topic's id and an unknown one: the records of one, UNKNOWN_TOPIC_ID for the
    other."""
    _three(t, "f-known-id")
    known = _topic_id(t, "f-known-id")
    answer = t.call(
        "Fetch",
        13,
        _request([(known, [(0, 0)]), (UNKNOWN_TOPIC_ID, [(0, 0)])]),
        t.leader("f-known-id"),
    )
    out = _answer(answer, {known: "known", UNKNOWN_TOPIC_ID: "unknown"})
    out["topics"] = sorted(out["topics"], key=lambda x: x["topic"])
    return out


@scenario("fetch/not-leader-current-leader-v16")
def _current_leader(t: Target) -> Any:
    """Fetch v16 from a broker without a replica: NOT_LEADER_OR_FOLLOWER with the current leader and its
    endpoint (KIP-951)."""
    _three(t, "f-current-leader")
    leader = t.leader("f-current-leader")
    answer = t.call(
        "Fetch",
        16,
        _request([(_topic_id(t, "f-current-leader"), [(0, 0)])]),
        non_replica(t, "f-current-leader"),
    )
    p = answer.responses[0].partitions[0]
    return {
        "error": code_name(p.error_code),
        "current_leader_is_leader": p.current_leader.leader_id == leader,
        "current_leader_epoch": p.current_leader.leader_epoch == _epoch(t, "f-current-leader"),
        "node_endpoints": [(e.node_id == leader, e.port > 0) for e in answer.node_endpoints],
    }


def _two_partitions_on(t: Target, topic: str) -> int:
    """``topic`` with two partitions on the lowest broker (records a, b, c in partition 0): that broker."""
    node = min(t.addresses)
    create(t, topic, partitions=-1, rf=-1, assignments={0: [node], 1: [node]})
    t.wait_topic(topic, 2)
    deadline = time.monotonic() + 15
    for p in (0, 1):
        while list_offsets(t, topic, -1, partition=p)["error"] != "NONE" and time.monotonic() < deadline:
            time.sleep(0.05)
    produce_values(t, topic, [b"a", b"b", b"c"], partition=0)
    return node


@scenario("fetch/session-incremental")
def _session(t: Target) -> Any:
    """A fetch session (KIP-227): a full fetch at epoch 0 creates it (both partitions answered); an
    incremental fetch at epoch 1 with nothing new answers no partition; after a record in partition 1, epoch
    2 answers partition 1 alone; epoch 3 forgets partition 0 and answers nothing; a full fetch at epoch -1
    closes it, and epoch 4 is then FETCH_SESSION_ID_NOT_FOUND."""
    topic = "f-session"
    node = _two_partitions_on(t, topic)
    topic_id = _topic_id(t, topic)
    ids = {topic_id: topic}
    full = t.call("Fetch", 13, _request([(topic_id, [(0, 0), (1, 0)])], 0, 0), node)
    session_id = full.session_id
    out = {"full": _answer(full, ids)}
    out["nothing_new"] = _answer(t.call("Fetch", 13, _request([], session_id, 1), node), ids)
    produce_values(t, topic, [b"d"], partition=1)
    new_in_1 = t.call("Fetch", 13, _request([(topic_id, [(1, 0)])], session_id, 2), node)
    out["new_in_partition_1"] = _answer(new_in_1, ids)
    out["forget_0"] = _answer(t.call("Fetch", 18, _request([], session_id, 3, [(topic_id, [0])]), node), ids)
    out["close"] = _answer(t.call("Fetch", 18, _request([(topic_id, [(1, 1)])], session_id, -1), node), ids)
    out["after_close"] = _answer(t.call("Fetch", 18, _request([], session_id, 4), node), ids)
    return out


@scenario("fetch/session-wrong-epoch")
def _session_wrong_epoch(t: Target) -> Any:
    """An incremental fetch at epoch 5 of a session expecting epoch 1: INVALID_FETCH_SESSION_EPOCH, session
    id 0, no partitions; the session still answers epoch 1."""
    topic = "f-session-epoch"
    _three(t, topic)
    node = t.leader(topic)
    topic_id = _topic_id(t, topic)
    ids = {topic_id: topic}
    full = t.call("Fetch", 13, _request([(topic_id, [(0, 0)])], 0, 0), node)
    return {
        "full": _answer(full, ids),
        "wrong_epoch": _answer(t.call("Fetch", 13, _request([], full.session_id, 5), node), ids),
        "right_epoch": _answer(t.call("Fetch", 13, _request([], full.session_id, 1), node), ids),
    }


@scenario("fetch/session-unknown-id")
def _session_unknown(t: Target) -> Any:
    """An incremental fetch (epoch 1) of a session id the broker never made: FETCH_SESSION_ID_NOT_FOUND,
    session id 0, no partitions (at v12 by name and at v13 by id)."""
    _three(t, "f-session-unknown")
    node = t.leader("f-session-unknown")
    by_name = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        session_id=123456,
        session_epoch=1,
        topics=[],
        forgotten_topics_data=[],
        rack_id="",
    )
    return {
        "v12": _answer(t.call("Fetch", 12, by_name, node), {}),
        "v13": _answer(t.call("Fetch", 13, _request([], 123456, 1), node), {}),
    }


@scenario("fetch/session-topic-id-usage-changed")
def _session_topic_ids_changed(t: Target) -> Any:
    """A session created at v12 (by name) fetched incrementally at v13: FETCH_SESSION_TOPIC_ID_ERROR."""
    _three(t, "f-session-v12")
    node = t.leader("f-session-v12")
    full = _full_fetch_v12(t, "f-session-v12", node)
    return {
        "session": full.session_id != 0,
        "v13": _answer(t.call("Fetch", 13, _request([], full.session_id, 1), node), {}),
    }


def _full_fetch_v12(t: Target, topic: str, node: int) -> Any:
    """A v12 full fetch at epoch 0 (a new session) of ``topic``'s partition 0 from offset 0."""
    request = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        session_id=0,
        session_epoch=0,
        topics=[
            FetchTopic(
                topic=topic,
                partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
    return t.call("Fetch", 12, request, node)
