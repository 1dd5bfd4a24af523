"""A consumer group's membership: its state, generation, protocol, leader and members.

Owns: ``GroupState`` with Kafka's allowed transitions (a transition from any other state is
an ``IllegalStateError``), ``MemberMetadata`` (a member's protocols, timeouts, the futures its
JoinGroup and SyncGroup wait on, its assignment and last heartbeat), and ``GroupMetadata``
(the members, the members still to get an id, and the choices a completed join makes: the
next generation, the protocol every member supports that most members prefer, the leader, the
topics the generation's consumers subscribe to).  Does not own the protocol's rules over time
(``GroupCoordinator``).

Kafka concept: ``GroupMetadata``, ``MemberMetadata`` and ``GroupState`` (Empty,
PreparingRebalance, CompletingRebalance, Stable, Dead).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkette.protocol.consumer_protocol import PROTOCOL_TYPE, decode_subscription
from kafkette.protocol.errors import Errors, IllegalStateError

if TYPE_CHECKING:
    from kafkette.broker.group.delayed_heartbeat import DelayedHeartbeat

logger = logging.getLogger(__name__)


class GroupState(enum.Enum):
    """Kafka's classic group states."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


_VALID_PREVIOUS = {
    GroupState.EMPTY: {GroupState.PREPARING_REBALANCE},
    GroupState.PREPARING_REBALANCE: {GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY},
    GroupState.COMPLETING_REBALANCE: {GroupState.PREPARING_REBALANCE},
    GroupState.STABLE: {GroupState.COMPLETING_REBALANCE},
    GroupState.DEAD: {
        GroupState.STABLE,
        GroupState.PREPARING_REBALANCE,
        GroupState.COMPLETING_REBALANCE,
        GroupState.EMPTY,
        GroupState.DEAD,
    },
}
"""Kafka's ``validPreviousStates``: the states each state may be entered from."""


@dataclass
class MemberMetadata:
    """One member of a group.

    Attributes:
        member_id: the id the coordinator gave it.
        client_id, client_host: who it is (for DescribeGroups).
        session_timeout_ms: it is removed after this long without a heartbeat (ms).
        rebalance_timeout_ms: how long a rebalance waits for it to rejoin (ms).
        protocol_type: "consumer" for consumers.
        protocols: ``[(protocol name, metadata)]`` in its order of preference.
        assignment: what the leader gave it in the current generation.
        join_future / sync_future: resolved with its JoinGroup / SyncGroup answer.
        last_heartbeat_ms: monotonic time of its last heartbeat or request (ms).
        heartbeat: its pending session timer in the heartbeat purgatory.
        group_instance_id: its ``group.instance.id`` when it is a static member (KIP-345).
    """

    member_id: str
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    join_future: asyncio.Future[object] | None = None
    sync_future: asyncio.Future[object] | None = None
    last_heartbeat_ms: float = 0.0
    heartbeat: DelayedHeartbeat | None = None
    group_instance_id: str | None = None

    @property
    def awaiting_join(self) -> bool:
        return self.join_future is not None and not self.join_future.done()

    @property
    def awaiting_sync(self) -> bool:
        return self.sync_future is not None and not self.sync_future.done()

    def metadata(self, protocol: str) -> bytes:
        """Its metadata for ``protocol``.

        Raises:
            IllegalStateError: it does not support ``protocol``.
        """
        for name, data in self.protocols:
            if name == protocol:
                return data
        raise IllegalStateError(f"member {self.member_id} does not support protocol {protocol}")


