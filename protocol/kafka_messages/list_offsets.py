"""ListOffsets (key 2), versions 1-7: offsets by timestamp, earliest, latest, max timestamp.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT8, INT16, INT32, INT64, STRING, Array, F, KafkaStruct


class ListOffsetsPartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("current_leader_epoch", INT32, "4+", default=-1),
        F("timestamp", INT64),
    )


class ListOffsetsTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(ListOffsetsPartition)),
    )


class ListOffsetsRequest(KafkaStruct):
    FIELDS = (
        F("replica_id", INT32),
        F("isolation_level", INT8, "2+"),
        F("topics", Array(ListOffsetsTopic)),
    )


class ListOffsetsPartitionResponse(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("error_code", INT16),
        F("timestamp", INT64, default=-1),
        F("offset", INT64, default=-1),
        F("leader_epoch", INT32, "4+", default=-1),
    )


class ListOffsetsTopicResponse(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(ListOffsetsPartitionResponse)),
    )


class ListOffsetsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "2+"),
        F("topics", Array(ListOffsetsTopicResponse)),
    )
