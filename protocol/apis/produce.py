"""Produce (key 0): record batches appended to partition leaders.

``records`` holds one or more record batches exactly as ``kafkette.protocol.record_batch``
lays them out; the broker checks their headers and CRCs and decodes records only to
recompress them to the topic's ``compression.type`` (``kafkette.broker.log.log_validator``).
``log_append_time_ms`` in the response is the leader's LogAppendTime stamp, else -1;
``record_errors`` names the records (by index in the batch) a refused batch was refused for.
Declared once, in Kafka's versions 3-9, for both listeners.
Kafka concept: ``ProduceRequest``/``ProduceResponse`` (acks 0, 1, -1).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, Records, String, Struct


class ProducePartitionData(Struct):
    FIELDS = (
        Field("index", Int32),
        Field("records", Records, nullable="3+"),
    )


class ProduceTopicData(Struct):
    FIELDS = (
        Field("name", String),
        Field("partition_data", Array(ProducePartitionData)),
    )


class ProduceRequest(Struct):
    """Kafka's versions 3-9 (both listeners); ``acks`` and ``timeout_ms`` have no default, as in
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


class ProducePartitionResponse(Struct):
    FIELDS = (
        Field("index", Int32),
        Field("error_code", Int16),
        Field("base_offset", Int64),
        Field("log_append_time_ms", Int64, default=-1),
        Field("log_start_offset", Int64, "5+", default=-1),
        Field("record_errors", Array(BatchIndexAndErrorMessage), "8+"),
        Field("error_message", String, "8+", nullable="8+", default=None),
    )


class ProduceTopicResponse(Struct):
    FIELDS = (
        Field("name", String),
        Field("partition_responses", Array(ProducePartitionResponse)),
    )


class ProduceResponse(Struct):
    FIELDS = (
        Field("responses", Array(ProduceTopicResponse)),
        Field("throttle_time_ms", Int32),
    )
