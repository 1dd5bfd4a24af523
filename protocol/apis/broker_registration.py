"""BrokerRegistration (key 62) and BrokerHeartbeat (key 63): broker liveness.

A broker registers with the controller at start-up and gets a broker epoch; it then
heartbeats every ``broker.heartbeat.interval.ms``.  A broker whose heartbeats stop
for ``broker.session.timeout.ms`` is fenced.  Kafka concept: KIP-631 (KRaft).

BrokerHeartbeat v1 adds ``offline_replicas``: every replica whose log is offline on
the broker (corruption took it offline), sent in full on every heartbeat, so the
controller moves leadership away and keeps those replicas out of the ISR.  Kafka
concept: ``OfflineLogDirs`` of BrokerHeartbeat (KIP-858), per partition here.

The fields follow Kafka's ``BrokerRegistrationRequest.json`` / ``BrokerHeartbeatRequest.json``
(names, types, defaults); those Kafka's wire has no place for are declared ``kafka=False``.
"""

from kafkette.protocol.schema import (
    Array,
    Bool,
    Field,
    Int16,
    Int32,
    Int64,
    Nullable,
    String,
    Struct,
    Uint16,
    Uuid,
)


class BrokerRegistrationListener(Struct):
    FIELDS = (
        Field("name", String),
        Field("host", String),
        Field("port", Uint16),
        Field("security_protocol", Int16),
    )


class BrokerRegistrationFeature(Struct):
    """A feature (KIP-584) the registering broker supports, with its range of levels."""

    FIELDS = (
        Field("name", String),
        Field("min_supported_version", Int16),
        Field("max_supported_version", Int16),
    )


class BrokerRegistrationRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("cluster_id", Nullable(String)),  # msgpack carries a broker's unset cluster.id as null
        Field("incarnation_id", Uuid),
        Field("listeners", Array(BrokerRegistrationListener)),
        Field("features", Array(BrokerRegistrationFeature)),
        Field("rack", String, nullable="0+"),
    )


class BrokerRegistrationResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        # Kafkette's own: why the registration was refused (Kafka's response has only the code)
        Field("error_message", Nullable(String), default=None, kafka=False),
        Field("broker_epoch", Int64, default=-1),
    )


class BrokerHeartbeatOfflineReplicaTopic(Struct):
    """The partitions of one topic whose log is offline on the heartbeating broker."""

    FIELDS = (
        Field("topic_name", String),
        Field("partitions", Array(Int32)),
    )


class BrokerHeartbeatRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("broker_epoch", Int64, default=-1),
        Field("current_metadata_offset", Int64),
        Field("want_fence", Bool),
        Field("want_shut_down", Bool),
        # Kafkette's own: offline replicas by partition; Kafka's v1 has OfflineLogDirs (tag 0, the ids
        # of failed log directories, KIP-858) instead, and Kafkette's log directories have no ids
        Field("offline_replicas", Array(BrokerHeartbeatOfflineReplicaTopic), versions="1+", kafka=False),
    )


class BrokerHeartbeatResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("is_caught_up", Bool),
        Field("is_fenced", Bool, default=True),
        Field("should_shut_down", Bool),
    )
