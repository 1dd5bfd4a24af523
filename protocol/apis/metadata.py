"""Metadata (key 3): brokers, controller and partition leadership as a broker sees it.

v0 asks for topics only (None = all topics); v1 adds ``allow_auto_topic_creation``.
Kafka concept: ``MetadataRequest``/``MetadataResponse`` answered from the MetadataCache.
"""

from kafkette.protocol.schema import Array, Bool, Bytes, Field, Int16, Int32, Nullable, String, Struct


class MetadataRequestTopic(Struct):
    FIELDS = (Field("name", String),)


class MetadataRequest(Struct):
    FIELDS = (
        Field("topics", Nullable(Array(MetadataRequestTopic))),
        Field("allow_auto_topic_creation", Bool, versions="1+", default=True),
    )


class MetadataResponseBroker(Struct):
    FIELDS = (
        Field("node_id", Int32),
        Field("host", String),
        Field("port", Int32),
        Field("rack", Nullable(String)),
    )


class MetadataResponsePartition(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition_index", Int32),
        Field("leader_id", Int32, default=-1),
        Field("leader_epoch", Int32, default=-1),
        Field("replica_nodes", Array(Int32)),
        Field("isr_nodes", Array(Int32)),
        Field("offline_replicas", Array(Int32)),
    )


class MetadataResponseTopic(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("name", String),
        Field("is_internal", Bool),
        Field("partitions", Array(MetadataResponsePartition)),
        Field("topic_id", Bytes, default=bytes(16)),  # Kafka's Uuid, 16 bytes (all zero: unknown)
    )


class MetadataResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("brokers", Array(MetadataResponseBroker)),
        Field("cluster_id", Nullable(String)),
        Field("controller_id", Int32, default=-1),
        Field("topics", Array(MetadataResponseTopic)),
    )
