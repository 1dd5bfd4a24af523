"""DeleteTopics (key 20): sent to the controller, which removes each topic from the metadata.

The response returns once the removal (``RemoveTopicRecord``) commits; brokers delete the
topic's logs afterwards.  Kafka concept: ``DeleteTopicsRequest``, KRaft's
``ReplicationControlManager.deleteTopics``.
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Nullable, String, Struct


class DeleteTopicsRequest(Struct):
    FIELDS = (
        Field("topic_names", Array(String)),
        Field("timeout_ms", Int32, default=30000),
    )


class DeletableTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
    )


class DeleteTopicsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("responses", Array(DeletableTopicResult)),
    )
