"""CreateTopics (19) 2-7, DeleteTopics (20) 1-5, CreatePartitions (37) 0-3: the topic lifecycle.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT8, INT16, INT32, STRING, UUID, Array, F, KafkaStruct


class CreatableReplicaAssignment(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("broker_ids", Array(INT32)),
    )


class CreatableTopicConfig(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("value", STRING, nullable="2+"),
    )


class CreatableTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("num_partitions", INT32),
        F("replication_factor", INT16),
        F("assignments", Array(CreatableReplicaAssignment)),
        F("configs", Array(CreatableTopicConfig)),
    )


class CreateTopicsRequest(KafkaStruct):
    FIELDS = (
        F("topics", Array(CreatableTopic)),
        F("timeout_ms", INT32, default=60000),
        F("validate_only", BOOL),
    )


class CreatableTopicConfigs(KafkaStruct):
    FIELDS = (
        F("name", STRING, "5+"),
        F("value", STRING, "5+", nullable="5+"),
        F("read_only", BOOL, "5+"),
        F("config_source", INT8, "5+", default=-1),
        F("is_sensitive", BOOL, "5+"),
    )


class CreatableTopicResult(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("topic_id", UUID, "7+"),
        F("error_code", INT16),
        F("error_message", STRING, nullable="2+"),
        F("num_partitions", INT32, "5+", default=-1),
        F("replication_factor", INT16, "5+", default=-1),
        F("configs", Array(CreatableTopicConfigs), "5+", nullable="5+"),
    )


class CreateTopicsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("topics", Array(CreatableTopicResult)),
    )


class DeleteTopicsRequest(KafkaStruct):
    FIELDS = (
        F("topic_names", Array(STRING)),
        F("timeout_ms", INT32),
    )


class DeletableTopicResult(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("error_code", INT16),
        F("error_message", STRING, "5+", nullable="5+", default=None),
    )


class DeleteTopicsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("responses", Array(DeletableTopicResult)),
    )


class CreatePartitionsAssignment(KafkaStruct):
    FIELDS = (
        F("broker_ids", Array(INT32)),
    )


class CreatePartitionsTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("count", INT32),
        F("assignments", Array(CreatePartitionsAssignment), nullable="0+"),
    )


class CreatePartitionsRequest(KafkaStruct):
    FIELDS = (
        F("topics", Array(CreatePartitionsTopic)),
        F("timeout_ms", INT32),
        F("validate_only", BOOL),
    )


class CreatePartitionsTopicResult(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("error_code", INT16),
        F("error_message", STRING, nullable="0+", default=None),
    )


class CreatePartitionsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("results", Array(CreatePartitionsTopicResult)),
    )
