"""DescribeProducers (key 61): the active idempotent producers of partitions (KIP-664).

Declared once, in Kafka's version 0, for both listeners.  Each partition's answer lists the producers
its log's producer state holds (``ProducerStateManager``): id, epoch, last sequence and the last
batch's timestamp; ``coordinator_epoch`` and ``current_txn_start_offset`` stay -1, as Kafka answers
them for a producer outside any transaction (Kafkette has no transactions).
Kafka concept: ``DescribeProducersRequest``/``DescribeProducersResponse`` (``KafkaApis.
handleDescribeProducersRequest``, ``Partition.activeProducerState``); Kafka's
``kafka-transactions.sh describe-producers`` and ``Admin.describeProducers`` send it.
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, String, Struct


class DescribeProducersRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partition_indexes", Array(Int32)),
    )


class DescribeProducersRequest(Struct):
    FIELDS = (Field("topics", Array(DescribeProducersRequestTopic)),)


class ProducerState(Struct):
    """One active producer of a partition (timestamps in ms since the epoch)."""

    FIELDS = (
        Field("producer_id", Int64),
        Field("producer_epoch", Int32),
        Field("last_sequence", Int32, default=-1),
        Field("last_timestamp", Int64, default=-1),
        Field("coordinator_epoch", Int32),
        Field("current_txn_start_offset", Int64, default=-1),
    )


class DescribeProducersPartitionResponse(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+", default=None),
        Field("active_producers", Array(ProducerState)),
    )


class DescribeProducersTopicResponse(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(DescribeProducersPartitionResponse)),
    )


class DescribeProducersResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(DescribeProducersTopicResponse)),
    )
