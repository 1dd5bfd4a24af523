"""Fetch (key 1): consumers and follower replicas read record batches.

Declared once, in Kafka's versions 4-18, for both listeners.
``replica_id`` (v15+: ``replica_state.replica_id``, KIP-903) is -1 for consumers (read up to the
high watermark) and the broker id for followers (read up to the log end offset, and report their
fetch offset).  From v13 on, topics are named by topic id (KIP-516), in the request, its
forgotten topics and the answer; v16 adds the answer's ``node_endpoints`` (the leaders named in a
NOT_LEADER_OR_FOLLOWER's or FENCED_LEADER_EPOCH's ``current_leader``, KIP-951), v17 a follower's
``replica_directory_id`` (KIP-853), v18 the high watermark a replica knows (KIP-1166).
``session_id``/``session_epoch`` and ``forgotten_topics_data`` are KIP-227's fetch sessions.
Version 12 carries what the KRaft quorum's followers need to fetch the metadata log
(``__cluster_metadata-0``) from its leader (KIP-595): ``cluster_id``, ``last_fetched_epoch`` and,
in the answer, the tagged ``diverging_epoch`` (truncate to it), ``current_leader`` and
``snapshot_id`` (fetch that snapshot first).  Kafka concept: ``FetchRequest``/``FetchResponse``
with min bytes and max wait.
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
    Uuid,
)


class FetchPartition(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32, "9+", default=-1),
        Field("fetch_offset", Int64),
        Field("last_fetched_epoch", Int32, "12+", default=-1),
        Field("log_start_offset", Int64, "5+", default=-1),
        Field("partition_max_bytes", Int32),
        Field("replica_directory_id", Uuid, "17+", tag=0),
        Field("high_watermark", Int64, "18+", default=0x7FFFFFFFFFFFFFFF, tag=1),
    )


class FetchTopic(Struct):
    FIELDS = (
        Field("topic", String, "0-12"),
        Field("topic_id", Uuid, "13+"),
        Field("partitions", Array(FetchPartition)),
    )


class ForgottenTopic(Struct):
    FIELDS = (
        Field("topic", String, "7-12"),
        Field("topic_id", Uuid, "13+"),
        Field("partitions", Array(Int32), "7+"),
    )


class ReplicaState(Struct):
    """The fetching follower's id and broker epoch (KIP-903), v15+ in place of ``replica_id``."""

    FIELDS = (
        Field("replica_id", Int32, "15+", default=-1),
        Field("replica_epoch", Int64, "15+", default=-1),
    )


class FetchRequest(Struct):
    """``replica_epoch`` is the fetching broker's epoch, which only the msgpack listener carries
    (Kafka's ReplicaState, v15+).  A consumer's fetch at v11 or later carries client metadata
    (``rack_id``) and may be served by a follower (KIP-392)."""

    FIELDS = (
        Field("cluster_id", String, "12+", nullable="12+", default=None, tag=0),
        Field("replica_id", Int32, "0-14", default=-1),
        Field("replica_state", ReplicaState, "15+", tag=1),
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
        Field("topic", String, "0-12"),
        Field("topic_id", Uuid, "13+"),
        Field("partitions", Array(FetchPartitionData)),
    )


class NodeEndpoint(Struct):
    """A leader named in a partition's ``current_leader`` (KIP-951), where clients reach it."""

    FIELDS = (
        Field("node_id", Int32, "16+"),
        Field("host", String, "16+"),
        Field("port", Int32, "16+"),
        Field("rack", String, "16+", nullable="16+", default=None),
    )


class FetchResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16, "7+"),
        Field("session_id", Int32, "7+"),
        Field("responses", Array(FetchTopicResponse)),
        Field("node_endpoints", Array(NodeEndpoint), "16+", tag=0),
    )
