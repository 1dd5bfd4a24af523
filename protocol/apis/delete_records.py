"""DeleteRecords (key 21), versions 0-2: move partitions' log start offsets forward, at their leaders.

Declared once, in Kafka's versions, for both listeners.  Per partition the request names an
``offset`` below which records are deleted (-1 = the high watermark); the answer gives the
partition's ``low_watermark`` (the smallest log start offset of its live replicas) or an error
(OFFSET_OUT_OF_RANGE, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION,
REQUEST_TIMED_OUT).  Kafka concept: ``DeleteRecordsRequest`` / ``DeleteRecordsResponse``
(KIP-107, ``kafka-delete-records.sh``).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, String, Struct

HIGH_WATERMARK = -1


class DeleteRecordsPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("offset", Int64),
    )


class DeleteRecordsTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(DeleteRecordsPartition)),
    )


class DeleteRecordsRequest(Struct):
    FIELDS = (
        Field("topics", Array(DeleteRecordsTopic)),
        Field("timeout_ms", Int32),
    )


class DeleteRecordsPartitionResult(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("low_watermark", Int64),
        Field("error_code", Int16),
    )


class DeleteRecordsTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(DeleteRecordsPartitionResult)),
    )


class DeleteRecordsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(DeleteRecordsTopicResult)),
    )
