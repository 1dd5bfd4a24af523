"""Produce (key 0): record batches appended to partition leaders.

``records`` holds one or more record batches exactly as ``kafkette.protocol.record_batch``
lays them out; the broker checks their headers and CRCs and decodes records only to
recompress them to the topic's ``compression.type`` (``kafkette.broker.log.log_validator``).
``log_append_time_ms`` in the response is the leader's LogAppendTime stamp, else -1;
``record_errors`` names the records (by index in the batch) a refused batch was refused for.
Declared once, in Kafka's versions 3-13, for both listeners: v10 adds to the answer, as tagged
fields (KIP-951), each NOT_LEADER_OR_FOLLOWER partition's ``current_leader`` and the
``node_endpoints`` of those leaders; v11 and v12 are v10 (KIP-890: a transactional producer may be
answered TRANSACTION_ABORTABLE, and from v12 its Produce adds the partition to its transaction);
v13 names topics by ``topic_id`` instead of ``name`` (KIP-516).
Kafka concept: ``ProduceRequest``/``ProduceResponse`` (acks 0, 1, -1).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, Records, String, Struct, Uuid

PRODUCE_TOPIC_ID_VERSION = 13
"""The first Produce version naming topics by id (KIP-516); the versions before it name them."""


class ProducePartitionData(Struct):
    FIELDS = (
        Field("index", Int32),
        Field("records", Records, nullable="3+"),
    )


class ProduceTopicData(Struct):
    FIELDS = (
        Field("name", String, "0-12"),
        Field("topic_id", Uuid, "13+"),
        Field("partition_data", Array(ProducePartitionData)),
    )


class ProduceRequest(Struct):
    """Kafka's versions 3-13 (both listeners); ``acks`` and ``timeout_ms`` have no default, as in
    Kafka: the producer always says them."""

    FIELDS = (
        Field("transactional_id", String, nullable="3+", default=None),
        Field("acks", Int16),
        Field("timeout_ms", Int32),
        Field("topic_data", Array(ProduceTopicData)),
    )


class BatchIndexAndErrorMessage(Struct):
    FIELDS = (
        Field("batch_index", Int32, "8+"),
        Field("batch_index_error_message", String, "8+", nullable="8+", default=None),
    )


class ProduceLeaderIdAndEpoch(Struct):
    """The leader a NOT_LEADER_OR_FOLLOWER partition has as the answering broker knows it (KIP-951;
    Kafka's ``LeaderIdAndEpoch`` of ``ProduceResponse``): -1 and -1 when it knows none."""

    FIELDS = (
        Field("leader_id", Int32, "10+", default=-1),
        Field("leader_epoch", Int32, "10+", default=-1),
    )


class ProducePartitionResponse(Struct):
    FIELDS = (
        Field("index", Int32),
        Field("error_code", Int16),
        Field("base_offset", Int64),
        Field("log_append_time_ms", Int64, default=-1),
        Field("log_start_offset", Int64, "5+", default=-1),
        Field("record_errors", Array(BatchIndexAndErrorMessage), "8+"),
        Field("error_message", String, "8+", nullable="8+", default=None),
        Field("current_leader", ProduceLeaderIdAndEpoch, "10+", tag=0),
    )


class ProduceTopicResponse(Struct):
    FIELDS = (
        Field("name", String, "0-12"),
        Field("topic_id", Uuid, "13+"),
        Field("partition_responses", Array(ProducePartitionResponse)),
    )


class NodeEndpoint(Struct):
    """A current leader's address on the listener the request came in on (KIP-951)."""

    FIELDS = (
        Field("node_id", Int32, "10+"),
        Field("host", String, "10+"),
        Field("port", Int32, "10+"),
        Field("rack", String, "10+", nullable="10+", default=None),
    )


class ProduceResponse(Struct):
    FIELDS = (
        Field("responses", Array(ProduceTopicResponse)),
        Field("throttle_time_ms", Int32),
        Field("node_endpoints", Array(NodeEndpoint), "10+", tag=0),
    )
