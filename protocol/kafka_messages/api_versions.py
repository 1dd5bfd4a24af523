"""ApiVersions (key 18), versions 0-4: which APIs and versions the Kafka listener speaks.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT16, INT32, STRING, Array, F, KafkaStruct


class ApiVersionsRequest(KafkaStruct):
    FIELDS = (
        F("client_software_name", STRING, "3+"),
        F("client_software_version", STRING, "3+"),
    )


class ApiVersion(KafkaStruct):
    FIELDS = (
        F("api_key", INT16),
        F("min_version", INT16),
        F("max_version", INT16),
    )


class ApiVersionsResponse(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("api_keys", Array(ApiVersion)),
        F("throttle_time_ms", INT32, "1+"),
    )
