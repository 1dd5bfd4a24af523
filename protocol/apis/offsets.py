"""OffsetCommit (key 8) and OffsetFetch (key 9): a group's committed offsets, at its coordinator.

OffsetCommit stores ``committed_offset`` (the next offset to consume), the leader epoch of the
last consumed record and the client's metadata per partition; a commit outside group
management uses ``generation_id`` -1 and an empty ``member_id``.  OffsetFetch answers the
committed offset per partition (-1 when there is none), or every partition the group has
committed when ``topics`` is null.  Errors per partition (UNKNOWN_TOPIC_OR_PARTITION,
OFFSET_METADATA_TOO_LARGE, ILLEGAL_GENERATION, ...) or for the whole group (NOT_COORDINATOR,
COORDINATOR_LOAD_IN_PROGRESS, INVALID_GROUP_ID).

OffsetFetch v8 (KIP-709) asks several groups in one request (``groups``, each answered with its
own group-level error); v9 adds a KIP-848 consumer group member's ``member_id``/``member_epoch``
(a classic group checks neither); OffsetCommit v9 answers GROUP_ID_NOT_FOUND for a generation of a
group that does not exist.  Both name topics by topic id from v10 (KIP-848), answering
UNKNOWN_TOPIC_ID for an id no topic has.

Declared once, in Kafka's versions (OffsetCommit 2-10, OffsetFetch 1-10): the msgpack listener
and Kafka's binary listener read and write these same classes.

Kafka concept: ``OffsetCommitRequest``/``OffsetFetchRequest``.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct, Uuid


class OffsetCommitRequestPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("committed_offset", Int64),
        Field("committed_leader_epoch", Int32, "6+", default=-1),
        Field("committed_metadata", String, nullable="2+"),
    )


class OffsetCommitRequestTopic(Struct):
    """A topic by name (v2-9) or by topic id (v10, KIP-848)."""

    FIELDS = (
        Field("name", String, "0-9"),
        Field("topic_id", Uuid, "10+"),
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
    """A topic by name (v2-9) or by topic id (v10, KIP-848), as the request gave it."""

    FIELDS = (
        Field("name", String, "0-9"),
        Field("topic_id", Uuid, "10+"),
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


class OffsetFetchRequestTopics(Struct):
    """A topic of one group of a batched OffsetFetch: by name (v8-9) or by topic id (v10, KIP-848)."""

    FIELDS = (
        Field("name", String, "8-9"),
        Field("topic_id", Uuid, "10+"),
        Field("partition_indexes", Array(Int32)),
    )


class OffsetFetchRequestGroup(Struct):
    """One group of a batched OffsetFetch (v8+, KIP-709); ``member_id``/``member_epoch`` (v9+) are a
    KIP-848 consumer group member's, null and -1 otherwise; ``topics`` null asks every committed
    partition."""

    FIELDS = (
        Field("group_id", String, "8+"),
        Field("member_id", String, "9+", nullable="9+", default=None),
        Field("member_epoch", Int32, "9+", default=-1),
        Field("topics", Array(OffsetFetchRequestTopics), "8+", nullable="8+"),
    )


class OffsetFetchRequest(Struct):
    """One group (``group_id``/``topics``, v1-7) or several (``groups``, v8+)."""

    FIELDS = (
        Field("group_id", String, "0-7"),
        Field("topics", Array(OffsetFetchRequestTopic), "0-7", nullable="2-7"),
        Field("groups", Array(OffsetFetchRequestGroup), "8+"),
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


class OffsetFetchResponseTopics(Struct):
    """A topic of one group's answer (v8+): by name (v8-9) or by topic id (v10, KIP-848)."""

    FIELDS = (
        Field("name", String, "8-9"),
        Field("topic_id", Uuid, "10+"),
        Field("partitions", Array(OffsetFetchResponsePartition)),
    )


class OffsetFetchResponseGroup(Struct):
    """One group's answer (v8+): its partitions, or its group-level error and no partitions."""

    FIELDS = (
        Field("group_id", String, "8+"),
        Field("topics", Array(OffsetFetchResponseTopics), "8+"),
        Field("error_code", Int16, "8+"),
    )


class OffsetFetchResponse(Struct):
    """One group's answer (``topics``/``error_code``, v1-7) or one per group asked (``groups``, v8+)."""

    FIELDS = (
        Field("throttle_time_ms", Int32, "3+"),
        Field("topics", Array(OffsetFetchResponseTopic), "0-7"),
        Field("error_code", Int16, "2-7"),
        Field("groups", Array(OffsetFetchResponseGroup), "8+"),
    )
