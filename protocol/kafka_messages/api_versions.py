"""ApiVersions (key 18), versions 0-4: which APIs and versions the Kafka listener speaks.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); the response's feature flags (KIP-584) are its v3+ tagged fields.  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT16, INT32, INT64, STRING, Array, F, KafkaStruct


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


class SupportedFeatureKey(KafkaStruct):
    FIELDS = (
        F("name", STRING, "3+"),
        F("min_version", INT16, "3+"),
        F("max_version", INT16, "3+"),
    )


class FinalizedFeatureKey(KafkaStruct):
    FIELDS = (
        F("name", STRING, "3+"),
        F("max_version_level", INT16, "3+"),
        F("min_version_level", INT16, "3+"),
    )


class ApiVersionsResponse(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("api_keys", Array(ApiVersion)),
        F("throttle_time_ms", INT32, "1+"),
        F("supported_features", Array(SupportedFeatureKey), "3+", tag=0),
        F("finalized_features_epoch", INT64, "3+", default=-1, tag=1),
        F("finalized_features", Array(FinalizedFeatureKey), "3+", tag=2),
        F("zk_migration_ready", BOOL, "3+", tag=3),
    )
