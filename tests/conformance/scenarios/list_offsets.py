"""ListOffsets: earliest (-2), latest (-1), max timestamp (-3), the tiered storage values (earliest
local -4, latest tiered -5, earliest pending upload -6, on topics without remote storage) and by
timestamp (exact, between two records, after all of them), on empty topics, after DeleteRecords,
with unknown topics and partitions, at a follower, with both isolation levels and leader epochs,
each special value before the version defining it, and each version 1..11.

Timestamps are produced relative to one base taken at the start of a scenario, and answered
relative to it, so the observables do not depend on the wall clock.
"""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.list_offsets import (
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.produce import (
    batch,
    delete_records,
    follower,
    list_offsets,
    new_topic,
    non_replica,
    now_ms,
    produce,
)
from tests.conformance.target import Target, code_name

EARLIEST, LATEST, MAX_TIMESTAMP = -2, -1, -3
EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = -4, -5, -6


def _timed(t: Target, topic: str, deltas: list[int], rf: int = 1, **configs: str) -> int:
    """``topic`` with one record per delta, timestamped base + delta (ms, one batch each); the base."""
    base = now_ms() - 60000
    new_topic(t, topic, rf=rf, configs=configs or None)
    for d in deltas:
        produce(t, topic, batch([b"v%d" % d], timestamps=[base + d]))
    return base


def _all(t: Target, topic: str, base: int, **kwargs: Any) -> dict[str, Any]:
    return {
        name: list_offsets(t, topic, ts, base_ms=base, **kwargs)
        for name, ts in (("earliest", EARLIEST), ("latest", LATEST), ("max_timestamp", MAX_TIMESTAMP))
    }


@scenario("list-offsets/earliest-latest-max")
def _elm(t: Target) -> Any:
    """Three records at base+0, +1000, +2000: earliest 0, latest 3, max timestamp offset 2 (timestamp -1 for
    earliest and latest)."""
    base = _timed(t, "lo-elm", [0, 1000, 2000])
    return _all(t, "lo-elm", base)


@scenario("list-offsets/max-timestamp-not-last")
def _max_not_last(t: Target) -> Any:
    """Timestamps +0, +5000, +2000: max timestamp answers offset 1 with +5000."""
    base = _timed(t, "lo-max-not-last", [0, 5000, 2000])
    return list_offsets(t, "lo-max-not-last", MAX_TIMESTAMP, base_ms=base)


@scenario("list-offsets/max-timestamp-in-batch")
def _max_in_batch(t: Target) -> Any:
    """One 3-record batch with timestamps +0, +3000, +1000: max timestamp answers offset 1."""
    base = now_ms() - 60000
    new_topic(t, "lo-max-in-batch")
    produce(t, "lo-max-in-batch", batch([b"a", b"b", b"c"], timestamps=[base, base + 3000, base + 1000]))
    return list_offsets(t, "lo-max-in-batch", MAX_TIMESTAMP, base_ms=base)


@scenario("list-offsets/max-timestamp-tie")
def _max_tie(t: Target) -> Any:
    """Two records with the same largest timestamp: max timestamp answers the first of them."""
    base = _timed(t, "lo-max-tie", [0, 3000, 3000, 1000])
    return list_offsets(t, "lo-max-tie", MAX_TIMESTAMP, base_ms=base)


BY_TIMESTAMP = {
    "exact-first": 0,
    "exact-middle": 1000,
    "between": 1500,
    "before-all": -30000,
    "after-all": 9000,
    "exact-last": 2000,
}
for _label, _delta in BY_TIMESTAMP.items():
    register(
        f"list-offsets/by-timestamp-{_label}",
        f"Records at +0, +1000, +2000 and a lookup at +{_delta}: the first offset with a timestamp at or "
        "after it (-1 when none)",
        lambda t, d=_delta, lbl=_label: (
            lambda base: list_offsets(t, f"lo-ts-{lbl}", base + d, base_ms=base)
        )(_timed(t, f"lo-ts-{lbl}", [0, 1000, 2000])),
    )


@scenario("list-offsets/by-timestamp-zero")
def _ts_zero(t: Target) -> Any:
    """Timestamp 0 (not a special value): the first record."""
    base = _timed(t, "lo-ts-zero", [0, 1000])
    return list_offsets(t, "lo-ts-zero", 0, base_ms=base)


@scenario("list-offsets/empty-topic")
def _empty(t: Target) -> Any:
    """An empty topic: earliest 0, latest 0, max timestamp and a timestamp lookup find nothing."""
    new_topic(t, "lo-empty")
    out = _all(t, "lo-empty", 0)
    out["by_timestamp"] = list_offsets(t, "lo-empty", now_ms())
    return out


@scenario("list-offsets/after-delete-records")
def _after_delete(t: Target) -> Any:
    """DeleteRecords to 2 of 3 records: earliest moves to 2, latest stays 3, a lookup of +0 answers 2."""
    base = _timed(t, "lo-after-delete", [0, 1000, 2000])
    deleted = delete_records(t, "lo-after-delete", 2)
    out = _all(t, "lo-after-delete", base)
    out["delete"] = deleted
    out["by_timestamp_first"] = list_offsets(t, "lo-after-delete", base, base_ms=base)
    return out


@scenario("list-offsets/after-delete-records-all")
def _after_delete_all(t: Target) -> Any:
    """DeleteRecords to the high watermark: earliest = latest = 3; max timestamp after everything is
    deleted."""
    base = _timed(t, "lo-after-delete-all", [0, 1000, 2000])
    deleted = delete_records(t, "lo-after-delete-all", -1)
    out = _all(t, "lo-after-delete-all", base)
    out["delete"] = deleted
    return out


@scenario("list-offsets/unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """A topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return list_offsets(t, "lo-no-such-topic", LATEST, node=min(t.addresses))


@scenario("list-offsets/unknown-partition")
def _unknown_partition(t: Target) -> Any:
    """Partition 4 of a 1-partition topic: UNKNOWN_TOPIC_OR_PARTITION."""
    new_topic(t, "lo-unknown-part")
    return list_offsets(t, "lo-unknown-part", LATEST, partition=4, node=t.leader("lo-unknown-part"))


@scenario("list-offsets/follower")
def _follower(t: Target) -> Any:
    """ListOffsets to a follower of an RF 3 partition: NOT_LEADER_OR_FOLLOWER."""
    new_topic(t, "lo-follower", rf=3)
    node = follower(t, "lo-follower")
    return [list_offsets(t, "lo-follower", ts, node=node) for ts in (EARLIEST, LATEST, 0)]


@scenario("list-offsets/non-replica")
def _non_replica(t: Target) -> Any:
    """ListOffsets to a broker with no replica of the partition: NOT_LEADER_OR_FOLLOWER."""
    new_topic(t, "lo-non-replica")
    return list_offsets(t, "lo-non-replica", LATEST, node=non_replica(t, "lo-non-replica"))


@scenario("list-offsets/isolation-levels")
def _isolation(t: Target) -> Any:
    """Latest under read_uncommitted (the high watermark) and read_committed (the last stable offset): 2 and
    2."""
    base = _timed(t, "lo-isolation", [0, 1000])
    return {
        "uncommitted": list_offsets(t, "lo-isolation", LATEST, isolation_level=0, base_ms=base),
        "committed": list_offsets(t, "lo-isolation", LATEST, isolation_level=1, base_ms=base),
        "committed_by_ts": list_offsets(t, "lo-isolation", base, isolation_level=1, base_ms=base),
    }


@scenario("list-offsets/invalid-timestamp")
def _invalid_ts(t: Target) -> Any:
    """Timestamp -10 (no special value): Kafka's answer."""
    new_topic(t, "lo-invalid-ts")
    return list_offsets(t, "lo-invalid-ts", -10)


@scenario("list-offsets/earliest-local-v7")
def _earliest_local(t: Target) -> Any:
    """Timestamp -4 (earliest local, a v8 value) at v7: Kafka's answer."""
    _timed(t, "lo-earliest-local", [0, 1000])
    return list_offsets(t, "lo-earliest-local", -4)


@scenario("list-offsets/current-leader-epoch-future")
def _epoch_future(t: Target) -> Any:
    """current_leader_epoch above the leader's: UNKNOWN_LEADER_EPOCH."""
    new_topic(t, "lo-epoch-future")
    epoch = t.wait_topic("lo-epoch-future")[0].leader_epoch
    return [
        list_offsets(t, "lo-epoch-future", LATEST, current_leader_epoch=epoch),
        list_offsets(t, "lo-epoch-future", LATEST, current_leader_epoch=epoch + 3),
    ]


@scenario("list-offsets/duplicate-partition")
def _duplicate(t: Target) -> Any:
    """One request naming partition 0 twice: Kafka answers INVALID_REQUEST for it."""
    new_topic(t, "lo-duplicate")
    part = ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=LATEST)
    request = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[ListOffsetsTopic(name="lo-duplicate", partitions=[part, part])],
    )
    answer = t.call("ListOffsets", 7, request, t.leader("lo-duplicate"))
    return [
        [p.partition_index, code_name(p.error_code), p.offset] for r in answer.topics for p in r.partitions
    ]


