"""InitProducerId (key 22), versions 0-4: a producer id and epoch for the idempotent producer.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT16, INT32, INT64, STRING, F, KafkaStruct


class InitProducerIdRequest(KafkaStruct):
    FIELDS = (
        F("transactional_id", STRING, nullable="0+"),
        F("transaction_timeout_ms", INT32),
        F("producer_id", INT64, "3+", default=-1),
        F("producer_epoch", INT16, "3+", default=-1),
    )


class InitProducerIdResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("error_code", INT16),
        F("producer_id", INT64, default=-1),
        F("producer_epoch", INT16),
    )