@dataclass
class GroupMetadata:
    """One group at its coordinator.

    Attributes:
        group_id: the group.
        state: its ``GroupState``.
        generation_id: bumped by every completed join (0 before the first).
        protocol_type: the members' protocol type, None while the group has none.
        protocol_name: the protocol chosen for this generation.
        leader_id: the member that computes the assignment.
        members: ``{member_id: MemberMetadata}`` in joining order.
        pending_members: ids given out with MEMBER_ID_REQUIRED, not yet joined with.
        pending_sync_members: members of this generation that have not sent SyncGroup yet
            (Kafka's ``pendingSyncMembers``; see ``DelayedSync``).
        static_members: ``{group.instance.id: member_id}`` of its static members (KIP-345).
        new_member_added: a member joined during this rebalance (the initial delay extends).
        empty_since_ms: wall clock (ms) when it last became Empty, None while unknown (its
            offsets expire ``offsets.retention.minutes`` after it).
        subscribed_topics: the topics the members of the current generation subscribe to, as
            their metadata for the chosen protocol says (Kafka's ``subscribedTopics``): set by
            each completed join and when the group is loaded, so a member joining or leaving
            changes it only when the next generation starts; None while unknown (no generation
            yet, not a consumer group, or a subscription that does not decode).
    """

    group_id: str
    state: GroupState = GroupState.EMPTY
    generation_id: int = 0
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str | None = None
    members: dict[str, MemberMetadata] = field(default_factory=dict)
    pending_members: set[str] = field(default_factory=set)
    pending_sync_members: set[str] = field(default_factory=set)
    static_members: dict[str, str] = field(default_factory=dict)
    new_member_added: bool = False
    empty_since_ms: int | None = None
    subscribed_topics: frozenset[str] | None = None

    def transition_to(self, state: GroupState) -> None:
        """Move to ``state``.

        Raises:
            IllegalStateError: ``state`` cannot follow the current one.
        """
        if self.state not in _VALID_PREVIOUS[state]:
            raise IllegalStateError(
                f"Group {self.group_id} should be in one of "
                f"{sorted(s.value for s in _VALID_PREVIOUS[state])} before moving to "
                f"{state.value}, but is {self.state.value}"
            )
        self.state = state

    def is_in(self, *states: GroupState) -> bool:
        return self.state in states

    @property
    def uses_consumer_protocol(self) -> bool:
        """Its members are consumers (protocol type "consumer"; Kafka's ``usesConsumerGroupProtocol``)."""
        return self.protocol_type == PROTOCOL_TYPE

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """Whether a member of the current generation subscribes to ``topic`` (Kafka's
        ``isSubscribedToTopic``): while the subscribed topics are unknown, every topic of a
        consumer group is (its offsets must not go from under a member) and none of another."""
        if self.subscribed_topics is None:
            return self.uses_consumer_protocol
        return topic in self.subscribed_topics

    def compute_subscribed_topics(self) -> frozenset[str] | None:
        """The topics the members subscribe to, read from their metadata for the chosen protocol
        (Kafka's ``computeSubscribedTopics``): None when the group is not a consumer group, has
        no chosen protocol yet, or a member's metadata is not a subscription (logged); empty
        without members."""
        if not self.uses_consumer_protocol:
            return None
        if not self.members:
            return frozenset()
        if self.protocol_name is None:
            return None
        topics: set[str] = set()
        for member in self.members.values():
            try:
                topics.update(decode_subscription(member.metadata(self.protocol_name)).topics)
            except (ValueError, IllegalStateError) as exc:
                logger.warning(
                    "Group %s: the subscription of member %s for protocol %s does not decode (%s); "
                    "the coordinator is not aware of the subscribed topics",
                    self.group_id,
                    member.member_id,
                    self.protocol_name,
                    exc,
                )
                return None
        return frozenset(topics)

    def supports(self, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
        """Whether a member with these protocols may join (Kafka's ``supportsProtocols``)."""
        if not protocol_type or not protocols:
            return False
        if not self.members:
            return True
        names = {name for name, _ in protocols}
        return protocol_type == self.protocol_type and bool(names & self.candidate_protocols())

    def candidate_protocols(self) -> set[str]:
        """The protocols every member supports."""
        sets = [{name for name, _ in m.protocols} for m in self.members.values()]
        return set.intersection(*sets) if sets else set()

    def select_protocol(self) -> str:
        """The candidate protocol most members list first among the candidates (Kafka's vote).

        Raises:
            IllegalStateError: no member, or no protocol every member supports.
        """
        candidates = self.candidate_protocols()
        if not candidates:
            raise IllegalStateError(f"Group {self.group_id} has no protocol every member supports")
        votes = Counter(
            next(name for name, _ in m.protocols if name in candidates) for m in self.members.values()
        )
        return max(sorted(votes), key=lambda name: votes[name])

    def add(self, member: MemberMetadata) -> None:
        """Add ``member``; the first member sets the protocol type and leads."""
        if not self.members:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if self.leader_id is None:
            self.leader_id = member.member_id

    def remove(self, member_id: str) -> MemberMetadata | None:
        """Remove a member; the next one leads when it led (None when no member is left)."""
        member = self.members.pop(member_id, None)
        self.pending_sync_members.discard(member_id)
        if (
            member is not None
            and member.group_instance_id is not None
            and self.static_members.get(member.group_instance_id) == member_id
        ):
            del self.static_members[member.group_instance_id]
        if member is not None and self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)
        return member

    def is_static_member_fenced(self, group_instance_id: str | None, member_id: str) -> bool:
        """True when ``group_instance_id`` belongs to another member id now (Kafka's
        ``isStaticMemberFenced``: an older instance of a restarted static member)."""
        if group_instance_id is None:
            return False
        current = self.static_members.get(group_instance_id)
        return current is not None and current != member_id

    def validate_member(self, member_id: str, group_instance_id: str | None) -> Errors:
        """Whether ``member_id`` (with ``group_instance_id``, if it names one) may act in the group
        (Kafka's ``ClassicGroup.validateMember``): an instance id the group does not know, or a
        member id it does not know, is UNKNOWN_MEMBER_ID; an instance id that belongs to another
        member id now is FENCED_INSTANCE_ID; otherwise NONE."""
        if group_instance_id is not None:
            current = self.static_members.get(group_instance_id)
            if current is None:
                return Errors.UNKNOWN_MEMBER_ID
            if current != member_id:
                return Errors.FENCED_INSTANCE_ID
        return Errors.NONE if member_id in self.members else Errors.UNKNOWN_MEMBER_ID

    def validate_member_generation(
        self, member_id: str, group_instance_id: str | None, generation_id: int
    ) -> Errors:
        """``validate_member``, then ILLEGAL_GENERATION when ``generation_id`` is not the group's (the
        member checks of Kafka's ``ClassicGroup.validateOffsetCommit``)."""
        error = self.validate_member(member_id, group_instance_id)
        if error == Errors.NONE and generation_id != self.generation_id:
            return Errors.ILLEGAL_GENERATION
        return error

    def replace_static_member(self, group_instance_id: str, new_member_id: str) -> MemberMetadata:
        """Give the static member of ``group_instance_id`` a new member id, keeping its place,
        assignment and leadership (Kafka's ``replaceStaticMember``).

        Raises:
            IllegalStateError: no member has that instance id.
        """
        old_id = self.static_members.get(group_instance_id)
        member = self.members.get(old_id) if old_id is not None else None
        if member is None or old_id is None:
            raise IllegalStateError(f"Group {self.group_id} has no static member {group_instance_id}")
        self.members = {(new_member_id if k == old_id else k): v for k, v in self.members.items()}
        member.member_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        if old_id in self.pending_sync_members:
            self.pending_sync_members.discard(old_id)
            self.pending_sync_members.add(new_member_id)
        if self.leader_id == old_id:
            self.leader_id = new_member_id
        return member

    def all_members_joined(self) -> bool:
        """Every member has rejoined and no member id given out is still to join (Kafka's
        ``hasAllMembersJoined``)."""
        return all(m.awaiting_join for m in self.members.values()) and not self.pending_members

    def init_next_generation(self) -> None:
        """Bump the generation; pick the protocol and move to CompletingRebalance, or to Empty
        when no member is left (keeping the protocol type, as Kafka's ``initNextGeneration``:
        an emptied consumer group still lists as ``consumer``).  Every member now owes a SyncGroup,
        and the subscribed topics are those of the new generation's members."""
        self.generation_id += 1
        self.pending_sync_members = set(self.members)
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.COMPLETING_REBALANCE)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY)
