"""Produce (key 0), versions 3-9: record batches (RecordBatch v2 only, hence 3 and up).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT16, INT32, INT64, RECORDS, STRING, Array, F, KafkaStruct


class PartitionProduceData(KafkaStruct):
    FIELDS = (
        F("index", INT32),
        F("records", RECORDS, nullable="3+"),
    )


class TopicProduceData(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partition_data", Array(PartitionProduceData)),
    )


class ProduceRequest(KafkaStruct):
    FIELDS = (
        F("transactional_id", STRING, nullable="3+", default=None),
        F("acks", INT16),
        F("timeout_ms", INT32),
        F("topic_data", Array(TopicProduceData)),
    )


class BatchIndexAndErrorMessage(KafkaStruct):
    FIELDS = (
        F("batch_index", INT32, "8+"),
        F("batch_index_error_message", STRING, "8+", nullable="8+", default=None),
    )


class PartitionProduceResponse(KafkaStruct):
    FIELDS = (
        F("index", INT32),
        F("error_code", INT16),
        F("base_offset", INT64),
        F("log_append_time_ms", INT64, default=-1),
        F("log_start_offset", INT64, "5+", default=-1),
        F("record_errors", Array(BatchIndexAndErrorMessage), "8+"),
        F("error_message", STRING, "8+", nullable="8+", default=None),
    )


class TopicProduceResponse(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partition_responses", Array(PartitionProduceResponse)),
    )


class ProduceResponse(KafkaStruct):
    FIELDS = (
        F("responses", Array(TopicProduceResponse)),
        F("throttle_time_ms", INT32),
    )
