"""ListOffsets (key 2), versions 1-11: offsets by timestamp, earliest (-2), latest (-1), max
timestamp (-3), earliest local (-4), latest tiered (-5) or earliest pending upload (-6), declared
once, in Kafka's versions, for both listeners.

A partition's ``timestamp`` is either a target timestamp in ms (>= 0: the first offset
whose record timestamp is >= it) or one of the special values below.  The response
carries the offset and, for timestamp lookups, the found record's timestamp and its
batch's leader epoch; offset -1 and timestamp -1 mean no record qualifies.

Kafkette has no tiered storage (KIP-405), so it answers the tiered special timestamps as Kafka
answers them for a topic without remote storage: earliest local (-4, v8) is the log start offset,
as earliest; latest tiered (-5, v9, KIP-1005) and earliest pending upload (-6, v11, KIP-1023) find
no offset (offset, timestamp and leader epoch -1).  v10's ``timeout_ms`` (KIP-1075) bounds a wait
for remote storage and has nothing to bound here.

Kafka concept: ``ListOffsetsRequest``; ``EARLIEST_TIMESTAMP``/``LATEST_TIMESTAMP``/
``MAX_TIMESTAMP`` (KIP-734)/``EARLIEST_LOCAL_TIMESTAMP``/``LATEST_TIERED_TIMESTAMP``/
``EARLIEST_PENDING_UPLOAD_TIMESTAMP``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, Int64, String, Struct

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5
EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6
UNKNOWN_OFFSET = -1


class ListOffsetsPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("current_leader_epoch", Int32, "4+", default=-1),
        Field("timestamp", Int64),
    )


class ListOffsetsTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(ListOffsetsPartition)),
    )


class ListOffsetsRequest(Struct):
    """``replica_id``: the asking broker's id, -1 for a consumer (Kafka's ``CONSUMER_REPLICA_ID``)."""

    FIELDS = (
        Field("replica_id", Int32),
        Field("isolation_level", Int8, "2+"),
        Field("topics", Array(ListOffsetsTopic)),
        Field("timeout_ms", Int32, "10+"),
    )


class ListOffsetsPartitionResponse(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("timestamp", Int64, default=-1),
        Field("offset", Int64, default=-1),
        Field("leader_epoch", Int32, "4+", default=-1),
    )


class ListOffsetsTopicResponse(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(ListOffsetsPartitionResponse)),
    )


class ListOffsetsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "2+"),
        Field("topics", Array(ListOffsetsTopicResponse)),
    )
