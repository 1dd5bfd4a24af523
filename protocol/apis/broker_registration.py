"""BrokerRegistration (key 62) and BrokerHeartbeat (key 63): broker liveness.

A broker registers with the controller at start-up and gets a broker epoch; it then
heartbeats every ``broker.heartbeat.interval.ms``.  A broker whose heartbeats stop
for ``broker.session.timeout.ms`` is fenced.  Kafka concept: KIP-631 (KRaft).

BrokerHeartbeat v1 adds ``offline_replicas``: every replica whose log is offline on
the broker (corruption took it offline), sent in full on every heartbeat, so the
controller moves leadership away and keeps those replicas out of the ISR.  Kafka
concept: ``OfflineLogDirs`` of BrokerHeartbeat (KIP-858), per partition here.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, Nullable, String, Struct


class BrokerRegistrationListener(Struct):
    FIELDS = (
        Field("name", String, default="PLAINTEXT"),
        Field("host", String),
        Field("port", Int32),
        Field("security_protocol", Int16),
    )


class BrokerRegistrationRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("cluster_id", Nullable(String), default=None),
        Field("incarnation_id", String),
        Field("listeners", Array(BrokerRegistrationListener)),
        Field("rack", Nullable(String), default=None),
    )


class BrokerRegistrationResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("error_message", Nullable(String), default=None),
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
        Field("broker_epoch", Int64),
        Field("current_metadata_offset", Int64, default=-1),
        Field("want_fence", Bool),
        Field("want_shut_down", Bool),
        Field("offline_replicas", Array(BrokerHeartbeatOfflineReplicaTopic), versions="1+"),
    )


class BrokerHeartbeatResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("is_caught_up", Bool),
        Field("is_fenced", Bool),
        Field("should_shut_down", Bool),
    )
