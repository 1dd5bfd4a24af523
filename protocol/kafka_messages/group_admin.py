"""DescribeGroups (15) 0-5, ListGroups (16) 0-4, DeleteGroups (42) 0-2, OffsetDelete (47) 0: groups for admins.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, BYTES, INT16, INT32, STRING, Array, F, KafkaStruct


class DescribeGroupsRequest(KafkaStruct):
    FIELDS = (
        F("groups", Array(STRING)),
        F("include_authorized_operations", BOOL, "3+"),
    )


class DescribedGroupMember(KafkaStruct):
    FIELDS = (
        F("member_id", STRING),
        F("group_instance_id", STRING, "4+", nullable="4+", default=None),
        F("client_id", STRING),
        F("client_host", STRING),
        F("member_metadata", BYTES),
        F("member_assignment", BYTES),
    )


class DescribedGroup(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("group_id", STRING),
        F("group_state", STRING),
        F("protocol_type", STRING),
        F("protocol_data", STRING),
        F("members", Array(DescribedGroupMember)),
        F("authorized_operations", INT32, "3+", default=-2147483648),
    )


class DescribeGroupsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "1+"),
        F("groups", Array(DescribedGroup)),
    )


class ListGroupsRequest(KafkaStruct):
    FIELDS = (
        F("states_filter", Array(STRING), "4+"),
        F("types_filter", Array(STRING), "5+"),
    )


class ListedGroup(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("protocol_type", STRING),
        F("group_state", STRING, "4+"),
        F("group_type", STRING, "5+"),
    )


class ListGroupsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32, "1+"),
        F("error_code", INT16),
        F("groups", Array(ListedGroup)),
    )


class DeleteGroupsRequest(KafkaStruct):
    FIELDS = (
        F("groups_names", Array(STRING)),
    )


class DeletableGroupResult(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("error_code", INT16),
    )


class DeleteGroupsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("results", Array(DeletableGroupResult)),
    )


class OffsetDeleteRequestPartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
    )


class OffsetDeleteRequestTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetDeleteRequestPartition)),
    )


class OffsetDeleteRequest(KafkaStruct):
    FIELDS = (
        F("group_id", STRING),
        F("topics", Array(OffsetDeleteRequestTopic)),
    )


class OffsetDeleteResponsePartition(KafkaStruct):
    FIELDS = (
        F("partition_index", INT32),
        F("error_code", INT16),
    )


class OffsetDeleteResponseTopic(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("partitions", Array(OffsetDeleteResponsePartition)),
    )


class OffsetDeleteResponse(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("throttle_time_ms", INT32),
        F("topics", Array(OffsetDeleteResponseTopic)),
    )
