"""The server-side partition assignor's contract for consumer groups (KIP-848).

Owns: the shapes an assignor reads (a ``GroupSpec`` of members with their subscriptions and current
target assignments, a ``SubscribedTopicDescriber`` of the subscribed topics) and the one it returns (a
``GroupAssignment``).  Does not own any assignment strategy (``uniform``, ``range``) nor when the
coordinator asks for a new target (Kafka's ``TargetAssignmentBuilder``).

Topics are named by their topic id (KIP-516: 16 bytes), partitions by their index.  Mappings keep the
order the coordinator built them in: ``GroupSpec.members`` iterates in the group's member order.

Kafka concept: ``org.apache.kafka.coordinator.group.api.assignor`` (``ConsumerGroupPartitionAssignor``,
``GroupSpec``, ``MemberSubscription``, ``SubscribedTopicDescriber``, ``GroupAssignment``,
``MemberAssignment``, ``SubscriptionType``, ``PartitionAssignorException``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

TopicId = bytes
"""A topic id: the 16 bytes of Kafka's ``Uuid``."""

Assignment = Mapping[TopicId, frozenset[int]]
"""Partitions by topic id: ``{topic_id: frozenset(partition indexes)}``; a topic with no partition is
left out."""


class SubscriptionType(enum.Enum):
    """Whether every member subscribes to the same topics (Kafka's ``SubscriptionType``)."""

    HOMOGENEOUS = "HOMOGENEOUS"
    HETEROGENEOUS = "HETEROGENEOUS"


class PartitionAssignorError(Exception):
    """An assignor could not compute an assignment (Kafka's ``PartitionAssignorException``); the
    coordinator answers the heartbeat that triggered it with UNKNOWN_SERVER_ERROR and keeps the old
    target."""


@dataclass(frozen=True)
class MemberSubscription:
    """One member as an assignor sees it (Kafka's ``MemberSubscriptionAndAssignmentImpl``).

    Attributes:
        rack_id: the member's rack (``client.rack``), None when unset.
        instance_id: its ``group.instance.id`` (static membership, KIP-345), None for a dynamic member.
        subscribed_topic_ids: the existing topics it subscribes to, by name or by a resolved regex.
        assigned_partitions: its current *target* assignment, the starting point a sticky assignor
            keeps as much of as it can.
    """

    rack_id: str | None
    instance_id: str | None
    subscribed_topic_ids: frozenset[TopicId]
    assigned_partitions: Assignment = field(default_factory=dict)


@dataclass(frozen=True)
class GroupSpec:
    """The group's members and current target (Kafka's ``GroupSpecImpl``).

    Attributes:
        members: member id -> its subscription, in the group's member order.
        subscription_type: HOMOGENEOUS when all members subscribe to the same topics.
        inverted_assignment: ``(topic_id, partition) -> member id`` holding it in the current target.
    """

    members: Mapping[str, MemberSubscription]
    subscription_type: SubscriptionType
    inverted_assignment: Mapping[tuple[TopicId, int], str] = field(default_factory=dict)

    def is_partition_assigned(self, topic_id: TopicId, partition: int) -> bool:
        """Whether a member holds ``partition`` of ``topic_id`` in the current target."""
        return (topic_id, partition) in self.inverted_assignment


class SubscribedTopicDescriber(Protocol):
    """The subscribed topics' shapes (Kafka's ``SubscribedTopicDescriber``)."""

    def number_of_partitions(self, topic_id: TopicId) -> int:
        """The topic's partition count, -1 when the topic does not exist."""
        ...

    def racks_for_partition(self, topic_id: TopicId, partition: int) -> frozenset[str]:
        """The racks of the partition's replicas; empty when no broker has ``broker.rack``."""
        ...


@dataclass(frozen=True)
class GroupAssignment:
    """The new target (Kafka's ``GroupAssignment``): member id -> its partitions, for every member of the
    ``GroupSpec`` (a member given nothing maps to an empty assignment)."""

    members: Mapping[str, Assignment]


class ConsumerGroupPartitionAssignor(Protocol):
    """A server-side assignor (Kafka's ``ConsumerGroupPartitionAssignor``), chosen by the name a member
    sends as ``ServerAssignor`` (``group.remote.assignor``) among ``group.consumer.assignors``."""

    name: str

    def assign(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> GroupAssignment:
        """Compute the next target assignment.

        Raises:
            PartitionAssignorError: the assignment cannot be computed.
        """
        ...
