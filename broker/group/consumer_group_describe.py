"""What ConsumerGroupDescribe (API 69, KIP-848) reports of a consumer group, as plain data.

Owns: ``describe_consumer_group``, which reads a ``ConsumerGroup`` into ``DescribedGroup`` /
``DescribedMember`` / ``DescribedTopicPartitions`` values.  Does not own the response's encoding, the
request's errors (INVALID_GROUP_ID, GROUP_ID_NOT_FOUND) nor authorized operations.

Kafka concept: ``ConsumerGroup.asDescribedGroup`` and ``ConsumerGroupMember.asConsumerGroupDescribeMember``:
the assignment is the assigned partitions together with those pending revocation (the member is
responsible for them until revoked), the target assignment is the member's target; topics no longer in
the metadata are left out; MemberType is 0 for a classic member and 1 for a consumer member (v1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember


@dataclass(frozen=True)
class DescribedTopicPartitions:
    """One topic of an assignment: its id, name and partitions (ascending)."""

    topic_id: TopicId
    topic_name: str
    partitions: list[int]


@dataclass(frozen=True)
class DescribedMember:
    """One member as ConsumerGroupDescribe reports it."""

    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    subscribed_topic_names: list[str]
    subscribed_topic_regex: str | None
    assignment: list[DescribedTopicPartitions]
    target_assignment: list[DescribedTopicPartitions]
    member_type: int


@dataclass(frozen=True)
class DescribedGroup:
    """A consumer group as ConsumerGroupDescribe reports it (``GroupState`` is Kafka's string)."""

    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    assignor_name: str
    members: list[DescribedMember]


def _topic_partitions(
    assignment: Mapping[TopicId, frozenset[int]], topic_name_of: Callable[[TopicId], str | None]
) -> list[DescribedTopicPartitions]:
    described = []
    for topic_id, partitions in assignment.items():
        name = topic_name_of(topic_id)
        if name is not None:
            described.append(DescribedTopicPartitions(topic_id, name, sorted(partitions)))
    return described


def describe_member(
    member: ConsumerGroupMember,
    target: Mapping[TopicId, frozenset[int]],
    topic_name_of: Callable[[TopicId], str | None],
) -> DescribedMember:
    """One member's description (Kafka's ``asConsumerGroupDescribeMember``).

    Args:
        target: the member's target assignment.
        topic_name_of: topic id -> name, None for a topic that no longer exists (left out).
    """
    return DescribedMember(
        member_id=member.member_id,
        member_epoch=member.member_epoch,
        instance_id=member.instance_id,
        rack_id=member.rack_id,
        client_id=member.client_id,
        client_host=member.client_host,
        subscribed_topic_names=sorted(member.subscribed_topic_names),
        subscribed_topic_regex=member.subscribed_topic_regex,
        assignment=_topic_partitions(member.owned_partition_set(), topic_name_of),
        target_assignment=_topic_partitions(target, topic_name_of),
        member_type=0 if member.use_classic_protocol() else 1,
    )


def describe_consumer_group(
    group: ConsumerGroup, default_assignor: str, topic_name_of: Callable[[TopicId], str | None]
) -> DescribedGroup:
    """The group's description (Kafka's ``ConsumerGroup.asDescribedGroup``).

    Args:
        default_assignor: the first of ``group.consumer.assignors``, reported when no member asked for one.
        topic_name_of: topic id -> name, None for a topic that no longer exists.
    """
    return DescribedGroup(
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
