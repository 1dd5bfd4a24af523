"""The KRaft quorum's RPCs: Vote (52), BeginQuorumEpoch (53), EndQuorumEpoch (54),
DescribeQuorum (55) and FetchSnapshot (59).

Voters of ``controller.quorum.voters`` send these to each other about the one
partition of the metadata log, ``__cluster_metadata-0``; followers replicate that log
with Fetch (key 1, ``last_fetched_epoch`` and the answer's ``diverging_epoch``,
``current_leader`` and ``snapshot_id``).  Field names are Kafka's, in snake_case, with
the same topic / partition nesting, so a request names the partition it is about.
Errors use Kafka's codes (FENCED_LEADER_EPOCH, INCONSISTENT_VOTER_SET,
INCONSISTENT_CLUSTER_ID, NOT_LEADER_OR_FOLLOWER, ...).

Kafka concept: KIP-595 (the Raft protocol), KIP-630 (snapshots), KIP-642
(DescribeQuorum's replica states); the message JSON of the same names.
"""

from kafkette.protocol.schema import (
    Array,
    Bool,
    Field,
    Int16,
    Int32,
    Int64,
    Records,
    String,
    Struct,
    Uint16,
    Uuid,
)

# --------------------------------------------------------------------------- Vote


class VotePartitionRequest(Struct):
    """One partition's vote request: ``replica_epoch`` and ``replica_id`` are the sender's, in a Vote
    the candidate's epoch and id (Kafka's ReplicaEpoch / ReplicaId, CandidateEpoch / CandidateId
    before KIP-996)."""

    FIELDS = (
        Field("partition_index", Int32),
        Field("replica_epoch", Int32),
        Field("replica_id", Int32),
        Field("last_offset_epoch", Int32),
        Field("last_offset", Int64),
    )


class VoteTopicRequest(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(VotePartitionRequest)),
    )


class VoteRequest(Struct):
    FIELDS = (
        Field("cluster_id", String, default=None, nullable="0+"),
        # the receiving voter; Kafka carries it from version 1 (KIP-853)
        Field("voter_id", Int32, default=-1, kafka=False),
        Field("topics", Array(VoteTopicRequest)),
    )


class VotePartitionResponse(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
        Field("vote_granted", Bool),
    )


class VoteTopicResponse(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(VotePartitionResponse)),
    )


class VoteResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("topics", Array(VoteTopicResponse)),
    )


# -------------------------------------------------------------- BeginQuorumEpoch


class BeginQuorumEpochPartitionRequest(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
    )


class BeginQuorumEpochTopicRequest(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(BeginQuorumEpochPartitionRequest)),
    )


class BeginQuorumEpochRequest(Struct):
    FIELDS = (
        Field("cluster_id", String, default=None, nullable="0+"),
        # the receiving voter; Kafka carries it from version 1 (KIP-853)
        Field("voter_id", Int32, default=-1, kafka=False),
        Field("topics", Array(BeginQuorumEpochTopicRequest)),
    )


class QuorumEpochPartitionResponse(Struct):
    """Per-partition answer of BeginQuorumEpoch and EndQuorumEpoch."""

    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
    )


class QuorumEpochTopicResponse(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(QuorumEpochPartitionResponse)),
    )


class BeginQuorumEpochResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("topics", Array(QuorumEpochTopicResponse)),
    )


# ---------------------------------------------------------------- EndQuorumEpoch


class EndQuorumEpochPartitionRequest(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
        Field("preferred_successors", Array(Int32)),
    )


class EndQuorumEpochTopicRequest(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(EndQuorumEpochPartitionRequest)),
    )


class EndQuorumEpochRequest(Struct):
    FIELDS = (
        Field("cluster_id", String, default=None, nullable="0+"),
        Field("topics", Array(EndQuorumEpochTopicRequest)),
    )


class EndQuorumEpochResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("topics", Array(QuorumEpochTopicResponse)),
    )


# ---------------------------------------------------------------- DescribeQuorum


class DescribeQuorumPartitionRequest(Struct):
    FIELDS = (Field("partition_index", Int32),)


