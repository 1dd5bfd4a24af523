"""CreateTopics (key 19): sent to the controller (NOT_CONTROLLER elsewhere).

``num_partitions``/``replication_factor`` of -1 mean the controller's defaults
(``num.partitions``, ``default.replication.factor``); ``assignments`` is a manual
replica assignment and excludes both.  Kafka concept: ``CreateTopicsRequest``.
"""

from kafkette.protocol.apis.configs import DescribeConfigsResourceResult
from kafkette.protocol.schema import Array, Bool, Bytes, Field, Int16, Int32, Nullable, String, Struct


class CreatableReplicaAssignment(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("broker_ids", Array(Int32)),
    )


class CreatableTopicConfig(Struct):
    FIELDS = (
        Field("name", String),
        Field("value", Nullable(String)),
    )


class CreatableTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("num_partitions", Int32, default=-1),
        Field("replication_factor", Int16, default=-1),
        Field("assignments", Array(CreatableReplicaAssignment)),
        Field("configs", Array(CreatableTopicConfig)),
    )


class CreateTopicsRequest(Struct):
    FIELDS = (
        Field("topics", Array(CreatableTopic)),
        Field("timeout_ms", Int32, default=30000),
        Field("validate_only", Bool),
    )


class CreatableTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
        Field("num_partitions", Int32, default=-1),
        Field("replication_factor", Int16, default=-1),
        # the new topic's configs, values and sources (KIP-525, CreateTopics v5 in Kafka)
        Field("configs", Array(DescribeConfigsResourceResult)),
        # the id the controller gave the topic (KIP-516, CreateTopics v7 in Kafka), also under
        # validate_only; Kafka's Uuid, 16 bytes (all zero on an error)
        Field("topic_id", Bytes, default=bytes(16)),
    )


class CreateTopicsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(CreatableTopicResult)),
    )
