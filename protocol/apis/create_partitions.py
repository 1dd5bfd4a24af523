"""CreatePartitions (key 37), versions 0-3: raise a topic's partition count (never lower it).

Declared once, in Kafka's versions, for both listeners.  ``count`` is the new total;
``assignments`` (optional, null for none) lists the replicas of each new partition.  Kafka
concept: ``CreatePartitionsRequest`` (``onNewPartitionCreation`` at the controller).
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, String, Struct


class CreatePartitionsAssignment(Struct):
    FIELDS = (Field("broker_ids", Array(Int32)),)


class CreatePartitionsTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("count", Int32),
        Field("assignments", Array(CreatePartitionsAssignment), nullable="0+"),
    )


class CreatePartitionsRequest(Struct):
    FIELDS = (
        Field("topics", Array(CreatePartitionsTopic)),
        Field("timeout_ms", Int32),
        Field("validate_only", Bool),
    )


class CreatePartitionsTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+", default=None),
    )


class CreatePartitionsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(CreatePartitionsTopicResult)),
    )
