"""ConsumerGroupHeartbeat (key 68) and ConsumerGroupDescribe (key 69): KIP-848's consumer group
protocol, where the group coordinator assigns the partitions and a member reconciles towards its
target assignment by heartbeats alone (no JoinGroup/SyncGroup rounds).

Owns: the two APIs' request and response declarations, once, in Kafka 4.3.1's versions 0-1 (both
flexible from 0, topics named by id).  Heartbeat v1 adds ``subscribed_topic_regex`` and requires a
member id the consumer generated (KIP-1082); Describe v1 adds each member's ``member_type`` (KIP-1099).
In a heartbeat request null means "unchanged since the last heartbeat" (instance id, rack, topic
names, regex, server assignor, owned partitions; ``rebalance_timeout_ms`` -1).
Does not own: the group coordinator that answers them, the ApiSpec entries (``protocol.api_keys``).
Kafka concept: ``ConsumerGroupHeartbeatRequest``/``Response`` and ``ConsumerGroupDescribeRequest``/
``Response`` (KIP-848).
"""

from kafkette.protocol.apis.group_admin import AUTHORIZED_OPERATIONS_NOT_ASKED
from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, String, Struct, Uuid

REBALANCE_TIMEOUT_UNCHANGED = -1
"""A heartbeat's ``rebalance_timeout_ms`` when it did not change since the last heartbeat."""

MEMBER_TYPE_UNKNOWN = -1
"""A described member's ``member_type`` when it is not known (KIP-1099)."""
MEMBER_TYPE_CLASSIC = 0
"""A described member that speaks the classic protocol (JoinGroup/SyncGroup) inside a consumer group."""
MEMBER_TYPE_CONSUMER = 1
"""A described member that speaks the consumer protocol (ConsumerGroupHeartbeat)."""


class ConsumerGroupHeartbeatTopicPartitions(Struct):
    """The partitions of one topic, by topic id: a member's owned partitions in a request, its
    assigned ones in a response (Kafka's ``TopicPartitions``)."""

    FIELDS = (
        Field("topic_id", Uuid),
        Field("partitions", Array(Int32)),
    )


class ConsumerGroupHeartbeatRequest(Struct):
    """A member's heartbeat: ``member_epoch`` 0 joins, -1 leaves, -2 is a static member leaving to
    rejoin; otherwise the member's current epoch.  Null fields did not change."""

    FIELDS = (
        Field("group_id", String),
        Field("member_id", String),
        Field("member_epoch", Int32),
        Field("instance_id", String, nullable="0+", default=None),
        Field("rack_id", String, nullable="0+", default=None),
        Field("rebalance_timeout_ms", Int32, default=REBALANCE_TIMEOUT_UNCHANGED),
        Field("subscribed_topic_names", Array(String), nullable="0+", default=None),
        Field("subscribed_topic_regex", String, "1+", nullable="1+", default=None),
        Field("server_assignor", String, nullable="0+", default=None),
        Field("topic_partitions", Array(ConsumerGroupHeartbeatTopicPartitions), nullable="0+", default=None),
    )


class ConsumerGroupHeartbeatAssignment(Struct):
    """The partitions a member may use now (Kafka's ``Assignment``)."""

    FIELDS = (Field("topic_partitions", Array(ConsumerGroupHeartbeatTopicPartitions)),)


class ConsumerGroupHeartbeatResponse(Struct):
    """The coordinator's answer: the member's id and epoch, the interval of its next heartbeat, and
    its assignment when it changed (null: unchanged)."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+", default=None),
        Field("member_id", String, nullable="0+", default=None),
        Field("member_epoch", Int32),
        Field("heartbeat_interval_ms", Int32),
        Field("assignment", ConsumerGroupHeartbeatAssignment, nullable="0+", default=None),
    )


class ConsumerGroupDescribeRequest(Struct):
    FIELDS = (
        Field("group_ids", Array(String)),
        Field("include_authorized_operations", Bool),
    )


class ConsumerGroupDescribeTopicPartitions(Struct):
    """The partitions of one topic, by id and name (Kafka's ``TopicPartitions`` of the describe)."""

    FIELDS = (
        Field("topic_id", Uuid),
        Field("topic_name", String),
        Field("partitions", Array(Int32)),
    )


class ConsumerGroupDescribeAssignment(Struct):
    FIELDS = (Field("topic_partitions", Array(ConsumerGroupDescribeTopicPartitions)),)


class ConsumerGroupDescribeMember(Struct):
    """One member: its identity, subscription, current and target assignments, and (v1) whether it
    speaks the classic or the consumer protocol (``MEMBER_TYPE_*``)."""

    FIELDS = (
        Field("member_id", String),
        Field("instance_id", String, nullable="0+", default=None),
        Field("rack_id", String, nullable="0+", default=None),
        Field("member_epoch", Int32),
        Field("client_id", String),
        Field("client_host", String),
        Field("subscribed_topic_names", Array(String)),
        Field("subscribed_topic_regex", String, nullable="0+", default=None),
        Field("assignment", ConsumerGroupDescribeAssignment),
        Field("target_assignment", ConsumerGroupDescribeAssignment),
        Field("member_type", Int8, "1+", default=MEMBER_TYPE_UNKNOWN),
    )


class ConsumerGroupDescribeGroup(Struct):
    """One described group (Kafka's ``DescribedGroup``), or its error."""

    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+", default=None),
        Field("group_id", String),
        Field("group_state", String),
        Field("group_epoch", Int32),
        Field("assignment_epoch", Int32),
        Field("assignor_name", String),
        Field("members", Array(ConsumerGroupDescribeMember)),
        Field("authorized_operations", Int32, default=AUTHORIZED_OPERATIONS_NOT_ASKED),
    )


class ConsumerGroupDescribeResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("groups", Array(ConsumerGroupDescribeGroup)),
    )
