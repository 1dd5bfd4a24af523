"""LeaderAndIsr (key 4): the controller tells replicas who leads and who is in sync.

Every partition state carries the controller epoch (fences a stale controller) and
the leader epoch (a state older than the broker's is ignored).  Kafka concept:
``LeaderAndIsrRequest`` handled by ``ReplicaManager.becomeLeaderOrFollower``.
"""

from kafkette.protocol.apis.configs import TopicConfigOverride
from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, Int64, String, Struct


class LeaderAndIsrPartitionState(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
        Field("controller_epoch", Int32),
        Field("leader", Int32, default=-1),
        Field("leader_epoch", Int32),
        Field("isr", Array(Int32)),
        Field("partition_epoch", Int32),
        Field("replicas", Array(Int32)),
        Field("is_new", Bool),
        Field("configs", Array(TopicConfigOverride)),  # the topic's overrides, the whole set
        Field("topic_id", String, default=""),  # Kafka's Uuid string of the topic; "" unknown
    )


class LeaderAndIsrLiveLeader(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("host_name", String),
        Field("port", Int32),
    )


class LeaderAndIsrRequest(Struct):
    FIELDS = (
        Field("controller_id", Int32),
        Field("controller_epoch", Int32),
        Field("broker_epoch", Int64, default=-1),
        Field("type", Int8),
        Field("partition_states", Array(LeaderAndIsrPartitionState)),
        Field("live_leaders", Array(LeaderAndIsrLiveLeader)),
    )


class LeaderAndIsrPartitionError(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class LeaderAndIsrResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition_errors", Array(LeaderAndIsrPartitionError)),
    )
