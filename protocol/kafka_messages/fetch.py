"""Fetch (key 1), versions 4-12: records by topic name (13 and up address topics by id).

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import INT8, INT16, INT32, INT64, RECORDS, STRING, Array, F, KafkaStruct


class FetchPartition(KafkaStruct):
    FIELDS = (
        F("partition", INT32),
        F("current_leader_epoch", INT32, "9+", default=-1),
        F("fetch_offset", INT64),
        F("last_fetched_epoch", INT32, "12+", default=-1),
        F("log_start_offset", INT64, "5+", default=-1),
        F("partition_max_bytes", INT32),
    )


class FetchTopic(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("partitions", Array(FetchPartition)),
    )


class ForgottenTopic(KafkaStruct):
    FIELDS = (
        F("topic", STRING, "7+"),
        F("partitions", Array(INT32), "7+"),
    )


class FetchRequest(KafkaStruct):
    FIELDS = (
        F("replica_id", INT32, default=-1),
        F("max_wait_ms", INT32),
        F("min_bytes", INT32),
        F("max_bytes", INT32, default=2147483647),
        F("isolation_level", INT8),
        F("session_id", INT32, "7+"),
        F("session_epoch", INT32, "7+", default=-1),
        F("topics", Array(FetchTopic)),
        F("forgotten_topics_data", Array(ForgottenTopic), "7+"),
        F("rack_id", STRING, "11+"),
    )


class AbortedTransaction(KafkaStruct):
    FIELDS = (
        F("producer_id", INT64),
        F("first_offset", INT64),
    )


class PartitionData(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("error_code", INT16),
        F("high_watermark", INT64),
        F("last_stable_offset", INT64, default=-1),
        F("log_start_offset", INT64, "5+", default=-1),
        F("aborted_transactions", Array(AbortedTransaction), nullable="4+"),
        F("preferred_read_replica", INT32, "11+", default=-1),
        F("records", RECORDS, nullable="4+"),
    )


class FetchableTopicResponse(KafkaStruct):
    FIELDS = (
        F("topic", STRING),
        F("partitions", Array(PartitionData)),
    )


class FetchResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("error_code", INT16, "7+"),
        F("session_id", INT32, "7+"),
        F("responses", Array(FetchableTopicResponse)),
    )
