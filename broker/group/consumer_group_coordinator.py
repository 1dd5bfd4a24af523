"""The KIP-848 consumer groups of one broker: heartbeats, describe, timers, load and unload.

Owns: the consumer groups of the ``__consumer_offsets`` partitions this broker leads; answering
ConsumerGroupHeartbeat (the request's checks, then one step computed under the partition's lock, its
records written with acks=all, then applied to the groups through the same replay a load uses, so a
failed write changes nothing) and ConsumerGroupDescribe; each member's session timeout (the group's
``consumer.session.timeout.ms`` override from ``GroupConfigManager``, else the broker's) and rebalance
timeout (``CoordinatorTimer``), which fence the member; rebuilding the groups from the partition's records
when it loads, and dropping them when it goes; asking for a new metadata hash when a subscribed topic
changes; resolving the groups' regex subscriptions in the background (one task per group, cancelled and
awaited on unload and shutdown) when ``consumer_group_regex`` says one is due, and the metadata version
that tells it a topic was created.  Does not own the heartbeat's rules (``consumer_group_heartbeat``,
``consumer_group_leave``), the model (``consumer_group``), the records' bytes, the group configs
(``group_config_manager``), nor classic groups (``GroupCoordinator``).

Kafka concept: ``GroupCoordinatorService.consumerGroupHeartbeat`` / ``consumerGroupDescribe`` over the
``CoordinatorRuntime`` (``scheduleWriteOperation``, ``CoordinatorTimer``), ``GroupMetadataManager``'s
consumer group timers (``scheduleConsumerGroupSessionTimeout``, ``scheduleConsumerGroupRebalanceTimeout``),
``onLoaded``, ``onMetadataUpdate`` and ``CoordinatorOperationExceptionHelper.handleOperationException``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kafkette.broker.group import consumer_group_admin
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_classic_members import (
    ClassicMemberJoinStep,
    classic_heartbeat,
    classic_leave,
    classic_sync,
)
from kafkette.broker.group.consumer_group_conversion import (
    ClassicGroupConversion,
    classic_to_consumer_group_records,
)
from kafkette.broker.group.consumer_group_describe import describe_consumer_group
from kafkette.broker.group.consumer_group_downgrade import (
    classic_group_from_consumer_group,
    validate_online_downgrade,
)
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_heartbeat import ConsumerGroupHeartbeatStep
from kafkette.broker.group.consumer_group_heartbeat_validation import (
    HeartbeatRequestError,
    validate_heartbeat_request,
)
from kafkette.broker.group.consumer_group_leave import consumer_group_fence_members, consumer_group_leave
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.broker.group.consumer_group_migration import validate_online_upgrade
from kafkette.broker.group.consumer_group_regex import (
    regexes_to_refresh,
    regular_expressions_result_records,
    resolve_regular_expressions,
)
from kafkette.broker.group.consumer_group_replay import encode_records, replay_record
from kafkette.broker.group.consumer_group_step import (
    CANCEL_REBALANCE_TIMEOUT,
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    METADATA_REFRESH_INTERVAL_MS,
    ConsumerGroupSettings,
    HeartbeatResult,
    MetadataRefreshDeadline,
    TopicMetadata,
)
from kafkette.broker.group.coordinator_records import GroupMetadataKey, encode_key
from kafkette.broker.group.coordinator_timer import CoordinatorTimer
from kafkette.broker.group.group_config_manager import GroupConfigManager
from kafkette.common.clock import Time
from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeGroup,
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    SyncGroupRequest,
    SyncGroupResponse,
    join_error_response,
)
from kafkette.protocol.errors import Errors, IllegalStateError, default_message
from kafkette.protocol.kafka_translation import GROUP_AUTHORIZED_OPERATIONS

if TYPE_CHECKING:
    from kafkette.broker.group.group_metadata import GroupMetadata

logger = logging.getLogger(__name__)

_OPERATION_ERRORS = {
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_LEADER_OR_FOLLOWER: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.RECORD_LIST_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
}
"""A failed write's error as the member is told it (Kafka's ``handleOperationException``)."""


def session_timeout_key(group_id: str, member_id: str) -> str:
    """Kafka's ``groupSessionTimeoutKey``."""
    return f"session-timeout-{group_id}-{member_id}"


def rebalance_timeout_key(group_id: str, member_id: str) -> str:
    """Kafka's ``groupRebalanceTimeoutKey``."""
    return f"rebalance-timeout-{group_id}-{member_id}"


