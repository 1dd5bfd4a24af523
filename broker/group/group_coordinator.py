"""GroupCoordinator: answers a group's requests at the broker that coordinates it.

Owns: the checks Kafka makes before touching a group (a valid group id, this broker its
coordinator and done loading it), the groups' membership over time (Kafka's classic protocol:
JoinGroup with MEMBER_ID_REQUIRED, the join phase in the join purgatory, generations, the
leader's SyncGroup and the removal of members that send none within the rebalance timeout
(``DelayedSync``), heartbeats and session expiry in the heartbeat purgatory, LeaveGroup), the
rules of a commit (generation and member fencing, the partition exists, the metadata fits
``offset.metadata.max.bytes``), and turning requests into responses.  Owns its purgatories and
shuts them down on ``stop``.  Does not own storage (``GroupMetadataManager``) nor the group's
data model (``GroupMetadata``).

Kafka concept: ``GroupCoordinator`` (``handleJoinGroup``, ``handleSyncGroup``,
``handleHeartbeat``, ``handleLeaveGroup``, ``handleCommitOffsets``, ``handleFetchOffsets``,
``prepareRebalance``, ``onCompleteJoin``, ``onExpirePendingSync``, ``onExpireHeartbeat``,
``validateGroupStatus``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from kafkette.broker.group import consumer_group_admin
from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_coordinator import ConsumerGroupCoordinator
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.consumer_group_topics import MetadataCacheTopics
from kafkette.broker.group.coordinator_records import (
    GroupMetadataKey,
    GroupMetadataValue,
    MemberMetadataValue,
    OffsetCommitValue,
    encode_key,
    encode_value,
)
from kafkette.broker.group.delayed_heartbeat import DelayedHeartbeat
from kafkette.broker.group.delayed_join import DelayedJoin, InitialDelayedJoin
from kafkette.broker.group.delayed_sync import DelayedSync
from kafkette.broker.group.group_config_manager import GroupConfigManager
from kafkette.broker.group.group_metadata import GroupMetadata, GroupState, MemberMetadata
from kafkette.broker.group.group_metadata_manager import GroupMetadataManager
from kafkette.broker.group.offset_expiration import expired_consumer_group_offsets, expired_offsets
from kafkette.broker.group.pending_transactional_offsets import TransactionResult
from kafkette.broker.group.txn_offset_commit import (
    classic_txn_commit_error,
    unknown_group_txn_commit_error,
)
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.purgatory import DelayedOperationPurgatory
from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.group_admin import (
    DeletableGroupResult,
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DescribedGroup,
    DescribedGroupMember,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    ListedGroup,
    ListGroupsRequest,
    ListGroupsResponse,
    OffsetDeleteRequest,
    OffsetDeleteResponse,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    JoinGroupResponseMember,
    LeaveGroupRequest,
    LeaveGroupResponse,
    MemberResponse,
    SyncGroupRequest,
    SyncGroupResponse,
    join_error_response,
)
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
    OffsetFetchRequestGroup,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponseTopics,
)
from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

GROUP_NOT_FOUND_FROM_VERSION = 6
"""The first DescribeGroups version answering an unknown group GROUP_ID_NOT_FOUND (KIP-1043)."""
COMMIT_GROUP_NOT_FOUND_FROM_VERSION = 9
"""The first OffsetCommit version answering a commit with a generation to a group that does not exist
GROUP_ID_NOT_FOUND (KIP-848) rather than ILLEGAL_GENERATION."""

STOP_TIMEOUT_S = 5.0
ANSWER_MARGIN_MS = 5000
"""Added to a join or sync wait's own timeout as the bound of the wait itself."""
NO_METADATA = ""
"""The metadata OffsetFetch answers for a partition without a committed offset (Kafka's
``OffsetFetchResponse.NO_METADATA``)."""
MAX_GROUP_ID_BYTES = 32767
"""The longest group id (UTF-8 bytes) a record key of ``__consumer_offsets`` holds (an int16-length
string)."""


