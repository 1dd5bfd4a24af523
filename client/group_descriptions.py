"""What the AdminClient answers about consumer groups: listings and descriptions.

Owns: ``ConsumerGroupListing``, ``MemberDescription`` and ``ConsumerGroupDescription`` and
building them from ListGroups and DescribeGroups answers (a consumer member's assignment is
decoded from Kafka's ConsumerProtocol bytes).  Kafka concept: ``ConsumerGroupListing``,
``ConsumerGroupDescription``, ``MemberDescription`` of ``org.apache.kafka.clients.admin``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.protocol.apis.group_admin import DescribedGroup
from kafkette.protocol.consumer_protocol import PROTOCOL_TYPE, decode_assignment
from kafkette.protocol.topic_partition import TopicPartition


@dataclass(frozen=True)
class ConsumerGroupListing:
    """A group as ListGroups names it.

    Attributes:
        group_id: the group.
        is_simple_consumer_group: True for a group that only commits offsets (no members ever
            joined it with a protocol type).
        state: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable" or "Dead".
    """

    group_id: str
    is_simple_consumer_group: bool
    state: str


@dataclass(frozen=True)
class MemberDescription:
    """A member of a group: its ids, host and the partitions it was assigned."""

    member_id: str
    client_id: str
    host: str
    assignment: frozenset[TopicPartition] = field(default_factory=frozenset)


@dataclass(frozen=True)
class ConsumerGroupDescription:
    """A group as DescribeGroups describes it.

    Attributes:
        group_id: the group.
        is_simple_consumer_group: no protocol type.
        members: its members (empty unless it has any).
        partition_assignor: the chosen protocol ("range", ...; "" unless Stable).
        state: its state ("Dead" for a group the coordinator does not know).
        coordinator: the node id of its coordinator.
    """

    group_id: str
    is_simple_consumer_group: bool
    members: tuple[MemberDescription, ...]
    partition_assignor: str
    state: str
    coordinator: int


def describe(group: DescribedGroup, coordinator: int) -> ConsumerGroupDescription:
    """The description of one DescribeGroups entry (its error already checked)."""
    members = []
    for m in group.members:
        assignment: frozenset[TopicPartition] = frozenset()
        if group.protocol_type == PROTOCOL_TYPE and m.member_assignment:
            try:
                assignment = frozenset(decode_assignment(m.member_assignment).partitions)
            except ValueError:
                assignment = frozenset()
        members.append(MemberDescription(m.member_id, m.client_id, m.client_host, assignment))
    return ConsumerGroupDescription(
        group.group_id,
        not group.protocol_type,
        tuple(members),
        group.protocol_data,
        group.group_state,
        coordinator,
    )
