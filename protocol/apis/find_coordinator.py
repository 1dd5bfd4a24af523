"""FindCoordinator (key 10): which broker coordinates a consumer group.

Batched, as Kafka's version 4 (KIP-699): ``coordinator_keys`` are group ids when
``key_type`` is ``COORDINATOR_TYPE_GROUP``; each gets its coordinator's node, host and port,
or COORDINATOR_NOT_AVAILABLE while ``__consumer_offsets`` is being created or the group's
partition has no leader.  Kafka concept: ``FindCoordinatorRequest`` / ``FindCoordinatorResponse``.
"""

from kafkette.protocol.schema import Array, Field, Int8, Int16, Int32, Nullable, String, Struct

COORDINATOR_TYPE_GROUP = 0
COORDINATOR_TYPE_TRANSACTION = 1


class FindCoordinatorRequest(Struct):
    FIELDS = (
        Field("key_type", Int8, default=COORDINATOR_TYPE_GROUP),
        Field("coordinator_keys", Array(String)),
    )


class Coordinator(Struct):
    FIELDS = (
        Field("key", String),
        Field("node_id", Int32, default=-1),
        Field("host", String, default=""),
        Field("port", Int32, default=-1),
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
    )


class FindCoordinatorResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("coordinators", Array(Coordinator)),
    )
