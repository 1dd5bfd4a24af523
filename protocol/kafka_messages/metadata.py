"""Metadata (key 3), versions 0-12: brokers, controller, topics and partition leadership.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT16, INT32, STRING, UUID, Array, F, KafkaStruct


class MetadataRequestTopic(KafkaStruct):
    FIELDS = (
        F("topic_id", UUID, "10+"),
        F("name", STRING, nullable="10+"),
    )


class MetadataRequest(KafkaStruct):
    FIELDS = (
        F("topics", Array(MetadataRequestTopic), nullable="1+"),
        F("allow_auto_topic_creation", BOOL, "4+", default=True),
        F("include_cluster_authorized_operations", BOOL, "8-10"),
        F("include_topic_authorized_operations", BOOL, "8+"),
    )


class MetadataResponseBroker(KafkaStruct):
    FIELDS = (
        F("node_id", INT32),
        F("host", STRING),
        F("port", INT32),
        F("rack", STRING, "1+", nullable="1+", default=None),
    )


class MetadataResponsePartition(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("partition_index", INT32),
        F("leader_id", INT32),
        F("leader_epoch", INT32, "7+", default=-1),
        F("replica_nodes", Array(INT32)),
        F("isr_nodes", Array(INT32)),
        F("offline_replicas", Array(INT32), "5+"),
    )


class MetadataResponseTopic(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("name", STRING, nullable="12+"),
        F("topic_id", UUID, "10+"),
        F("is_internal", BOOL, "1+"),
        F("partitions", Array(MetadataResponsePartition)),
        F("topic_authorized_operations", INT32, "8+", default=-2147483648),
    )


class MetadataResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "3+"),
        F("brokers", Array(MetadataResponseBroker)),
        F("cluster_id", STRING, "2+", nullable="2+", default=None),
        F("controller_id", INT32, "1+", default=-1),
        F("topics", Array(MetadataResponseTopic)),
        F("cluster_authorized_operations", INT32, "8-10", default=-2147483648),
    )
