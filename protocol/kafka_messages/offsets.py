"""OffsetCommit (key 8) 2-8 and OffsetFetch (key 9) 1-7: a group's committed offsets.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT16, INT32, INT64, STRING, Array, F, KafkaStruct


class OffsetCommitRequestPartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("committed_offset", INT64),
        F("committed_leader_epoch", INT32, "6+", default=-1),
        F("committed_metadata", STRING, nullable="2+"),
    )


class OffsetCommitRequestTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetCommitRequestPartition)),
    )


class OffsetCommitRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("generation_id", INT32, default=-1),
        F("member_id", STRING),
        F("group_instance_id", STRING, "7+", nullable="7+", default=None),
        F("retention_time_ms", INT64, "2-4", default=-1),
        F("topics", Array(OffsetCommitRequestTopic)),
    )


class OffsetCommitResponsePartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("error_code", INT16),
    )


class OffsetCommitResponseTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetCommitResponsePartition)),
    )


class OffsetCommitResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "3+"),
        F("topics", Array(OffsetCommitResponseTopic)),
    )


class OffsetFetchRequestTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partition_indexes", Array(INT32)),
    )


class OffsetFetchRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("topics", Array(OffsetFetchRequestTopic), nullable="2+"),
        F("require_stable", BOOL, "7+"),
    )


class OffsetFetchResponsePartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("committed_offset", INT64),
        F("committed_leader_epoch", INT32, "5+", default=-1),
        F("metadata", STRING, nullable="1+"),
        F("error_code", INT16),
    )


class OffsetFetchResponseTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetFetchResponsePartition)),
    )


class OffsetFetchResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "3+"),
        F("topics", Array(OffsetFetchResponseTopic)),
        F("error_code", INT16, "2+"),
    )
