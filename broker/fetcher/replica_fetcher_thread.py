"""ReplicaFetcherThread: an asyncio task replicating partitions from one leader broker.

Owns: the fetch state of each partition it replicates from that leader
(``PartitionFetchState``: fetch offset, leader epoch, Truncating or Fetching, backoff
deadline), the partition order used for round-robin fairness, and one task running
the loop ``maybe_truncate`` then ``maybe_fetch``.  Does not own the partitions or
their logs (the ReplicaManager does) nor the connection (``LeaderEndPoint``).

State of a partition here:
    added -> Truncating --OffsetsForLeaderEpoch answered, truncation complete--> Fetching
    Truncating --the follower never had the leader's epoch: truncated part way--> Truncating
    Truncating --error answer or leader unreachable--> Truncating, delayed by ``replica.fetch.backoff.ms``
    Truncating --no epoch in the follower's cache--> truncate to high watermark --> Fetching
    Fetching --OFFSET_OUT_OF_RANGE--> Fetching at the leader's end or start offset
    Fetching --data--> Fetching; the leader's log start offset (in every response)
        raises the local one (``Partition.update_follower_log_start_offset``), and the
        next request carries the local log start offset back to the leader
    Fetching --error--> Fetching, delayed by ``replica.fetch.backoff.ms``
    Fetching --unexpected append offset--> Truncating

Truncation asks the leader where the follower's latest leader epoch ends
(OffsetsForLeaderEpoch) and truncates by ``offset_truncation.offset_truncation_state``,
so records the leader has are kept even above the follower's high watermark (which
lags the leader's by one fetch), and records it never had are dropped (KIP-101).

Kafka concept: ``AbstractFetcherThread``/``ReplicaFetcherThread``
(PartitionFetchState, delayed partitions, round-robin, maybeTruncate with
truncateToEpochEndOffsets and truncateToHighWatermark, maybeFetch,
processPartitionData, handleOffsetOutOfRange).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.broker.config import KafkaConfig
from kafkette.broker.fetcher.leader_end_point import LeaderEndPoint
from kafkette.broker.fetcher.offset_truncation import offset_truncation_state
from kafkette.broker.log.leader_epoch_cache import UNDEFINED_EPOCH
from kafkette.broker.partition import Partition
from kafkette.broker.replication_quota_manager import ReplicationQuotaManager
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.clock import SYSTEM_TIME, Time
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.offsets_for_leader_epoch import EpochEndOffset, OffsetForLeaderPartition
from kafkette.protocol.errors import Errors, KafkaError, KafkaStorageError, error_name
from kafkette.protocol.record_batch import CorruptRecordError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

TRUNCATING = "Truncating"
FETCHING = "Fetching"


@dataclass(slots=True)
class PartitionFetchState:
    """Fetch state of one partition (Kafka's ``PartitionFetchState``)."""

    fetch_offset: int
    leader_epoch: int
    state: str = TRUNCATING
    delayed_until: float = 0.0  # monotonic seconds; 0 = not delayed
    lag: int | None = None  # the leader's high watermark minus our log end after the last fetch

    @property
    def is_replica_in_sync(self) -> bool:
        """Caught up with the leader's high watermark at the last fetch (Kafka's
        ``isReplicaInSync``): a replica in sync is never throttled."""
        return self.lag is not None and self.lag <= 0


class ReplicaFetcherThread:
    """Fetches from ``leader`` for the partitions added to it.

    Args:
        name: task name, e.g. ``ReplicaFetcherThread-0-2``.
        broker_id: this broker's id.
        leader: the LeaderEndPoint of the source broker.
        config: broker config (``replica.fetch.*``).
        get_partition: ``tp -> Partition | None`` from the ReplicaManager.
        time: the clock of backoffs (``replica.fetch.backoff.ms``) and of waits for work.
        quota: the follower's replication throttle (KIP-73): a throttled partition that is not in
            sync is left out of the fetch while the throttled bytes are over
            ``follower.replication.throttled.rate``; None: no throttle.
    """

    def __init__(
        self,
        name: str,
        broker_id: int,
        leader: LeaderEndPoint,
        config: KafkaConfig,
        get_partition: Callable[[TopicPartition], Partition | None],
        *,
        time: Time = SYSTEM_TIME,
        quota: ReplicationQuotaManager | None = None,
    ) -> None:
        self.name = name
        self._time = time
        self._quota = quota
        self.broker_id = broker_id
        self.leader = leader
        self._config = config
        self._get_partition = get_partition
        self._states: collections.OrderedDict[TopicPartition, PartitionFetchState] = collections.OrderedDict()
        self._wakeup = asyncio.Event()
        self._backoff_s = config.replica_fetch_backoff_ms / 1000
        self._prefix = (
            f"[ReplicaFetcher replicaId={broker_id}, leaderId={leader.leader_id}, fetcherId={name}]"
        )
        self._task = ShutdownableTask(name, log_prefix=self._prefix)

    # ----- partition set ------------------------------------------------------------

    def add_partitions(self, partitions: dict[TopicPartition, int]) -> None:
        """Start replicating ``{tp: leader_epoch}``; each starts in Truncating."""
        for tp, leader_epoch in partitions.items():
            self._states.pop(tp, None)
            self._states[tp] = PartitionFetchState(fetch_offset=-1, leader_epoch=leader_epoch)
        self._wakeup.set()

    def remove_partitions(self, tps: list[TopicPartition]) -> None:
        for tp in tps:
            self._states.pop(tp, None)

    @property
    def partition_count(self) -> int:
        return len(self._states)

    def fetch_state(self, tp: TopicPartition) -> PartitionFetchState | None:
        return self._states.get(tp)

    # ----- lifecycle ----------------------------------------------------------------

    def start(self) -> None:
        """Start the fetcher task: truncate, then fetch, in a loop."""
        self._task.start(self._run)

    async def stop(self) -> None:
        """Cancel and await the task (bounded), then close the leader connection."""
        await self._task.shutdown()
        await self.leader.close()

    async def _run(self) -> None:
        logger.info("%s Starting", self._prefix)
        try:
            while True:
                await self.maybe_truncate()
                await self.maybe_fetch()
        except asyncio.CancelledError:
            logger.info("%s Stopped", self._prefix)
            raise

    # ----- truncate -----------------------------------------------------------------

    async def maybe_truncate(self) -> None:
        """Truncate every ready Truncating partition, then let it fetch from its log end offset.

        A partition whose log has a leader epoch asks the leader where that epoch ends
        (one OffsetsForLeaderEpoch for all of them) and truncates by Kafka's rule; one
        without falls back to its high watermark.  Errors delay the partition by
        ``replica.fetch.backoff.ms``; it stays Truncating.  Kafka concept:
        ``AbstractFetcherThread.maybeTruncate``.

        Cancellation: cancelled while the request is in flight, nothing is truncated.
        """
        now = self._now_s()
        with_epochs: dict[TopicPartition, tuple[PartitionFetchState, int]] = {}
        for tp, state in self._states.items():
            if state.state != TRUNCATING or state.delayed_until > now:
                continue
            partition = self._get_partition(tp)
            if partition is None or partition.log is None:
                state.delayed_until = now + self._backoff_s
                continue
            latest_epoch = partition.log.leader_epoch_cache.latest_epoch
            if latest_epoch == UNDEFINED_EPOCH:
                self._truncate(tp, state, partition, partition.high_watermark, truncation_completed=True)
            else:
                with_epochs[tp] = (state, latest_epoch)
        if with_epochs:
            await self._truncate_to_epoch_end_offsets(with_epochs)

    async def _truncate_to_epoch_end_offsets(
        self, with_epochs: dict[TopicPartition, tuple[PartitionFetchState, int]]
    ) -> None:
        request = {
            tp: OffsetForLeaderPartition(
                partition=tp.partition, current_leader_epoch=state.leader_epoch, leader_epoch=epoch
            )
            for tp, (state, epoch) in with_epochs.items()
        }
        try:
            answers = await self.leader.fetch_epoch_end_offsets(request)
        except KafkaError as exc:
            logger.warning("%s Error sending OffsetsForLeaderEpoch: %s", self._prefix, exc)
            self._delay({tp: (state, state.fetch_offset) for tp, (state, _) in with_epochs.items()})
            return
        for tp, (state, epoch) in with_epochs.items():
            answer = answers[tp]
            if self._states.get(tp) is not state or state.state != TRUNCATING:
                continue  # removed or re-added (maybe with another leader epoch) while in flight
            partition = self._get_partition(tp)
            if partition is None or partition.log is None:
                state.delayed_until = self._now_s() + self._backoff_s
                continue
            if answer.error_code != Errors.NONE:
                logger.info(
                    "%s OffsetsForLeaderEpoch for %s (epoch %d) got %s; backing off",
                    self._prefix,
                    tp,
                    epoch,
                    error_name(answer.error_code),
                )
                state.delayed_until = self._now_s() + self._backoff_s
                continue
            self._truncate_to_epoch_end_offset(tp, state, partition, epoch, answer)

    def _truncate_to_epoch_end_offset(
        self,
        tp: TopicPartition,
        state: PartitionFetchState,
        partition: Partition,
        requested_epoch: int,
        answer: EpochEndOffset,
    ) -> None:
        log = partition.log
        assert log is not None
        decision = offset_truncation_state(
            leader_epoch=answer.leader_epoch,
            leader_end_offset=answer.end_offset,
            follower_epochs=log.leader_epoch_cache,
            log_end_offset=log.log_end_offset,
            high_watermark=partition.high_watermark,
        )
        logger.info(
            "%s Partition %s: leader answered epoch %d ends at %d for requested epoch %d; truncating to %d%s",
            self._prefix,
            tp,
            answer.leader_epoch,
            answer.end_offset,
            requested_epoch,
            decision.offset,
            "" if decision.truncation_completed else " and asking again",
        )
        self._truncate(
            tp, state, partition, decision.offset, truncation_completed=decision.truncation_completed
        )

    def _truncate(
        self,
        tp: TopicPartition,
        state: PartitionFetchState,
        partition: Partition,
        offset: int,
        *,
        truncation_completed: bool,
    ) -> None:
        """Truncate to ``offset``; Fetching from the new log end offset when complete."""
        assert partition.log is not None
        if offset < partition.high_watermark:
            logger.warning(
                "%s Truncating %s to %d, below its high watermark %d",
                self._prefix,
                tp,
                offset,
                partition.high_watermark,
            )
        partition.truncate_to(offset)
        if partition.log.is_offline:
            state.delayed_until = self._now_s() + self._backoff_s
            return
        state.fetch_offset = partition.log.log_end_offset
        if truncation_completed:
            state.state = FETCHING

    # ----- fetch --------------------------------------------------------------------

    def _fetchable(self) -> list[tuple[TopicPartition, PartitionFetchState]]:
        now = self._now_s()
        ready = [(tp, s) for tp, s in self._states.items() if s.state == FETCHING and s.delayed_until <= now]
        if self._quota is None or not self._quota.is_quota_exceeded(int(self._time.monotonic_ms())):
            return ready
        return [(tp, s) for tp, s in ready if s.is_replica_in_sync or not self._is_throttled(tp)]

    def _is_throttled(self, tp: TopicPartition) -> bool:
        """True when ``tp`` is throttled on this follower (its topic's
        ``follower.replication.throttled.replicas``)."""
        partition = self._get_partition(tp)
        return (
            self._quota is not None
            and partition is not None
            and self._quota.is_throttled(tp.partition, partition.topic_configs)
        )

    async def _wait_for_work(self) -> None:
        now = self._now_s()
        if any(s.state == TRUNCATING and s.delayed_until <= now for s in self._states.values()):
            return  # another truncation round is due at once
        delays = [s.delayed_until - now for s in self._states.values() if s.delayed_until > now]
        timeout = min(delays) if delays else self._backoff_s
        self._wakeup.clear()
        await self._time.wait(self._wakeup, max(timeout, 0.001) * 1000)

    def _now_s(self) -> float:
        """The fetcher's monotonic clock in seconds (``delayed_until`` is on it)."""
        return self._time.monotonic_ms() / 1000

    def build_fetch_request(
        self, fetchable: list[tuple[TopicPartition, PartitionFetchState]]
    ) -> FetchRequest:
        """One FetchRequest for ``fetchable`` in round-robin order."""
        topics: dict[str, list[FetchPartition]] = {}
        for tp, state in fetchable:
            partition = self._get_partition(tp)
            log_start = (
                partition.log.log_start_offset if partition is not None and partition.log is not None else -1
            )
            topics.setdefault(tp.topic, []).append(
                FetchPartition(
                    partition=tp.partition,
                    current_leader_epoch=state.leader_epoch,
                    fetch_offset=state.fetch_offset,
                    log_start_offset=log_start,
                    partition_max_bytes=self._config.replica_fetch_max_bytes,
                )
            )
        return FetchRequest(
            replica_id=self.broker_id,
            max_wait_ms=self._config.replica_fetch_wait_max_ms,
            min_bytes=self._config.replica_fetch_min_bytes,
            max_bytes=self._config.replica_fetch_response_max_bytes,
            topics=[FetchTopic(topic=t, partitions=p) for t, p in topics.items()],
        )

    async def maybe_fetch(self) -> None:
        """Send one fetch for the ready partitions and process the answer."""
        fetchable = self._fetchable()
        if not fetchable:
            await self._wait_for_work()
            return
        sent = {tp: (state, state.fetch_offset) for tp, state in fetchable}
        request = self.build_fetch_request(fetchable)
        timeout_ms = self._config.replica_socket_timeout_ms + self._config.replica_fetch_wait_max_ms
        try:
            response = await self.leader.fetch(request, timeout_ms)
        except KafkaError as exc:
            logger.warning("%s Error sending fetch request: %s", self._prefix, exc)
            self._delay(sent)
            await self._wait_for_work()
            return
        for topic in response.responses:
            for data in topic.partitions:
                tp = TopicPartition(topic.topic, data.partition_index)
                state, offset = sent.get(tp, (None, -1))
                if state is None or self._states.get(tp) is not state or state.fetch_offset != offset:
                    continue  # removed, re-added or moved while the fetch was in flight
                await self._process_partition_data(
                    tp, state, data.error_code, data.high_watermark, data.records, data.log_start_offset
                )

    def _delay(self, sent: dict[TopicPartition, tuple[PartitionFetchState, int]]) -> None:
        until = self._now_s() + self._backoff_s
        for tp, (state, _) in sent.items():
            if self._states.get(tp) is state:
                state.delayed_until = until

    async def _process_partition_data(
        self,
        tp: TopicPartition,
        state: PartitionFetchState,
        error_code: int,
        high_watermark: int,
        records: bytes | None,
        leader_log_start_offset: int = -1,
    ) -> None:
        partition = self._get_partition(tp)
        if partition is None or partition.log is None:
            self._states.pop(tp, None)
            return
        if error_code == Errors.NONE:
            if records:
                try:
                    partition.append_records_to_follower(records)
                    if (
                        partition.log.flush_due
                    ):  # flush.messages reached: fetch (and so report) past it once fsynced
                        await partition.log.flush_through(partition.log.log_end_offset - 1)
                except KafkaStorageError as exc:
                    # Kafka's markPartitionFailed: the log is offline here; the controller is
                    # told through the LogDirFailureChannel and fetching it again cannot help.
                    logger.error("%s Stopped fetching %s: its log is offline (%s)", self._prefix, tp, exc)
                    self._states.pop(tp, None)
                    return
                except (CorruptRecordError, KafkaError, ValueError) as exc:
                    logger.warning(
                        "%s Append of fetched data for %s failed (%s); truncating again",
                        self._prefix,
                        tp,
                        exc,
                    )
                    state.state = TRUNCATING
                    state.delayed_until = self._now_s() + self._backoff_s
                    return
                state.fetch_offset = partition.log.log_end_offset
                self._states.move_to_end(tp)
                if self._quota is not None and self._is_throttled(tp):
                    self._quota.record(len(records), int(self._time.monotonic_ms()))
            state.lag = max(0, high_watermark - partition.log.log_end_offset)
            partition.update_follower_high_watermark(high_watermark)
            partition.update_follower_log_start_offset(leader_log_start_offset)
            return
        if error_code == Errors.OFFSET_OUT_OF_RANGE:
            await self._handle_offset_out_of_range(tp, state, partition)
            return
        logger.info("%s Partition %s got %s; backing off", self._prefix, tp, error_name(error_code))
        state.delayed_until = self._now_s() + self._backoff_s

    async def _handle_offset_out_of_range(
        self, tp: TopicPartition, state: PartitionFetchState, partition: Partition
    ) -> None:
        assert partition.log is not None
        try:
            leader_end = await self.leader.fetch_latest_offset(tp, state.leader_epoch)
            if self._states.get(tp) is not state:
                return
            if state.fetch_offset > leader_end:
                # We have more than the leader: drop what it does not have.
                partition.truncate_to(leader_end)
                state.fetch_offset = partition.log.log_end_offset
                return
            leader_start = await self.leader.fetch_earliest_offset(tp, state.leader_epoch)
            if self._states.get(tp) is not state:
                return
            if state.fetch_offset < leader_start:
                partition.truncate_fully_and_start_at(leader_start)
                state.fetch_offset = leader_start
        except KafkaError as exc:
            logger.warning("%s Offset out of range handling for %s failed: %s", self._prefix, tp, exc)
            state.delayed_until = self._now_s() + self._backoff_s
