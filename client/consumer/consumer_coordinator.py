"""ConsumerCoordinator: a consumer's membership in its group, its assignment and its commits.

Owns: the member id and generation; the background task that joins the group (JoinGroup, with
the member id MEMBER_ID_REQUIRED hands out), computes the assignment when this member leads
(the assignor the group chose, over the subscribed topics' partitions), gets its own
(SyncGroup), starts each assigned partition at the group's committed offset (else
``auto_offset_reset``), heartbeats every ``heartbeat_interval_ms``, rejoins when the group
rebalances, auto-commits every ``auto_commit_interval_ms``, and leaves the group when the
application has not polled for ``max_poll_interval_ms``; and ``commit`` / ``committed``.
Rebalancing is eager: before rejoining, the consumer commits (with auto-commit), tells the
listener the partitions are revoked and stops fetching them.  Owns its task and cancels and
awaits it on ``close``.  Does not own fetching (``Fetcher``) or positions
(``SubscriptionState``).

Kafka concept: ``ConsumerCoordinator`` over ``AbstractCoordinator`` (``joinGroupIfNeeded``,
``onJoinPrepare``, ``onJoinComplete``, ``performAssignment``, the heartbeat thread,
``maybeAutoCommitOffsetsAsync``, ``maybeLeaveGroup``), with aiokafka's shape.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafkette.client.consumer.assignors import COOPERATIVE, PartitionAssignor
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.client.group_coordinator_channel import GroupCoordinatorChannel
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.offset_and_metadata import (
    OffsetAndMetadata,
    commit_group_error,
    committed_offsets,
    offset_commit_request,
    raise_commit_errors,
)
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    JoinGroupRequest,
    JoinGroupRequestProtocol,
    JoinGroupResponse,
    LeaveGroupRequest,
    MemberIdentity,
    SyncGroupRequest,
    SyncGroupRequestAssignment,
)
from kafkette.protocol.apis.offsets import OffsetFetchRequest, OffsetFetchRequestTopic
from kafkette.protocol.consumer_protocol import (
    PROTOCOL_TYPE,
    Assignment,
    Subscription,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from kafkette.protocol.errors import Errors, KafkaError, KafkaTimeoutError, error_class, error_name
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT_S = 5.0
_FENCED = (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION)
_FATAL = frozenset(
    {
        Errors.INVALID_GROUP_ID,
        Errors.INVALID_SESSION_TIMEOUT,
        Errors.INCONSISTENT_GROUP_PROTOCOL,
        Errors.GROUP_MAX_SIZE_REACHED,
        Errors.FENCED_INSTANCE_ID,
    }
)
"""Group errors the consumer cannot get past by retrying: ``poll`` raises them."""


class ConsumerRebalanceListener:
    """Told when partitions are taken away from and given to this consumer (Kafka's
    ``ConsumerRebalanceListener``); methods may be coroutines."""

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> Any:
        """Before a rebalance: these partitions stop being consumed here (commit now)."""

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> Any:
        """After a rebalance: these partitions are consumed here now (with the cooperative
        protocol, only those added)."""

    def on_partitions_lost(self, lost: set[TopicPartition]) -> Any:
        """The member was fenced (its session expired, or its generation is gone): these
        partitions may already be another member's, so do not commit them (KIP-429).  By
        default, as Kafka's, ``on_partitions_revoked``."""
        return self.on_partitions_revoked(lost)