class GroupCoordinator:
    """The group requests of one broker.

    Args:
        manager: the offsets of the groups this broker coordinates.
        metadata_cache: which topics and partitions exist.
        offset_metadata_max_bytes: ``offset.metadata.max.bytes``.
        min_session_timeout_ms / max_session_timeout_ms: ``group.min.session.timeout.ms`` and
            ``group.max.session.timeout.ms``: a JoinGroup outside them gets INVALID_SESSION_TIMEOUT.
        initial_rebalance_delay_ms: ``group.initial.rebalance.delay.ms``.
        max_group_size: ``group.max.size``.
        offsets_retention_ms: ``offsets.retention.minutes`` in ms.
        retention_check_interval_ms: ``offsets.retention.check.interval.ms``.
        consumer_group_settings: the ``group.consumer.*`` settings of KIP-848 consumer groups
            (``ConsumerGroupCoordinator``, reachable as ``consumer_groups``); Kafka's defaults when None.
        group_config_manager: the groups' config overrides the consumer groups apply (reachable as
            ``consumer_groups.group_configs``); an unbounded empty one when None.
    """

    def __init__(
        self,
        manager: GroupMetadataManager,
        metadata_cache: MetadataCache,
        *,
        offset_metadata_max_bytes: int = 4096,
        min_session_timeout_ms: int = 6000,
        max_session_timeout_ms: int = 1800000,
        initial_rebalance_delay_ms: int = 3000,
        max_group_size: int = 2147483647,
        offsets_retention_ms: int = 7 * 24 * 3600 * 1000,
        retention_check_interval_ms: int = 600000,
        scheduler: KafkaScheduler | None = None,
        consumer_group_settings: ConsumerGroupSettings | None = None,
        group_config_manager: GroupConfigManager | None = None,
    ) -> None:
        self.manager = manager
        self._metadata_cache = metadata_cache
        self._offset_metadata_max_bytes = offset_metadata_max_bytes
        self._min_session_timeout_ms = min_session_timeout_ms
        self._max_session_timeout_ms = max_session_timeout_ms
        self._initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self._max_group_size = max_group_size
        self._offsets_retention_ms = offsets_retention_ms
        self._retention_check_interval_ms = retention_check_interval_ms
        self._scheduler = scheduler or KafkaScheduler(log_prefix="[GroupCoordinator scheduler]")
        self._time = self._scheduler.time
        self._groups: dict[str, GroupMetadata] = {}
        self._join_purgatory = DelayedOperationPurgatory("Rebalance", time=self._time)
        self._heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", time=self._time)
        self._writes: set[asyncio.Task[Any]] = set()  # writes after a group emptied or topics were deleted
        self._topics = MetadataCacheTopics(metadata_cache)
        manager.on_groups_loaded = self._on_groups_loaded
        self.consumer_groups = ConsumerGroupCoordinator(
            partition_for=manager.partition_for,
            coordinator_error=manager.coordinator_error,
            append=manager.append_records,
            topics=self._topics,
            settings=consumer_group_settings or ConsumerGroupSettings(new_assignors(["uniform", "range"])),
            time=self._time,
            classic_group_state=self._classic_group_state,
            drop_classic_group=self._drop_classic_group,
            classic_group=self._groups.get,
            group_configs=group_config_manager,
            classic_group_max_size=max_group_size,
            classic_group_record=self._classic_group_record,
            install_classic_group=self._install_downgraded_group,
        )
        manager.on_consumer_group_records = lambda _, records: self.consumer_groups.on_loaded(records)

    def _classic_group_state(self, group_id: str) -> str | None:
        """The classic group's state (``"Empty"``, ``"Stable"``, ...), None when there is none; a group
        known by its committed offsets alone is Kafka's Empty simple classic group."""
        group = self._groups.get(group_id)
        if group is not None and not group.is_in(GroupState.DEAD):
            return group.state.value
        return GroupState.EMPTY.value if self.manager.has_offsets(group_id) else None

    def _drop_classic_group(self, group_id: str) -> None:
        """Forget a classic group a consumer group replaces (an Empty one, or one converted by KIP-848's
        online upgrade): its members' pending JoinGroup and SyncGroup get REBALANCE_IN_PROGRESS (Kafka's
        ``completeAllJoinFutures`` / ``completeAllSyncFutures``), their session timers end, and the group
        is Dead, so its pending join and sync phases do nothing."""
        group = self._groups.pop(group_id, None)
        if group is None:
            return
        group.state = GroupState.DEAD
        for member in group.members.values():
            _answer_waiting(member, Errors.REBALANCE_IN_PROGRESS)
            if member.heartbeat is not None:
                member.heartbeat.satisfied = True
                self._heartbeat_purgatory.check_and_complete((group_id, member.member_id))

    def _classic_group_record(self, group: GroupMetadata) -> tuple[bytes, bytes | None]:
        """The GroupMetadata record of a classic group (a consumer group's online downgrade writes it)."""
        value = _metadata_value(group, self._time.milliseconds())
        return encode_key(GroupMetadataKey(group.group_id)), encode_value(value)

    def _install_downgraded_group(self, group: GroupMetadata, reason: str | None) -> None:
        """A consumer group became ``group`` (KIP-848's online downgrade, its records written): it is this
        coordinator's classic group, every member's session timer starts (Kafka's
        ``rescheduleClassicGroupMemberHeartbeat``) and, given a ``reason``, it rebalances, so that its
        members rejoin."""
        self._groups[group.group_id] = group
        for member in group.members.values():
            self._schedule_heartbeat(group, member)
        if reason is not None:
            self._prepare_rebalance(group, reason)

    def _group_error(self, group_id: str, allow_empty: bool = False) -> Errors:
        """Kafka's ``validateGroupStatus``: INVALID_GROUP_ID for an id longer than
        ``__consumer_offsets`` records can hold (``MAX_GROUP_ID_BYTES``) or, unless
        ``allow_empty``, an empty one; then whether this broker coordinates the group
        (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS).

        Kafka's ``isValidGroupId`` allows the empty id in OffsetCommit, OffsetFetch,
        DescribeGroups and DeleteGroups, for backwards compatibility (the offsets of a consumer
        without a group.id went there) and so that an admin can see and delete its state; the
        membership APIs and OffsetDelete need a group that coordinates members, never ``""``.
        """
        if (not group_id and not allow_empty) or len(group_id.encode("utf-8")) > MAX_GROUP_ID_BYTES:
            return Errors.INVALID_GROUP_ID
        return self.manager.coordinator_error(group_id)

    def _partition_exists(self, tp: TopicPartition) -> bool:
        return self._metadata_cache.partition_state(tp) is not None

    def group(self, group_id: str) -> GroupMetadata | None:
        """The group's membership here, None when this broker has none for it."""
        return self._groups.get(group_id)

    # ------------------------------------------------------------------ JoinGroup

    async def handle_join_group(
        self,
        request: JoinGroupRequest,
        client_id: str,
        client_host: str,
        supports_skip_assignment: bool = True,
    ) -> JoinGroupResponse:
        """JoinGroup: MEMBER_ID_REQUIRED with a new id for a dynamic member without one; otherwise
        the answer of the join phase it takes part in (a new generation), or at once, in the
        current generation, when a member rejoins with the same metadata a group in
        CompletingRebalance or a Stable group it follows (Kafka's
        ``classicGroupJoinExistingMember``).  A static member (with
        ``group_instance_id``, KIP-345) gets its id at once; one rejoining without an id
        replaces its older instance (which is fenced: FENCED_INSTANCE_ID) and, in a Stable group
        with the same metadata, keeps its assignment without a rebalance (``supports_skip_assignment``:
        the request's version answers KIP-814's ``skip_assignment``, JoinGroup v9+)."""
        error = self._group_error(request.group_id)
        if error == Errors.NONE and not (
            self._min_session_timeout_ms <= request.session_timeout_ms <= self._max_session_timeout_ms
        ):
            error = Errors.INVALID_SESSION_TIMEOUT
        if error != Errors.NONE:
            return join_error_response(error, request.member_id)
        answer = await self.consumer_groups.classic_join(request, client_id, client_host)
        if answer is not None:  # a classic member inside a consumer group (KIP-848's mixed groups)
            return answer
        error = await self._clear_empty_consumer_group(request.group_id)
        if error != Errors.NONE:
            return join_error_response(error, request.member_id)
        group = self._groups.get(request.group_id)
        if group is None:
            if request.member_id:
                return join_error_response(Errors.UNKNOWN_MEMBER_ID, request.member_id)
            group = self._groups[request.group_id] = GroupMetadata(request.group_id)
        protocols = [(p.name, p.metadata) for p in request.protocols]
        if group.is_in(GroupState.DEAD):
            return join_error_response(Errors.COORDINATOR_NOT_AVAILABLE, request.member_id)
        if not group.supports(request.protocol_type, protocols):
            return join_error_response(Errors.INCONSISTENT_GROUP_PROTOCOL, request.member_id)
        # as given, 0 and -1 too (Kafka keeps any v1+ value; its pending-sync and join timers then fire at
        # once); v0's, which the request has no field for, the handler made the session timeout, as Kafka's
        # JoinGroupRequest does
        rebalance_timeout_ms = request.rebalance_timeout_ms
        instance_id = request.group_instance_id
        member_id = request.member_id
        reason = _join_reason(request)
        if not member_id:
            known_static = instance_id is not None and instance_id in group.static_members
            if not known_static and len(group.members) + len(group.pending_members) >= self._max_group_size:
                return join_error_response(Errors.GROUP_MAX_SIZE_REACHED)
            member_id = _new_member_id(client_id, instance_id)
            if instance_id is None:
                group.pending_members.add(member_id)
                return join_error_response(Errors.MEMBER_ID_REQUIRED, member_id)
            if known_static:
                return await self._rejoin_static_member(
                    group,
                    instance_id,
                    member_id,
                    protocols,
                    request.session_timeout_ms,
                    rebalance_timeout_ms,
                    reason,
                    supports_skip_assignment,
                )
            group.pending_members.add(member_id)  # a new static member joins at once, with this id
        elif group.is_static_member_fenced(instance_id, member_id):
            return join_error_response(Errors.FENCED_INSTANCE_ID, member_id)
        member = group.members.get(member_id)
        if member is None and member_id not in group.pending_members:
            return join_error_response(Errors.UNKNOWN_MEMBER_ID, member_id)
        loop = asyncio.get_running_loop()
        if member is None:
            group.pending_members.discard(member_id)
            member = MemberMetadata(
                member_id,
                client_id,
                client_host,
                request.session_timeout_ms,
                rebalance_timeout_ms,
                request.protocol_type,
                protocols,
                last_heartbeat_ms=self._time.monotonic_ms(),
                group_instance_id=instance_id,
            )
            if group.is_in(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
                group.new_member_added = True  # the initial delay waits once more (Kafka's newMemberAdded)
            group.add(member)
            member.join_future = loop.create_future()
            self._prepare_rebalance_if_needed(
                group,
                f"Adding new member {member_id} with group instance id "
                f"{instance_id if instance_id is not None else 'null'}; client reason: {reason}",
            )
        else:
            changed = member.protocols != protocols
            member.protocols, member.session_timeout_ms = protocols, request.session_timeout_ms
            member.rebalance_timeout_ms, member.last_heartbeat_ms = (
                rebalance_timeout_ms,
                self._time.monotonic_ms(),
            )
            if not changed and (
                group.is_in(GroupState.COMPLETING_REBALANCE)
                or (group.is_in(GroupState.STABLE) and member_id != group.leader_id)
            ):
                # nothing changed (its JoinGroup answer may have been lost): the current generation,
                # the leader with the members again; only a Stable group's leader always rebalances
                return self._join_answer(group, member)
            member.join_future = loop.create_future()
            if group.is_in(GroupState.PREPARING_REBALANCE):
                self._join_purgatory.check_and_complete(group.group_id)
            else:
                rejoin = (
                    f"Leader {member_id} re-joining group"
                    if group.is_in(GroupState.STABLE) and member_id == group.leader_id
                    else f"Updating metadata for member {member_id}"
                )
                self._prepare_rebalance_if_needed(
                    group, f"{rejoin} during {group.state.value}; client reason: {reason}"
                )
        return await self._await_join(member)

    async def _clear_empty_consumer_group(self, group_id: str) -> Errors:
        """A JoinGroup to an empty KIP-848 consumer group: it is deleted first and the id becomes a
        classic group (Kafka's ``maybeDeleteEmptyConsumerGroup``; a consumer group with members serves
        the classic member itself, ``ConsumerGroupCoordinator.classic_join``)."""
        consumer_group = self.consumer_groups.group(group_id)
        if consumer_group is None:
            return Errors.NONE
        return await self.consumer_groups.delete_group(group_id)

    async def _await_join(self, member: MemberMetadata) -> JoinGroupResponse:
        future = member.join_future
        assert future is not None
        try:
            return await asyncio.wait_for(
                asyncio.shield(future), (member.rebalance_timeout_ms + ANSWER_MARGIN_MS) / 1000
            )
        except TimeoutError:
            return join_error_response(Errors.REBALANCE_IN_PROGRESS, member.member_id)

    async def _rejoin_static_member(
        self,
        group: GroupMetadata,
        instance_id: str,
        new_member_id: str,
        protocols: list[tuple[str, bytes]],
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
        reason: str,
        supports_skip_assignment: bool,
    ) -> JoinGroupResponse:
        """A restarted static member (Kafka's ``updateStaticMemberThenRebalanceOrCompleteJoin``):
        its older instance is fenced, it takes over that member's place under a new id, and a
        Stable group whose metadata did not change keeps its generation and assignment.  So that
        the member does not assign: from JoinGroup v9 (KIP-814) a leader is answered as the leader,
        with the members, and ``skip_assignment``; before, the answer lists no members and names the
        leader as it was (the old id)."""
        old_id = group.static_members[instance_id]
        member = group.members[old_id]
        current_leader = group.leader_id
        _answer_waiting(member, Errors.FENCED_INSTANCE_ID)
        if member.heartbeat is not None:  # the session timer is watched under the old id
            member.heartbeat.satisfied = True
            self._heartbeat_purgatory.check_and_complete((group.group_id, old_id))
            member.heartbeat = None
        group.replace_static_member(instance_id, new_member_id)
        logger.info(
            "Group %s: static member %s rejoined as %s (was %s)",
            group.group_id,
            instance_id,
            new_member_id,
            old_id,
        )
        changed = member.protocols != protocols
        member.protocols, member.session_timeout_ms = protocols, session_timeout_ms
        member.rebalance_timeout_ms = rebalance_timeout_ms
        if group.is_in(GroupState.STABLE) and not changed:
            self._schedule_heartbeat(group, member)
            # Before v9 Kafka answers the leader as it was (the old id): a static leader coming back must
            # not see itself as leader and compute an assignment a Stable group would never hand out;
            # from v9 (KIP-814) it names the new id and tells that leader to skip the assignment
            skip = supports_skip_assignment and group.leader_id == new_member_id
            return JoinGroupResponse(
                error_code=Errors.NONE,
                generation_id=group.generation_id,
                protocol_type=group.protocol_type,
                protocol_name=group.protocol_name,
                leader=(group.leader_id if supports_skip_assignment else current_leader) or "",
                skip_assignment=skip,
                member_id=new_member_id,
                members=_current_members(group) if skip else [],
            )
        member.join_future = asyncio.get_running_loop().create_future()
        self._prepare_rebalance_if_needed(
            group,
            f"Group's selectedProtocol will change because static member {new_member_id} with instance id "
            f"{instance_id} joined with change of protocol; client reason: {reason}"
            if group.is_in(GroupState.STABLE)
            else f"Updating metadata for static member {new_member_id} with instance id {instance_id}; "
            f"client reason: {reason}",
        )
        return await self._await_join(member)

    def _join_answer(self, group: GroupMetadata, member: MemberMetadata) -> JoinGroupResponse:
        is_leader = member.member_id == group.leader_id
        members = (
            [
                JoinGroupResponseMember(member_id=m.member_id, metadata=m.metadata(group.protocol_name or ""))
                for m in group.members.values()
            ]
            if is_leader
            else []
        )
        return JoinGroupResponse(
            error_code=Errors.NONE,
            generation_id=group.generation_id,
            protocol_type=group.protocol_type,
            protocol_name=group.protocol_name,
            leader=group.leader_id or "",
            member_id=member.member_id,
            members=members,
        )

    def _prepare_rebalance_if_needed(self, group: GroupMetadata, reason: str) -> None:
        if group.is_in(GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY):
            self._prepare_rebalance(group, reason)
        elif group.is_in(GroupState.PREPARING_REBALANCE):
            self._join_purgatory.check_and_complete(group.group_id)

    def _prepare_rebalance(self, group: GroupMetadata, reason: str) -> None:
        """Start a join phase (Kafka's ``prepareRebalance``): members waiting for their
        assignment get REBALANCE_IN_PROGRESS, and the join purgatory waits for every member."""
        if group.is_in(GroupState.COMPLETING_REBALANCE):
            for m in group.members.values():
                m.assignment = b""
                if m.awaiting_sync:
                    assert m.sync_future is not None
                    m.sync_future.set_result(SyncGroupResponse(error_code=Errors.REBALANCE_IN_PROGRESS))
        initial = group.is_in(GroupState.EMPTY)
        group.transition_to(GroupState.PREPARING_REBALANCE)
        timeout_ms = _rebalance_timeout_ms(group)
        logger.info(
            "Preparing to rebalance group %s in state %s with old generation %d (reason: %s)",
            group.group_id,
            group.state.value,
            group.generation_id,
            reason,
        )
        if initial:
            delay = self._initial_rebalance_delay_ms
            operation: DelayedJoin | InitialDelayedJoin = InitialDelayedJoin(
                self._join_purgatory,
                group,
                delay,
                max(0, timeout_ms - delay),
                self._complete_join,
            )
        else:
            operation = DelayedJoin(group, timeout_ms, self._complete_join)
        self._join_purgatory.try_complete_else_watch(operation, [group.group_id])

    def _complete_join(self, group: GroupMetadata) -> None:
        """End the join phase (Kafka's ``onCompleteJoin``): dynamic members that did not rejoin go
        (a static one stays, until its session ends), a member that rejoined leads if the leader
        did not, the generation advances, and every joined member gets its answer and a new
        session.  When only static members that did not rejoin are left, the phase waits another
        rebalance timeout (Kafka's ``maybeElectNewJoinedLeader`` failing)."""
        if self._groups.get(group.group_id) is not group or not group.is_in(GroupState.PREPARING_REBALANCE):
            return
        for member in [
            m for m in group.members.values() if not m.awaiting_join and m.group_instance_id is None
        ]:
            logger.info(
                "Group %s: member %s did not rejoin in time; removing it", group.group_id, member.member_id
            )
            group.remove(member.member_id)
        leader = group.members.get(group.leader_id) if group.leader_id is not None else None
        if group.members and (leader is None or not leader.awaiting_join):
            joined = [m.member_id for m in group.members.values() if m.awaiting_join]
            if not joined:
                logger.info(
                    "Group %s: no member rejoined; waiting for the static members' sessions", group.group_id
                )
                self._join_purgatory.try_complete_else_watch(
                    DelayedJoin(group, _rebalance_timeout_ms(group), self._complete_join), [group.group_id]
                )
                return
            group.leader_id = joined[0]
        group.pending_members.clear()
        group.init_next_generation()
        if group.is_in(GroupState.EMPTY):
            # the stored members are gone too (Kafka's storeGroup of an empty group)
            group.empty_since_ms = now_ms = self._time.milliseconds()
            task = asyncio.get_running_loop().create_task(
                self.manager.store_group(group.group_id, _metadata_value(group, now_ms)),
                name=f"store-group-{group.group_id}",
            )
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)
        logger.info(
            "Group %s: generation %d (%s) with %d members",
            group.group_id,
            group.generation_id,
            group.protocol_name,
            len(group.members),
        )
        for member in group.members.values():
            if member.awaiting_join:
                assert member.join_future is not None
                member.join_future.set_result(self._join_answer(group, member))
            self._schedule_heartbeat(group, member)
        if group.members:
            self._join_purgatory.try_complete_else_watch(
                DelayedSync(
                    group, group.generation_id, _rebalance_timeout_ms(group), self._on_expire_pending_sync
                ),
                [DelayedSync.key(group.group_id)],
            )

    def _on_expire_pending_sync(self, group: GroupMetadata, generation_id: int) -> None:
        """The rebalance timeout passed since the join phase (Kafka's ``onExpirePendingSync``):
        the members that sent no SyncGroup go, and the group rebalances without them."""
        if (
            self._groups.get(group.group_id) is not group
            or group.generation_id != generation_id
            or not group.is_in(GroupState.COMPLETING_REBALANCE, GroupState.STABLE)
            or not group.pending_sync_members
        ):
            return
        gone = sorted(group.pending_sync_members)
        for member_id in gone:
            member = group.remove(member_id)
            if member is not None:
                _answer_waiting(member, Errors.UNKNOWN_MEMBER_ID)
        self._prepare_rebalance(group, f"removing {gone} on pending sync request expiration")

    def _synced(self, group: GroupMetadata, member_id: str) -> None:
        """``member_id`` sent its SyncGroup for the current generation."""
        if member_id in group.pending_sync_members:
            group.pending_sync_members.discard(member_id)
            self._join_purgatory.check_and_complete(DelayedSync.key(group.group_id))

    # ------------------------------------------------------------------ SyncGroup

    async def handle_sync_group(self, request: SyncGroupRequest) -> SyncGroupResponse:
        """SyncGroup: the leader's assignments are handed to every member; a follower waits for
        them (up to its rebalance timeout).  Checked first, as Kafka's ``validateSyncGroup``: the
        member (FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID), its generation (ILLEGAL_GENERATION), then
        the protocol type and name a v5+ request names (INCONSISTENT_GROUP_PROTOCOL when they are
        not the group's)."""
        if self._group_error(request.group_id) == Errors.NONE:
            answer = self.consumer_groups.classic_sync(request)
            if answer is not None:  # a classic member inside a consumer group (KIP-848's mixed groups)
                return answer
        error = self._group_error(request.group_id)
        group = self._groups.get(request.group_id)
        member = group.members.get(request.member_id) if group is not None else None
        if error == Errors.NONE:
            error = (
                Errors.UNKNOWN_MEMBER_ID
                if group is None
                else group.validate_member(request.member_id, request.group_instance_id)
            )
        if error == Errors.NONE and request.generation_id != group.generation_id:  # type: ignore[union-attr]
            error = Errors.ILLEGAL_GENERATION
        if error == Errors.NONE and (
            _inconsistent(request.protocol_type, group.protocol_type)  # type: ignore[union-attr]
            or _inconsistent(request.protocol_name, group.protocol_name)
        ):  # type: ignore[union-attr]
            error = Errors.INCONSISTENT_GROUP_PROTOCOL
        if error != Errors.NONE:
            return SyncGroupResponse(error_code=error)
        assert group is not None and member is not None
        if group.is_in(GroupState.PREPARING_REBALANCE):
            return SyncGroupResponse(error_code=Errors.REBALANCE_IN_PROGRESS)
        if group.is_in(GroupState.STABLE):
            self._synced(group, member.member_id)
            self._schedule_heartbeat(group, member)
            return self._sync_answer(group, member)
        if not group.is_in(GroupState.COMPLETING_REBALANCE):
            return SyncGroupResponse(error_code=Errors.UNKNOWN_MEMBER_ID)
        self._synced(group, member.member_id)
        member.sync_future = asyncio.get_running_loop().create_future()
        if request.member_id == group.leader_id:
            assignments = {a.member_id: a.assignment for a in request.assignments}
            for m in group.members.values():
                m.assignment = assignments.get(m.member_id, b"")
            generation = group.generation_id
            code = await self.manager.store_group(
                group.group_id, _metadata_value(group, self._time.milliseconds())
            )
            if (
                self._groups.get(group.group_id) is group
                and group.generation_id == generation
                and group.is_in(GroupState.COMPLETING_REBALANCE)
            ):
                if code == Errors.NONE:
                    group.transition_to(GroupState.STABLE)
                    for m in group.members.values():
                        if m.awaiting_sync:
                            assert m.sync_future is not None
                            m.sync_future.set_result(self._sync_answer(group, m))
                else:  # Kafka: the members get the error and the group rebalances
                    for m in group.members.values():
                        if m.awaiting_sync:
                            assert m.sync_future is not None
                            m.sync_future.set_result(SyncGroupResponse(error_code=code))
                    self._prepare_rebalance(group, f"writing the group's metadata failed: {code.name}")
        future = member.sync_future
        try:
            answer = await asyncio.wait_for(
                asyncio.shield(future), (member.rebalance_timeout_ms + ANSWER_MARGIN_MS) / 1000
            )
        except TimeoutError:
            answer = SyncGroupResponse(error_code=Errors.REBALANCE_IN_PROGRESS)
        if self._groups.get(group.group_id) is group and group.members.get(member.member_id) is member:
            self._schedule_heartbeat(group, member)
        return answer

    @staticmethod
    def _sync_answer(group: GroupMetadata, member: MemberMetadata) -> SyncGroupResponse:
        return SyncGroupResponse(
            error_code=Errors.NONE,
            protocol_type=group.protocol_type,
            protocol_name=group.protocol_name,
            assignment=member.assignment,
        )

    # ------------------------------------------------------------------ Heartbeat and LeaveGroup

    def handle_heartbeat(self, request: HeartbeatRequest) -> HeartbeatResponse:
        """Heartbeat: NONE keeps the session; REBALANCE_IN_PROGRESS tells the member to rejoin."""
        error = self._group_error(request.group_id)
        group = self._groups.get(request.group_id)
        member = group.members.get(request.member_id) if group is not None else None
        if error != Errors.NONE:
            return HeartbeatResponse(error_code=error)
        answer = self.consumer_groups.classic_heartbeat(request)
        if answer is not None:  # a classic member inside a consumer group (KIP-848's mixed groups)
            return answer
        if group is None or group.is_in(GroupState.EMPTY, GroupState.DEAD):
            return HeartbeatResponse(error_code=Errors.UNKNOWN_MEMBER_ID)
        error = group.validate_member(request.member_id, request.group_instance_id)
        if error != Errors.NONE or member is None:
            return HeartbeatResponse(error_code=error)
        if request.generation_id != group.generation_id:
            return HeartbeatResponse(error_code=Errors.ILLEGAL_GENERATION)
        self._schedule_heartbeat(group, member)
        if group.is_in(GroupState.PREPARING_REBALANCE):
            return HeartbeatResponse(error_code=Errors.REBALANCE_IN_PROGRESS)
        return HeartbeatResponse(error_code=Errors.NONE)

    async def leave_group(self, request: LeaveGroupRequest) -> LeaveGroupResponse:
        """LeaveGroup: to a KIP-848 consumer group, its members named are fenced
        (``ConsumerGroupCoordinator.classic_leave``); to a classic group, ``handle_leave_group``."""
        if self._group_error(request.group_id) == Errors.NONE:
            answer = await self.consumer_groups.classic_leave(request)
            if answer is not None:
                return answer
        return self.handle_leave_group(request)

    def handle_leave_group(self, request: LeaveGroupRequest) -> LeaveGroupResponse:
        """LeaveGroup: each member named leaves at once and a Stable or CompletingRebalance group
        rebalances, even when the one leaving was only pending (given a member id by
        MEMBER_ID_REQUIRED, never joined with it), as Kafka's ``classicGroupLeaveToClassicGroup``
        does for every valid member that leaves.  Each answer echoes the member id the request
        named: empty for a static member removed by its ``group.instance.id`` alone.  Each member
        that leaves is logged with the reason its client gave (KIP-800, LeaveGroup v5+; "not
        provided" without one), in Kafka's words."""
        error = self._group_error(request.group_id)
        if error != Errors.NONE:
            return LeaveGroupResponse(error_code=error)
        group = self._groups.get(request.group_id)
        answers = []
        for identity in request.members:
            reason = identity.reason if identity.reason is not None else "not provided"  # KIP-800, v5+
            member_id = (
                identity.member_id
            )  # the answer echoes the request's, empty for a leave by instance id
            if group is not None and identity.group_instance_id is not None and not member_id:
                member_id = group.static_members.get(identity.group_instance_id, "")  # leave by instance
            if (
                group is not None
                and identity.group_instance_id is not None
                and group.validate_member(member_id, identity.group_instance_id) != Errors.NONE
            ):
                answers.append(
                    MemberResponse(
                        member_id=identity.member_id,
                        group_instance_id=identity.group_instance_id,
                        error_code=group.validate_member(member_id, identity.group_instance_id),
                    )
                )
                continue
            known = group is not None and member_id in group.members
            if known:
                assert group is not None
                self._remove_member(
                    group,
                    group.members[member_id],
                    f"Member {member_id} has left group through explicit `LeaveGroup` request; "
                    f"client reason: {reason}",
                )
            elif group is not None and member_id in group.pending_members:
                group.pending_members.discard(member_id)
                known = True
                logger.info(
                    "Group %s: Pending member %s has left group through explicit `LeaveGroup` request; "
                    "client reason: %s",
                    group.group_id,
                    member_id,
                    reason,
                )
                if group.is_in(GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
                    # as Kafka does for any member that leaves
                    self._prepare_rebalance(
                        group, f"explicit `LeaveGroup` request for pending member {member_id}"
                    )
                else:
                    self._join_purgatory.check_and_complete(group.group_id)
            answers.append(
                MemberResponse(
                    member_id=identity.member_id,
                    group_instance_id=identity.group_instance_id,
                    error_code=Errors.NONE if known else Errors.UNKNOWN_MEMBER_ID,
                )
            )
        return LeaveGroupResponse(error_code=Errors.NONE, members=answers)

    def _schedule_heartbeat(self, group: GroupMetadata, member: MemberMetadata) -> None:
        """Complete the member's pending session timer and start a new one (Kafka's
        ``completeAndScheduleNextHeartbeatExpiration``)."""
        member.last_heartbeat_ms = self._time.monotonic_ms()
        key = (group.group_id, member.member_id)
        if member.heartbeat is not None:
            member.heartbeat.satisfied = True
            self._heartbeat_purgatory.check_and_complete(key)
        member.heartbeat = DelayedHeartbeat(group, member, self._on_expire_heartbeat)
        self._heartbeat_purgatory.try_complete_else_watch(member.heartbeat, [key])

    def _on_expire_heartbeat(
        self, group: GroupMetadata, member: MemberMetadata, operation: DelayedHeartbeat
    ) -> None:
        if (
            self._groups.get(group.group_id) is not group
            or group.members.get(member.member_id) is not member
            or member.heartbeat is not operation
        ):
            return
        if member.awaiting_join or member.awaiting_sync:  # the join phase bounds those waits itself
            self._schedule_heartbeat(group, member)
            return
        self._remove_member(
            group,
            member,
            f"member {member.member_id} has not heartbeated for "
            f"{member.session_timeout_ms} ms (session.timeout.ms)",
        )

    def _remove_member(self, group: GroupMetadata, member: MemberMetadata, reason: str) -> None:
        """Remove a member (Kafka's ``removeMemberAndUpdateGroup``) and rebalance what remains."""
        logger.info("Group %s: %s", group.group_id, reason)
        group.remove(member.member_id)
        _answer_waiting(member, Errors.UNKNOWN_MEMBER_ID)
        if group.is_in(GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self._prepare_rebalance(group, reason)
        elif group.is_in(GroupState.PREPARING_REBALANCE):
            self._join_purgatory.check_and_complete(group.group_id)

    # ------------------------------------------------------------------ offsets

    def _commit_group_error(self, request: OffsetCommitRequest, version: int) -> Errors:
        """Who may commit to the group now, checked in the order of Kafka's
        ``ClassicGroup.validateOffsetCommit``: Dead; a simple commit (generation -1) to an Empty
        group; the member (``validate_member``) and its generation; then CompletingRebalance.
        A generation for a group that does not exist is ILLEGAL_GENERATION before OffsetCommit v9
        and GROUP_ID_NOT_FOUND from v9 (``OffsetMetadataManager.validateOffsetCommit``, KIP-848)."""
        consumer_group = self.consumer_groups.group(request.group_id)
        if consumer_group is not None:
            return consumer_group_admin.commit_error(
                consumer_group, request, version, self._topics.topic_id_of, self._metadata_fits
            )
        group = self._groups.get(request.group_id)
        if group is None and request.generation_id >= 0:
            # a generation of a group with no members here: Kafka's simple group (one with only
            # offsets) has no such member; a group it does not know at all, no such generation
            if self.manager.has_offsets(request.group_id):
                return Errors.UNKNOWN_MEMBER_ID
            if version >= COMMIT_GROUP_NOT_FOUND_FROM_VERSION:
                return Errors.GROUP_ID_NOT_FOUND
            return Errors.ILLEGAL_GENERATION
        if group is None or (request.generation_id < 0 and group.is_in(GroupState.EMPTY)):
            return Errors.NONE  # a commit outside group management (a simple consumer, an admin)
        if group.is_in(GroupState.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if request.generation_id >= 0 or request.member_id or request.group_instance_id is not None:
            error = group.validate_member_generation(
                request.member_id, request.group_instance_id, request.generation_id
            )
            if error != Errors.NONE:
                return error
        elif not group.is_in(GroupState.EMPTY):
            return Errors.UNKNOWN_MEMBER_ID  # no member id nor generation: only an Empty group takes it
        if group.is_in(GroupState.COMPLETING_REBALANCE):
            return (
                Errors.REBALANCE_IN_PROGRESS
            )  # a member that has its JoinGroup answer but not its assignment
        member = group.members.get(request.member_id)
        if member is not None:
            self._schedule_heartbeat(group, member)
        return Errors.NONE

    def _metadata_fits(self, metadata: str | None) -> bool:
        """Whether a commit's metadata fits ``offset.metadata.max.bytes`` (UTF-8 bytes)."""
        return len((metadata or "").encode("utf-8")) <= self._offset_metadata_max_bytes

    async def handle_commit_offsets(self, request: OffsetCommitRequest, version: int) -> OffsetCommitResponse:
        """OffsetCommit: every partition answered, the valid ones committed together.

        Args:
            request: topics by name (the handler has named the topics of a v10 request by their
                topic ids); each answer carries its request topic's ``topic_id`` back.
            version: the request's OffsetCommit version (GROUP_ID_NOT_FOUND from v9).
        """
        errors: dict[TopicPartition, Errors] = {}
        to_commit: dict[TopicPartition, OffsetCommitValue] = {}
        group_error = self._group_error(request.group_id, allow_empty=True)
        if group_error == Errors.NONE:
            group_error = self._commit_group_error(request, version)
        for topic in request.topics:
            for p in topic.partitions:
                tp = TopicPartition(topic.name, p.partition_index)
                metadata = p.committed_metadata or ""
                if group_error != Errors.NONE:
                    errors[tp] = group_error
                elif not self._partition_exists(tp):
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                elif not self._metadata_fits(metadata):
                    errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
                else:
                    to_commit[tp] = OffsetCommitValue(p.committed_offset, p.committed_leader_epoch, metadata)
        if to_commit:
            errors.update(await self.manager.store_offsets(request.group_id, to_commit))
        return OffsetCommitResponse(
            topics=[
                OffsetCommitResponseTopic(
                    name=topic.name,
                    topic_id=topic.topic_id,
                    partitions=[
                        OffsetCommitResponsePartition(
                            partition_index=p.partition_index,
                            error_code=errors[TopicPartition(topic.name, p.partition_index)],
                        )
                        for p in topic.partitions
                    ],
                )
                for topic in request.topics
            ]
        )

    def _txn_commit_group_error(self, request: TxnOffsetCommitRequest, version: int) -> Errors:
        """The group-level error of a TxnOffsetCommit (``txn_offset_commit``), NONE when it may commit."""
        error = self._group_error(request.group_id)
        if error != Errors.NONE:
            return error
        consumer_group = self.consumer_groups.group(request.group_id)
        if consumer_group is not None:
            return consumer_group_admin.commit_error(
                consumer_group,
                request,
                version,
                self._topics.topic_id_of,
                self._metadata_fits,
                is_transactional=True,
            )
        group = self._groups.get(request.group_id)
        if group is not None:
            return classic_txn_commit_error(group, request)
        if self.manager.has_offsets(request.group_id):
            return classic_txn_commit_error(GroupMetadata(request.group_id), request)  # a simple group
        return unknown_group_txn_commit_error(request)

    async def commit_transactional_offsets(
        self, request: TxnOffsetCommitRequest, version: int
    ) -> TxnOffsetCommitResponse:
        """TxnOffsetCommit: the offsets a transactional producer commits for a group, written to
        ``__consumer_offsets`` as a transactional batch of ``request.producer_id``/``producer_epoch``
        and kept pending (invisible to OffsetFetch) until the transaction's marker
        (``on_transaction_completed``).

        Args:
            request: the topics the handler has authorized and found (partitions that exist).
            version: the request's TxnOffsetCommit version.

        Returns:
            Every partition answered: the group-level error (INVALID_GROUP_ID, NOT_COORDINATOR,
            COORDINATOR_LOAD_IN_PROGRESS, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
            COORDINATOR_NOT_AVAILABLE) on all of them, else OFFSET_METADATA_TOO_LARGE per partition, else
            the write's error (NONE once acknowledged).

        Kafka concept: ``GroupCoordinatorService.commitTransactionalOffsets`` /
        ``OffsetMetadataManager.commitTransactionalOffset``.
        """
        group_error = self._txn_commit_group_error(request, version)
        errors: dict[TopicPartition, Errors] = {}
        to_commit: dict[TopicPartition, OffsetCommitValue] = {}
        for topic in request.topics:
            for p in topic.partitions:
                tp = TopicPartition(topic.name, p.partition_index)
                if group_error != Errors.NONE:
                    errors[tp] = group_error
                elif not self._metadata_fits(p.committed_metadata):
                    errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
                else:
                    metadata = p.committed_metadata or ""
                    to_commit[tp] = OffsetCommitValue(p.committed_offset, p.committed_leader_epoch, metadata)
        if to_commit:
            errors.update(
                await self.manager.store_transactional_offsets(
                    request.group_id, request.producer_id, request.producer_epoch, to_commit
                )
            )
        return TxnOffsetCommitResponse(
            topics=[
                TxnOffsetCommitResponseTopic(
                    name=topic.name,
                    partitions=[
                        TxnOffsetCommitResponsePartition(
                            partition_index=p.partition_index,
                            error_code=errors[TopicPartition(topic.name, p.partition_index)],
                        )
                        for p in topic.partitions
                    ],
                )
                for topic in request.topics
            ]
        )

    def on_transaction_completed(
        self, producer_id: int, partitions: list[int], result: TransactionResult
    ) -> int:
        """A transaction's COMMIT or ABORT marker was written to these ``__consumer_offsets``
        partitions: ``producer_id``'s pending offsets of their groups become committed or are dropped
        (see ``GroupMetadataManager.complete_transaction``).

        Returns:
            How many offsets became committed.

        Kafka concept: ``GroupCoordinatorService.onTransactionCompleted``.
        """
        return self.manager.complete_transaction(producer_id, partitions, result)

    def handle_fetch_offsets(
        self, group: OffsetFetchRequestGroup, require_stable: bool = False
    ) -> OffsetFetchResponseGroup:
        """OffsetFetch of one group: the committed offset of each partition asked for (-1 and
        ``NO_METADATA`` when none, also in a group that does not exist), or of every partition the
        group has committed when ``topics`` is null; or only a group-level error (INVALID_GROUP_ID,
        NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS).

        A classic group checks no member: ``member_id``/``member_epoch`` (OffsetFetch v9+, KIP-848)
        are a consumer group member's, and Kafka's ``ClassicGroup.validateOffsetFetch`` ignores them.

        Args:
            group: topics by name (the handler has named the topics of a v10 request by their topic
                ids); each answered topic carries its request topic's ``topic_id`` back (zero for
                the topics of a null ``topics``).

        Returns:
            The group's answer: the topics and partitions asked, in the request's order (one asked
            twice answered twice, as Kafka's ``OffsetMetadataManager.fetchOffsets``); for a null
            ``topics``, topics sorted by name and partitions by index.

            require_stable: OffsetFetch v7+ (KIP-447): a partition with pending transactional offsets
                answers UNSTABLE_OFFSET_COMMIT (offset -1) instead of its committed offset.

        Kafka concept: ``GroupCoordinator.fetchOffsets`` / ``fetchAllOffsets``
        (``OffsetMetadataManager``).
        """
        group_error = self._group_error(group.group_id, allow_empty=True)
        consumer_group = self.consumer_groups.group(group.group_id)
        if group_error == Errors.NONE and consumer_group is not None:
            group_error = consumer_group_admin.fetch_error(consumer_group, group)
        if group_error != Errors.NONE:
            return OffsetFetchResponseGroup(group_id=group.group_id, error_code=group_error)
        asked = (
            None
            if group.topics is None
            else [TopicPartition(t.name, p) for t in group.topics for p in t.partition_indexes]
        )
        committed = self.manager.fetch_offsets(group.group_id, asked)
        if require_stable and group.topics is None:  # every partition committed or pending
            for tp in self.manager.pending_partitions(group.group_id):
                committed.setdefault(tp, None)

        def answer(tp: TopicPartition) -> OffsetFetchResponsePartition:
            if require_stable and self.manager.has_pending_transactional_offsets(group.group_id, tp):
                return OffsetFetchResponsePartition(
                    partition_index=tp.partition,
                    committed_offset=-1,
                    metadata=NO_METADATA,
                    error_code=Errors.UNSTABLE_OFFSET_COMMIT,
                )
            return _offset_fetch_partition(tp.partition, committed.get(tp))

        if group.topics is not None:  # in the request's order, a partition asked twice answered twice
            topics = [
                OffsetFetchResponseTopics(
                    name=t.name,
                    topic_id=t.topic_id,
                    partitions=[answer(TopicPartition(t.name, p)) for p in t.partition_indexes],
                )
                for t in group.topics
            ]
            return OffsetFetchResponseGroup(group_id=group.group_id, error_code=Errors.NONE, topics=topics)
        by_topic: dict[str, list[OffsetFetchResponsePartition]] = {}
        for tp in committed:
            by_topic.setdefault(tp.topic, []).append(answer(tp))
        return OffsetFetchResponseGroup(
            group_id=group.group_id,
            error_code=Errors.NONE,
            topics=[
                OffsetFetchResponseTopics(
                    name=name, topic_id=ZERO_UUID, partitions=sorted(parts, key=lambda e: e.partition_index)
                )
                for name, parts in sorted(by_topic.items())
            ],
        )

    # ------------------------------------------------------------------ administration

    def handle_list_groups(self, request: ListGroupsRequest) -> ListGroupsResponse:
        """ListGroups: the groups of the loaded partitions (an emptied group stays listed, Empty
        with its protocol type, until the periodic cleanup removes it when it has no offsets, as
        Kafka's), filtered by state; COORDINATOR_LOAD_IN_PROGRESS while a partition loads (with
        what is loaded)."""
        wanted = {s.lower() for s in request.states_filter}
        types = {t.lower() for t in request.types_filter or ()}
        listed = []
        consumer_groups = self.consumer_groups.groups
        for group_id in sorted(set(self._groups) | set(self.manager.group_ids()) | set(consumer_groups)):
            if group_id in consumer_groups:
                entry = consumer_group_admin.listed(consumer_groups[group_id])
            else:
                group = self._groups.get(group_id)
                entry = ListedGroup(
                    group_id=group_id,
                    group_state=group.state.value if group is not None else GroupState.EMPTY.value,
                    protocol_type=(group.protocol_type if group is not None else None) or "",
                    group_type=consumer_group_admin.CLASSIC_GROUP_TYPE,
                )
            if wanted and entry.group_state.lower() not in wanted:
                continue
            if types and entry.group_type not in types:
                continue
            listed.append(entry)
        code = Errors.COORDINATOR_LOAD_IN_PROGRESS if self.manager.loading() else Errors.NONE
        return ListGroupsResponse(error_code=code, groups=listed)

    def handle_describe_groups(
        self, request: DescribeGroupsRequest, version: int = GROUP_NOT_FOUND_FROM_VERSION
    ) -> DescribeGroupsResponse:
        """DescribeGroups: state, protocol and members of each group; an unknown group is Dead, with
        no error before v6 and, from v6 (KIP-1043), GROUP_ID_NOT_FOUND and Kafka's message, as
        Kafka's ``GroupMetadataManager.describeGroups`` answers it at the request's ``version``.
        A member's metadata is listed once the group is Stable, its assignment in every
        state: during a rebalance the one of the last generation, kept until the leader's next
        SyncGroup (empty for a member that joined since, and after a rebalance that interrupted
        CompletingRebalance), as Kafka's ``ClassicGroupMember.describeNoMetadata``."""
        described = []
        for group_id in request.groups:
            error = self._group_error(group_id, allow_empty=True)
            group = self._groups.get(group_id)
            if error != Errors.NONE:
                described.append(DescribedGroup(error_code=error, group_id=group_id))
            elif self.consumer_groups.group(group_id) is not None:
                described.append(consumer_group_admin.described(group_id, version))
            elif (group is None or group.is_in(GroupState.DEAD)) and not self.manager.has_offsets(group_id):
                not_found = version >= GROUP_NOT_FOUND_FROM_VERSION  # Dead either way
                described.append(
                    DescribedGroup(
                        error_code=Errors.GROUP_ID_NOT_FOUND if not_found else Errors.NONE,
                        error_message=f"Group {group_id} not found." if not_found else None,
                        group_id=group_id,
                        group_state=GroupState.DEAD.value,
                    )
                )
            elif group is None or group.is_in(GroupState.DEAD):
                state = GroupState.EMPTY  # only committed offsets: Kafka's simple-commit Empty group
                described.append(
                    DescribedGroup(error_code=Errors.NONE, group_id=group_id, group_state=state.value)
                )
            else:
                stable = group.is_in(GroupState.STABLE)
                described.append(
                    DescribedGroup(
                        error_code=Errors.NONE,
                        group_id=group_id,
                        group_state=group.state.value,
                        protocol_type=group.protocol_type or "",
                        protocol_data=(group.protocol_name or "") if stable else "",
                        members=[
                            DescribedGroupMember(
                                member_id=m.member_id,
                                group_instance_id=m.group_instance_id,
                                client_id=m.client_id,
                                client_host=m.client_host,
                                member_metadata=m.metadata(group.protocol_name or "") if stable else b"",
                                member_assignment=m.assignment,
                            )
                            for m in group.members.values()
                        ],
                    )
                )
        return DescribeGroupsResponse(groups=described)

    async def handle_delete_groups(self, request: DeleteGroupsRequest) -> DeleteGroupsResponse:
        """DeleteGroups: a group without members goes with its committed offsets (NON_EMPTY_GROUP
        while it has members, GROUP_ID_NOT_FOUND when unknown)."""
        results = []
        for group_id in request.groups_names:
            error = self._group_error(group_id, allow_empty=True)
            group = self._groups.get(group_id)
            consumer_group = self.consumer_groups.group(group_id)
            if error == Errors.NONE and consumer_group is not None:
                error = await self.consumer_groups.delete_group(group_id)
                if error == Errors.NONE:
                    error = await self.manager.delete_offsets(group_id, None)
            elif error == Errors.NONE:
                if group is not None and group.members:
                    error = Errors.NON_EMPTY_GROUP
                elif group is None and not self.manager.has_offsets(group_id):
                    error = Errors.GROUP_ID_NOT_FOUND
                else:
                    error = await self.manager.delete_offsets(group_id, None)
                    if (
                        error == Errors.NONE
                        and self._groups.get(group_id) is group
                        and group is not None
                        and not group.members
                    ):
                        del self._groups[group_id]
                        group.state = GroupState.DEAD
            results.append(DeletableGroupResult(group_id=group_id, error_code=error))
        return DeleteGroupsResponse(results=results)

    async def handle_offset_delete(self, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
        """OffsetDelete (Kafka's ``validateOffsetDelete`` then ``deleteOffsets``): the committed
        offsets of the topics no member of the current generation subscribes to are deleted,
        GROUP_SUBSCRIBED_TO_TOPIC for the others (``GroupMetadata.is_subscribed_to_topic``);
        UNKNOWN_TOPIC_OR_PARTITION for a partition the metadata does not have, as Kafka's
        ``handleOffsetDeleteRequest`` answers before the coordinator sees it.  The group-level
        errors, then nothing else: GROUP_ID_NOT_FOUND for an unknown or Dead group, NON_EMPTY_GROUP
        for a group with members that are not consumers (protocol type other than "consumer").

        A member counts until it leaves or its session ends (``session.timeout.ms`` without a
        heartbeat): after that its group may be Empty and every offset deletable.  A group known
        by its committed offsets alone is an Empty group from then on, even with none left, until
        the periodic cleanup removes it (``expire_offsets``): a DeleteGroups of it answers NONE."""
        error = self._group_error(request.group_id)
        group = self._groups.get(request.group_id)
        consumer_group = self.consumer_groups.group(request.group_id)
        if error == Errors.NONE and consumer_group is None:
            if (group is None and not self.manager.has_offsets(request.group_id)) or (
                group is not None and group.is_in(GroupState.DEAD)
            ):
                error = Errors.GROUP_ID_NOT_FOUND
            elif (
                group is not None
                and not group.uses_consumer_protocol
                and group.is_in(
                    GroupState.STABLE, GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE
                )
            ):
                error = Errors.NON_EMPTY_GROUP
        if error != Errors.NONE:
            return OffsetDeleteResponse(error_code=error)
        errors = {}
        to_delete = []
        for topic in request.topics:
            for partition in topic.partitions:
                tp = TopicPartition(topic.name, partition.partition_index)
                if not self._partition_exists(tp):
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                elif (group is not None and group.is_subscribed_to_topic(topic.name)) or (
                    consumer_group is not None and consumer_group.is_subscribed_to_topic(topic.name)
                ):
                    errors[tp] = Errors.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    to_delete.append(tp)
        if to_delete:
            code = await self.manager.delete_offsets(request.group_id, to_delete)
            errors.update(dict.fromkeys(to_delete, code))
            if group is None and self._groups.get(request.group_id) is None:
                # a group known by its offsets alone stays, Empty, once they are gone: Kafka's
                # group exists until the periodic cleanup (cleanupGroupMetadata) removes it
                self._groups[request.group_id] = GroupMetadata(request.group_id)
        return OffsetDeleteResponse(
            error_code=Errors.NONE,
            topics=[
                OffsetDeleteResponseTopic(
                    name=t.name,
                    partitions=[
                        OffsetDeleteResponsePartition(
                            partition_index=p.partition_index,
                            error_code=errors[TopicPartition(t.name, p.partition_index)],
                        )
                        for p in t.partitions
                    ],
                )
                for t in request.topics
            ],
        )

    def on_election(self, partition: int, leader_epoch: int) -> None:
        """This broker leads ``__consumer_offsets-<partition>`` now (see ``GroupMetadataManager``)."""
        self.manager.on_election(partition, leader_epoch)

    def on_resignation(self, partition: int) -> None:
        """This broker no longer leads ``__consumer_offsets-<partition>``: its groups' members
        waiting on a join or sync answer get NOT_COORDINATOR and the groups go."""
        self.manager.on_resignation(partition)
        self.consumer_groups.on_resignation(partition)
        for group_id in [g for g in self._groups if self.manager.partition_for(g) == partition]:
            self._unload(self._groups.pop(group_id))

    def _on_groups_loaded(self, values: dict[str, GroupMetadataValue]) -> None:
        """A partition loaded: its groups come back with their generation and members, Stable
        (Empty without members), every member's session started afresh (Kafka's
        ``GroupCoordinator.onGroupLoaded``)."""
        for group_id, value in values.items():
            if group_id in self._groups:
                continue
            group = GroupMetadata(
                group_id,
                generation_id=value.generation,
                protocol_type=value.protocol_type or None,
                protocol_name=value.protocol,
            )
            for m in value.members:
                group.add(
                    MemberMetadata(
                        m.member_id,
                        m.client_id,
                        m.client_host,
                        m.session_timeout_ms,
                        m.rebalance_timeout_ms,
                        value.protocol_type,
                        [(value.protocol or "", m.subscription)],
                        assignment=m.assignment,
                        last_heartbeat_ms=self._time.monotonic_ms(),
                        group_instance_id=m.group_instance_id,
                    )
                )
            group.leader_id = (
                value.leader if value.leader in group.members else next(iter(group.members), None)
            )
            group.state = GroupState.STABLE if group.members else GroupState.EMPTY
            group.subscribed_topics = group.compute_subscribed_topics()
            if not group.members and value.current_state_timestamp >= 0:
                group.empty_since_ms = value.current_state_timestamp
            self._groups[group_id] = group
            for member in group.members.values():
                self._schedule_heartbeat(group, member)
            logger.info(
                "Group %s loaded: generation %d, %s, %d members",
                group_id,
                group.generation_id,
                group.state.value,
                len(group.members),
            )

    def _unload(self, group: GroupMetadata) -> None:
        for member in group.members.values():
            _answer_waiting(member, Errors.NOT_COORDINATOR)
        group.members.clear()
        group.state = GroupState.DEAD

    # ------------------------------------------------------------------ offset expiration

    def start(self) -> None:
        """Schedule the deletion of expired offsets (every ``offsets.retention.check.interval.ms``;
        Kafka's ``delete-expired-group-metadata`` job)."""
        self._scheduler.schedule(
            "delete-expired-group-metadata",
            self._expire_now,
            delay_ms=self._retention_check_interval_ms,
            period_ms=self._retention_check_interval_ms,
        )

    async def _expire_now(self) -> None:
        await self.expire_offsets(self._time.milliseconds())

    async def expire_offsets(self, now_ms: int) -> int:
        """Delete the expired offsets of the groups here, and the groups left with neither members
        nor offsets (Kafka's ``cleanupGroupMetadata``): a classic group's offsets only while it has
        no members, a consumer group's offsets of the topics it does not subscribe to even while it
        has members (``offset_expiration``).

        Returns:
            How many offsets were deleted.
        """
        deleted = 0
        consumer_groups = self.consumer_groups.groups
        for group_id in sorted(set(self.manager.group_ids()) | set(self._groups) | set(consumer_groups)):
            if group_id in consumer_groups:
                deleted += await self._expire_consumer_group_offsets(group_id, now_ms)
                continue
            group = self._groups.get(group_id)
            if group is not None and not group.is_in(GroupState.EMPTY):
                continue  # a group with members keeps its offsets
            offsets = self.manager.fetch_offsets(group_id, None)
            expired = expired_offsets(
                offsets,
                now_ms,
                self._offsets_retention_ms,
                group.empty_since_ms if group is not None else None,
            )
            # an offset with a pending transactional offset is not expired yet (Kafka's cleanupExpiredOffsets)
            expired = [
                tp for tp in expired if not self.manager.has_pending_transactional_offsets(group_id, tp)
            ]
            if expired and await self.manager.delete_offsets(group_id, expired) == Errors.NONE:
                deleted += len(expired)
                logger.info("Group %s: deleted %d expired offsets", group_id, len(expired))
            await self._remove_if_dead(group_id, group)
        return deleted

    async def _expire_consumer_group_offsets(self, group_id: str, now_ms: int) -> int:
        """Kafka's ``OffsetMetadataManager.cleanupExpiredOffsets`` then ``maybeDeleteGroup`` for a
        KIP-848 consumer group: the expired offsets of unsubscribed topics are deleted; when none is
        left and the group is Empty, the group goes as DeleteGroups deletes it (its consumer group
        tombstones, then its group metadata tombstone).

        Returns:
            How many offsets were deleted.
        """
        group = self.consumer_groups.group(group_id)
        if group is None:
            return 0
        expired, all_expired = expired_consumer_group_offsets(
            self.manager.fetch_offsets(group_id, None),
            now_ms,
            self._offsets_retention_ms,
            group.is_subscribed_to_topic,
        )
        expired = [tp for tp in expired if not self.manager.has_pending_transactional_offsets(group_id, tp)]
        deleted = 0
        if expired:
            if await self.manager.delete_offsets(group_id, expired) != Errors.NONE:
                return 0
            deleted = len(expired)
            logger.info("Group %s: deleted %d expired offsets", group_id, deleted)
        if all_expired and not group.members and not self.manager.has_offsets(group_id):
            if await self.consumer_groups.delete_group(group_id) == Errors.NONE:
                await self.manager.delete_offsets(group_id, None)
                logger.info("Consumer group %s: deleted, Empty with no offsets left", group_id)
        return deleted

    async def _remove_if_dead(self, group_id: str, group: GroupMetadata | None) -> None:
        """A group left Empty with no offsets goes: its metadata is deleted and it is Dead (the
        end of Kafka's ``cleanupGroupMetadata``)."""
        if (
            group is not None
            and group.is_in(GroupState.EMPTY)
            and not self.manager.has_offsets(group_id)  # committed or pending transactional offsets
            and not group.pending_members
            and self._groups.get(group_id) is group
        ):
            if await self.manager.delete_offsets(group_id, None) == Errors.NONE and group.is_in(
                GroupState.EMPTY
            ):
                self._groups.pop(group_id, None)
                group.state = GroupState.DEAD

    def on_partitions_deleted(self, partitions: list[TopicPartition]) -> None:
        """Topics were deleted: the offsets committed for their partitions go, in the background
        (Kafka's ``handleDeletedPartitions``); an OffsetFetch of them answers -1 from then on."""
        if not partitions:
            return
        task = asyncio.get_running_loop().create_task(
            self.remove_deleted_partitions(set(partitions)), name="remove-offsets-of-deleted-partitions"
        )
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def remove_deleted_partitions(self, partitions: set[TopicPartition]) -> int:
        """Delete every offset committed here for ``partitions`` (and the groups this leaves Empty
        with nothing, as ``expire_offsets`` does).

        Returns:
            How many offsets were deleted.
        """
        removed = 0
        try:
            for group_id in self.manager.group_ids():
                # committed and pending transactional offsets alike (Kafka's onTopicsDeleted)
                held = [
                    *self.manager.fetch_offsets(group_id, None),
                    *self.manager.pending_partitions(group_id),
                ]
                gone = [tp for tp in dict.fromkeys(held) if tp in partitions]
                if gone and await self.manager.delete_offsets(group_id, gone) == Errors.NONE:
                    removed += len(gone)
                    await self._remove_if_dead(group_id, self._groups.get(group_id))
        except Exception:  # the top of a background task: log it, the offsets stay until the next delete
            logger.exception("Removing the offsets of deleted partitions failed")
            return removed
        if removed:
            logger.info("Removed %d offsets of deleted partitions %s", removed, sorted(map(str, partitions)))
        return removed

    async def stop(self) -> None:
        """Answer every waiting member NOT_COORDINATOR, shut the purgatories, stop loading."""
        for group in self._groups.values():
            self._unload(group)
        self._groups.clear()
        self._join_purgatory.shutdown()
        self._heartbeat_purgatory.shutdown()
        await self._scheduler.cancel("delete-expired-group-metadata", timeout_s=STOP_TIMEOUT_S)
        await cancel_and_wait(self._writes, STOP_TIMEOUT_S)
        await self.consumer_groups.stop()
        await self.manager.stop()


def _current_members(group: GroupMetadata) -> list[JoinGroupResponseMember]:
    """Every member with its static instance id and its metadata for the group's protocol, as a
    leader's JoinGroup answer lists them (Kafka's ``ClassicGroup.currentClassicGroupMembers``)."""
    return [
        JoinGroupResponseMember(
            member_id=m.member_id,
            group_instance_id=m.group_instance_id,
            metadata=m.metadata(group.protocol_name or ""),
        )
        for m in group.members.values()
    ]


def _join_reason(request: JoinGroupRequest) -> str:
    """The reason a member gives for (re)joining (KIP-800, JoinGroup v8+), or "not provided"
    (Kafka's ``JoinGroupRequest.joinReason``)."""
    return request.reason or "not provided"


def _rebalance_timeout_ms(group: GroupMetadata) -> int:
    """The group's rebalance timeout: the longest of its members', 0 when none is longer (Kafka's
    ``ClassicGroup.rebalanceTimeoutMs``: a group whose members gave -1 has its join and pending-sync
    timers fire at once)."""
    return max(0, max((m.rebalance_timeout_ms for m in group.members.values()), default=0))


def _new_member_id(client_id: str, group_instance_id: str | None) -> str:
    """A new member id (Kafka's ``ClassicGroup.generateMemberId``): the static member's
    ``group.instance.id``, else the client id, then a dash and a random UUID."""
    return f"{group_instance_id if group_instance_id is not None else client_id}-{uuid.uuid4()}"


def _inconsistent(requested: str | None, current: str | None) -> bool:
    """A protocol type or name a request names that is not the group's (Kafka's
    ``isProtocolInconsistent``: either side unset is consistent)."""
    return requested is not None and current is not None and requested != current


def _answer_waiting(member: MemberMetadata, error: Errors) -> None:
    """Answer ``error`` to a JoinGroup or SyncGroup of ``member`` still waiting."""
    if member.awaiting_join:
        assert member.join_future is not None
        member.join_future.set_result(join_error_response(error, member.member_id))
    if member.awaiting_sync:
        assert member.sync_future is not None
        member.sync_future.set_result(SyncGroupResponse(error_code=error))


def _metadata_value(group: GroupMetadata, now_ms: int) -> GroupMetadataValue:
    """The record of a group's generation and members (Kafka's ``GroupMetadataValue``), stamped
    ``now_ms`` (wall clock)."""
    protocol = group.protocol_name or ""
    return GroupMetadataValue(
        group.protocol_type or "",
        group.generation_id,
        group.protocol_name,
        group.leader_id,
        now_ms,
        tuple(
            MemberMetadataValue(
                m.member_id,
                m.group_instance_id,
                m.client_id,
                m.client_host,
                m.rebalance_timeout_ms,
                m.session_timeout_ms,
                m.metadata(protocol) if protocol else b"",
                m.assignment,
            )
            for m in group.members.values()
        ),
    )


def _offset_fetch_partition(partition: int, value: OffsetCommitValue | None) -> OffsetFetchResponsePartition:
    """One partition's OffsetFetch answer: its committed offset, leader epoch and metadata, or
    offset -1 and ``NO_METADATA`` when the group has none."""
    entry = OffsetFetchResponsePartition(
        partition_index=partition, committed_offset=-1, metadata=NO_METADATA, error_code=Errors.NONE
    )
    if value is not None:
        entry.committed_offset = value.offset
        entry.committed_leader_epoch = value.leader_epoch
        entry.metadata = value.metadata
    return entry
