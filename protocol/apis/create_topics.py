"""CreateTopics (key 19), versions 2-7: sent to the controller (NOT_CONTROLLER elsewhere).

Declared once, in Kafka's versions, for both listeners.  ``num_partitions``/``replication_factor``
of -1 mean the controller's defaults (``num.partitions``, ``default.replication.factor``);
``assignments`` is a manual replica assignment and excludes both.  Kafka concept:
``CreateTopicsRequest`` / ``CreateTopicsResponse`` (their JSON message specs).
"""

from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, String, Struct, Uuid


class CreatableReplicaAssignment(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("broker_ids", Array(Int32)),
    )


class CreatableTopicConfig(Struct):
    FIELDS = (
        Field("name", String),
        Field("value", String, nullable="2+"),
    )


class CreatableTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("num_partitions", Int32),
        Field("replication_factor", Int16),
        Field("assignments", Array(CreatableReplicaAssignment)),
        Field("configs", Array(CreatableTopicConfig)),
    )


class CreateTopicsRequest(Struct):
    FIELDS = (
        Field("topics", Array(CreatableTopic)),
        Field("timeout_ms", Int32, default=60000),
        Field("validate_only", Bool),
    )


class CreatableTopicConfigs(Struct):
    """One config of a created topic, its value and source (KIP-525, v5+)."""

    FIELDS = (
        Field("name", String, "5+"),
        Field("value", String, "5+", nullable="5+"),
        Field("read_only", Bool, "5+"),
        Field("config_source", Int8, "5+", default=-1),
        Field("is_sensitive", Bool, "5+"),
        # KIP-569: 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 6 DOUBLE, 7 LIST
        # (DescribeConfigs' only in Kafka)
        Field("config_type", Int8, "5+", kafka=False),
    )


class CreatableTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        # the id the controller gave the topic (KIP-516), also under validate_only; all zero on an error
        Field("topic_id", Uuid, "7+"),
        Field("error_code", Int16),
        Field("error_message", String, nullable="2+"),
        # Kafka sets it when the topic's configs may not be described (no DESCRIBE_CONFIGS under an
        # authorizer); without one it stays 0, its default, which the tagged field leaves off the wire
        Field("topic_config_error_code", Int16, "5+", tag=0),
        Field("num_partitions", Int32, "5+", default=-1),
        Field("replication_factor", Int16, "5+", default=-1),
        Field("configs", Array(CreatableTopicConfigs), "5+", default=[], nullable="5+"),
    )


class CreateTopicsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(CreatableTopicResult)),
    )
