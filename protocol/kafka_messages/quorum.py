"""DescribeQuorum (55), versions 0-1: the metadata quorum's leader, epoch, high watermark, voters
and observers (KIP-595, KIP-836; version 2's nodes of KIP-853 are not offered).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT16, INT32, INT64, STRING, Array, F, KafkaStruct


class DescribeQuorumPartitionRequest(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
    )


class DescribeQuorumTopicRequest(KafkaStruct):
    FIELDS = (
        F("topic_name", STRING),
        F("partitions", Array(DescribeQuorumPartitionRequest)),
    )


class DescribeQuorumRequest(KafkaStruct):
    FIELDS = (
        F("topics", Array(DescribeQuorumTopicRequest)),
    )


class ReplicaState(KafkaStruct):
    FIELDS = (
        F("replica_id", INT32),
        F("log_end_offset", INT64),
        F("last_fetch_timestamp", INT64, "1+", default=-1),
        F("last_caught_up_timestamp", INT64, "1+", default=-1),
    )


class DescribeQuorumPartitionResponse(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("error_code", INT16),
        F("leader_id", INT32),
        F("leader_epoch", INT32),
        F("high_watermark", INT64),
        F("current_voters", Array(ReplicaState)),
        F("observers", Array(ReplicaState)),
    )


class DescribeQuorumTopicResponse(KafkaStruct):
    FIELDS = (
        F("topic_name", STRING),
        F("partitions", Array(DescribeQuorumPartitionResponse)),
    )


class DescribeQuorumResponse(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("topics", Array(DescribeQuorumTopicResponse)),
    )
