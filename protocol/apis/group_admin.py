"""ListGroups (key 16), DescribeGroups (15), DeleteGroups (42) and OffsetDelete (47): the
consumer groups a coordinator holds, as administrators see them.

ListGroups answers the groups one broker coordinates (an AdminClient asks every broker),
filtered by state.  DescribeGroups gives a group's state, protocol and members (an unknown
group is "Dead" with no error before v6, GROUP_ID_NOT_FOUND with a message from v6, KIP-1043).
DeleteGroups removes groups without members
(NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND when unknown) with their committed offsets;
OffsetDelete removes committed offsets of topics the group is not subscribed to
(GROUP_SUBSCRIBED_TO_TOPIC otherwise).

Declared once, in Kafka's versions (DescribeGroups 0-6, ListGroups 0-5, DeleteGroups 0-2,
OffsetDelete 0): the msgpack listener and Kafka's binary listener read and write these same
classes.

Kafka concept: ``ListGroupsRequest`` (KIP-518 states filter), ``DescribeGroupsRequest``,
``DeleteGroupsRequest``, ``OffsetDeleteRequest`` (KIP-496).
"""

from kafkette.protocol.schema import Array, Bool, Bytes, Field, Int16, Int32, String, Struct


class DescribeGroupsRequest(Struct):
    FIELDS = (
        Field("groups", Array(String)),
        Field("include_authorized_operations", Bool, "3+"),
    )


class DescribedGroupMember(Struct):
    FIELDS = (
        Field("member_id", String),
        Field("group_instance_id", String, "4+", nullable="4+", default=None),
        Field("client_id", String),
        Field("client_host", String),
        Field("member_metadata", Bytes),
        Field("member_assignment", Bytes),
    )


AUTHORIZED_OPERATIONS_NOT_ASKED = -2147483648
"""An ``authorized_operations`` field's value when the request did not ask for them (KIP-430)."""


class DescribedGroup(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, "6+", nullable="6+", default=None),
        Field("group_id", String),
        Field("group_state", String),
        Field("protocol_type", String),
        Field("protocol_data", String),
        Field("members", Array(DescribedGroupMember)),
        Field("authorized_operations", Int32, "3+", default=AUTHORIZED_OPERATIONS_NOT_ASKED),
    )


class DescribeGroupsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("groups", Array(DescribedGroup)),
    )


class ListGroupsRequest(Struct):
    FIELDS = (
        Field("states_filter", Array(String), "4+"),
        Field("types_filter", Array(String), "5+"),
    )


class ListedGroup(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("protocol_type", String),
        Field("group_state", String, "4+"),
        Field("group_type", String, "5+"),
    )


class ListGroupsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32, "1+"),
        Field("error_code", Int16),
        Field("groups", Array(ListedGroup)),
    )


class DeleteGroupsRequest(Struct):
    FIELDS = (Field("groups_names", Array(String)),)


class DeletableGroupResult(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("error_code", Int16),
    )


class DeleteGroupsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(DeletableGroupResult)),
    )


class OffsetDeleteRequestPartition(Struct):
    FIELDS = (Field("partition_index", Int32),)


class OffsetDeleteRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetDeleteRequestPartition)),
    )


class OffsetDeleteRequest(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("topics", Array(OffsetDeleteRequestTopic)),
    )


class OffsetDeleteResponsePartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class OffsetDeleteResponseTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(OffsetDeleteResponsePartition)),
    )


class OffsetDeleteResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("throttle_time_ms", Int32),
        Field("topics", Array(OffsetDeleteResponseTopic)),
    )
