"""AlterPartition (key 56): a partition leader asks the controller to change the ISR.

The leader sends its leader epoch and partition epoch; the controller refuses stale
ones (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION) and answers with the committed leader, ISR and partition
epoch, which the leader then applies.  Kafka concept: KIP-497 ``AlterPartition`` (ISR shrink/expand).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, String, Struct


class AlterPartitionRequestPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("leader_epoch", Int32),
        Field("new_isr", Array(Int32)),
        Field("partition_epoch", Int32),
    )


class AlterPartitionRequestTopic(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(AlterPartitionRequestPartition)),
    )


class AlterPartitionRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("broker_epoch", Int64),
        Field("topics", Array(AlterPartitionRequestTopic)),
    )


class AlterPartitionResponsePartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("leader_id", Int32, default=-1),
        Field("leader_epoch", Int32, default=-1),
        Field("isr", Array(Int32)),
        Field("partition_epoch", Int32, default=-1),
    )


class AlterPartitionResponseTopic(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(AlterPartitionResponsePartition)),
    )


class AlterPartitionResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("topics", Array(AlterPartitionResponseTopic)),
    )
