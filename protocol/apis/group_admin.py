"""ListGroups (key 16), DescribeGroups (15), DeleteGroups (42) and OffsetDelete (47): the
consumer groups a coordinator holds, as administrators see them.

ListGroups answers the groups one broker coordinates (an AdminClient asks every broker),
filtered by state.  DescribeGroups gives a group's state, protocol and members (an unknown
group is "Dead" with no error, as in Kafka).  DeleteGroups removes groups without members
(NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND when unknown) with their committed offsets;
OffsetDelete removes committed offsets of topics the group is not subscribed to
(GROUP_SUBSCRIBED_TO_TOPIC otherwise).

Kafka concept: ``ListGroupsRequest`` (KIP-518 states filter), ``DescribeGroupsRequest``,
``DeleteGroupsRequest``, ``OffsetDeleteRequest`` (KIP-496).
"""

from kafkette.protocol.schema import Array, Bytes, Field, Int16, Int32, Nullable, String, Struct


class ListGroupsRequest(Struct):
    FIELDS = (
        Field("states_filter", Array(String)),
    )


class ListedGroup(Struct):
    FIELDS = (
        Field("group_id", String),
        Field("protocol_type", String, default=""),
        Field("group_state", String, default=""),
    )


class ListGroupsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("groups", Array(ListedGroup)),
    )


class DescribeGroupsRequest(Struct):
    FIELDS = (
        Field("groups", Array(String)),
    )


class DescribedGroupMember(Struct):
    FIELDS = (
        Field("member_id", String),
        Field("group_instance_id", Nullable(String)),
        Field("client_id", String, default=""),
        Field("client_host", String, default=""),
        Field("member_metadata", Bytes, default=b""),
        Field("member_assignment", Bytes, default=b""),
    )


class DescribedGroup(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("group_id", String),
        Field("group_state", String, default=""),
        Field("protocol_type", String, default=""),
        Field("protocol_data", String, default=""),
        Field("members", Array(DescribedGroupMember)),
    )


class DescribeGroupsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("groups", Array(DescribedGroup)),
    )


class DeleteGroupsRequest(Struct):
    FIELDS = (
        Field("groups_names", Array(String)),
    )


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


class OffsetDeleteRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(Int32)),
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