@scenario("list-offsets/two-partitions")
def _two_partitions(t: Target) -> Any:
    """Latest of two partitions with 2 and 0 records led by one broker: 2 and 0."""
    new_topic(t, "lo-two-parts", partitions=2)
    view = t.wait_topic("lo-two-parts")
    if view[0].leader_id != view[1].leader_id:
        return [list_offsets(t, "lo-two-parts", LATEST, partition=p)["offset"] for p in (0, 1)]
    produce(t, "lo-two-parts", batch([b"a", b"b"]))
    parts = [
        ListOffsetsPartition(partition_index=i, current_leader_epoch=-1, timestamp=LATEST) for i in (0, 1)
    ]
    request = ListOffsetsRequest(
        replica_id=-1, isolation_level=0, topics=[ListOffsetsTopic(name="lo-two-parts", partitions=parts)]
    )
    answer = t.call("ListOffsets", 7, request, view[0].leader_id)
    return sorted(
        [p.partition_index, code_name(p.error_code), p.offset] for r in answer.topics for p in r.partitions
    )


def _version(t: Target, version: int) -> Any:
    topic = f"lo-version-{version}"
    base = _timed(t, topic, [0, 1000, 2000])
    out = {
        "earliest": list_offsets(t, topic, EARLIEST, version=version, base_ms=base),
        "latest": list_offsets(t, topic, LATEST, version=version, base_ms=base),
        "by_timestamp": list_offsets(t, topic, base + 500, version=version, base_ms=base),
        "unknown_partition": list_offsets(t, topic, LATEST, partition=3, version=version),
    }
    if version >= 7:
        out["max_timestamp"] = list_offsets(t, topic, MAX_TIMESTAMP, version=version, base_ms=base)
    if version >= 8:
        out["earliest_local"] = list_offsets(t, topic, EARLIEST_LOCAL, version=version, base_ms=base)
    if version >= 9:
        out["latest_tiered"] = list_offsets(t, topic, LATEST_TIERED, version=version, base_ms=base)
    if version >= 11:
        out["earliest_pending_upload"] = list_offsets(
            t, topic, EARLIEST_PENDING_UPLOAD, version=version, base_ms=base
        )
    return out


