"""ElectLeaders (key 43), versions 0-2: preferred (0) or unclean (1) leader election, at the controller.

Declared once, in Kafka's versions, for both listeners.  ``topic_partitions`` None means every
partition; before v1 the election is preferred.  Per-partition results carry
ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE or
UNKNOWN_TOPIC_OR_PARTITION.  Kafka concept: KIP-183, KIP-460, ``kafka-leader-election.sh``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, String, Struct

ELECTION_PREFERRED = 0
ELECTION_UNCLEAN = 1


class ElectLeadersTopicPartitions(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(Int32)),
    )


class ElectLeadersRequest(Struct):
    FIELDS = (
        Field("election_type", Int8, "1+", default=ELECTION_PREFERRED),
        Field("topic_partitions", Array(ElectLeadersTopicPartitions), nullable="0+"),
        Field("timeout_ms", Int32, default=60000),
    )


class ElectLeadersPartitionResult(Struct):
    FIELDS = (
        Field("partition_id", Int32),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
    )


class ElectLeadersReplicaElectionResult(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partition_result", Array(ElectLeadersPartitionResult)),
    )


class ElectLeadersResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16, "1+"),
        Field("replica_election_results", Array(ElectLeadersReplicaElectionResult)),
    )
