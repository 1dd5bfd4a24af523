"""Fetch (key 1): consumers and follower replicas read record batches.

``replica_id`` is -1 for consumers (read up to the high watermark) and the broker id
for followers (read up to the log end offset, and report their fetch offset).
Kafka concept: ``FetchRequest``/``FetchResponse`` with min bytes and max wait.
"""

from kafkette.protocol.schema import Array, Bytes, Field, Int8, Int16, Int32, Int64, Nullable, String, Struct


class FetchPartition(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32, default=-1),
        Field("fetch_offset", Int64),
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
        Field("replica_id", Int32, default=-1),
        Field("replica_epoch", Int64, default=-1),
        Field("max_wait_ms", Int32, default=500),
        Field("min_bytes", Int32, default=1),
        Field("max_bytes", Int32, default=52428800),
        Field("isolation_level", Int8),
        Field("topics", Array(FetchTopic)),
    )


class FetchPartitionData(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("high_watermark", Int64, default=-1),
        Field("last_stable_offset", Int64, default=-1),
        Field("log_start_offset", Int64, default=-1),
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
