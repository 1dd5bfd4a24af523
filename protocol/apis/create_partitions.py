"""CreatePartitions (key 37): raise a topic's partition count (never lower it).

``count`` is the new total; ``assignments`` (optional) lists the replicas of each new
partition.  Kafka concept: ``CreatePartitionsRequest``
(``onNewPartitionCreation`` at the controller).
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Nullable, String, Struct


class CreatePartitionsAssignment(Struct):
    FIELDS = (Field("broker_ids", Array(Int32)),)


class CreatePartitionsTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("count", Int32),
        Field("assignments", Nullable(Array(CreatePartitionsAssignment))),
    )


class CreatePartitionsRequest(Struct):
    FIELDS = (
        Field("topics", Array(CreatePartitionsTopic)),
        Field("timeout_ms", Int32, default=30000),
        Field("validate_only", Bool),
    )


class CreatePartitionsTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
    )


class CreatePartitionsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(CreatePartitionsTopicResult)),
    )
