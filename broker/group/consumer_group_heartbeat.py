"""One ConsumerGroupHeartbeat of a KIP-848 consumer group, computed: the records it writes and its answer.

Owns: Kafka's heartbeat step over a group's in-memory state: get or create the group, the group size
limit, get or create the member (dynamic or static, with the static replacement and its epoch checks),
merge the request into the member, bump the group epoch when the subscription or the subscribed topics'
metadata changed, compute the next target assignment (at most once per ``group.consumer.assignment.
interval.ms``), reconcile the member towards its target, and the answer (epoch, heartbeat interval, the
assignment when the member needs it); the leave (-1) and the static member's temporary leave (-2); and
fencing members (session or rebalance timeout).  Each computation returns records and does not change
the group: the coordinator writes the records, then applies them (``consumer_group_replay``), so a failed
write changes nothing.  Does not own the request's own checks (``consumer_group_heartbeat_validation``),
locking, timers or writing.

Kafka concept: ``GroupMetadataManager.consumerGroupHeartbeat``, ``consumerGroupLeave``,
``consumerGroupStaticMemberGroupLeave``, ``consumerGroupFenceMembers``, ``removeMember``,
``replaceMember``, ``updateSubscriptionMetadata``, ``maybeUpdateTargetAssignment``, ``maybeReconcile``,
``throwIfConsumerGroupMemberEpochIsInvalid`` and ``throwIfConsumerGroupIsFull``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.assignors.api import (
    ConsumerGroupPartitionAssignor,
    PartitionAssignorError,
    SubscribedTopicDescriber,
    SubscriptionType,
    TopicId,
)
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import (
    ConsumerGroupMember,
    MemberState,
    has_assigned_partitions_changed,
)
from kafkette.broker.group.consumer_group_metadata_hash import metadata_hash
from kafkette.broker.group.consumer_group_regex import (
    RegexUpdate,
    UpdateRegularExpressionStatus,
    fenced_members_regex_tombstones,
    maybe_update_regular_expressions,
)
from kafkette.broker.group.consumer_group_subscriptions import add_topic_counts, subscription_type_of
from kafkette.broker.group.current_assignment_builder import CurrentAssignmentBuilder
from kafkette.broker.group.group_coordinator_config import (
    CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT,
    ConsumerGroupMigrationPolicy,
)
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

LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
METADATA_REFRESH_INTERVAL_MS = 2**31 - 1
"""How long a computed metadata hash stays valid without a metadata change (Kafka's
``METADATA_REFRESH_INTERVAL_MS``, ``Integer.MAX_VALUE``): in practice until ``request_metadata_refresh``."""


class TopicMetadata(SubscribedTopicDescriber):
    """What the heartbeat reads of the cluster's topics (Kafka's ``MetadataImage``)."""

    def topic_id_of(self, name: str) -> TopicId | None:
        """The topic's id, None when it does not exist."""
        ...

    def topic_name_of(self, topic_id: TopicId) -> str | None:
        """The topic's name, None when no topic has this id."""
        ...

    def topic_names(self) -> list[str]:
        """Every topic's name, internal ones included."""
        ...


@dataclass(frozen=True)
class ConsumerGroupSettings:
    """The broker's ``group.consumer.*`` settings the heartbeat applies.

    Attributes:
        assignors: name -> assignor (``group.consumer.assignors``); the first is the default.
        session_timeout_ms: ``group.consumer.session.timeout.ms``.
        heartbeat_interval_ms: ``group.consumer.heartbeat.interval.ms``.
        max_size: ``group.consumer.max.size``.
        assignment_interval_ms: ``group.consumer.assignment.interval.ms``.
        migration_policy: ``group.consumer.migration.policy``.
        regex_refresh_interval_ms: ``group.consumer.regex.refresh.interval.ms`` (Kafka's internal config,
            ms): a group's regexes are resolved again once their last resolution is older.
    """

    assignors: Mapping[str, ConsumerGroupPartitionAssignor]
    session_timeout_ms: int = 45000
    heartbeat_interval_ms: int = 5000
    max_size: int = 2**31 - 1
    assignment_interval_ms: int = 1000
    migration_policy: ConsumerGroupMigrationPolicy = ConsumerGroupMigrationPolicy.BIDIRECTIONAL
    regex_refresh_interval_ms: int = CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT

    @property
    def default_assignor(self) -> str:
        """The first of ``group.consumer.assignors``."""
        return next(iter(self.assignors))


@dataclass
class MetadataRefreshDeadline:
    """When a group's metadata hash must be recomputed (Kafka's ``DeadlineAndEpoch``): at ``deadline_ms``
    or once the group epoch is below ``epoch`` (a bump whose write failed).  ``(0, 0)`` is due now."""

    deadline_ms: int = 0
    epoch: int = 0

    def expired(self, now_ms: int, group_epoch: int) -> bool:
        """Kafka's ``hasMetadataExpired``."""
        return now_ms >= self.deadline_ms or group_epoch < self.epoch


