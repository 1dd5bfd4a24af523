"""Fetch (key 1): consumers and follower replicas read record batches.

Declared once, in Kafka's versions 4-12 (13 and up name topics by id), for both listeners.
``replica_id`` is -1 for consumers (read up to the high watermark) and the broker id for
followers (read up to the log end offset, and report their fetch offset).  Version 12 carries
what the KRaft quorum's followers need to fetch the metadata log (``__cluster_metadata-0``)
from its leader (KIP-595): ``cluster_id``, ``last_fetched_epoch`` and, in the answer, the
tagged ``diverging_epoch`` (truncate to it), ``current_leader`` and ``snapshot_id`` (fetch
that snapshot first).  Kafka concept: ``FetchRequest``/``FetchResponse`` with min bytes and
max wait.
"""

from kafkette.protocol.schema import (
    Array,
    Field,
    Int8,
    Int16,
    Int32,
    Int64,
    Records,
    String,
    Struct,
)


class FetchPartition(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32, "9+", default=-1),
        Field("fetch_offset", Int64),
        Field("last_fetched_epoch", Int32, "12+", default=-1),
        Field("log_start_offset", Int64, "5+", default=-1),
        Field("partition_max_bytes", Int32),
    )


class FetchTopic(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(FetchPartition)),
    )


class ForgottenTopic(Struct):
    FIELDS = (
        Field("topic", String, "7+"),
        Field("partitions", Array(Int32), "7+"),
    )


class FetchRequest(Struct):
    """``replica_epoch`` is the fetching broker's epoch, which only the msgpack listener carries
    (Kafka's ReplicaState, v15+).  A consumer's fetch at v11 or later carries client metadata
    (``rack_id``) and may be served by a follower (KIP-392)."""

    FIELDS = (
        Field("cluster_id", String, "12+", nullable="12+", default=None, tag=0),
        Field("replica_id", Int32, default=-1),
        Field("replica_epoch", Int64, default=-1, kafka=False),
        Field("max_wait_ms", Int32),
        Field("min_bytes", Int32),
        Field("max_bytes", Int32, "3+", default=0x7FFFFFFF),
        Field("isolation_level", Int8, "4+"),
        Field("session_id", Int32, "7+"),
        Field("session_epoch", Int32, "7+", default=-1),
        Field("topics", Array(FetchTopic)),
        Field("forgotten_topics_data", Array(ForgottenTopic), "7+"),
        Field("rack_id", String, "11+"),
    )


class EpochEndOffset(Struct):
    """Where the leader's log diverges from the fetcher's: the end offset of ``epoch``."""

    FIELDS = (
        Field("epoch", Int32, "12+", default=-1),
        Field("end_offset", Int64, "12+", default=-1),
    )


class LeaderIdAndEpoch(Struct):
    FIELDS = (
        Field("leader_id", Int32, "12+", default=-1),
        Field("leader_epoch", Int32, "12+", default=-1),
    )


class FetchSnapshotId(Struct):
    """The snapshot a fetcher below the log start offset must load first (KIP-630)."""

    FIELDS = (
        Field("end_offset", Int64, default=-1),
        Field("epoch", Int32, default=-1),
    )


class AbortedTransaction(Struct):
    FIELDS = (
        Field("producer_id", Int64, "4+"),
        Field("first_offset", Int64, "4+"),
    )


class FetchPartitionData(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("high_watermark", Int64),
        Field("last_stable_offset", Int64, "4+", default=-1),
        Field("log_start_offset", Int64, "5+", default=-1),
        Field("diverging_epoch", EpochEndOffset, "12+", tag=0),
        Field("current_leader", LeaderIdAndEpoch, "12+", tag=1),
        Field("snapshot_id", FetchSnapshotId, "12+", tag=2),
        Field("aborted_transactions", Array(AbortedTransaction), "4+", nullable="4+"),
        Field("preferred_read_replica", Int32, "11+", default=-1),
        Field("records", Records, nullable="0+"),
    )


class FetchTopicResponse(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(FetchPartitionData)),
    )


class FetchResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16, "7+"),
        Field("session_id", Int32, "7+"),
        Field("responses", Array(FetchTopicResponse)),
    )
