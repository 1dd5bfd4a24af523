"""Members of the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) inside a KIP-848 consumer
group, computed: the records each request writes and its answer.

Owns: a classic member's JoinGroup to a non-empty consumer group (a new member id first for a dynamic
member, the checks of the migration policy and of the protocols, then the member merged, the epoch
bumped, the target computed and the member reconciled as a heartbeat does, with the partitions it owns
taken from its ``ConsumerProtocolSubscription``; the answer's generation is the member epoch); its
SyncGroup (checks in Kafka's order, then its assigned partitions as a ``ConsumerProtocolAssignment``);
its Heartbeat (REBALANCE_IN_PROGRESS when it must rejoin); its LeaveGroup (the valid identities fenced
together); and which protocols a consumer group supports.  Each computation returns records and changes
nothing (as ``consumer_group_heartbeat``).  Does not own locking, the timers or writing
(``consumer_group_coordinator``), nor JoinGroup's session timeout bounds (``GroupCoordinator``).

Kafka concept: ``GroupMetadataManager.classicGroupJoinToConsumerGroup``,
``classicGroupSyncToConsumerGroup``, ``classicGroupHeartbeatToConsumerGroup``,
``classicGroupLeaveToConsumerGroup``, ``validateConsumerGroupMember``,
``throwIfClassicMemberCannotJoinConsumerGroup``, ``throwIfClassicProtocolIsNotSupported``,
``throwIfMemberDoesNotUseClassicProtocol``, ``throwIfGenerationIdUnmatched``,
``throwIfClassicProtocolUnmatched``, ``throwIfRebalanceInProgress``, ``prepareAssignment`` and
``ConsumerGroup.supportsClassicProtocols`` / ``waitingOnUnreleasedPartition``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_conversion import (
    classic_member_metadata,
    consumer_protocol_subscription,
    topic_partition_map,
)
from kafkette.broker.group.consumer_group_downgrade import (
    serialize_assignment,
    validate_online_downgrade_with_replaced_member,
)
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_heartbeat import ConsumerGroupHeartbeatStep
from kafkette.broker.group.consumer_group_leave import (
    consumer_group_fence_members,
    throw_if_instance_id_is_fenced,
    throw_if_static_member_is_unknown,
)
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember, MemberState
from kafkette.broker.group.consumer_group_regex import maybe_update_regular_expressions
from kafkette.broker.group.consumer_group_step import (
    METADATA_REFRESH_INTERVAL_MS,
    HeartbeatResult,
    MetadataRefreshDeadline,
    TopicMetadata,
)
from kafkette.broker.group.group_coordinator_config import ConsumerGroupMigrationPolicy
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatResponse
from kafkette.protocol.apis.group_membership import (
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    MemberResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from kafkette.protocol.consumer_protocol import PROTOCOL_TYPE
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_uuid import random_uuid_string

logger = logging.getLogger(__name__)


@dataclass
class ClassicJoinResult:
    """A classic member's JoinGroup to a consumer group.

    Attributes:
        response: the JoinGroup answer, sent once ``step``'s records are written.
        step: the records and timers of the join; None when nothing is written (MEMBER_ID_REQUIRED).
        session_timeout_ms: the member's session timeout (ms).
        rebalance_timeout_ms: the request's rebalance timeout (ms): the member must SyncGroup within it.
        downgrade: the joining static member when it converts the group to a classic group (Kafka's
            ``validateOnlineDowngradeWithReplacedMember``): the conversion's records follow ``step``'s.
        rebalance: with ``downgrade``, whether the classic group must rebalance (its assignment is stale:
            the group epoch is past the assignment epoch).
    """

    response: JoinGroupResponse
    step: HeartbeatResult | None = None
    session_timeout_ms: int = 0
    rebalance_timeout_ms: int = 0
    downgrade: ConsumerGroupMember | None = None
    rebalance: bool = False


@dataclass
class ClassicLeaveResult:
    """A LeaveGroup to a consumer group: the fence of the valid members and each identity's answer."""

    step: HeartbeatResult
    members: list[MemberResponse] = field(default_factory=list)


def supports_classic_protocols(group: ConsumerGroup, protocol_type: str, protocols: set[str]) -> bool:
    """Kafka's ``ConsumerGroup.supportsClassicProtocols``: the "consumer" protocol type, and (in a group
    with members) a protocol every classic member supports; an empty group accepts any protocol."""
    if protocol_type != PROTOCOL_TYPE:
        return False
    if not group.num_members():
        return bool(protocols)
    classic = [m for m in group.members.values() if m.use_classic_protocol()]
    return any(
        all(name in {p.name for p in m.classic_member_metadata.supported_protocols} for m in classic)
        for name in protocols
    )


def _first_protocol_name(member: ConsumerGroupMember) -> str:
    return member.classic_member_metadata.supported_protocols[0].name


