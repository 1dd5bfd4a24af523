"""DescribeLogDirs (35), versions 1-4: each log directory of a broker with the size and offset lag
of every partition it holds (KIP-113), and its total and usable bytes (KIP-827).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT16, INT32, INT64, STRING, Array, F, KafkaStruct


class DescribableLogDirTopic(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("partitions", Array(INT32)),
    )


class DescribeLogDirsRequest(KafkaStruct):
    FIELDS = (
        F("topics", Array(DescribableLogDirTopic), nullable="1+"),
    )


class DescribeLogDirsPartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("partition_size", INT64),
        F("offset_lag", INT64),
        F("is_future_key", BOOL),
    )


class DescribeLogDirsTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(DescribeLogDirsPartition)),
    )


class DescribeLogDirsResult(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("log_dir", STRING),
        F("topics", Array(DescribeLogDirsTopic)),
        F("total_bytes", INT64, "4+", default=-1),
        F("usable_bytes", INT64, "4+", default=-1),
    )


class DescribeLogDirsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("error_code", INT16, "3+"),
        F("results", Array(DescribeLogDirsResult)),
    )
