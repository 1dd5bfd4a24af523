"""ApiVersions (key 18): which API keys and versions a broker supports.

Declared once, in Kafka's versions 0-4, for both listeners; the response's feature flags
(KIP-584) are its v3+ tagged fields.  Kafka concept: ``ApiVersionsRequest``/
``ApiVersionsResponse``; a client may send it first on a connection to pick the highest version
both sides speak.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct


class ApiVersionsRequest(Struct):
    FIELDS = (
        Field("client_software_name", String, "3+"),
        Field("client_software_version", String, "3+"),
    )


class ApiVersionsResponseKey(Struct):
    FIELDS = (
        Field("api_key", Int16),
        Field("min_version", Int16),
        Field("max_version", Int16),
    )


class SupportedFeatureKey(Struct):
    FIELDS = (
        Field("name", String, "3+"),
        Field("min_version", Int16, "3+"),
        Field("max_version", Int16, "3+"),
    )


class FinalizedFeatureKey(Struct):
    FIELDS = (
        Field("name", String, "3+"),
        Field("max_version_level", Int16, "3+"),
        Field("min_version_level", Int16, "3+"),
    )


class ApiVersionsResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("api_keys", Array(ApiVersionsResponseKey)),
        Field("throttle_time_ms", Int32, "1+"),
        Field("supported_features", Array(SupportedFeatureKey), "3+", tag=0),
        Field("finalized_features_epoch", Int64, "3+", default=-1, tag=1),
        Field("finalized_features", Array(FinalizedFeatureKey), "3+", tag=2),
        Field("zk_migration_ready", Bool, "3+", tag=3),
    )