class ClassicMemberJoinStep(ConsumerGroupHeartbeatStep):
    """Computes a classic member's JoinGroup to a non-empty consumer group (Kafka's
    ``classicGroupJoinToConsumerGroup``), over the heartbeat's own steps."""

    def join(
        self,
        group: ConsumerGroup,
        request: JoinGroupRequest,
        client_id: str,
        client_host: str,
        policy: ConsumerGroupMigrationPolicy,
        classic_group_max_size: int = 2**31 - 1,
    ) -> ClassicJoinResult:
        """One JoinGroup of a classic member.

        Args:
            group: the consumer group, with members.
            request: the JoinGroup (its session timeout already checked against the broker's bounds).
            client_id, client_host: the client (the host as ``"/ip"``).
            policy: ``group.consumer.migration.policy``.
            classic_group_max_size: ``group.max.size`` (a static member's join may downgrade the group).

        Returns:
            MEMBER_ID_REQUIRED with a new id for a dynamic member without one (nothing written); else
            the join's records and the answer: the member id, the member epoch as the generation,
            protocol type "consumer", the member's first protocol, no leader and no members.

        Raises:
            ConsumerGroupError: INCONSISTENT_GROUP_PROTOCOL (the policy disables migration, or the
                protocols are not supported), GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID,
                FENCED_INSTANCE_ID, UNKNOWN_SERVER_ERROR (a subscription that does not decode, the assignor
                failed), with Kafka's messages.
        """
        group_id = group.group_id
        if policy is ConsumerGroupMigrationPolicy.DISABLED:
            message = (
                f"Cannot join the consumer group {group_id} with the classic protocol because the group "
                "migration is disabled."
            )
            logger.info("%s", message)
            raise ConsumerGroupError("INCONSISTENT_GROUP_PROTOCOL", message)
        now = self._now_ms()
        records: list[Any] = []
        instance_id = request.group_instance_id
        protocols = [(p.name, p.metadata) for p in request.protocols]
        is_unknown_member = not request.member_id
        member_id = request.member_id or random_uuid_string()
        self._throw_if_group_is_full(group, member_id)
        if not supports_classic_protocols(group, request.protocol_type, {name for name, _ in protocols}):
            raise ConsumerGroupError(
                "INCONSISTENT_GROUP_PROTOCOL", f"Member {member_id}'s protocols are not supported."
            )
        if is_unknown_member and instance_id is None:
            logger.info(
                "[GroupId %s] Dynamic member with unknown member id joins the consumer group. Created a new "
                "member id %s and requesting the member to rejoin with this id.",
                group_id,
                member_id,
            )
            return ClassicJoinResult(
                JoinGroupResponse(
                    error_code=Errors.MEMBER_ID_REQUIRED, member_id=member_id, protocol_name=None
                )
            )
        if instance_id is None:
            member = group.get_or_maybe_create_member(member_id, True)
            if not group.has_member(member_id):
                logger.info(
                    "[GroupId %s] Member %s joins the consumer group using the classic protocol.",
                    group_id,
                    member_id,
                )
        else:
            member = self._get_or_maybe_subscribe_static_member(
                group, member_id, -1, instance_id, [], is_unknown_member, records, use_classic_protocol=True
            )
        existing_static = group.static_member(instance_id)
        downgrade = existing_static is not None and validate_online_downgrade_with_replaced_member(
            group, existing_static, policy, classic_group_max_size
        )
        try:
            subscription = consumer_protocol_subscription(protocols)
        except ConsumerGroupError as exc:
            raise ConsumerGroupError("UNKNOWN_SERVER_ERROR", exc.message) from exc
        changes: dict[str, Any] = {
            "subscribed_topic_names": frozenset(subscription.topics),
            "subscribed_topic_regex": "",
            "client_id": client_id,
            "client_host": client_host,
            "classic_member_metadata": classic_member_metadata(request.session_timeout_ms, protocols),
        }
        if instance_id is not None:
            changes["instance_id"] = instance_id
        if subscription.rack_id is not None:
            changes["rack_id"] = subscription.rack_id
        if request.rebalance_timeout_ms != -1:
            changes["rebalance_timeout_ms"] = request.rebalance_timeout_ms
        updated = member.replace(**changes)
        names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        if updated != member:
            records.append(rh.member_subscription_record(group_id, updated))
        regex_update = maybe_update_regular_expressions(group, member, updated, records)
        bump = names_changed or regex_update.status.regex_updated

        group_epoch = group.group_epoch
        subscription_type = group.subscription_type()
        deadline = self._refresh_deadlines.get(group_id, MetadataRefreshDeadline())
        new_deadline = None
        if bump or deadline.expired(now, group_epoch):
            group_epoch, subscription_type = self._update_subscription_metadata(
                group, bump, member, updated, records
            )
            new_deadline = MetadataRefreshDeadline(now + METADATA_REFRESH_INTERVAL_MS, group_epoch)
        owned = [
            (topic_id, sorted(partitions))
            for topic_id, partitions in topic_partition_map(
                subscription.owned_partitions, self._topics.topic_id_of
            ).items()
        ]
        rebalance = False
        if downgrade:
            # Kafka's downgrade through a static replacement: reconciled to the current target unless a
            # rebalance is due anyway
            rebalance = group.assignment_epoch < group_epoch
            reconciled, rebalance_timeout = updated, None
            if not rebalance:
                target = group.target_assignment_of(updated.member_id, updated.instance_id)
                reconciled, rebalance_timeout = self._maybe_reconcile(
                    group, updated, group.assignment_epoch, target, bump, owned, records
                )
        else:
            target_epoch, target = self._maybe_update_target_assignment(
                group, group_epoch, member, updated, subscription_type, now, records
            )
            reconciled, rebalance_timeout = self._maybe_reconcile(
                group, updated, target_epoch, target, bump, owned, records
            )
        response = JoinGroupResponse(
            error_code=Errors.NONE,
            member_id=reconciled.member_id,
            generation_id=reconciled.member_epoch,
            protocol_type=PROTOCOL_TYPE,
            protocol_name=_first_protocol_name(reconciled),
            leader="",
            members=[],
        )
        step = HeartbeatResult(
            records,
            ConsumerGroupHeartbeatResponse(),  # unused: the JoinGroup answer is ``response``
            group,
            reconciled.member_id,
            new_deadline,
            rebalance_timeout,
            regex=regex_update,
        )
        return ClassicJoinResult(
            response,
            step,
            request.session_timeout_ms,
            request.rebalance_timeout_ms,
            reconciled if downgrade else None,
            rebalance,
        )


