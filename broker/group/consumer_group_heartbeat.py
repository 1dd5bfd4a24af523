"""One ConsumerGroupHeartbeat of a KIP-848 consumer group, computed: the records it writes and its answer.

Owns: Kafka's heartbeat step over a group's in-memory state: get or create the group, the group size
limit, get or create the member (dynamic or static, with the static replacement and its epoch checks),
merge the request into the member, bump the group epoch when the subscription or the subscribed topics'
metadata changed, compute the next target assignment (at most once per ``group.consumer.assignment.
interval.ms``), reconcile the member towards its target, and the answer (epoch, heartbeat interval, the
assignment when the member needs it).  Each computation returns records and does not change the group:
the coordinator writes the records, then applies them (``consumer_group_replay``), so a failed write
changes nothing.  Does not own the request's own checks (``consumer_group_heartbeat_validation``), what
a step reads and returns (``consumer_group_step``), the leave (-1), the static member's temporary leave
(-2) and fencing (``consumer_group_leave``), locking, timers or writing.

Kafka concept: ``GroupMetadataManager.consumerGroupHeartbeat``, ``replaceMember``,
``updateSubscriptionMetadata``, ``maybeUpdateTargetAssignment``, ``maybeReconcile``,
``throwIfConsumerGroupMemberEpochIsInvalid`` and ``throwIfConsumerGroupIsFull``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.assignors.api import (
    PartitionAssignorError,
    SubscriptionType,
    TopicId,
)
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_leave import (
    remove_member_records,
    throw_if_instance_id_is_fenced,
    throw_if_static_member_is_unknown,
)
from kafkette.broker.group.consumer_group_member import (
    ConsumerGroupMember,
    MemberState,
    has_assigned_partitions_changed,
)
from kafkette.broker.group.consumer_group_metadata_hash import metadata_hash
from kafkette.broker.group.consumer_group_regex import (
    UpdateRegularExpressionStatus,
    maybe_update_regular_expressions,
)
from kafkette.broker.group.consumer_group_step import (
    CANCEL_REBALANCE_TIMEOUT,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    METADATA_REFRESH_INTERVAL_MS,
    ConsumerGroupSettings,
    HeartbeatResult,
    MetadataRefreshDeadline,
    TopicMetadata,
)
from kafkette.broker.group.consumer_group_subscriptions import subscription_type_of
from kafkette.broker.group.current_assignment_builder import CurrentAssignmentBuilder
from kafkette.broker.group.target_assignment_builder import (
    TargetAssignmentBuilder,
    can_compute_next_target_assignment,
)
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupHeartbeatAssignment,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
    ConsumerGroupHeartbeatTopicPartitions,
)

logger = logging.getLogger(__name__)


def owned_partitions(
    topic_partitions: list[ConsumerGroupHeartbeatTopicPartitions] | None,
) -> list[tuple[TopicId, list[int]]] | None:
    """The request's owned partitions as ``[(topic_id, partitions)]``; None when it left them out."""
    if topic_partitions is None:
        return None
    return [(tp.topic_id, list(tp.partitions)) for tp in topic_partitions]


def _is_subset(owned: list[tuple[TopicId, list[int]]] | None, member: ConsumerGroupMember) -> bool:
    """Kafka's ``isSubset``: a reported (non-null) ownership within the member's assigned partitions."""
    if owned is None:
        return False
    for topic_id, partitions in owned:
        assigned = member.assigned_partitions.get(topic_id, {})
        if any(p not in assigned for p in partitions):
            return False
    return True


def throw_if_member_epoch_is_invalid(
    member: ConsumerGroupMember, received_epoch: int, owned: list[tuple[TopicId, list[int]]] | None
) -> None:
    """Kafka's ``throwIfConsumerGroupMemberEpochIsInvalid``: epoch 0 rejoins; a greater epoch is fenced; a
    smaller one passes only as the previous epoch with owned partitions within the assignment (the answer
    carrying the bump was lost).

    Raises:
        ConsumerGroupError: FENCED_MEMBER_EPOCH.
    """
    if received_epoch == 0:
        return
    known = member.member_epoch
    if received_epoch > known:
        relation = "greater"
    elif received_epoch < known and (
        received_epoch != member.previous_member_epoch or not _is_subset(owned, member)
    ):
        relation = "smaller"
    else:
        return
    raise ConsumerGroupError(
        "FENCED_MEMBER_EPOCH",
        f"The consumer group member has a {relation} member epoch ({received_epoch}) than the one known by "
        f"the group coordinator ({known}). The member must abandon all its partitions and rejoin.",
    )