class ConsumerCoordinator:
    """One consumer's group membership.

    Args:
        client: the consumer's network client.
        subscriptions: its assignment and positions.
        discard_fetched: drops records fetched for partitions no longer assigned.
        group_id: ``group.id``.
        session_timeout_ms, rebalance_timeout_ms, heartbeat_interval_ms, max_poll_interval_ms,
        auto_commit_interval_ms: Kafka's settings of the same names (ms).
        enable_auto_commit: commit positions every ``auto_commit_interval_ms``, before a
            rebalance and on close.
        assignors: the assignors offered, in order of preference.
        request_timeout_ms: bound of each group request, coordinator retries included.
        retry_backoff_ms: pause between tries (ms).
        metadata_max_age_ms: how often a pattern subscription looks for new matching topics (ms).
        group_instance_id: ``group.instance.id``: a static member (KIP-345), which does not
            leave its group on ``close`` so that a restart within ``session_timeout_ms`` keeps
            its partitions without a rebalance.
    """

    def __init__(
        self,
        client: KafkaClient,
        subscriptions: SubscriptionState,
        discard_fetched: Callable[[], None],
        *,
        group_id: str,
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
        heartbeat_interval_ms: int,
        max_poll_interval_ms: int,
        enable_auto_commit: bool,
        auto_commit_interval_ms: int,
        assignors: Sequence[PartitionAssignor],
        request_timeout_ms: int,
        retry_backoff_ms: int,
        group_instance_id: str | None = None,
        metadata_max_age_ms: int = 300000,
    ) -> None:
        self._client = client
        self._subscriptions = subscriptions
        self._discard_fetched = discard_fetched
        self.group_id = group_id
        self.group_instance_id = group_instance_id
        self._session_timeout_ms = session_timeout_ms
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._heartbeat_interval_ms = heartbeat_interval_ms
        self._max_poll_interval_ms = max_poll_interval_ms
        self._enable_auto_commit = enable_auto_commit
        self._auto_commit_interval_ms = auto_commit_interval_ms
        self._assignors = {a.name: a for a in assignors}
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._channel = GroupCoordinatorChannel(client, group_id, retry_backoff_ms=retry_backoff_ms)
        self.member_id = ""
        self.generation_id = -1
        self.topics: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None
        self._next_pattern_check = 0.0
        self._metadata_max_age_ms = metadata_max_age_ms
        self._listener: ConsumerRebalanceListener | None = None
        self._need_rejoin = False
        self._partitions_lost = False
        self._cooperative = all(a.rebalance_protocol == COOPERATIVE for a in assignors)
        self._poll_expired = False
        self._last_poll = time.monotonic()
        self._next_auto_commit = time.monotonic() + auto_commit_interval_ms / 1000
        self._failure: BaseException | None = None
        self._wakeup = asyncio.Event()
        self._prefix = f"[ConsumerCoordinator groupId={group_id}]"
        self._task = ShutdownableTask(
            f"consumer-coordinator-{group_id}", log_prefix=self._prefix, on_failure=self._on_failure
        )

    # ------------------------------------------------------------------ the application's side

    @property
    def subscribed(self) -> bool:
        return bool(self.topics) or self._pattern is not None

    def subscribe(
        self,
        topics: Sequence[str],
        listener: ConsumerRebalanceListener | None,
        pattern: re.Pattern[str] | None = None,
    ) -> None:
        """Subscribe to ``topics``, or to every topic whose whole name matches ``pattern``
        (looked for every ``metadata_max_age_ms``; a new match rejoins the group), replacing the
        previous subscription, and (re)join the group."""
        self.topics = tuple(sorted(set(topics)))
        self._pattern = pattern
        self._next_pattern_check = 0.0
        self._listener = listener
        for topic in self.topics:
            self._client.add_topic(topic)
        self._need_rejoin = True
        if self._task.task is None:  # not started, or stopped; a loop ended by a fatal error stays ended
            self._task.start(self._run)
        self._wakeup.set()

    async def unsubscribe(self) -> None:
        """Leave the group and drop the assignment."""
        self.topics, self._pattern = (), None
        await self._stop_task()
        await self._revoke()
        await self._leave("the consumer unsubscribed")

    def poll(self) -> None:
        """The application polled: note it (``max_poll_interval_ms``) and raise a failure of the
        background task.

        Raises:
            KafkaError: the group task stopped on an error it cannot retry.
        """
        self._last_poll = time.monotonic()
        if self._poll_expired:
            self._poll_expired = False
            self._wakeup.set()
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    async def commit(self, offsets: Mapping[TopicPartition, OffsetAndMetadata | int] | None = None) -> None:
        """Commit ``offsets`` (default: the position of every assigned partition) as this
        member of the current generation (or outside group management when not subscribed).

        Raises:
            RebalanceInProgressError, IllegalGenerationError, UnknownMemberIdError: the group
                moved on (it rejoins; the commit is lost, as Kafka's ``CommitFailedException``).
            KafkaError: another error of the commit (class named after the code).
        """
        if offsets is None:
            values = self._positions()
        else:
            values = {
                tp: v if isinstance(v, OffsetAndMetadata) else OffsetAndMetadata(int(v))
                for tp, v in offsets.items()
            }
        if not values:
            return
        generation, member = (self.generation_id, self.member_id) if self.subscribed else (-1, "")
        response = await self._channel.send(
            lambda: offset_commit_request(
                self.group_id,
                values,
                generation_id=generation,
                member_id=member,
                group_instance_id=self.group_instance_id if self.subscribed else None,
            ),
            commit_group_error,
            self._request_timeout_ms,
        )
        codes = {p.error_code for t in response.topics for p in t.partitions}
        if codes & {*_FENCED, Errors.REBALANCE_IN_PROGRESS}:
            self._request_rejoin(fenced=bool(codes & set(_FENCED)))
        raise_commit_errors(self.group_id, response)

    async def committed(
        self, partitions: Sequence[TopicPartition]
    ) -> dict[TopicPartition, OffsetAndMetadata | None]:
        """The group's committed offsets of ``partitions`` (None where there is none).

        Asks for stable offsets (``require_stable``, KIP-447, as Kafka's consumer always does): while
        a transaction that sent offsets for a partition is being completed the coordinator answers
        UNSTABLE_OFFSET_COMMIT, and the request is sent again ``retry_backoff_ms`` later.

        Raises:
            KafkaError: the group's error (class named after the code).
            KafkaTimeoutError: offsets still unstable after ``request_timeout_ms``.
        """
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        topics = [OffsetFetchRequestTopic(name=n, partition_indexes=sorted(ps)) for n, ps in by_topic.items()]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._request_timeout_ms / 1000
        while True:
            response = await self._channel.send(
                lambda: OffsetFetchRequest(group_id=self.group_id, topics=topics, require_stable=True),
                lambda r: r.error_code,
                self._request_timeout_ms,
            )
            if not any(
                p.error_code == Errors.UNSTABLE_OFFSET_COMMIT for t in response.topics for p in t.partitions
            ):
                break
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(
                    f"Offsets of group {self.group_id!r} still unstable (open transaction)"
                )
            await asyncio.sleep(self._retry_backoff_ms / 1000)
        found = committed_offsets(self.group_id, response)
        return {tp: found.get(tp) for tp in partitions}

    async def close(self) -> None:
        """Stop the task, commit (with auto-commit) and leave the group (a static member stays:
        its session keeps its partitions for a restart)."""
        await self._stop_task()
        if self.subscribed:
            await self._maybe_auto_commit(force=True)
            if self.group_instance_id is None:
                await self._leave("the consumer is being closed")

    async def _stop_task(self) -> None:
        await self._task.shutdown(CLOSE_TIMEOUT_S)

    def _on_failure(self, exc: BaseException) -> None:
        """The loop crashed on an unexpected error: the next poll raises it."""
        self._subscriptions.assign(())
        self._failure = exc

    # ------------------------------------------------------------------ the background task

    async def _run(self) -> None:
        while True:
            try:
                await self._step()
            except asyncio.CancelledError:
                raise
            except (KafkaError, ValueError) as exc:
                if isinstance(exc, KafkaError) and exc.errno in _FATAL:
                    logger.error("%s Stopped: %s", self._prefix, exc)
                    self._subscriptions.assign(())  # consume nothing more as a member of this group
                    self._discard_fetched()
                    self._failure = exc
                    return
                logger.info("%s %s; retrying", self._prefix, exc)
                await asyncio.sleep(self._retry_backoff_ms / 1000)

    async def _step(self) -> None:
        now = time.monotonic()
        if self.member_id and now - self._last_poll > self._max_poll_interval_ms / 1000:
            logger.warning(
                "%s No poll for %d ms (max.poll.interval.ms): leaving the group",
                self._prefix,
                self._max_poll_interval_ms,
            )
            await self._revoke()
            await self._leave("max.poll.interval.ms passed")
            self._poll_expired = self._need_rejoin = True
        if self._pattern is not None and now >= self._next_pattern_check:
            await self._match_pattern()
        if self._need_rejoin and not self._poll_expired and self.subscribed:
            await self._join()
        elif self.member_id:
            await self._heartbeat()
            await self._maybe_auto_commit()
        wait_s = self._heartbeat_interval_ms / 1000
        if self._enable_auto_commit:
            wait_s = min(wait_s, max(0.0, self._next_auto_commit - time.monotonic()))
        if self._need_rejoin and not self._poll_expired:
            return
        self._wakeup.clear()
        try:
            await asyncio.wait_for(self._wakeup.wait(), max(wait_s, 0.001))
        except TimeoutError:
            pass

    async def _match_pattern(self) -> None:
        """Subscribe to the topics matching the pattern now (internal topics never match)."""
        assert self._pattern is not None
        self._next_pattern_check = time.monotonic() + self._metadata_max_age_ms / 1000
        metadata = await self._client.metadata_for(None)
        matched = tuple(
            sorted(
                t.name
                for t in metadata.topics
                if t.error_code == Errors.NONE and not t.is_internal and self._pattern.fullmatch(t.name)
            )
        )
        if matched != self.topics:
            logger.info("%s Pattern %r now matches %s", self._prefix, self._pattern.pattern, list(matched))
            self.topics = matched
            for topic in matched:
                self._client.add_topic(topic)
            self._request_rejoin(fenced=False)

    def _request_rejoin(self, fenced: bool) -> None:
        if fenced:
            self.member_id, self.generation_id = "", -1
            self._partitions_lost = True
        self._need_rejoin = True
        self._wakeup.set()

    async def _heartbeat(self) -> None:
        response = await self._channel.send(
            lambda: HeartbeatRequest(
                group_id=self.group_id,
                generation_id=self.generation_id,
                member_id=self.member_id,
                group_instance_id=self.group_instance_id,
            ),
            lambda r: r.error_code,
            self._request_timeout_ms,
        )
        if response.error_code == Errors.REBALANCE_IN_PROGRESS:
            logger.info("%s The group is rebalancing: rejoining", self._prefix)
            self._request_rejoin(fenced=False)
        elif response.error_code in _FENCED:
            logger.info(
                "%s Heartbeat answered %s: rejoining as a new member",
                self._prefix,
                error_name(response.error_code),
            )
            self._request_rejoin(fenced=True)
        elif response.error_code != Errors.NONE:
            raise error_class(response.error_code)(f"Heartbeat of group {self.group_id!r} failed")

    async def _maybe_auto_commit(self, force: bool = False) -> None:
        if not self._enable_auto_commit or (not force and time.monotonic() < self._next_auto_commit):
            return
        self._next_auto_commit = time.monotonic() + self._auto_commit_interval_ms / 1000
        try:
            await self.commit()
        except KafkaError as exc:
            logger.warning("%s Auto-commit failed: %s", self._prefix, exc)

    def _positions(self) -> dict[TopicPartition, OffsetAndMetadata]:
        out = {}
        for tp in self._subscriptions.assignment():
            position = self._subscriptions.position(tp)
            if position is not None:
                out[tp] = OffsetAndMetadata(position)
        return out

    # ------------------------------------------------------------------ joining

    async def _revoke(self, partitions: set[TopicPartition] | None = None) -> None:
        """Stop consuming ``partitions`` (default: every one), committing them first and
        telling the listener; after a fencing, they are lost instead (no commit)."""
        assigned = self._subscriptions.assignment()
        revoked = assigned if partitions is None else assigned & partitions
        if not revoked:
            return
        # before any await: the application gets no more of their records, so the positions
        # committed below are exactly what it was given
        self._subscriptions.pause(revoked)
        if self._partitions_lost:
            if self._listener is not None:
                await _call(self._listener.on_partitions_lost, set(revoked))
        else:
            await self._maybe_auto_commit(force=True)
            if self._listener is not None:
                await _call(self._listener.on_partitions_revoked, set(revoked))
        self._subscriptions.assign(assigned - revoked)
        self._discard_fetched()

    async def _leave(self, reason: str) -> None:
        if not self.member_id:
            return
        member_id, self.member_id, self.generation_id = self.member_id, "", -1
        try:
            await self._channel.send(
                lambda: LeaveGroupRequest(
                    group_id=self.group_id,
                    members=[
                        MemberIdentity(
                            member_id=member_id, group_instance_id=self.group_instance_id, reason=reason
                        )
                    ],
                ),
                lambda r: r.error_code,
                min(self._request_timeout_ms, int(CLOSE_TIMEOUT_S * 1000)),
            )
            logger.info("%s Member %s left the group: %s", self._prefix, member_id, reason)
        except KafkaError as exc:
            logger.warning("%s Leaving the group failed (its session will expire): %s", self._prefix, exc)

    async def _join(self) -> None:
        """Join (and sync) until this member has an assignment of the current generation.

        Eager: every partition is given up first.  Cooperative (every assignor is): the member
        keeps consuming, tells the leader what it owns, then gives up only what it lost, and
        rejoins once more if it gave up any (so that another member gets them)."""
        # what it owned goes to the leader either way (the sticky assignors keep it where they can)
        owned = () if self._partitions_lost else tuple(sorted(self._subscriptions.assignment()))
        if not self._cooperative or self._partitions_lost:
            await self._revoke()
        self._partitions_lost = False
        subscription = encode_subscription(Subscription(self.topics, owned_partitions=owned), version=1)
        protocols = [JoinGroupRequestProtocol(name=name, metadata=subscription) for name in self._assignors]
        join_timeout_ms = self._request_timeout_ms + self._rebalance_timeout_ms
        while True:
            joined: JoinGroupResponse = await self._channel.send(
                lambda: JoinGroupRequest(
                    group_id=self.group_id,
                    session_timeout_ms=self._session_timeout_ms,
                    rebalance_timeout_ms=self._rebalance_timeout_ms,
                    member_id=self.member_id,
                    group_instance_id=self.group_instance_id,
                    protocol_type=PROTOCOL_TYPE,
                    protocols=protocols,
                ),
                lambda r: r.error_code,
                join_timeout_ms,
            )
            code = joined.error_code
            if code == Errors.MEMBER_ID_REQUIRED:
                self.member_id = joined.member_id
                continue
            if code in _FENCED:
                self.member_id, self.generation_id = "", -1
                continue
            if code == Errors.REBALANCE_IN_PROGRESS:
                continue
            if code != Errors.NONE:
                cls = error_class(code)
                raise cls(f"JoinGroup of group {self.group_id!r} failed: {cls.message}")
            self.member_id, self.generation_id = joined.member_id, joined.generation_id
            # a static leader that rejoined a Stable group does not assign (KIP-814's skip_assignment)
            leads = joined.leader == self.member_id and not joined.skip_assignment
            assignments = await self._assign(joined) if leads else []
            sync_request = SyncGroupRequest(
                group_id=self.group_id,
                generation_id=self.generation_id,
                member_id=self.member_id,
                group_instance_id=self.group_instance_id,
                protocol_type=PROTOCOL_TYPE,
                protocol_name=joined.protocol_name,
                assignments=assignments,
            )
            synced = await self._channel.send(
                lambda request=sync_request: request, lambda r: r.error_code, join_timeout_ms
            )
            if synced.error_code in _FENCED:
                self.member_id, self.generation_id = "", -1
                continue
            if synced.error_code == Errors.REBALANCE_IN_PROGRESS:
                continue
            if synced.error_code != Errors.NONE:
                cls = error_class(synced.error_code)
                raise cls(f"SyncGroup of group {self.group_id!r} failed: {cls.message}")
            self._need_rejoin = False
            await self._on_assigned(decode_assignment(synced.assignment))
            return

    async def _assign(self, joined: JoinGroupResponse) -> list[SyncGroupRequestAssignment]:
        """The leader's work: every member's partitions under the group's chosen assignor."""
        assignor = self._assignors[joined.protocol_name or ""]
        decoded = {m.member_id: decode_subscription(m.metadata) for m in joined.members}
        subscriptions = {m: s.topics for m, s in decoded.items()}
        topics = sorted({t for topics in subscriptions.values() for t in topics})
        metadata = await self._client.metadata_for(topics)
        counts = {
            t.name: len(t.partitions) for t in metadata.topics if t.error_code == Errors.NONE and t.partitions
        }
        plan = assignor.assign(counts, subscriptions, {m: s.owned_partitions for m, s in decoded.items()})
        logger.info(
            "%s Generation %d: assigned %s with %s",
            self._prefix,
            joined.generation_id,
            {m: len(ps) for m, ps in plan.items()},
            assignor.name,
        )
        return [
            SyncGroupRequestAssignment(member_id=m, assignment=encode_assignment(Assignment(tuple(ps))))
            for m, ps in plan.items()
        ]

    async def _on_assigned(self, assignment: Assignment) -> None:
        """Consume the added partitions from the group's committed offsets (else reset); with
        the cooperative protocol, give up first the owned ones not assigned any more.

        The committed offsets are read before the assignment changes, and nothing awaits
        between the change and the listener's call: an added partition shows (``assignment()``,
        the fetcher) only once it starts at its committed offset (never first at the
        ``auto_offset_reset`` position, which the fetcher would otherwise reset it to while the
        OffsetFetch is in flight), and the listener is told before the application can poll
        again (Kafka's ``onJoinComplete`` runs inside ``poll``).  A listener that awaits lets
        the application run before it returns.  When the committed offsets cannot be read
        (the coordinator's error after its retries), the assignment is left as it was and the
        member joins again."""
        new = set(assignment.partitions)
        revoked = self._subscriptions.assignment() - new
        if revoked:
            await self._revoke(revoked)
            self._request_rejoin(fenced=False)  # KIP-429: a follow-up rebalance hands them over
        added = sorted(new - self._subscriptions.assignment())
        try:
            committed = await self.committed(added) if added else {}
        except KafkaError:
            self._request_rejoin(fenced=False)
            raise
        self._subscriptions.assign(sorted(new))
        self._discard_fetched()
        for tp in added:  # without a committed offset the position stays unknown: auto_offset_reset
            value = committed.get(tp)
            if value is not None:
                self._subscriptions.seek(tp, value.offset)
        logger.info(
            "%s Member %s of generation %d has %d partitions (%d added, %d revoked)",
            self._prefix,
            self.member_id,
            self.generation_id,
            len(new),
            len(added),
            len(revoked),
        )
        if self._listener is not None:
            await _call(self._listener.on_partitions_assigned, set(added))


async def _call(method: Callable[[set[TopicPartition]], Any], partitions: set[TopicPartition]) -> None:
    result = method(partitions)
    if asyncio.iscoroutine(result):
        await result
