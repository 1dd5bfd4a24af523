"""FindCoordinator (key 10): which broker coordinates a consumer group.

Batched, as Kafka's version 4 (KIP-699): ``coordinator_keys`` are group ids when
``key_type`` is ``COORDINATOR_TYPE_GROUP``; each gets its coordinator's node, host and port,
or COORDINATOR_NOT_AVAILABLE while ``__consumer_offsets`` is being created or the group's
partition has no leader.  Declared once, in Kafka's versions 0-6: the msgpack listener (at
version 6) and Kafka's binary listener read and write these same classes; before v4 Kafka's
single ``key`` and top-level coordinator fields.  Version 5 is version 4 with KIP-890's
TRANSACTION_ABORTABLE among the errors a client may be answered (never by this broker); version 6
adds ``key_type`` 2, a share group's share-partition key ``"groupId:topicId:partition"`` (KIP-932).
Kafka concept: ``FindCoordinatorRequest`` / ``FindCoordinatorResponse``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, String, Struct

COORDINATOR_TYPE_GROUP = 0
COORDINATOR_TYPE_TRANSACTION = 1
COORDINATOR_TYPE_SHARE = 2
SHARE_COORDINATOR_MIN_VERSION = 6
"""The first FindCoordinator version that may ask for a share coordinator (KIP-932)."""


class FindCoordinatorRequest(Struct):
    FIELDS = (
        Field("key", String, "0-3"),
        Field("key_type", Int8, "1+", default=COORDINATOR_TYPE_GROUP),
        Field("coordinator_keys", Array(String), "4+"),
    )


class Coordinator(Struct):
    FIELDS = (
        Field("key", String, "4+"),
        Field("node_id", Int32, "4+"),
        Field("host", String, "4+"),
        Field("port", Int32, "4+"),
        Field("error_code", Int16, "4+"),
        Field("error_message", String, "4+", "", nullable="4+"),
    )


class FindCoordinatorResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16, "0-3"),
        Field("error_message", String, "1-3", "", nullable="1-3"),
        Field("node_id", Int32, "0-3"),
        Field("host", String, "0-3"),
        Field("port", Int32, "0-3"),
        Field("coordinators", Array(Coordinator), "4+"),
    )
