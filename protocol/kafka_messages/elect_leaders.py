"""ElectLeaders (43), versions 0-2: preferred or unclean leader election of partitions (KIP-183,
KIP-460), answered by the controller.

Field names are Kafka's in snake_case (the same as the msgpack schemas'); tagged fields are left
out (see ``kafka_schema``).  Kafka concept: the message specs of the same names in
``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT8, INT16, INT32, STRING, Array, F, KafkaStruct


class ElectLeadersTopicPartitions(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("partitions", Array(INT32)),
    )


class ElectLeadersRequest(KafkaStruct):
    """Before v1 the election is preferred (type 0); a null ``topic_partitions`` means every partition."""

    FIELDS = (
        F("election_type", INT8, "1+"),
        F("topic_partitions", Array(ElectLeadersTopicPartitions), nullable="0+"),
        F("timeout_ms", INT32, default=60000),
    )


class ElectLeadersPartitionResult(KafkaStruct):
    FIELDS = (
        F("partition_id", INT32),
        F("error_code", INT16),
        F("error_message", STRING, nullable="0+"),
    )


class ElectLeadersReplicaElectionResult(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("partition_result", Array(ElectLeadersPartitionResult)),
    )


class ElectLeadersResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("error_code", INT16, "1+"),
        F("replica_election_results", Array(ElectLeadersReplicaElectionResult)),
    )