def validate_consumer_group_member(
    group: ConsumerGroup, member_id: str, instance_id: str | None
) -> ConsumerGroupMember:
    """Kafka's ``validateConsumerGroupMember``: the member of ``member_id``, or of ``instance_id`` when
    given (which must be ``member_id``).

    Raises:
        ConsumerGroupError: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID.
    """
    if instance_id is None:
        return group.get_or_maybe_create_member(member_id, False)
    member = group.static_member(instance_id)
    if member is None:
        raise ConsumerGroupError(
            "UNKNOWN_MEMBER_ID",
            f"Member with instance id {instance_id} is not a member of group {group.group_id}.",
        )
    throw_if_instance_id_is_fenced(member, member_id, instance_id)
    return member


def _throw_if_not_classic_or_generation_unmatched(member: ConsumerGroupMember, generation_id: int) -> None:
    if not member.use_classic_protocol():
        raise ConsumerGroupError(
            "UNKNOWN_MEMBER_ID", f"Member {member.member_id} does not use the classic protocol."
        )
    if member.member_epoch != generation_id:
        raise ConsumerGroupError(
            "ILLEGAL_GENERATION",
            f"The request generation id {generation_id} is not equal to the member epoch "
            f"{member.member_epoch} of member {member.member_id}.",
        )


def classic_sync(
    group: ConsumerGroup, request: SyncGroupRequest, topic_name_of: Callable[[TopicId], str | None]
) -> tuple[ConsumerGroupMember, SyncGroupResponse]:
    """A classic member's SyncGroup to a consumer group (Kafka's ``classicGroupSyncToConsumerGroup``):
    nothing is written.

    Returns:
        The member and the answer: the request's protocol type and name, and the member's assigned
        partitions as a ``ConsumerProtocolAssignment`` of its subscription's version.

    Raises:
        ConsumerGroupError: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
            INCONSISTENT_GROUP_PROTOCOL, REBALANCE_IN_PROGRESS (the member must rejoin: the caller
            starts its join timeout), checked in Kafka's order, with Kafka's messages.
    """
    member = validate_consumer_group_member(group, request.member_id, request.group_instance_id)
    _throw_if_not_classic_or_generation_unmatched(member, request.generation_id)
    protocol_name = _first_protocol_name(member)
    if request.protocol_type is not None and request.protocol_type != PROTOCOL_TYPE:
        raise ConsumerGroupError(
            "INCONSISTENT_GROUP_PROTOCOL",
            f"The protocol type {request.protocol_type} from member {member.member_id} request is not equal "
            f"to the group protocol type {PROTOCOL_TYPE}.",
        )
    if request.protocol_name is not None and request.protocol_name != protocol_name:
        raise ConsumerGroupError(
            "INCONSISTENT_GROUP_PROTOCOL",
            f"The protocol name {request.protocol_name} from member {member.member_id} request is not equal "
            f"to the protocol name {protocol_name} returned in the join response.",
        )
    if group.assignment_epoch > member.member_epoch and member.state is not MemberState.UNREVOKED_PARTITIONS:
        raise ConsumerGroupError(
            "REBALANCE_IN_PROGRESS",
            f"A new rebalance is triggered in group {group.group_id} and member {member.member_id} should "
            "rejoin to catch up.",
        )
    return member, SyncGroupResponse(
        error_code=Errors.NONE,
        protocol_type=request.protocol_type,
        protocol_name=request.protocol_name,
        assignment=prepare_assignment(member, topic_name_of),
    )


