"""DescribeTopicPartitions (key 75): the partitions of topics, a page at a time (KIP-966).

Declared once, in Kafka's version 0, for both listeners.  A request names its topics (an empty list:
every topic), caps the partitions of one answer (``response_partition_limit``) and may start at a
``cursor`` (a topic and a partition index); an answer that stopped at the cap names where to go on
(``next_cursor``).  Each partition carries KIP-966's eligible leader replicas and last known ELR, empty
here as in a Kafka cluster where no partition has an ELR.
Kafka concept: ``DescribeTopicPartitionsRequest``/``DescribeTopicPartitionsResponse``, answered from
the metadata cache (``DescribeTopicPartitionsRequestHandler``).
"""

from kafkette.protocol.apis.metadata import NO_AUTHORIZED_OPERATIONS
from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, String, Struct, Uuid

DEFAULT_RESPONSE_PARTITION_LIMIT = 2000
"""``response_partition_limit`` when a request does not set it (Kafka's spec default)."""


class DescribeTopicPartitionsRequestTopic(Struct):
    FIELDS = (Field("name", String),)


class Cursor(Struct):
    """Where an answer starts (a request's ``cursor``) or the next one should (``next_cursor``): a topic
    and the index of its first partition to describe."""

    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
    )


class DescribeTopicPartitionsRequest(Struct):
    """``topics`` empty asks for every topic; ``cursor`` None starts at the first topic's partition 0."""

    FIELDS = (
        Field("topics", Array(DescribeTopicPartitionsRequestTopic)),
        Field("response_partition_limit", Int32, default=DEFAULT_RESPONSE_PARTITION_LIMIT),
        Field("cursor", Cursor, nullable="0+", default=None),
    )


class DescribeTopicPartitionsResponsePartition(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition_index", Int32),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32, default=-1),
        Field("replica_nodes", Array(Int32)),
        Field("isr_nodes", Array(Int32)),
        Field("eligible_leader_replicas", Array(Int32), nullable="0+", default=None),
        Field("last_known_elr", Array(Int32), nullable="0+", default=None),
        Field("offline_replicas", Array(Int32)),
    )


class DescribeTopicPartitionsResponseTopic(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("name", String, nullable="0+"),
        Field("topic_id", Uuid),
        Field("is_internal", Bool, default=False),
        Field("partitions", Array(DescribeTopicPartitionsResponsePartition)),
        Field("topic_authorized_operations", Int32, default=NO_AUTHORIZED_OPERATIONS),
    )


class DescribeTopicPartitionsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(DescribeTopicPartitionsResponseTopic)),
        Field("next_cursor", Cursor, nullable="0+", default=None),
    )
