"""What ConsumerGroupDescribe (API 69, KIP-848) reports of a consumer group.

Owns: ``describe_consumer_group``, which reads a ``ConsumerGroup`` into the response's
``ConsumerGroupDescribeGroup`` (members, assignments by topic id and name).  Does not own the
request's errors (INVALID_GROUP_ID, GROUP_ID_NOT_FOUND) nor authorized operations.

Kafka concept: ``ConsumerGroup.asDescribedGroup`` and ``ConsumerGroupMember.asConsumerGroupDescribeMember``:
the assignment is the assigned partitions together with those pending revocation (the member is
responsible for them until revoked), the target assignment is the member's target; topics no longer in
the metadata are left out; MemberType is 0 for a classic member and 1 for a consumer member (v1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeAssignment,
    ConsumerGroupDescribeGroup,
    ConsumerGroupDescribeMember,
    ConsumerGroupDescribeTopicPartitions,
)

MEMBER_TYPE_CLASSIC = 0
MEMBER_TYPE_CONSUMER = 1


def _assignment(
    assignment: Mapping[TopicId, frozenset[int]], topic_name_of: Callable[[TopicId], str | None]
) -> ConsumerGroupDescribeAssignment:
    described = []
    for topic_id, partitions in assignment.items():
        name = topic_name_of(topic_id)
        if name is not None:
            described.append(
                ConsumerGroupDescribeTopicPartitions(
                    topic_id=topic_id, topic_name=name, partitions=sorted(partitions)
                )
            )
    return ConsumerGroupDescribeAssignment(topic_partitions=described)


def describe_member(
    member: ConsumerGroupMember,
    target: Mapping[TopicId, frozenset[int]],
    topic_name_of: Callable[[TopicId], str | None],
) -> ConsumerGroupDescribeMember:
    """One member's description (Kafka's ``asConsumerGroupDescribeMember``).

    Args:
        target: the member's target assignment.
        topic_name_of: topic id -> name, None for a topic that no longer exists (left out).
    """
    return ConsumerGroupDescribeMember(
        member_id=member.member_id,
        member_epoch=member.member_epoch,
        instance_id=member.instance_id,
        rack_id=member.rack_id,
        client_id=member.client_id,
        client_host=member.client_host,
        subscribed_topic_names=sorted(member.subscribed_topic_names),
        subscribed_topic_regex=member.subscribed_topic_regex,
        assignment=_assignment(member.owned_partition_set(), topic_name_of),
        target_assignment=_assignment(target, topic_name_of),
        member_type=MEMBER_TYPE_CLASSIC if member.use_classic_protocol() else MEMBER_TYPE_CONSUMER,
    )


def describe_consumer_group(
    group: ConsumerGroup, default_assignor: str, topic_name_of: Callable[[TopicId], str | None]
) -> ConsumerGroupDescribeGroup:
    """The group's description (Kafka's ``ConsumerGroup.asDescribedGroup``).

    Args:
        default_assignor: the first of ``group.consumer.assignors``, reported when no member asked for one.
        topic_name_of: topic id -> name, None for a topic that no longer exists.
    """
    return ConsumerGroupDescribeGroup(
        group_id=group.group_id,
        group_state=group.state().value,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        assignor_name=group.preferred_server_assignor(default_assignor),
        members=[
            describe_member(member, group.target_assignment.get(member_id, {}), topic_name_of)
            for member_id, member in group.members.items()
        ],
    )