def prepare_assignment(member: ConsumerGroupMember, topic_name_of: Callable[[TopicId], str | None]) -> bytes:
    """Kafka's ``prepareAssignment``: the member's assigned partitions (topics known by id) as a
    ``ConsumerProtocolAssignment``, in the version of its first protocol's subscription."""
    metadata = member.classic_member_metadata.supported_protocols[0].metadata
    return serialize_assignment(member.assigned_partitions, topic_name_of, metadata)


def waiting_on_unreleased_partition(group: ConsumerGroup, member: ConsumerGroupMember) -> bool:
    """Kafka's ``ConsumerGroup.waitingOnUnreleasedPartition``: an UNRELEASED_PARTITIONS member whose target
    holds a partition it lacks that another member still owns."""
    if member.state is not MemberState.UNRELEASED_PARTITIONS:
        return False
    for topic_id, partitions in group.target_assignment_of(member.member_id).items():
        assigned = member.assigned_partitions.get(topic_id, {})
        for partition in partitions:
            if partition not in assigned and group.current_partition_epoch(topic_id, partition) != -1:
                return True
    return False


def classic_heartbeat(
    group: ConsumerGroup, member_id: str, instance_id: str | None, generation_id: int
) -> tuple[ConsumerGroupMember, Errors]:
    """A classic member's Heartbeat to a consumer group (Kafka's ``classicGroupHeartbeatToConsumerGroup``):
    nothing is written.

    Returns:
        The member, and NONE or REBALANCE_IN_PROGRESS when it must rejoin: its epoch is below the
        assignment epoch, it must revoke partitions, or partitions it waits for are free now.

    Raises:
        ConsumerGroupError: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION.
    """
    member = validate_consumer_group_member(group, member_id, instance_id)
    _throw_if_not_classic_or_generation_unmatched(member, generation_id)
    if (
        member.member_epoch < group.assignment_epoch
        or member.state is MemberState.UNREVOKED_PARTITIONS
        or (
            member.state is MemberState.UNRELEASED_PARTITIONS
            and not waiting_on_unreleased_partition(group, member)
        )
    ):
        return member, Errors.REBALANCE_IN_PROGRESS
    return member, Errors.NONE


def classic_leave(
    group: ConsumerGroup, request: LeaveGroupRequest, topics: TopicMetadata
) -> ClassicLeaveResult:
    """A LeaveGroup to a consumer group (Kafka's ``classicGroupLeaveToConsumerGroup``): every identity that
    names a member (by member id, or by instance id with a matching or empty member id) is fenced, all
    together; the others are answered UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID.

    Returns:
        The fence (``consumer_group_fence_members``) and each identity's answer, echoing its ids.
    """
    answers: list[MemberResponse] = []
    leaving: list[ConsumerGroupMember] = []
    for identity in request.members:
        reason = identity.reason if identity.reason is not None else "not provided"
        try:
            if identity.group_instance_id is None:
                member = group.get_or_maybe_create_member(identity.member_id, False)
                logger.info(
                    "[GroupId %s] Dynamic member %s has left group through explicit `LeaveGroup` request; "
                    "client reason: %s",
                    group.group_id,
                    identity.member_id,
                    reason,
                )
            else:
                found = group.static_member(identity.group_instance_id)
                throw_if_static_member_is_unknown(found, identity.group_instance_id)
                assert found is not None
                if identity.member_id:
                    throw_if_instance_id_is_fenced(found, identity.member_id, identity.group_instance_id)
                member = found
                logger.info(
                    "[GroupId %s] Static member %s with instance id %s has left group through explicit "
                    "`LeaveGroup` request; client reason: %s",
                    group.group_id,
                    identity.member_id,
                    identity.group_instance_id,
                    reason,
                )
            answers.append(
                MemberResponse(member_id=identity.member_id, group_instance_id=identity.group_instance_id)
            )
            if all(m.member_id != member.member_id for m in leaving):
                leaving.append(member)
        except ConsumerGroupError as exc:
            answers.append(
                MemberResponse(
                    member_id=identity.member_id,
                    group_instance_id=identity.group_instance_id,
                    error_code=Errors[exc.error],
                )
            )
    return ClassicLeaveResult(consumer_group_fence_members(group, leaving, None, topics), answers)
