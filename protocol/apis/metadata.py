"""Metadata (key 3): brokers, controller and partition leadership as a broker sees it.

Declared once, in Kafka's versions 0-13, for both listeners.  Topics are asked by name (a
topic id, v10+, is not looked up).  v13's top-level ``error_code`` (KIP-1102) is 0 in an answer, as
Kafka's broker answers it (it never asks a client to rebootstrap); a request refused as a whole
carries its error there, as Kafka's ``MetadataRequest.getErrorResponse``.
Kafka concept: ``MetadataRequest``/``MetadataResponse`` answered from the MetadataCache.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, String, Struct, Uuid

NO_AUTHORIZED_OPERATIONS = -2147483648
"""An ``authorized_operations`` field's value when the request did not ask for them (KIP-430)."""


class MetadataRequestTopic(Struct):
    FIELDS = (
        Field("topic_id", Uuid, "10+"),
        Field("name", String, nullable="10+"),
    )


class MetadataRequest(Struct):
    """Kafka's versions 0-13 (both listeners): ``topics`` null asks for every topic (from v1; v0's
    empty list, which the Kafka listener turns into null)."""

    FIELDS = (
        Field("topics", Array(MetadataRequestTopic), nullable="1+"),
        Field("allow_auto_topic_creation", Bool, "4+", default=True),
        Field("include_cluster_authorized_operations", Bool, "8-10"),
        Field("include_topic_authorized_operations", Bool, "8+"),
    )


class MetadataResponseBroker(Struct):
    FIELDS = (
        Field("node_id", Int32),
        Field("host", String),
        Field("port", Int32),
        Field("rack", String, "1+", nullable="1+", default=None),
    )


class MetadataResponsePartition(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("partition_index", Int32),
        Field("leader_id", Int32),
        Field("leader_epoch", Int32, "7+", default=-1),
        Field("replica_nodes", Array(Int32)),
        Field("isr_nodes", Array(Int32)),
        Field("offline_replicas", Array(Int32), "5+"),
    )


class MetadataResponseTopic(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("name", String, nullable="12+"),
        Field("topic_id", Uuid, "10+"),
        Field("is_internal", Bool, "1+"),
        Field("partitions", Array(MetadataResponsePartition)),
        Field("topic_authorized_operations", Int32, "8+", default=NO_AUTHORIZED_OPERATIONS),
    )


class MetadataResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "3+"),
        Field("brokers", Array(MetadataResponseBroker)),
        Field("cluster_id", String, "2+", nullable="2+", default=None),
        Field("controller_id", Int32, "1+", default=-1),
        Field("topics", Array(MetadataResponseTopic)),
        Field("cluster_authorized_operations", Int32, "8-10", default=NO_AUTHORIZED_OPERATIONS),
        Field("error_code", Int16, "13+"),
        # the registered brokers the controller fenced (msgpack only): DescribeCluster v2, which the
        # Kafka listener answers from a Metadata request, lists them with include_fenced_brokers (KIP-1073)
        Field("fenced_brokers", Array(MetadataResponseBroker), kafka=False),
    )