@dataclass
class HeartbeatResult:
    """What one step computed.

    Attributes:
        records: the records to write, in order (Kafka's ``CoordinatorResult.records``).
        response: the answer, sent once the records are written.
        group: the group the records apply to (a new, not yet registered one for a first join).
        member_id: the member the step is about.
        refresh_deadline: the group's new metadata refresh deadline, None when unchanged.
        rebalance_timeout: ``(member epoch, timeout ms)`` to (re)start the member's rebalance timer; None
            to leave it; ``(-1, -1)`` to cancel it.
        fenced: member ids whose timers must be cancelled.
        regex: a heartbeat's regex step (the coordinator then checks whether to resolve the group's
            regexes), None for other steps.
    """

    records: list[Any]
    response: ConsumerGroupHeartbeatResponse
    group: ConsumerGroup
    member_id: str
    refresh_deadline: MetadataRefreshDeadline | None = None
    rebalance_timeout: tuple[int, int] | None = None
    fenced: list[str] = field(default_factory=list)
    regex: RegexUpdate | None = None


CANCEL_REBALANCE_TIMEOUT = (-1, -1)


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
    """Computes heartbeats, leaves and fences over a coordinator's consumer groups.

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
    ) -> ConsumerGroupMember:
        """Kafka's ``getOrMaybeSubscribeStaticConsumerGroupMember`` for a consumer-protocol member."""
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
                not existing.use_classic_protocol()
                and existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH
            ):
                raise ConsumerGroupError(
                    "UNRELEASED_INSTANCE_ID",
                    f"Static member {member_id} with instance id {instance_id} cannot join the group because "
                    f"the instance id is owned by {existing.member_id} member.",
                )
            replacement = existing.with_member_id(member_id).replace(member_epoch=0, previous_member_epoch=0)
            records.extend(_remove_member_records(group.group_id, existing.member_id))
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
        _throw_if_static_member_is_unknown(existing, instance_id)
        assert existing is not None
        _throw_if_instance_id_is_fenced(existing, member_id, instance_id)
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

    # ---------------------------------------------------------------- leave and fence

    def leave(self, request: ConsumerGroupHeartbeatRequest) -> HeartbeatResult:
        """A heartbeat of epoch -1 (leave) or -2 (a static member leaves for a while).

        Raises:
            ConsumerGroupError: GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID.
        """
        group = self._groups.get(request.group_id)
        if group is None:
            raise ConsumerGroupError("GROUP_ID_NOT_FOUND", f"Group {request.group_id} not found.")
        response = ConsumerGroupHeartbeatResponse(
            member_id=request.member_id, member_epoch=request.member_epoch
        )
        if request.instance_id is None:
            member = group.get_or_maybe_create_member(request.member_id, False)
            logger.info("[GroupId %s] Member %s left the consumer group.", group.group_id, member.member_id)
            return self.fence(group, [member], response)
        existing = group.static_member(request.instance_id)
        _throw_if_static_member_is_unknown(existing, request.instance_id)
        assert existing is not None
        _throw_if_instance_id_is_fenced(existing, request.member_id, request.instance_id)
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
        return self.fence(group, [existing], response)

    def fence(
        self,
        group: ConsumerGroup,
        members: list[ConsumerGroupMember],
        response: ConsumerGroupHeartbeatResponse | None,
    ) -> HeartbeatResult:
        """Kafka's ``consumerGroupFenceMembers``: each member's three tombstones, then the group epoch +1
        with the metadata hash of the remaining subscriptions.  Nothing when ``members`` is empty."""
        if not members:
            return HeartbeatResult([], response or ConsumerGroupHeartbeatResponse(), group, "")
        records: list[Any] = []
        for member in members:
            records.extend(_remove_member_records(group.group_id, member.member_id))
        regex_tombstones = fenced_members_regex_tombstones(group, members)
        records.extend(regex_tombstones)
        names = dict(group.subscribed_topic_names())
        for member in members:
            add_topic_counts(names, member.subscribed_topic_names, -1, 0)
        for key, _ in regex_tombstones:
            add_topic_counts(names, group.resolved_regex_topics().get(key.regular_expression, ()), 0, -1)
        new_hash = metadata_hash(names, self._topics)
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


def _remove_member_records(group_id: str, member_id: str) -> list[Any]:
    """Kafka's ``removeMember``: CurrentAssignment, TargetAssignmentMember and MemberMetadata tombstones,
    in that order (the order matters on replay)."""
    return [
        rh.current_assignment_tombstone(group_id, member_id),
        rh.target_assignment_tombstone(group_id, member_id),
        rh.member_subscription_tombstone(group_id, member_id),
    ]


def _throw_if_static_member_is_unknown(member: ConsumerGroupMember | None, instance_id: str) -> None:
    if member is None:
        raise ConsumerGroupError("UNKNOWN_MEMBER_ID", f"Instance id {instance_id} is unknown.")


def _throw_if_instance_id_is_fenced(member: ConsumerGroupMember, member_id: str, instance_id: str) -> None:
    if member.member_id != member_id:
        raise ConsumerGroupError(
            "FENCED_INSTANCE_ID",
            f"Static member {member_id} with instance id {instance_id} was fenced by member "
            f"{member.member_id}.",
        )