class ConsumerGroupHeartbeatStep:
    """Computes heartbeats of epoch 0 or more over a coordinator's consumer groups (a leave or a fence:
    ``consumer_group_leave``).

    Args:
        groups: group id -> consumer group, the coordinator's (read only here).
        settings: the ``group.consumer.*`` settings.
        topics: the cluster's topics.
        refresh_deadlines: group id -> its metadata refresh deadline (absent: due now).
        now_ms: the wall clock (ms since the epoch).
        group_settings: group id -> the settings with the group's overrides (``GroupConfigManager``: its
            heartbeat and assignment intervals); None: ``settings`` for every group.
    """

    def __init__(
        self,
        groups: Mapping[str, ConsumerGroup],
        settings: ConsumerGroupSettings,
        topics: TopicMetadata,
        refresh_deadlines: Mapping[str, MetadataRefreshDeadline],
        now_ms: Callable[[], int],
        group_settings: Callable[[str], ConsumerGroupSettings] | None = None,
    ) -> None:
        self._groups = groups
        self._settings = settings
        self._group_settings = group_settings or (lambda group_id: settings)
        self._topics = topics
        self._refresh_deadlines = refresh_deadlines
        self._now_ms = now_ms

    # ---------------------------------------------------------------- heartbeat

    def heartbeat(
        self, request: ConsumerGroupHeartbeatRequest, client_id: str, client_host: str
    ) -> HeartbeatResult:
        """A heartbeat of epoch 0 or more (a join, a heartbeat, an acknowledgement).

        Args:
            request: a request ``validate_heartbeat_request`` accepted.
            client_id: the request header's client id.
            client_host: the client's address as Kafka writes it (``"/127.0.0.1"``).

        Raises:
            ConsumerGroupError: GROUP_ID_NOT_FOUND, GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID,
                FENCED_MEMBER_EPOCH, FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID, UNKNOWN_SERVER_ERROR
                (the assignor failed), with Kafka's messages.
        """
        now = self._now_ms()
        records: list[Any] = []
        epoch = request.member_epoch
        create = epoch == 0
        group = self._get_or_maybe_create_group(request.group_id, create)
        self._throw_if_group_is_full(group, request.member_id)
        member_id = request.member_id or str(uuid.uuid4())
        owned = owned_partitions(request.topic_partitions)
        if request.instance_id is None:
            member = group.get_or_maybe_create_member(member_id, create)
            throw_if_member_epoch_is_invalid(member, epoch, owned)
            if create:
                logger.info("[GroupId %s] Member %s joins the consumer group.", group.group_id, member_id)
        else:
            member = self._get_or_maybe_subscribe_static_member(
                group, member_id, epoch, request.instance_id, owned, create, records
            )

        updated = _merged(member, request, client_id, client_host)
        names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        if updated != member:
            records.append(rh.member_subscription_record(group.group_id, updated))
        regex_update = maybe_update_regular_expressions(group, member, updated, records)
        has_subscription_changed = names_changed or regex_update.status.regex_updated
        resolved = regex_update.status is UpdateRegularExpressionStatus.REGEX_UPDATED_AND_RESOLVED
        bump = names_changed or resolved

        group_epoch = group.group_epoch
        subscription_type = group.subscription_type()
        deadline = self._refresh_deadlines.get(group.group_id, MetadataRefreshDeadline())
        new_deadline = None
        if bump or deadline.expired(now, group_epoch):
            group_epoch, subscription_type = self._update_subscription_metadata(
                group, bump, member, updated, records
            )
            new_deadline = MetadataRefreshDeadline(now + METADATA_REFRESH_INTERVAL_MS, group_epoch)

        target_epoch, target = self._maybe_update_target_assignment(
            group, group_epoch, member, updated, subscription_type, now, records
        )
        reconciled, rebalance_timeout = self._maybe_reconcile(
            group, updated, target_epoch, target, has_subscription_changed, owned, records
        )

        response = ConsumerGroupHeartbeatResponse(
            member_id=reconciled.member_id,
            member_epoch=reconciled.member_epoch,
            heartbeat_interval_ms=self._group_settings(group.group_id).heartbeat_interval_ms,
        )
        full_request = (
            request.rebalance_timeout_ms != -1
            and (request.subscribed_topic_names is not None or request.subscribed_topic_regex is not None)
            and request.topic_partitions is not None
        )
        if epoch == 0 or full_request or has_assigned_partitions_changed(member, reconciled):
            response.assignment = _assignment(reconciled)
        return HeartbeatResult(
            records,
            response,
            group,
            reconciled.member_id,
            new_deadline,
            rebalance_timeout,
            regex=regex_update,
        )

    def _get_or_maybe_create_group(self, group_id: str, create: bool) -> ConsumerGroup:
        group = self._groups.get(group_id)
        if group is not None:
            return group
        if not create:
            raise ConsumerGroupError("GROUP_ID_NOT_FOUND", f"Consumer group {group_id} not found.")
        return ConsumerGroup(group_id)

    def _throw_if_group_is_full(self, group: ConsumerGroup, member_id: str) -> None:
        limit = self._settings.max_size
        if group.num_members() >= limit and (not member_id or not group.has_member(member_id)):
            raise ConsumerGroupError(
                "GROUP_MAX_SIZE_REACHED",
                f"The consumer group has reached its maximum capacity of {limit} members.",
            )

    def _get_or_maybe_subscribe_static_member(
        self,
        group: ConsumerGroup,
        member_id: str,
        epoch: int,
        instance_id: str,
        owned: list[tuple[TopicId, list[int]]] | None,
        create: bool,
        records: list[Any],
        use_classic_protocol: bool = False,
    ) -> ConsumerGroupMember:
        """Kafka's ``getOrMaybeSubscribeStaticConsumerGroupMember``: ``use_classic_protocol`` for a member
        joining with JoinGroup (it may replace a static member still in the group, and has no epoch)."""
        existing = group.static_member(instance_id)
        if create:
            if existing is None:
                logger.info(
                    "[GroupId %s] Static member %s with instance id %s joins the consumer group.",
                    group.group_id,
                    member_id,
                    instance_id,
                )
                return group.get_or_maybe_create_member(member_id, True)
            if (
                not use_classic_protocol
                and not existing.use_classic_protocol()
                and existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH
            ):
                raise ConsumerGroupError(
                    "UNRELEASED_INSTANCE_ID",
                    f"Static member {member_id} with instance id {instance_id} cannot join the group because "
                    f"the instance id is owned by {existing.member_id} member.",
                )
            replacement = existing.with_member_id(member_id).replace(member_epoch=0, previous_member_epoch=0)
            records.extend(remove_member_records(group.group_id, existing.member_id))
            records.append(rh.member_subscription_record(group.group_id, replacement))
            records.append(
                rh.target_assignment_record(
                    group.group_id, member_id, group.target_assignment_of(existing.member_id)
                )
            )
            records.append(rh.current_assignment_record(group.group_id, replacement))
            logger.info(
                "[GroupId %s] Static member with instance id %s re-joins the consumer group. Created a new "
                "member %s to replace the existing member %s.",
                group.group_id,
                instance_id,
                member_id,
                existing.member_id,
            )
            return replacement
        throw_if_static_member_is_unknown(existing, instance_id)
        assert existing is not None
        throw_if_instance_id_is_fenced(existing, member_id, instance_id)
        if not use_classic_protocol:
            throw_if_member_epoch_is_invalid(existing, epoch, owned)
        return existing

    def _update_subscription_metadata(
        self,
        group: ConsumerGroup,
        bump: bool,
        member: ConsumerGroupMember,
        updated: ConsumerGroupMember,
        records: list[Any],
    ) -> tuple[int, SubscriptionType]:
        """Kafka's ``updateSubscriptionMetadata``: the new metadata hash and subscription type; the group
        epoch +1 (a ConsumerGroupMetadata record) when the subscription or the hash changed."""
        regexes = group.compute_subscribed_regexes(member, updated)
        names = group.compute_subscribed_topic_names(member, updated)
        new_hash = metadata_hash(names, self._topics)
        members = group.num_members()
        if not group.has_member(updated.member_id) and not group.has_static_member(updated.instance_id):
            members += 1
        subscription_type = subscription_type_of(regexes, names, members)
        epoch = group.group_epoch
        if bump or new_hash != group.metadata_hash:
            epoch += 1
            records.append(rh.group_epoch_record(group.group_id, epoch, new_hash))
            logger.info(
                "[GroupId %s] Bumped group epoch to %d with metadata hash %d.",
                group.group_id,
                epoch,
                new_hash,
            )
        if group.has_subscription_metadata_record:
            records.append(rh.subscription_metadata_tombstone(group.group_id))
        return epoch, subscription_type

    def _maybe_update_target_assignment(
        self,
        group: ConsumerGroup,
        group_epoch: int,
        member: ConsumerGroupMember,
        updated: ConsumerGroupMember,
        subscription_type: SubscriptionType,
        now: int,
        records: list[Any],
    ) -> tuple[int, Mapping[TopicId, frozenset[int]]]:
        """Kafka's ``maybeUpdateTargetAssignment``: the target the member reconciles towards and its epoch;
        a new one (TargetAssignmentMember records for the changed members, then TargetAssignmentMetadata)
        when the group epoch moved past the assignment epoch and the assignment interval allows it."""
        last = (group.assignment_epoch, group.target_assignment_of(updated.member_id, updated.instance_id))
        if group.assignment_epoch >= group_epoch:
            return last
        if not can_compute_next_target_assignment(
            group.assignment_timestamp_ms, self._group_settings(group.group_id).assignment_interval_ms, now
        ):
            return last
        assignor_name = group.compute_preferred_server_assignor(
            member, updated, self._settings.default_assignor
        )
        builder = TargetAssignmentBuilder(
            group_epoch,
            self._settings.assignors[assignor_name],
            members=group.members,
            static_members=group.static_members,
            subscription_type=subscription_type,
            target_assignment=group.target_assignment,
            inverted_target_assignment=group.inverted_target_assignment,
            topics=self._topics,
            topic_id_of=self._topics.topic_id_of,
            resolved_regexes=group.resolved_regex_topics(),
        ).add_or_update_member(updated)
        previous_id = group.static_member_id(updated.instance_id)
        if previous_id is not None and previous_id != updated.member_id:
            builder.remove_member(previous_id)
        try:
            result = builder.build()
        except PartitionAssignorError as exc:
            message = f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}"
            logger.error("[GroupId %s] %s.", group.group_id, message)
            raise ConsumerGroupError("UNKNOWN_SERVER_ERROR", message) from exc
        logger.info(
            "[GroupId %s] Computed a new target assignment for epoch %d with '%s' assignor.",
            group.group_id,
            group_epoch,
            assignor_name,
        )
        for member_id, assignment in result.changed_members.items():
            records.append(rh.target_assignment_record(group.group_id, member_id, assignment))
        records.append(rh.target_assignment_epoch_record(group.group_id, group_epoch, self._now_ms()))
        return group_epoch, result.target_assignment.get(updated.member_id, {})

    def _maybe_reconcile(
        self,
        group: ConsumerGroup,
        member: ConsumerGroupMember,
        target_epoch: int,
        target: Mapping[TopicId, frozenset[int]],
        has_subscription_changed: bool,
        owned: list[tuple[TopicId, list[int]]] | None,
        records: list[Any],
    ) -> tuple[ConsumerGroupMember, tuple[int, int] | None]:
        """Kafka's ``maybeReconcile``: the member after one reconciliation step (a CurrentAssignment record
        when it changed) and its rebalance timer's fate."""
        if not has_subscription_changed and member.is_reconciled_to(target_epoch):
            return member, None
        updated = CurrentAssignmentBuilder(
            member,
            target_assignment_epoch=target_epoch,
            target_assignment=target,
            current_partition_epoch=group.current_partition_epoch,
            topic_id_of=self._topics.topic_id_of,
            owned_topic_partitions=owned,
            has_subscription_changed=has_subscription_changed,
            resolved_regexes=group.resolved_regex_topics(),
        ).build()
        if updated == member:
            return member, None
        records.append(rh.current_assignment_record(group.group_id, updated))
        if updated.state is MemberState.UNREVOKED_PARTITIONS:
            return updated, (updated.member_epoch, updated.rebalance_timeout_ms)
        return updated, CANCEL_REBALANCE_TIMEOUT


