"""JoinGroup (11) 0-7, SyncGroup (14) 0-5, Heartbeat (12) 0-4, LeaveGroup (13) 0-4: the classic group membership protocol.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BYTES, INT16, INT32, STRING, Array, F, KafkaStruct


class JoinGroupRequestProtocol(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("metadata", BYTES),
    )


class JoinGroupRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("session_timeout_ms", INT32),
        F("rebalance_timeout_ms", INT32, "1+", default=-1),
        F("member_id", STRING),
        F("group_instance_id", STRING, "5+", nullable="5+", default=None),
        F("protocol_type", STRING),
        F("protocols", Array(JoinGroupRequestProtocol)),
    )


class JoinGroupResponseMember(KafkaStruct):
    FIELDS = (
        F("member_id", STRING),
        F("group_instance_id", STRING, "5+", nullable="5+", default=None),
        F("metadata", BYTES),
    )


class JoinGroupResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "2+"),
        F("error_code", INT16),
        F("generation_id", INT32, default=-1),
        F("protocol_type", STRING, "7+", nullable="7+", default=None),
        F("protocol_name", STRING, nullable="7+"),
        F("leader", STRING),
        F("member_id", STRING),
        F("members", Array(JoinGroupResponseMember)),
    )


class SyncGroupRequestAssignment(KafkaStruct):
    FIELDS = (
        F("member_id", STRING),
        F("assignment", BYTES),
    )


class SyncGroupRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("generation_id", INT32),
        F("member_id", STRING),
        F("group_instance_id", STRING, "3+", nullable="3+", default=None),
        F("protocol_type", STRING, "5+", nullable="5+", default=None),
        F("protocol_name", STRING, "5+", nullable="5+", default=None),
        F("assignments", Array(SyncGroupRequestAssignment)),
    )


class SyncGroupResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "1+"),
        F("error_code", INT16),
        F("protocol_type", STRING, "5+", nullable="5+", default=None),
        F("protocol_name", STRING, "5+", nullable="5+", default=None),
        F("assignment", BYTES),
    )


class MemberIdentity(KafkaStruct):
    FIELDS = (
        F("member_id", STRING, "3+"),
        F("group_instance_id", STRING, "3+", nullable="3+", default=None),
    )


class LeaveGroupRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("member_id", STRING, "0-2"),
        F("members", Array(MemberIdentity), "3+"),
    )


class MemberResponse(KafkaStruct):
    FIELDS = (
        F("member_id", STRING, "3+"),
        F("group_instance_id", STRING, "3+", nullable="3+"),
        F("error_code", INT16, "3+"),
    )


class LeaveGroupResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "1+"),
        F("error_code", INT16),
        F("members", Array(MemberResponse), "3+"),
    )
