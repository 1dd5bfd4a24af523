"""FindCoordinator (key 10), versions 0-4: the group coordinator (one key up to 3, a batch of keys from 4, KIP-699).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT8, INT16, INT32, STRING, Array, F, KafkaStruct


class FindCoordinatorRequest(KafkaStruct):
    FIELDS = (
        F("key", STRING, "0-3"),
        F("key_type", INT8, "1+"),
        F("coordinator_keys", Array(STRING), "4+"),
    )


class Coordinator(KafkaStruct):
    FIELDS = (
        F("key", STRING, "4+"),
        F("node_id", INT32, "4+"),
        F("host", STRING, "4+"),
        F("port", INT32, "4+"),
        F("error_code", INT16, "4+"),
        F("error_message", STRING, "4+", nullable="4+"),
    )


class FindCoordinatorResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "1+"),
        F("error_code", INT16, "0-3"),
        F("error_message", STRING, "1-3", nullable="1-3"),
        F("node_id", INT32, "0-3"),
        F("host", STRING, "0-3"),
        F("port", INT32, "0-3"),
        F("coordinators", Array(Coordinator), "4+"),
    )
