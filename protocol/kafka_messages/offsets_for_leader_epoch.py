"""OffsetForLeaderEpoch (key 23), versions 2-4: a leader epoch's end offset (KIP-101, KIP-320).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT16, INT32, INT64, STRING, Array, F, KafkaStruct


class OffsetForLeaderPartition(KafkaStruct):
    FIELDS = (
        F("partition", INT32),
        F("current_leader_epoch", INT32, default=-1),
        F("leader_epoch", INT32),
    )


class OffsetForLeaderTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetForLeaderPartition)),
    )


class OffsetForLeaderEpochRequest(KafkaStruct):
    FIELDS = (
        F("replica_id", INT32, "3+", default=-2),
        F("topics", Array(OffsetForLeaderTopic)),
    )


class EpochEndOffset(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("partition", INT32),
        F("leader_epoch", INT32, default=-1),
        F("end_offset", INT64, default=-1),
    )


class OffsetForLeaderTopicResult(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(EpochEndOffset)),
    )


class OffsetForLeaderEpochResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("topics", Array(OffsetForLeaderTopicResult)),
    )
