"""DeleteTopics (key 20), versions 1-5: sent to the controller, which removes each topic from the
metadata.

Declared once, in Kafka's versions, for both listeners.  The response returns once the removal
(``RemoveTopicRecord``) commits; brokers delete the topic's logs afterwards.  Kafka concept:
``DeleteTopicsRequest``, KRaft's ``ReplicationControlManager.deleteTopics``.
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, String, Struct


class DeleteTopicsRequest(Struct):
    FIELDS = (
        Field("topic_names", Array(String)),
        Field("timeout_ms", Int32),
    )


class DeletableTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("error_code", Int16),
        Field("error_message", String, "5+", nullable="5+", default=None),
    )


class DeleteTopicsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("responses", Array(DeletableTopicResult)),
    )
