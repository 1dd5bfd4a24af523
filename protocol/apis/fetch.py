"""Fetch (key 1): consumers and follower replicas read record batches.

``replica_id`` is -1 for consumers (read up to the high watermark) and the broker id
for followers (read up to the log end offset, and report their fetch offset).
Version 1 adds what the KRaft quorum's followers need to fetch the metadata log
(``__cluster_metadata-0``) from its leader (KIP-595, Fetch v12 in Kafka):
``cluster_id``, ``last_fetched_epoch`` and, in the answer, ``diverging_epoch`` (truncate
to it), ``current_leader`` and ``snapshot_id`` (fetch that snapshot first).
Kafka concept: ``FetchRequest``/``FetchResponse`` with min bytes and max wait.
"""

from kafkette.protocol.schema import Array, Bytes, Field, Int8, Int16, Int32, Int64, Nullable, String, Struct


class FetchPartition(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32, default=-1),
        Field("fetch_offset", Int64),
        Field("last_fetched_epoch", Int32, versions="1+", default=-1),
        Field("log_start_offset", Int64, default=-1),
        Field("partition_max_bytes", Int32, default=1048576),
    )


class FetchTopic(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(FetchPartition)),
    )


class FetchRequest(Struct):
    FIELDS = (
        Field("cluster_id", Nullable(String), versions="1+"),
        Field("replica_id", Int32, default=-1),
        Field("replica_epoch", Int64, default=-1),
        Field("max_wait_ms", Int32, default=500),
        Field("min_bytes", Int32, default=1),
        Field("max_bytes", Int32, default=52428800),
        Field("isolation_level", Int8),
        Field("topics", Array(FetchTopic)),
        Field("rack_id", Nullable(String), versions="1+"),
    )


class EpochEndOffset(Struct):
    """Where the leader's log diverges from the fetcher's: the end offset of ``epoch``."""

    FIELDS = (
        Field("epoch", Int32, default=-1),
        Field("end_offset", Int64, default=-1),
    )


class LeaderIdAndEpoch(Struct):
    FIELDS = (
        Field("leader_id", Int32, default=-1),
        Field("leader_epoch", Int32, default=-1),
    )


class FetchSnapshotId(Struct):
    """The snapshot a fetcher below the log start offset must load first (KIP-630)."""

    FIELDS = (
        Field("end_offset", Int64, default=-1),
        Field("epoch", Int32, default=-1),
    )


class FetchPartitionData(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("high_watermark", Int64, default=-1),
        Field("last_stable_offset", Int64, default=-1),
        Field("log_start_offset", Int64, default=-1),
        Field("diverging_epoch", EpochEndOffset, versions="1+"),
        Field("current_leader", LeaderIdAndEpoch, versions="1+"),
        Field("snapshot_id", FetchSnapshotId, versions="1+"),
        Field("records", Nullable(Bytes)),
    )


class FetchTopicResponse(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(FetchPartitionData)),
    )


class FetchResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("responses", Array(FetchTopicResponse)),
    )