for _v in range(1, 12):
    register(
        f"list-offsets/version-{_v}",
        f"ListOffsets v{_v}: earliest, latest, by timestamp, unknown partition",
        lambda t, v=_v: _version(t, v),
    )


@scenario("list-offsets/max-timestamp-v6")
def _max_v6(t: Target) -> Any:
    """Timestamp -3 (max timestamp) at v6, before the version that defines it: Kafka's answer."""
    base = _timed(t, "lo-max-v6", [0, 1000])
    return list_offsets(t, "lo-max-v6", MAX_TIMESTAMP, version=6, base_ms=base)


def _tiered_values(t: Target, topic: str, version: int = 11) -> dict[str, Any]:
    """Earliest local, latest tiered and earliest pending upload of ``topic`` (no remote storage), with
    the leader epoch answered."""
    out = {}
    for name, ts in (
        ("earliest_local", EARLIEST_LOCAL),
        ("latest_tiered", LATEST_TIERED),
        ("earliest_pending_upload", EARLIEST_PENDING_UPLOAD),
    ):
        part = ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=ts)
        request = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[ListOffsetsTopic(name=topic, partitions=[part])],
            timeout_ms=0,
        )
        answer = t.call("ListOffsets", version, request, t.leader(topic))
        out[name] = [
            [code_name(p.error_code), p.offset, p.timestamp, p.leader_epoch]
            for r in answer.topics
            for p in r.partitions
        ]
    return out


