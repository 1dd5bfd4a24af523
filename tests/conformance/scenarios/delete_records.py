"""DeleteRecords: moving the log start offset to the middle, to the high watermark (-1), beyond it,
below where it already is, on compacted and unknown topics and at non-leaders; and what a client
sees afterwards (a fetch below the new log start is out of range, produce goes on at the log end).
"""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from tests.conformance.catalogue import scenario
from tests.conformance.scenarios.produce import (
    batch,
    delete_records,
    fetch,
    follower,
    list_offsets,
    new_topic,
    non_replica,
    produce,
    produce_values,
)
from tests.conformance.target import Target, code_name


def _five(t: Target, topic: str, rf: int = 1, **configs: str) -> None:
    """``topic`` with records 0..4 (one batch each)."""
    new_topic(t, topic, rf=rf, configs=configs or None)
    produce_values(t, topic, [b"r0", b"r1", b"r2", b"r3", b"r4"])


@scenario("delete-records/middle")
def _middle(t: Target) -> Any:
    """Delete below offset 2 of 5: NONE, low watermark 2; earliest is then 2."""
    _five(t, "dr-middle")
    return {
        "delete": delete_records(t, "dr-middle", 2),
        "earliest": list_offsets(t, "dr-middle", -2)["offset"],
    }


@scenario("delete-records/middle-of-batch")
def _middle_of_batch(t: Target) -> Any:
    """Delete below offset 1 inside a 3-record batch: low watermark 1; a fetch from 1 sees offsets 1 and 2."""
    new_topic(t, "dr-mid-batch")
    produce(t, "dr-mid-batch", batch([b"a", b"b", b"c"]))
    out = {"delete": delete_records(t, "dr-mid-batch", 1)}
    got = fetch(t, "dr-mid-batch", 1)
    out["fetch"] = {
        "error": got["error"],
        "log_start_offset": got["log_start_offset"],
        "offsets": [r["offset"] for r in got["records"]],
    }
    return out


@scenario("delete-records/to-high-watermark")
def _to_hw(t: Target) -> Any:
    """Offset -1 means the high watermark: low watermark 5; the partition reads empty."""
    _five(t, "dr-to-hw")
    return {"delete": delete_records(t, "dr-to-hw", -1), "fetch_at_5": fetch(t, "dr-to-hw", 5)}


@scenario("delete-records/exactly-high-watermark")
def _exactly_hw(t: Target) -> Any:
    """Offset 5 (= the high watermark): NONE, low watermark 5."""
    _five(t, "dr-exact-hw")
    return delete_records(t, "dr-exact-hw", 5)


@scenario("delete-records/beyond-high-watermark")
def _beyond(t: Target) -> Any:
    """Offset 9 with a high watermark of 5: OFFSET_OUT_OF_RANGE; the log start stays 0."""
    _five(t, "dr-beyond")
    return {
        "delete": delete_records(t, "dr-beyond", 9),
        "earliest": list_offsets(t, "dr-beyond", -2)["offset"],
    }


@scenario("delete-records/negative-offset")
def _negative(t: Target) -> Any:
    """Offset -2 (only -1 is special): OFFSET_OUT_OF_RANGE."""
    _five(t, "dr-negative")
    return delete_records(t, "dr-negative", -2)


@scenario("delete-records/below-current-log-start")
def _below_current(t: Target) -> Any:
    """Delete to 3, then to 1: the second is NONE with low watermark 3 (the log start never moves back)."""
    _five(t, "dr-below-current")
    return [delete_records(t, "dr-below-current", 3), delete_records(t, "dr-below-current", 1)]


@scenario("delete-records/zero")
def _zero(t: Target) -> Any:
    """Offset 0 on a fresh topic: NONE, low watermark 0."""
    _five(t, "dr-zero")
    return delete_records(t, "dr-zero", 0)


@scenario("delete-records/empty-topic")
def _empty(t: Target) -> Any:
    """An empty topic: offset -1 and 0 are NONE with low watermark 0; 1 is OFFSET_OUT_OF_RANGE."""
    new_topic(t, "dr-empty")
    return [
        delete_records(t, "dr-empty", -1),
        delete_records(t, "dr-empty", 0),
        delete_records(t, "dr-empty", 1),
    ]