def _merged(
    member: ConsumerGroupMember, request: ConsumerGroupHeartbeatRequest, client_id: str, client_host: str
) -> ConsumerGroupMember:
    """The member with the request's changes: None (or -1) keeps a field (Kafka's ``maybeUpdate*``)."""
    changes: dict[str, Any] = {
        "client_id": client_id,
        "client_host": client_host,
        "classic_member_metadata": None,
    }
    if request.instance_id is not None:
        changes["instance_id"] = request.instance_id
    if request.rack_id is not None:
        changes["rack_id"] = request.rack_id
    if request.rebalance_timeout_ms != -1:
        changes["rebalance_timeout_ms"] = request.rebalance_timeout_ms
    if request.server_assignor is not None:
        changes["server_assignor_name"] = request.server_assignor
    if request.subscribed_topic_names is not None:
        changes["subscribed_topic_names"] = frozenset(request.subscribed_topic_names)
    if request.subscribed_topic_regex is not None:
        changes["subscribed_topic_regex"] = request.subscribed_topic_regex
    return member.replace(**changes)


def _assignment(member: ConsumerGroupMember) -> ConsumerGroupHeartbeatAssignment:
    return ConsumerGroupHeartbeatAssignment(
        topic_partitions=[
            ConsumerGroupHeartbeatTopicPartitions(topic_id=topic_id, partitions=sorted(partitions))
            for topic_id, partitions in member.assigned_partitions.items()
        ]
    )