@scenario("list-offsets/tiered-values-empty")
def _tiered_empty(t: Target) -> Any:
    """An empty topic without remote storage at the newest version: earliest local 0 (the log start
    offset); latest tiered and earliest pending upload, where the version defines them, -1 with leader
    epoch -1."""
    new_topic(t, "lo-tiered-empty")
    t.wait_topic("lo-tiered-empty")
    return _tiered_values(t, "lo-tiered-empty")


@scenario("list-offsets/tiered-values-records")
def _tiered_records(t: Target) -> Any:
    """Three records at the newest version: earliest local 0; latest tiered and earliest pending upload,
    where the version defines them, -1 (nothing is tiered)."""
    _timed(t, "lo-tiered-records", [0, 1000, 2000])
    return _tiered_values(t, "lo-tiered-records")


@scenario("list-offsets/tiered-values-after-delete-records")
def _tiered_after_delete(t: Target) -> Any:
    """DeleteRecords to 2 of 3 records: earliest local follows the log start offset to 2; latest tiered
    and earliest pending upload, where the version defines them, stay -1."""
    _timed(t, "lo-tiered-deleted", [0, 1000, 2000])
    deleted = delete_records(t, "lo-tiered-deleted", 2)
    return {"delete": deleted, **_tiered_values(t, "lo-tiered-deleted")}


@scenario("list-offsets/tiered-values-v8")
def _tiered_v8(t: Target) -> Any:
    """At v8 earliest local is answered, latest tiered (v9) and earliest pending upload (v11) are
    UNSUPPORTED_VERSION."""
    _timed(t, "lo-tiered-v8", [0, 1000])
    return _tiered_values(t, "lo-tiered-v8", version=8)


@scenario("list-offsets/tiered-values-v10")
def _tiered_v10(t: Target) -> Any:
    """At v10 (with its timeout) earliest local and latest tiered are answered, earliest pending upload
    (v11) is UNSUPPORTED_VERSION."""
    _timed(t, "lo-tiered-v10", [0, 1000])
    return _tiered_values(t, "lo-tiered-v10", version=10)


@scenario("list-offsets/timeout-ms-v10")
def _timeout_v10(t: Target) -> Any:
    """v10's timeout_ms (KIP-1075, a bound on remote storage reads) on a topic without remote storage:
    earliest, latest and a timestamp lookup answered as without it."""
    base = _timed(t, "lo-timeout-v10", [0, 1000, 2000])
    out = {}
    for name, ts in (("earliest", EARLIEST), ("latest", LATEST), ("by_timestamp", base + 500)):
        part = ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=ts)
        request = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[ListOffsetsTopic(name="lo-timeout-v10", partitions=[part])],
            timeout_ms=1500,
        )
        answer = t.call("ListOffsets", 10, request, t.leader("lo-timeout-v10"))
        out[name] = [
            [code_name(p.error_code), p.offset, p.timestamp - base if p.timestamp >= 0 else p.timestamp]
            for r in answer.topics
            for p in r.partitions
        ]
    return out
