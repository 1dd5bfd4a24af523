"""A KIP-848 consumer group member's leave and fence, computed: the records they write and the answer.

Owns: the leave (a heartbeat of epoch -1) and the static member's temporary leave (-2, its partitions
kept for its return); fencing members (the leave, a session or rebalance timeout): each member's
tombstones, its regexes' tombstones when it was their last user, the group epoch bump with the metadata
hash of the remaining subscriptions; the records removing a member (also used when a static member is
replaced on its return); the static member's checks (its instance id known, not fenced by another
member id).  Each computation returns records and does not change the group (as
``consumer_group_heartbeat``).  Does not own the join and heartbeat (``consumer_group_heartbeat``), the
timers or writing (``consumer_group_coordinator``).

Kafka concept: ``GroupMetadataManager.consumerGroupLeave``, ``consumerGroupStaticMemberGroupLeave``,
``consumerGroupFenceMembers``, ``removeMember``, ``throwIfStaticMemberIsUnknown`` and
``throwIfInstanceIdIsFenced``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.broker.group.consumer_group_metadata_hash import metadata_hash
from kafkette.broker.group.consumer_group_regex import fenced_members_regex_tombstones
from kafkette.broker.group.consumer_group_step import (
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    HeartbeatResult,
    TopicMetadata,
)
from kafkette.broker.group.consumer_group_subscriptions import add_topic_counts
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)

logger = logging.getLogger(__name__)


def consumer_group_leave(
    groups: Mapping[str, ConsumerGroup], topics: TopicMetadata, request: ConsumerGroupHeartbeatRequest
) -> HeartbeatResult:
    """A heartbeat of epoch -1 (leave) or -2 (a static member leaves for a while), Kafka's
    ``consumerGroupLeave`` and ``consumerGroupStaticMemberGroupLeave``.

    Args:
        groups: group id -> consumer group, the coordinator's (read only here).
        topics: the cluster's topics (for the metadata hash of the remaining subscriptions).
        request: a request ``validate_heartbeat_request`` accepted, of epoch -1 or -2.

    Returns:
        The records and the answer: the member fenced (``consumer_group_fence_members``), or for epoch -2
        of a static member its CurrentAssignment record at epoch -2 with its partitions' epochs reset.

    Raises:
        ConsumerGroupError: GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID.
    """
    group = groups.get(request.group_id)
    if group is None:
        raise ConsumerGroupError("GROUP_ID_NOT_FOUND", f"Group {request.group_id} not found.")
    response = ConsumerGroupHeartbeatResponse(member_id=request.member_id, member_epoch=request.member_epoch)
    if request.instance_id is None:
        member = group.get_or_maybe_create_member(request.member_id, False)
        logger.info("[GroupId %s] Member %s left the consumer group.", group.group_id, member.member_id)
        return consumer_group_fence_members(group, [member], response, topics)
    existing = group.static_member(request.instance_id)
    throw_if_static_member_is_unknown(existing, request.instance_id)
    assert existing is not None
    throw_if_instance_id_is_fenced(existing, request.member_id, request.instance_id)
    if request.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        leaving = existing.reset_assigned_partitions_epochs_to_zero().replace(
            member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, partitions_pending_revocation={}
        )
        logger.info(
            "[GroupId %s] Static member %s with instance id %s temporarily left the consumer group.",
            group.group_id,
            existing.member_id,
            request.instance_id,
        )
        return HeartbeatResult(
            [rh.current_assignment_record(group.group_id, leaving)],
            ConsumerGroupHeartbeatResponse(
                member_id=existing.member_id, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH
            ),
            group,
            existing.member_id,
        )
    logger.info(
        "[GroupId %s] Static member %s with instance id %s left the consumer group.",
        group.group_id,
        existing.member_id,
        request.instance_id,
    )
    return consumer_group_fence_members(group, [existing], response, topics)


def consumer_group_fence_members(
    group: ConsumerGroup,
    members: list[ConsumerGroupMember],
    response: ConsumerGroupHeartbeatResponse | None,
    topics: TopicMetadata,
) -> HeartbeatResult:
    """Kafka's ``consumerGroupFenceMembers``: each member's three tombstones, then the group epoch +1
    with the metadata hash of the remaining subscriptions.  Nothing when ``members`` is empty.

    Args:
        group: the members' group.
        members: the members to remove (a leave, or a session or rebalance timeout).
        response: the answer to send once the records are written; None: an empty one (a timeout).
        topics: the cluster's topics (for the metadata hash).

    Returns:
        The records, the answer and ``fenced`` (the members' ids, whose timers must be cancelled).
    """
    if not members:
        return HeartbeatResult([], response or ConsumerGroupHeartbeatResponse(), group, "")
    records: list[Any] = []
    for member in members:
        records.extend(remove_member_records(group.group_id, member.member_id))
    regex_tombstones = fenced_members_regex_tombstones(group, members)
    records.extend(regex_tombstones)
    names = dict(group.subscribed_topic_names())
    for member in members:
        add_topic_counts(names, member.subscribed_topic_names, -1, 0)
    for key, _ in regex_tombstones:
        add_topic_counts(names, group.resolved_regex_topics().get(key.regular_expression, ()), 0, -1)
    new_hash = metadata_hash(names, topics)
    epoch = group.group_epoch + 1
    records.append(rh.group_epoch_record(group.group_id, epoch, new_hash))
    logger.info(
        "[GroupId %s] Bumped group epoch to %d with metadata hash %d.", group.group_id, epoch, new_hash
    )
    return HeartbeatResult(
        records,
        response or ConsumerGroupHeartbeatResponse(),
        group,
        members[0].member_id,
        fenced=[m.member_id for m in members],
    )


def remove_member_records(group_id: str, member_id: str) -> list[Any]:
    """Kafka's ``removeMember``: CurrentAssignment, TargetAssignmentMember and MemberMetadata tombstones,
    in that order (the order matters on replay)."""
    return [
        rh.current_assignment_tombstone(group_id, member_id),
        rh.target_assignment_tombstone(group_id, member_id),
        rh.member_subscription_tombstone(group_id, member_id),
    ]


def throw_if_static_member_is_unknown(member: ConsumerGroupMember | None, instance_id: str) -> None:
    """Kafka's ``throwIfStaticMemberIsUnknown``: ``member`` is the group's member of ``instance_id``.

    Raises:
        ConsumerGroupError: UNKNOWN_MEMBER_ID when there is none.
    """
    if member is None:
        raise ConsumerGroupError("UNKNOWN_MEMBER_ID", f"Instance id {instance_id} is unknown.")


def throw_if_instance_id_is_fenced(member: ConsumerGroupMember, member_id: str, instance_id: str) -> None:
    """Kafka's ``throwIfInstanceIdIsFenced``: the static member of ``instance_id`` is ``member_id``.

    Raises:
        ConsumerGroupError: FENCED_INSTANCE_ID when ``member`` (its current member) has another id.
    """
    if member.member_id != member_id:
        raise ConsumerGroupError(
            "FENCED_INSTANCE_ID",
            f"Static member {member_id} with instance id {instance_id} was fenced by member "
            f"{member.member_id}.",
        )
