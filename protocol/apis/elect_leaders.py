"""ElectLeaders (key 43): preferred (0) or unclean (1) leader election, at the controller.

``topic_partitions`` None means every partition.  Per-partition results carry
ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE or
UNKNOWN_TOPIC_OR_PARTITION.  Kafka concept: KIP-460, ``kafka-leader-election.sh``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, Nullable, String, Struct

ELECTION_PREFERRED = 0
ELECTION_UNCLEAN = 1


class ElectLeadersTopicPartitions(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(Int32)),
    )


class ElectLeadersRequest(Struct):
    FIELDS = (
        Field("election_type", Int8, default=ELECTION_PREFERRED),
        Field("topic_partitions", Nullable(Array(ElectLeadersTopicPartitions))),
        Field("timeout_ms", Int32, default=60000),
    )


class ElectLeadersPartitionResult(Struct):
    FIELDS = (
        Field("partition_id", Int32),
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
    )


class ElectLeadersReplicaElectionResult(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partition_result", Array(ElectLeadersPartitionResult)),
    )


class ElectLeadersResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("replica_election_results", Array(ElectLeadersReplicaElectionResult)),
    )