@scenario("delete-records/unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """A topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return delete_records(t, "dr-no-such-topic", 0, node=min(t.addresses))


@scenario("delete-records/unknown-partition")
def _unknown_partition(t: Target) -> Any:
    """Partition 3 of a 1-partition topic: UNKNOWN_TOPIC_OR_PARTITION."""
    _five(t, "dr-unknown-part")
    return delete_records(t, "dr-unknown-part", 0, partition=3, node=t.leader("dr-unknown-part"))


@scenario("delete-records/follower")
def _follower(t: Target) -> Any:
    """DeleteRecords sent to a follower: NOT_LEADER_OR_FOLLOWER."""
    _five(t, "dr-follower", rf=3)
    return delete_records(t, "dr-follower", 2, node=follower(t, "dr-follower"))


@scenario("delete-records/non-replica")
def _non_replica(t: Target) -> Any:
    """DeleteRecords sent to a broker with no replica: NOT_LEADER_OR_FOLLOWER."""
    _five(t, "dr-non-replica")
    return delete_records(t, "dr-non-replica", 2, node=non_replica(t, "dr-non-replica"))


@scenario("delete-records/replicated")
def _replicated(t: Target) -> Any:
    """An RF 3 partition: the answer waits for the followers, low watermark 3; a follower's fetch then reports
    it."""
    _five(t, "dr-replicated", rf=3)
    return delete_records(t, "dr-replicated", 3)


@scenario("delete-records/compacted")
def _compacted(t: Target) -> Any:
    """A compact-only topic: POLICY_VIOLATION."""
    new_topic(t, "dr-compacted", configs={"cleanup.policy": "compact"})
    produce(t, "dr-compacted", batch([b"v"], keys=[b"k"]))
    return delete_records(t, "dr-compacted", 1)


@scenario("delete-records/compact-delete")
def _compact_delete(t: Target) -> Any:
    """A compact,delete topic: NONE."""
    new_topic(t, "dr-compact-delete", configs={"cleanup.policy": "compact,delete"})
    produce(t, "dr-compact-delete", batch([b"v", b"w"], keys=[b"k", b"l"]))
    return delete_records(t, "dr-compact-delete", 1)


@scenario("delete-records/then-fetch-below")
def _then_fetch(t: Target) -> Any:
    """After deleting to 3: a fetch from 1 is OFFSET_OUT_OF_RANGE, from 3 returns r3 and r4 with log start
    3."""
    _five(t, "dr-then-fetch")
    delete_records(t, "dr-then-fetch", 3)
    return {"from_1": fetch(t, "dr-then-fetch", 1), "from_3": fetch(t, "dr-then-fetch", 3)}


@scenario("delete-records/then-produce")
def _then_produce(t: Target) -> Any:
    """After deleting everything (-1): produce goes on at offset 5 with log start 5 answered."""
    _five(t, "dr-then-produce")
    delete_records(t, "dr-then-produce", -1)
    return produce(t, "dr-then-produce", batch([b"r5"]))


@scenario("delete-records/two-partitions-mixed")
def _two(t: Target) -> Any:
    """One request for partition 0 (offset 2) and partition 6 (unknown): NONE with 2,
    UNKNOWN_TOPIC_OR_PARTITION."""
    _five(t, "dr-two-parts")
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsTopic(
                name="dr-two-parts",
                partitions=[
                    DeleteRecordsPartition(partition_index=0, offset=2),
                    DeleteRecordsPartition(partition_index=6, offset=2),
                ],
            )
        ],
        timeout_ms=10000,
    )
    answer = t.call("DeleteRecords", 2, request, t.leader("dr-two-parts"))
    return sorted(
        [p.partition_index, code_name(p.error_code), p.low_watermark]
        for r in answer.topics
        for p in r.partitions
    )


@scenario("delete-records/version-0")
def _v0(t: Target) -> Any:
    """DeleteRecords v0 to the middle: NONE, low watermark 2."""
    _five(t, "dr-v0")
    return delete_records(t, "dr-v0", 2, version=0)
