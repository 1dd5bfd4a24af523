"""ApiVersions (key 18): which API keys and versions a broker supports.

Kafka concept: ``ApiVersionsRequest``/``ApiVersionsResponse``; a client may send it
first on a connection to pick the highest version both sides speak.
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, String, Struct


class ApiVersionsRequest(Struct):
    FIELDS = (
        Field("client_software_name", String, default="kafkette-python"),
        Field("client_software_version", String, default="0"),
    )


class ApiVersionsResponseKey(Struct):
    FIELDS = (
        Field("api_key", Int16),
        Field("min_version", Int16),
        Field("max_version", Int16),
    )


class ApiVersionsResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("api_keys", Array(ApiVersionsResponseKey)),
        Field("throttle_time_ms", Int32),
    )
