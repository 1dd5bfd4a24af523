"""StopReplica (key 5): the controller tells a broker to stop (and maybe delete) replicas.

With ``delete_partition`` the broker removes the partition's log from disk; the
per-partition error codes drive the controller's ReplicaDeletionSuccessful /
ReplicaDeletionIneligible transitions.  Kafka concept: ``StopReplicaRequest``.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct


class StopReplicaPartitionState(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("leader_epoch", Int32, default=-1),
        Field("delete_partition", Bool),
    )


class StopReplicaTopicState(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_states", Array(StopReplicaPartitionState)),
    )


class StopReplicaRequest(Struct):
    FIELDS = (
        Field("controller_id", Int32),
        Field("controller_epoch", Int32),
        Field("broker_epoch", Int64, default=-1),
        Field("topic_states", Array(StopReplicaTopicState)),
    )


class StopReplicaPartitionError(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class StopReplicaResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition_errors", Array(StopReplicaPartitionError)),
    )
