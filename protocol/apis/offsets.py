"""OffsetCommit (key 8) and OffsetFetch (key 9): a group's committed offsets, at its coordinator.

OffsetCommit stores ``committed_offset`` (the next offset to consume), the leader epoch of the
last consumed record and the client's metadata per partition; a commit outside group
management uses ``generation_id`` -1 and an empty ``member_id``.  OffsetFetch answers the
committed offset per partition (-1 when there is none), or every partition the group has
committed when ``topics`` is null.  Errors per partition (UNKNOWN_TOPIC_OR_PARTITION,
OFFSET_METADATA_TOO_LARGE, ILLEGAL_GENERATION, ...) or for the whole group (NOT_COORDINATOR,
COORDINATOR_LOAD_IN_PROGRESS, INVALID_GROUP_ID).

Declared once, in Kafka's versions (OffsetCommit 2-8, OffsetFetch 1-7): the msgpack listener
and Kafka's binary listener read and write these same classes.

Kafka concept: ``OffsetCommitRequest``/``OffsetFetchRequest`` (single-group shape of versions
7 and earlier).
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct


class OffsetCommitRequestPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("committed_offset", Int64),
        Field("committed_leader_epoch", Int32, "6+", default=-1),
        Field("committed_metadata", String, nullable="2+"),
    )


class OffsetCommitRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetCommitRequestPartition)),
    )


class OffsetCommitRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("generation_id", Int32, default=-1),
        Field("member_id", String),
        Field("group_instance_id", String, "7+", nullable="7+", default=None),
        Field("retention_time_ms", Int64, "2-4", default=-1),
        Field("topics", Array(OffsetCommitRequestTopic)),
    )


class OffsetCommitResponsePartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class OffsetCommitResponseTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetCommitResponsePartition)),
    )


class OffsetCommitResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "3+"),
        Field("topics", Array(OffsetCommitResponseTopic)),
    )


class OffsetFetchRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partition_indexes", Array(Int32)),
    )


class OffsetFetchRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("topics", Array(OffsetFetchRequestTopic), nullable="2+"),
        Field("require_stable", Bool, "7+"),
    )


class OffsetFetchResponsePartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("committed_offset", Int64),
        Field("committed_leader_epoch", Int32, "5+", default=-1),
        Field("metadata", String, nullable="1+"),
        Field("error_code", Int16),
    )


class OffsetFetchResponseTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetFetchResponsePartition)),
    )


class OffsetFetchResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "3+"),
        Field("topics", Array(OffsetFetchResponseTopic)),
        Field("error_code", Int16, "2+"),
    )