class DescribeQuorumTopicRequest(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(DescribeQuorumPartitionRequest)),
    )


class DescribeQuorumRequest(Struct):
    """DescribeQuorum, versions 0-2, declared once in Kafka's versions for both listeners (v2, KIP-853:
    error messages, each replica's directory id and the voters' listeners)."""

    FIELDS = (Field("topics", Array(DescribeQuorumTopicRequest)),)


class QuorumReplicaState(Struct):
    """One voter or observer as the leader sees it (times in ms since the epoch, -1 unknown; Kafka's
    ``ReplicaState``).  ``replica_directory_id`` (v2, KIP-853) is the zero Uuid for a voter of a static
    quorum (``controller.quorum.voters`` names no directory), as Kafka's ``ReplicaKey.NO_DIRECTORY_ID``."""

    FIELDS = (
        Field("replica_id", Int32),
        Field("replica_directory_id", Uuid, "2+"),
        Field("log_end_offset", Int64),
        Field("last_fetch_timestamp", Int64, "1+", default=-1),
        Field("last_caught_up_timestamp", Int64, "1+", default=-1),
    )


class DescribeQuorumPartitionResponse(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("error_message", String, "2+", nullable="2+"),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
        Field("high_watermark", Int64),
        Field("current_voters", Array(QuorumReplicaState)),
        Field("observers", Array(QuorumReplicaState)),
    )


class DescribeQuorumTopicResponse(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(DescribeQuorumPartitionResponse)),
    )


class DescribeQuorumListener(Struct):
    """One listener of a voter (v2, KIP-853): its name and address."""

    FIELDS = (
        Field("name", String),
        Field("host", String),
        Field("port", Uint16),
    )


class DescribeQuorumNode(Struct):
    """A voter and its listeners (v2, KIP-853): for a static quorum the controller listener
    (``controller.listener.names``' first) at the address ``controller.quorum.voters`` gives."""

    FIELDS = (
        Field("node_id", Int32),
        Field("listeners", Array(DescribeQuorumListener)),
    )


class DescribeQuorumResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, "2+", nullable="2+"),
        Field("topics", Array(DescribeQuorumTopicResponse)),
        Field("nodes", Array(DescribeQuorumNode), "2+"),
    )


# ----------------------------------------------------------------- FetchSnapshot


class SnapshotId(Struct):
    """A snapshot's id: the log offset it ends before and the epoch of the entry before it
    (defaults 0 as Kafka's; the quorum always sets both)."""

    FIELDS = (
        Field("end_offset", Int64),
        Field("epoch", Int32),
    )


class FetchSnapshotPartitionRequest(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32),
        Field("snapshot_id", SnapshotId),
        Field("position", Int64),
    )


class FetchSnapshotTopicRequest(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(FetchSnapshotPartitionRequest)),
    )


class FetchSnapshotRequest(Struct):
    FIELDS = (
        Field("cluster_id", String, default=None, nullable="0+", tag=0),
        Field("replica_id", Int32, default=-1),
        Field("max_bytes", Int32, default=0x7FFFFFFF),
        Field("topics", Array(FetchSnapshotTopicRequest)),
    )


class LeaderIdAndEpoch(Struct):
    """The leader of the partition as the answering voter knows it (-1 unknown; Kafka's
    ``CurrentLeader`` of FetchSnapshot, defaults 0 unlike Fetch's)."""

    FIELDS = (
        Field("leader_id", Int32),
        Field("leader_epoch", Int32),
    )


class FetchSnapshotPartitionResponse(Struct):
    FIELDS = (
        Field("index", Int32),
        Field("error_code", Int16),
        Field("snapshot_id", SnapshotId),
        Field("current_leader", LeaderIdAndEpoch, tag=0),
        Field("size", Int64, default=0),
        Field("position", Int64, default=0),
        Field("unaligned_records", Records),
    )


class FetchSnapshotTopicResponse(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(FetchSnapshotPartitionResponse)),
    )


class FetchSnapshotResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("topics", Array(FetchSnapshotTopicResponse)),
    )
