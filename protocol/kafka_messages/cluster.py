"""DescribeCluster (60) 0-2
(DeleteRecords, 21, is declared once in ``kafkette.protocol.apis.delete_records``).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT8, INT16, INT32, STRING, Array, F, KafkaStruct


class DescribeClusterRequest(KafkaStruct):
    FIELDS = (
        F("include_cluster_authorized_operations", BOOL),
        F("endpoint_type", INT8, "1+", default=1),
        F("include_fenced_brokers", BOOL, "2+"),
    )


class DescribeClusterBroker(KafkaStruct):
    FIELDS = (
        F("broker_id", INT32),
        F("host", STRING),
        F("port", INT32),
        F("rack", STRING, nullable="0+", default=None),
        F("is_fenced", BOOL, "2+"),
    )


class DescribeClusterResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("error_code", INT16),
        F("error_message", STRING, nullable="0+", default=None),
        F("endpoint_type", INT8, "1+", default=1),
        F("cluster_id", STRING),
        F("controller_id", INT32, default=-1),
        F("brokers", Array(DescribeClusterBroker)),
        F("cluster_authorized_operations", INT32, default=-2147483648),
    )
