"""JoinGroup (key 11), Heartbeat (12), LeaveGroup (13) and SyncGroup (14): Kafka's classic
group membership protocol, at the group's coordinator.

A member joins with its protocols (for consumers, ``protocol_type`` "consumer" and one
subscription per assignor); a first JoinGroup without ``member_id`` gets MEMBER_ID_REQUIRED
and the id to join with (KIP-394); once every member has rejoined (or the rebalance timeout
passed) each gets the new generation, the chosen protocol and the leader, and the leader also
gets every member's metadata.  The leader's SyncGroup carries the assignment of each member;
every member's SyncGroup answers its own.  Heartbeat keeps a member's session; LeaveGroup ends
it at once (KIP-345 batch form).

Declared once, in Kafka's versions (JoinGroup 0-9, Heartbeat 0-4, LeaveGroup 0-5, SyncGroup
0-5): the msgpack listener and Kafka's binary listener read and write these same classes.  A
JoinGroup's ``reason`` (KIP-800, v8+) is part of the rebalance reason a join logs, a LeaveGroup
member's (v5+) is logged as the member leaves.  JoinGroup's ``skip_assignment`` (KIP-814, v9+)
tells a static leader that rejoined a Stable group the members it leads but not to assign.

Kafka concept: ``JoinGroupRequest``, ``SyncGroupRequest``, ``HeartbeatRequest``,
``LeaveGroupRequest`` (the JSON message specs of the same names).
"""

from kafkette.protocol.schema import Array, Bool, Bytes, Field, Int16, Int32, String, Struct


class JoinGroupRequestProtocol(Struct):
    FIELDS = (
        Field("name", String),
        Field("metadata", Bytes),
    )


class JoinGroupRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("session_timeout_ms", Int32),
        Field("rebalance_timeout_ms", Int32, "1+", default=-1),
        Field("member_id", String),
        Field("group_instance_id", String, "5+", nullable="5+", default=None),
        Field("protocol_type", String),
        Field("protocols", Array(JoinGroupRequestProtocol)),
        Field("reason", String, "8+", nullable="8+", default=None),
    )


class JoinGroupResponseMember(Struct):
    FIELDS = (
        Field("member_id", String),
        Field("group_instance_id", String, "5+", nullable="5+", default=None),
        Field("metadata", Bytes),
    )


class JoinGroupResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "2+"),
        Field("error_code", Int16),
        Field("generation_id", Int32, default=-1),
        Field("protocol_type", String, "7+", nullable="7+", default=None),
        Field("protocol_name", String, nullable="7+"),
        Field("leader", String),
        Field("skip_assignment", Bool, "9+", default=False),
        Field("member_id", String),
        Field("members", Array(JoinGroupResponseMember)),
    )


def join_error_response(error_code: int, member_id: str = "") -> JoinGroupResponse:
    """A JoinGroup answer carrying only an error: no generation (-1), protocol name null.

    Args:
        error_code: Kafka's error code.
        member_id: the member id answered ("" when none was assigned).

    Returns:
        The answer, as Kafka's ``JoinGroupRequest.getErrorResponse`` builds it.
    """
    return JoinGroupResponse(error_code=error_code, member_id=member_id, protocol_name=None)


class SyncGroupRequestAssignment(Struct):
    FIELDS = (
        Field("member_id", String),
        Field("assignment", Bytes),
    )


class SyncGroupRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("generation_id", Int32),
        Field("member_id", String),
        Field("group_instance_id", String, "3+", nullable="3+", default=None),
        Field("protocol_type", String, "5+", nullable="5+", default=None),
        Field("protocol_name", String, "5+", nullable="5+", default=None),
        Field("assignments", Array(SyncGroupRequestAssignment)),
    )


class SyncGroupResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16),
        Field("protocol_type", String, "5+", nullable="5+", default=None),
        Field("protocol_name", String, "5+", nullable="5+", default=None),
        Field("assignment", Bytes),
    )


class HeartbeatRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("generation_id", Int32),
        Field("member_id", String),
        Field("group_instance_id", String, "3+", nullable="3+", default=None),
    )


class HeartbeatResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16),
    )


class MemberIdentity(Struct):
    FIELDS = (
        Field("member_id", String, "3+"),
        Field("group_instance_id", String, "3+", nullable="3+", default=None),
        Field("reason", String, "5+", nullable="5+", default=None),
    )


class LeaveGroupRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("member_id", String, "0-2"),
        Field("members", Array(MemberIdentity), "3+"),
    )


class MemberResponse(Struct):
    FIELDS = (
        Field("member_id", String, "3+"),
        Field("group_instance_id", String, "3+", nullable="3+"),
        Field("error_code", Int16, "3+"),
    )


class LeaveGroupResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16),
        Field("members", Array(MemberResponse), "3+"),
    )
