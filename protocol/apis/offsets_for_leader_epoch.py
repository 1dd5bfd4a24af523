"""OffsetForLeaderEpoch (key 23), versions 2-4: where a leader epoch ends in the leader's log.

Declared once, in Kafka's versions, for both listeners.  A follower (``replica_id`` >= 0) asks
the leader, per partition, for the end offset of ``leader_epoch`` (its own latest epoch) while
checking ``current_leader_epoch`` (the epoch it follows); a consumer sends -1 (v3+), and before
v3 the request has no replica id (-2, Kafka's ``DEBUGGING_REPLICA_ID``).  The answer is the
largest epoch <= the requested one that the leader knows and its end offset: the start offset
of the next larger epoch, or the leader's log end offset for its latest epoch.
``leader_epoch`` / ``end_offset`` -1 mean undefined (the leader knows no such epoch); the
follower then falls back to its high watermark.

Kafka concept: ``OffsetsForLeaderEpochRequest`` / ``EpochEndOffset`` (KIP-101, KIP-279, KIP-320).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, String, Struct

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class OffsetForLeaderPartition(Struct):
    FIELDS = (
        Field("partition", Int32),
        Field("current_leader_epoch", Int32, default=-1),
        Field("leader_epoch", Int32),
    )


class OffsetForLeaderTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetForLeaderPartition)),
    )


class OffsetsForLeaderEpochRequest(Struct):
    FIELDS = (
        Field("replica_id", Int32, "3+", default=-2),
        Field("topics", Array(OffsetForLeaderTopic)),
    )


class EpochEndOffset(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition", Int32),
        Field("leader_epoch", Int32, default=UNDEFINED_EPOCH),
        Field("end_offset", Int64, default=UNDEFINED_EPOCH_OFFSET),
    )


class OffsetForLeaderTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(EpochEndOffset)),
    )


class OffsetsForLeaderEpochResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(OffsetForLeaderTopicResult)),
    )