def join_timeout_key(group_id: str, member_id: str) -> str:
    """Kafka's ``consumerGroupJoinKey`` (a classic member told to rejoin)."""
    return f"join-{group_id}-{member_id}"


def sync_timeout_key(group_id: str, member_id: str) -> str:
    """Kafka's ``consumerGroupSyncKey`` (a classic member that joined and must sync)."""
    return f"sync-{group_id}-{member_id}"


class ConsumerGroupCoordinator:
    """The consumer groups this broker coordinates.

    Args:
        partition_for: group id -> its ``__consumer_offsets`` partition.
        coordinator_error: group id -> NONE when this broker coordinates it and has loaded it, else
            NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS.
        append: writes ``[(key bytes, value bytes or None)]`` for a group with acks=all; the error.
        topics: the cluster's topics.
        settings: the ``group.consumer.*`` settings.
        time: the clock of the timers and timestamps.
        classic_group_state: group id -> the state of the classic group of that id here, None when there
            is none (a heartbeat or ConsumerGroupDescribe answers it "is not a consumer group"; an Empty one
            is replaced by a joining consumer group).
        drop_classic_group: forget the classic group of that id (its tombstone is written).
        classic_group: group id -> the classic group of that id here, None when there is none (a
            non-empty one a member joins is checked by ``validate_online_upgrade``).
        group_configs: the groups' config overrides (session timeout, heartbeat and assignment
            intervals in place of ``settings``'); None: no group has any.
        classic_group_max_size: ``group.max.size``: a group downgraded to a classic group has no more
            members.
        classic_group_record: classic group -> its GroupMetadata record ``(key, value)`` bytes; None: no
            online downgrade.
        install_classic_group: ``(classic group, reason)``: a consumer group downgraded to it (its records
            written) is handed over to the classic coordinator, which rebalances it for ``reason`` (None:
            no rebalance).
    """

    def __init__(
        self,
        *,
        partition_for: Callable[[str], int],
        coordinator_error: Callable[[str], Errors],
        append: Callable[[str, list[tuple[bytes, bytes | None]]], Any],
        topics: TopicMetadata,
        settings: ConsumerGroupSettings,
        time: Time,
        classic_group_state: Callable[[str], str | None] = lambda group_id: None,
        drop_classic_group: Callable[[str], None] = lambda group_id: None,
        classic_group: Callable[[str], GroupMetadata | None] = lambda group_id: None,
        group_configs: GroupConfigManager | None = None,
        classic_group_max_size: int = 2**31 - 1,
        classic_group_record: Callable[[GroupMetadata], tuple[bytes, bytes | None]] | None = None,
        install_classic_group: Callable[[GroupMetadata, str | None], None] = lambda group, reason: None,
    ) -> None:
        self._partition_for = partition_for
        self._coordinator_error = coordinator_error
        self._append = append
        self._topics = topics
        self._settings = settings
        self._time = time
        self._classic_group_state = classic_group_state
        self._drop_classic_group = drop_classic_group
        self._classic_group = classic_group
        self.group_configs = group_configs or GroupConfigManager({})
        self._classic_group_max_size = classic_group_max_size
        self._classic_group_record = classic_group_record
        self._install_classic_group = install_classic_group
        self._timer = CoordinatorTimer(time)
        self._groups: dict[str, ConsumerGroup] = {}
        self._refresh_deadlines: dict[str, MetadataRefreshDeadline] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._regex_tasks: dict[str, asyncio.Task[None]] = {}
        self._known_topics: set[str] = set()
        self._metadata_version = 0
        self._last_version_with_new_topics = 0

    @property
    def groups(self) -> dict[str, ConsumerGroup]:
        """group id -> consumer group (the coordinator's own map; read only for callers)."""
        return self._groups

    def group(self, group_id: str) -> ConsumerGroup | None:
        """The consumer group, None when this broker has none of that id."""
        return self._groups.get(group_id)

    def _step(self, groups: Mapping[str, ConsumerGroup] | None = None) -> ConsumerGroupHeartbeatStep:
        return ConsumerGroupHeartbeatStep(
            self._groups if groups is None else groups,
            self._settings,
            self._topics,
            self._refresh_deadlines,
            self._time.milliseconds,
            self._settings_of,
        )

    def _settings_of(self, group_id: str) -> ConsumerGroupSettings:
        """The group's settings: the broker's with the group's config overrides."""
        return self.group_configs.consumer_group_settings(group_id, self._settings)

    def _lock(self, group_id: str) -> asyncio.Lock:
        return self._locks.setdefault(self._partition_for(group_id), asyncio.Lock())

    # ---------------------------------------------------------------- heartbeat

    async def heartbeat(
        self,
        request: ConsumerGroupHeartbeatRequest,
        version: int,
        client_id: str,
        client_host: str,
        may_describe: TopicDescribeCheck | None = None,
    ) -> ConsumerGroupHeartbeatResponse:
        """Answer a ConsumerGroupHeartbeat (Kafka's ``GroupCoordinatorService.consumerGroupHeartbeat``).

        ``may_describe`` (with an authorizer): ``(topic, reference count) -> whether this member may
        DESCRIBE it``; a regex resolution this heartbeat starts leaves out the topics it may not, as
        Kafka resolves with the heartbeat's request context.

        Returns:
            The answer: the member's id, epoch, heartbeat interval and, when it needs it, its assignment;
            or an error code with Kafka's message (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR, NOT_COORDINATOR,
            COORDINATOR_LOAD_IN_PROGRESS, GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, ...).
        """
        try:
            validate_heartbeat_request(request, version, list(self._settings.assignors))
        except HeartbeatRequestError as exc:
            return _error(exc.error, exc.message)
        error = self._coordinator_error(request.group_id)
        if error != Errors.NONE:
            return _error(error, default_message(error))
        async with self._lock(request.group_id):
            error = self._coordinator_error(request.group_id)
            if error != Errors.NONE:
                return _error(error, default_message(error))
            conversion = await self._replace_classic_group(request)
            if isinstance(conversion, ConsumerGroupError):
                return _error(Errors[conversion.error], conversion.message or None)
            groups: Mapping[str, ConsumerGroup] = self._groups
            if conversion is not None:
                groups = {**self._groups, request.group_id: conversion.group}
            try:
                if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                    result = consumer_group_leave(self._groups, self._topics, request)
                else:
                    result = self._step(groups).heartbeat(request, client_id, client_host)
            except ConsumerGroupError as exc:
                return _error(Errors[exc.error], exc.message)
            if conversion is not None:
                error = await self._write_conversion(conversion, result)
            else:
                error = await self._write(request.group_id, result)
            if error != Errors.NONE:
                return _error(error, None)
            self._after_write(result, may_describe)
            return result.response

    async def _replace_classic_group(
        self, request: ConsumerGroupHeartbeatRequest
    ) -> ClassicGroupConversion | ConsumerGroupError | None:
        """A classic group of the heartbeat's id (Kafka's ``getOrMaybeCreateConsumerGroup``): an Empty one
        is deleted (its GroupMetadata tombstone written) when a member joins, as Kafka's
        ``maybeDeleteEmptyClassicGroup``; a non-empty one a member joins (epoch 0) is converted to a
        consumer group when ``validate_online_upgrade`` allows it (KIP-848's online upgrade, Kafka's
        ``convertToConsumerGroup``): the conversion is returned, written with the join's own records;
        any other request answers GROUP_ID_NOT_FOUND "is not a consumer group".

        Returns:
            None when there is no classic group (any more); the conversion to write; or the refusal.
        """
        group_id = request.group_id
        state = self._classic_group_state(group_id)
        if state is None or group_id in self._groups:
            return None
        if request.member_epoch == 0 and state != "Empty" and (classic := self._classic_group(group_id)):
            try:
                validate_online_upgrade(classic, self._settings.migration_policy, self._settings.max_size)
                records = classic_to_consumer_group_records(classic, self._topics)
            except ConsumerGroupError as exc:
                return exc
            scratch: dict[str, ConsumerGroup] = {}
            for record in records:
                replay_record(scratch, record)
            return ClassicGroupConversion(scratch[group_id], records)
        if request.member_epoch != 0 or state != "Empty":
            return ConsumerGroupError("GROUP_ID_NOT_FOUND", f"Group {group_id} is not a consumer group.")
        error = await self._append(group_id, [(encode_key(GroupMetadataKey(group_id)), None)])
        if error != Errors.NONE:
            error = _OPERATION_ERRORS.get(error, error)
            return ConsumerGroupError(error.name, "")  # answered without a message
        self._drop_classic_group(group_id)
        logger.info("[GroupId %s] Converted the empty classic group to a consumer group.", group_id)
        return None

    async def _write_conversion(self, conversion: ClassicGroupConversion, result: HeartbeatResult) -> Errors:
        """Write the classic group's tombstone, the converted group's records and the join's records in one
        append; once acknowledged, the converted group is this coordinator's, the join's records applied
        to it, and every converted member's session timer started (its classic session timeout)."""
        group = conversion.group
        group_id = group.group_id
        tombstone = (encode_key(GroupMetadataKey(group_id)), None)
        records = [tombstone, *encode_records(conversion.records), *encode_records(result.records)]
        error = await self._append(group_id, records)
        if error != Errors.NONE:
            return _OPERATION_ERRORS.get(error, error)
        self._drop_classic_group(group_id)
        self._groups[group_id] = group
        for record in result.records:
            self._replay(record)
        for member_id in list(group.members):
            self._schedule_session_timeout(group_id, member_id)
        logger.info("[GroupId %s] Converted the classic group to a consumer group.", group_id)
        return Errors.NONE

    async def _write(self, group_id: str, result: HeartbeatResult) -> Errors:
        """Write the step's records and, once acknowledged, apply them to the groups; a fence that leaves
        only classic members converts the group to a classic group instead (``_convert_to_classic_group``)."""
        if not result.records:
            return Errors.NONE
        group = self._groups.get(group_id)
        if (
            result.fenced
            and group is not None
            and self._classic_group_record is not None
            and validate_online_downgrade(
                group, result.fenced, self._settings.migration_policy, self._classic_group_max_size
            )
        ):
            return await self._convert_to_classic_group(group, result.fenced)
        error = await self._append(group_id, encode_records(result.records))
        if error != Errors.NONE:
            return _OPERATION_ERRORS.get(error, error)
        if group_id not in self._groups:
            self._groups[group_id] = result.group
        for record in result.records:
            self._replay(record)
        return Errors.NONE

    async def _convert_to_classic_group(
        self,
        group: ConsumerGroup,
        leaving: list[str],
        joining: ConsumerGroupMember | None = None,
        rebalance: bool = True,
        before: list[Any] | None = None,
    ) -> Errors:
        """KIP-848's online downgrade (Kafka's ``convertToClassicGroup``): the consumer group's tombstones
        and the classic group's GroupMetadata record written in one append (after ``before``, the records
        of the static member ``joining`` in place of its instance's member, whose tombstones go under the
        joining id); once acknowledged, the consumer group and its members' timers are gone and the classic
        coordinator takes the classic group, preparing a rebalance for a leave or (``rebalance``) a stale
        assignment."""
        group_id = group.group_id
        replaced = group.static_member(joining.instance_id) if joining is not None else None
        try:
            classic = classic_group_from_consumer_group(group, leaving, self._topics.topic_name_of, joining)
        except IllegalStateError as exc:
            logger.warning("[GroupId %s] Cannot downgrade the consumer group: %s.", group_id, exc)
            return Errors.UNKNOWN_SERVER_ERROR
        assert self._classic_group_record is not None
        renamed = None if joining is None or replaced is None else (replaced.member_id, joining.member_id)
        tombstones = consumer_group_admin.group_tombstones(group, renamed)
        records = encode_records([*(before or []), *tombstones])
        error = await self._append(group_id, [*records, self._classic_group_record(classic)])
        if error != Errors.NONE:
            return _OPERATION_ERRORS.get(error, error)
        for member_id in [*group.members, *([joining.member_id] if joining is not None else [])]:
            self._cancel_timers(group_id, member_id)
        self._groups.pop(group_id, None)
        self._refresh_deadlines.pop(group_id, None)
        self._cancel_regex_refresh(group_id)
        if joining is None:
            reason: str | None = f"Downgrade group {group_id} from consumer to classic for member leaving."
        elif rebalance:
            reason = f"Downgrade group {group_id} from consumer to classic with stale assignment."
        else:
            reason = None
        self._install_classic_group(classic, reason)
        logger.info("[GroupId %s] Converted the consumer group to a classic group.", group_id)
        return Errors.NONE

    def _replay(self, record: Any) -> None:
        try:
            replay_record(self._groups, record)
        except IllegalStateError:
            logger.exception("Applying %s failed", record)

    def _after_write(self, result: HeartbeatResult, may_describe: TopicDescribeCheck | None = None) -> None:
        group_id = result.group.group_id
        if result.refresh_deadline is not None:
            self._refresh_deadlines[group_id] = result.refresh_deadline
        for member_id in result.fenced:
            self._cancel_timers(group_id, member_id)
        if result.regex is not None:
            self._maybe_refresh_regular_expressions(group_id, result.regex.require_refresh, may_describe)
        if result.fenced or not result.member_id:
            return
        self._schedule_session_timeout(group_id, result.member_id)
        if result.rebalance_timeout == CANCEL_REBALANCE_TIMEOUT:
            self._timer.cancel(rebalance_timeout_key(group_id, result.member_id))
        elif result.rebalance_timeout is not None:
            epoch, timeout_ms = result.rebalance_timeout
            self._schedule_rebalance_timeout(group_id, result.member_id, epoch, timeout_ms)

    # ---------------------------------------------------------------- classic members

    async def classic_join(
        self, request: JoinGroupRequest, client_id: str, client_host: str
    ) -> JoinGroupResponse | None:
        """A classic member's JoinGroup to a consumer group with members (Kafka's
        ``classicGroupJoinToConsumerGroup``, ``consumer_group_classic_members``): once its records are
        written, the member's join timeout is cancelled, its session timer (its own session timeout) and
        its sync timeout (the request's rebalance timeout) start.

        Returns:
            The answer (MEMBER_ID_REQUIRED, the member epoch as the generation, or an error with Kafka's
            code); None when the group is not a consumer group with members (any more): the classic
            coordinator answers.
        """
        group_id = request.group_id
        async with self._lock(group_id):
            group = self._groups.get(group_id)
            if group is None or not group.num_members():
                return None
            step = ClassicMemberJoinStep(
                self._groups,
                self._settings,
                self._topics,
                self._refresh_deadlines,
                self._time.milliseconds,
                self._settings_of,
            )
            try:
                joined = step.join(
                    group,
                    request,
                    client_id,
                    client_host,
                    self._settings.migration_policy,
                    self._classic_group_max_size if self._classic_group_record is not None else -1,
                )
            except ConsumerGroupError as exc:
                return join_error_response(Errors[exc.error], request.member_id)
            if joined.step is None:
                return joined.response
            if joined.downgrade is not None:
                error = await self._convert_to_classic_group(
                    group,
                    [],
                    joining=joined.downgrade,
                    rebalance=joined.rebalance,
                    before=joined.step.records,
                )
                if error != Errors.NONE:
                    return join_error_response(error, request.member_id)
                return joined.response
            error = await self._write(group_id, joined.step)
            if error != Errors.NONE:
                return join_error_response(error, request.member_id)
            self._after_write(joined.step)
            member_id = joined.step.member_id
            self._timer.cancel(join_timeout_key(group_id, member_id))
            self._schedule_sync_timeout(group_id, member_id, joined.rebalance_timeout_ms)
            return joined.response

    def classic_sync(self, request: SyncGroupRequest) -> SyncGroupResponse | None:
        """A classic member's SyncGroup to a consumer group (Kafka's ``classicGroupSyncToConsumerGroup``):
        its assignment; its sync timeout is cancelled and its session timer restarted.  A member told
        REBALANCE_IN_PROGRESS gets a join timeout (its rebalance timeout) unless it has one.

        Returns:
            The answer; None when the group is not a consumer group.
        """
        group = self._groups.get(request.group_id)
        if group is None:
            return None
        try:
            member, response = classic_sync(group, request, self._topics.topic_name_of)
        except ConsumerGroupError as exc:
            if exc.error == "REBALANCE_IN_PROGRESS":
                member = group.members[request.member_id] if request.member_id in group.members else None
                if member is not None:
                    self._schedule_join_timeout_if_absent(group.group_id, member)
            return SyncGroupResponse(error_code=Errors[exc.error])
        self._timer.cancel(sync_timeout_key(group.group_id, member.member_id))
        self._schedule_session_timeout(group.group_id, member.member_id)
        return response

    def classic_heartbeat(self, request: HeartbeatRequest) -> HeartbeatResponse | None:
        """A classic member's Heartbeat to a consumer group (Kafka's
        ``classicGroupHeartbeatToConsumerGroup``): its session timer restarted; REBALANCE_IN_PROGRESS (and a
        join timeout unless it has one) when it must rejoin.

        Returns:
            The answer; None when the group is not a consumer group.
        """
        group = self._groups.get(request.group_id)
        if group is None:
            return None
        try:
            member, error = classic_heartbeat(
                group, request.member_id, request.group_instance_id, request.generation_id
            )
        except ConsumerGroupError as exc:
            return HeartbeatResponse(error_code=Errors[exc.error])
        self._schedule_session_timeout(group.group_id, member.member_id)
        if error == Errors.REBALANCE_IN_PROGRESS:
            self._schedule_join_timeout_if_absent(group.group_id, member)
        return HeartbeatResponse(error_code=error)

    async def classic_leave(self, request: LeaveGroupRequest) -> LeaveGroupResponse | None:
        """A LeaveGroup to a consumer group (Kafka's ``classicGroupLeaveToConsumerGroup``): the members it
        names fenced together, their timers cancelled.

        Returns:
            The answer (each identity's error; a failed write's error for the whole request); None when
            the group is not a consumer group.
        """
        async with self._lock(request.group_id):
            group = self._groups.get(request.group_id)
            if group is None:
                return None
            left = classic_leave(group, request, self._topics)
            error = await self._write(group.group_id, left.step)
            if error != Errors.NONE:
                return LeaveGroupResponse(error_code=error)
            self._after_write(left.step)
            return LeaveGroupResponse(error_code=Errors.NONE, members=left.members)

    def _schedule_join_timeout_if_absent(self, group_id: str, member: ConsumerGroupMember) -> None:
        """Kafka's ``scheduleConsumerGroupJoinTimeoutIfAbsent``: a classic member told to rejoin is fenced
        when it does not within its rebalance timeout."""
        member_id = member.member_id

        async def expire() -> None:
            await self._fence_if(
                group_id, member_id, None, "the classic member failed to join within the rebalance timeout"
            )

        self._timer.schedule_if_absent(
            join_timeout_key(group_id, member_id), member.rebalance_timeout_ms, expire
        )

    def _schedule_sync_timeout(self, group_id: str, member_id: str, timeout_ms: int) -> None:
        """Kafka's ``scheduleConsumerGroupSyncTimeout``: a classic member that joined is fenced when it sends
        no SyncGroup within the rebalance timeout."""

        async def expire() -> None:
            await self._fence_if(group_id, member_id, None, "the member failed to sync within timeout")

        self._timer.schedule(sync_timeout_key(group_id, member_id), timeout_ms, expire)

    async def delete_group(self, group_id: str) -> Errors:
        """Delete an empty consumer group: its tombstones written (Kafka's ``createGroupTombstoneRecords``),
        then the group dropped.  The caller deletes its offsets.

        Returns:
            NONE; GROUP_ID_NOT_FOUND when it is gone; NON_EMPTY_GROUP while it has members; or the write's
            error as Kafka maps it.
        """
        async with self._lock(group_id):
            group = self._groups.get(group_id)
            if group is None:
                return Errors.GROUP_ID_NOT_FOUND
            try:
                group.validate_delete_group()
            except ConsumerGroupError as exc:
                return Errors[exc.error]
            records = consumer_group_admin.group_tombstones(group)
            error = await self._append(group_id, encode_records(records))
            if error != Errors.NONE:
                return _OPERATION_ERRORS.get(error, error)
            for record in records:
                self._replay(record)
            self._refresh_deadlines.pop(group_id, None)
            self._cancel_regex_refresh(group_id)
            return Errors.NONE

    # ---------------------------------------------------------------- describe

    def describe(self, request: ConsumerGroupDescribeRequest, version: int) -> ConsumerGroupDescribeResponse:
        """Answer a ConsumerGroupDescribe (Kafka's ``GroupCoordinatorService.consumerGroupDescribe``): an
        empty id is INVALID_GROUP_ID (answered first, as Kafka's); the others by ``__consumer_offsets``
        partition, each group described or GROUP_ID_NOT_FOUND with Kafka's message, or every group of a
        partition this broker does not coordinate answered NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS.

        Args:
            version: the request's version (the member type is sent from v1; the codec drops it before).
        """
        invalid = [
            ConsumerGroupDescribeGroup(group_id="", error_code=Errors.INVALID_GROUP_ID)
            for group_id in request.group_ids
            if not group_id
        ]
        by_partition: dict[int, list[str]] = {}
        for group_id in request.group_ids:
            if group_id:
                by_partition.setdefault(self._partition_for(group_id), []).append(group_id)
        described = []
        for group_ids in by_partition.values():
            error = self._coordinator_error(group_ids[0])
            for group_id in group_ids:
                if error != Errors.NONE:
                    described.append(ConsumerGroupDescribeGroup(group_id=group_id, error_code=error))
                else:
                    described.append(self._describe_one(group_id, request.include_authorized_operations))
        return ConsumerGroupDescribeResponse(groups=invalid + described)

    def _describe_one(self, group_id: str, include_authorized_operations: bool) -> ConsumerGroupDescribeGroup:
        group = self._groups.get(group_id)
        if group is None:
            message = (
                f"Group {group_id} is not a consumer group."
                if self._classic_group_state(group_id) is not None
                else f"Group {group_id} not found."
            )
            return ConsumerGroupDescribeGroup(
                group_id=group_id, error_code=Errors.GROUP_ID_NOT_FOUND, error_message=message
            )
        described = describe_consumer_group(
            group, self._settings.default_assignor, self._topics.topic_name_of
        )
        if include_authorized_operations:
            described.authorized_operations = GROUP_AUTHORIZED_OPERATIONS
        return described

    # ---------------------------------------------------------------- timers

    def _schedule_session_timeout(self, group_id: str, member_id: str) -> None:
        """(Re)start the member's session timer: the group's ``consumer.session.timeout.ms``, or the
        session timeout a classic member joined with (Kafka's ``classicProtocolSessionTimeout``)."""

        async def expire() -> None:
            await self._fence_if(group_id, member_id, None, "the member session expired")

        timeout_ms = self._settings_of(group_id).session_timeout_ms
        group = self._groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if member is not None and member.use_classic_protocol():
            timeout_ms = member.classic_member_metadata.session_timeout_ms
        self._timer.schedule(session_timeout_key(group_id, member_id), timeout_ms, expire)

    def _schedule_rebalance_timeout(self, group_id: str, member_id: str, epoch: int, timeout_ms: int) -> None:
        async def expire() -> None:
            await self._fence_if(group_id, member_id, epoch, "the member failed to revoke its partitions")

        self._timer.schedule(rebalance_timeout_key(group_id, member_id), timeout_ms, expire)

    def _cancel_timers(self, group_id: str, member_id: str) -> None:
        self._timer.cancel(session_timeout_key(group_id, member_id))
        self._timer.cancel(rebalance_timeout_key(group_id, member_id))
        self._timer.cancel(join_timeout_key(group_id, member_id))
        self._timer.cancel(sync_timeout_key(group_id, member_id))

    async def _fence_if(self, group_id: str, member_id: str, epoch: int | None, reason: str) -> None:
        """Fence ``member_id`` when it is still there (and, for a rebalance timeout, still at ``epoch``)."""
        async with self._lock(group_id):
            if self._coordinator_error(group_id) != Errors.NONE:
                return
            group = self._groups.get(group_id)
            member = group.members.get(member_id) if group is not None else None
            if group is None or member is None:
                return
            if epoch is not None and member.member_epoch != epoch:
                return
            logger.info(
                "[GroupId %s] Member %s fenced from the group because %s.", group_id, member_id, reason
            )
            result = consumer_group_fence_members(group, [member], None, self._topics)
            error = await self._write(group_id, result)
            if error == Errors.NONE:
                self._after_write(result)
            else:
                logger.warning("[GroupId %s] Fencing member %s failed: %s", group_id, member_id, error.name)

    # ---------------------------------------------------------------- load, unload, metadata

    def on_loaded(self, records_by_group: dict[str, list[Any]]) -> None:
        """A partition loaded: rebuild its consumer groups from their records in log order, then start every
        member's session timer (and the rebalance timer of members still revoking), as Kafka's
        ``onLoaded``."""
        for group_id, records in records_by_group.items():
            for record in records:
                self._replay(record)
            group = self._groups.get(group_id)
            if group is None:
                continue
            for member in group.members.values():
                self._schedule_session_timeout(group_id, member.member_id)
                if member.state.name == "UNREVOKED_PARTITIONS":
                    self._schedule_rebalance_timeout(
                        group_id, member.member_id, member.member_epoch, member.rebalance_timeout_ms
                    )
            logger.info(
                "Consumer group %s loaded: epoch %d, %s, %d members",
                group_id,
                group.group_epoch,
                group.state().value,
                group.num_members(),
            )

    def on_resignation(self, partition: int) -> None:
        """This broker no longer leads ``partition``: its consumer groups and their timers go."""
        for group_id in [g for g in self._groups if self._partition_for(g) == partition]:
            group = self._groups.pop(group_id)
            self._refresh_deadlines.pop(group_id, None)
            self._cancel_regex_refresh(group_id)
            for member_id in group.members:
                self._cancel_timers(group_id, member_id)

    def on_topics_changed(self, topics: Iterable[str]) -> None:
        """Topics were created, deleted or changed: groups subscribing to one recompute their metadata hash
        at their next heartbeat (Kafka's ``onMetadataUpdate`` -> ``requestMetadataRefresh``)."""
        changed = set(topics)
        # The metadata's version, Kafka's image offset: strictly increasing, in ms so that a group loaded
        # from another coordinator compares its resolutions' versions sensibly.
        self._metadata_version = max(self._metadata_version + 1, self._time.milliseconds())
        if changed - self._known_topics:
            self._last_version_with_new_topics = self._metadata_version
        self._known_topics = set(self._topics.topic_names())
        for group_id, group in self._groups.items():
            if any(group.is_subscribed_to_topic(t) for t in changed):
                self._refresh_deadlines[group_id] = MetadataRefreshDeadline()

    async def stop(self) -> None:
        """Cancel the timers and the regex resolutions, and await them."""
        await self._timer.stop()
        tasks = list(self._regex_tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=_REGEX_REFRESH_TIMEOUT_S)

    # ---------------------------------------------------------------- regex subscriptions

    def _maybe_refresh_regular_expressions(
        self, group_id: str, require_refresh: bool, may_describe: TopicDescribeCheck | None
    ) -> None:
        """Start resolving the group's regexes in the background when due (Kafka's
        ``maybeUpdateRegularExpressions`` scheduling ``<group>-regex`` on its executor): one resolution
        per group at a time, keeping the topics ``may_describe`` allows (None: every topic)."""
        group = self._groups.get(group_id)
        if group is None or group_id in self._regex_tasks:
            return
        now = self._time.milliseconds()
        regexes = regexes_to_refresh(
            group,
            require_refresh=require_refresh,
            now_ms=now,
            last_version_with_new_topics=self._last_version_with_new_topics,
            refresh_interval_ms=self._settings.regex_refresh_interval_ms,
        )
        if not regexes:
            return
        task = asyncio.get_running_loop().create_task(
            self._refresh_regular_expressions(group_id, regexes, self._metadata_version, may_describe),
            name=f"{group_id}-regex",
        )
        self._regex_tasks[group_id] = task
        task.add_done_callback(lambda done: self._regex_task_done(group_id, done))

    def _regex_task_done(self, group_id: str, task: asyncio.Task[None]) -> None:
        if self._regex_tasks.get(group_id) is task:
            del self._regex_tasks[group_id]
        if not task.cancelled() and task.exception() is not None:
            logger.error(
                "[GroupId %s] Couldn't update regular expression", group_id, exc_info=task.exception()
            )

    def _cancel_regex_refresh(self, group_id: str) -> None:
        task = self._regex_tasks.pop(group_id, None)
        if task is not None:
            task.cancel()

    async def _refresh_regular_expressions(
        self, group_id: str, regexes: frozenset[str], version: int, may_describe: TopicDescribeCheck | None
    ) -> None:
        """Resolve ``regexes`` over every topic, then write their RegularExpression records (and a group
        epoch bump when the topics or the hash changed) as Kafka's ``handleRegularExpressionsResult``."""
        async with asyncio.timeout(_REGEX_REFRESH_TIMEOUT_S):
            resolved = resolve_regular_expressions(regexes, self._topics.topic_names(), may_describe)
            async with self._lock(group_id):
                group = self._groups.get(group_id)
                if group is None or self._coordinator_error(group_id) != Errors.NONE:
                    logger.debug("[GroupId %s] Regex resolution done but the group is gone.", group_id)
                    return
                now = self._time.milliseconds()
                records, epoch = regular_expressions_result_records(
                    group, resolved, version, now, self._topics
                )
                if not records:
                    return
                error = await self._append(group_id, encode_records(records))
                if error != Errors.NONE:
                    logger.warning("[GroupId %s] Writing resolved regexes failed: %s", group_id, error.name)
                    return
                for record in records:
                    self._replay(record)
                if epoch is not None:
                    self._refresh_deadlines[group_id] = MetadataRefreshDeadline(
                        now + METADATA_REFRESH_INTERVAL_MS, epoch
                    )


TopicDescribeCheck = Callable[[str, int], bool]
"""``(topic, reference count) -> whether the heartbeating member may DESCRIBE the topic``."""

_REGEX_REFRESH_TIMEOUT_S = 30.0
"""Bound of one regex resolution, its wait for the partition's lock and its write included (s)."""


def _error(error: Errors, message: str | None) -> ConsumerGroupHeartbeatResponse:
    return ConsumerGroupHeartbeatResponse(error_code=error, error_message=message)
