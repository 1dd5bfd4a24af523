"""DeleteTopics (key 20), versions 1-6: sent to the controller, which removes each topic from the
metadata.

Declared once, in Kafka's versions, for both listeners.  Up to v5 topics are named
(``topic_names``); v6 (KIP-516) names each topic or gives its topic id (``topics``: a null name
and an id, or a name and the zero id), and each answer carries the topic id.  The response returns
once the removal (``RemoveTopicRecord``) commits; brokers delete the topic's logs afterwards.  Kafka
concept: ``DeleteTopicsRequest``, KRaft's ``ControllerApis.deleteTopics`` and
``ReplicationControlManager.deleteTopics``.
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, String, Struct, Uuid


class DeleteTopicState(Struct):
    """One topic to delete at v6: its name (the topic id zero), or its topic id (the name null)."""

    FIELDS = (
        Field("name", String, "6+", nullable="6+", default=None),
        Field("topic_id", Uuid, "6+"),
    )


class DeleteTopicsRequest(Struct):
    FIELDS = (
        Field("topics", Array(DeleteTopicState), "6+"),
        Field("topic_names", Array(String), "0-5"),
        Field("timeout_ms", Int32),
    )


class DeletableTopicResult(Struct):
    """``name`` is null at v6 for a topic given by an id no topic has; ``topic_id`` is zero for a
    topic given by a name no topic has."""

    FIELDS = (
        Field("name", String, nullable="6+"),
        Field("topic_id", Uuid, "6+"),
        Field("error_code", Int16),
        Field("error_message", String, "5+", nullable="5+", default=None),
    )


class DeleteTopicsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("responses", Array(DeletableTopicResult)),
    )
