"""One partition's replica on this broker: leader or follower role, ISR and high watermark.

Owns: the partition's UnifiedLog (created through the LogManager), its leader id, leader epoch,
partition epoch, assigned replicas and ISR, the high watermark, and, as leader, the
fetch state of every follower (``ReplicaState``).  Proposes ISR changes to the
controller through the AlterPartitionManager and applies them only when the
controller commits them.  Does not own request handling or purgatories (see
``replica_manager.py``) nor fetching from a leader (see ``fetcher/``).

State transitions (driven by LeaderAndIsr):
    none --make_leader--> leader --make_follower--> follower --make_leader--> leader

Kafka concept: ``kafka.cluster.Partition`` (makeLeader, makeFollower,
appendRecordsToLeader, updateFollowerFetchState, maybeExpandIsr, maybeShrinkIsr,
maybeIncrementLeaderHW, checkEnoughReplicasReachOffset) with KIP-497's
AlterPartition and "maximal ISR" while a change is in flight.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.log.unified_log import LogAppendInfo, UnifiedLog
from kafkette.broker.log.verification_guard import VerificationGuard
from kafkette.protocol.apis.alter_partition import AlterPartitionResponsePartition
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrPartitionState
from kafkette.protocol.errors import (
    Errors,
    FencedLeaderEpochError,
    KafkaStorageError,
    NotEnoughReplicasError,
    NotLeaderOrFollowerError,
    OffsetOutOfRangeError,
    PolicyViolationError,
    UnknownLeaderEpochError,
    error_name,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class ReplicaState:
    """The leader's view of one follower (Kafka's ``Replica``).

    Attributes:
        broker_id: the follower's node id.
        log_end_offset: the follower's LEO as of its last fetch (-1: unknown).
        last_caught_up_time_ms: last time (monotonic ms) the follower was caught up.
        last_fetch_leader_log_end_offset: the leader's LEO at the follower's last fetch.
        last_fetch_time_ms: monotonic ms of the follower's last fetch.
        log_start_offset: the follower's log start offset as sent in its last fetch (-1: unknown).
    """

    broker_id: int
    log_end_offset: int = -1
    last_caught_up_time_ms: int = 0
    last_fetch_leader_log_end_offset: int = -1
    last_fetch_time_ms: int = 0
    log_start_offset: int = -1


@dataclass(slots=True)
class PendingIsrChange:
    """An AlterPartition in flight: the proposed ISR and whether it expands."""

    proposed_isr: list[int]
    is_expand: bool


class Partition:
    """A partition replica hosted by this broker.

    Args:
        tp: the partition.
        local_broker_id: this broker's node id.
        log_manager: where the partition's UnifiedLog is created.
        default_config: callable giving a LogConfig for topic overrides
            (``{name: value}`` -> LogConfig).
        submit_alter_partition: ``(partition, leader_epoch, new_isr, partition_epoch)``
            -> None; sends an AlterPartition and later calls
            ``handle_alter_partition_result`` on this partition.
        on_high_watermark_advanced: called with ``tp`` when the leader's high
            watermark moves (completes delayed produce and fetch operations).
        clock_ms: monotonic clock in ms.
        replica_lag_time_max_ms: ``replica.lag.time.max.ms``.
    """

    def __init__(
        self,
        tp: TopicPartition,
        *,
        local_broker_id: int,
        log_manager: LogManager,
        make_log_config: Callable[[dict[str, str]], LogConfig],
        submit_alter_partition: Callable[[Partition, int, list[int], int], None],
        on_high_watermark_advanced: Callable[[TopicPartition], None],
        clock_ms: Callable[[], int],
        replica_lag_time_max_ms: int,
        initial_high_watermark: int = 0,
    ) -> None:
        self.tp = tp
        self.local_broker_id = local_broker_id
        self._log_manager = log_manager
        self._make_log_config = make_log_config
        self._submit_alter_partition = submit_alter_partition
        self._on_hw_advanced = on_high_watermark_advanced
        self._clock_ms = clock_ms
        self._lag_max_ms = replica_lag_time_max_ms
        self.log: UnifiedLog | None = log_manager.get_log(tp)
        self.leader_id = -1
        self.leader_epoch = -1
        self.partition_epoch = -1
        self.controller_epoch = -1
        self.assigned_replicas: list[int] = []
        self.isr: list[int] = []
        self.remote_replicas: dict[int, ReplicaState] = {}
        self.pending_isr: PendingIsrChange | None = None
        self.leader_epoch_start_offset = 0  # LEO when this broker became leader in the current epoch
        self.topic_configs: dict[str, str] = {}
        self.high_watermark = initial_high_watermark
        if self.log is not None:
            self.high_watermark = min(
                max(initial_high_watermark, self.log.log_start_offset), self.log.log_end_offset
            )
        self._prefix = f"[Partition {tp} broker={local_broker_id}]"

    @property
    def high_watermark(self) -> int:
        """The partition's high watermark (offset); setting it also tells the UnifiedLog (retention bound)."""
        return self._high_watermark

    @high_watermark.setter
    def high_watermark(self, value: int) -> None:
        self._high_watermark = value
        if self.log is not None:
            self.log.update_high_watermark(value)

    # ----- role changes -------------------------------------------------------------

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id

    def _ensure_log(self, state: LeaderAndIsrPartitionState) -> UnifiedLog:
        configs = {entry.name: entry.value for entry in state.configs}
        self.topic_configs = configs
        log_config = self._make_log_config(configs)
        if self.log is None:
            self.log = self._log_manager.get_or_create_log(self.tp, log_config)
            self.high_watermark = min(
                max(self.high_watermark, self.log.log_start_offset), self.log.log_end_offset
            )
        else:
            self.log.update_config(log_config)
        return self.log

    def _apply_state(self, state: LeaderAndIsrPartitionState) -> None:
        self.controller_epoch = state.controller_epoch
        self.leader_id = state.leader
        self.leader_epoch = state.leader_epoch
        self.partition_epoch = state.partition_epoch
        self.assigned_replicas = list(state.replicas)
        self.isr = list(state.isr)
        self.pending_isr = None

    def make_leader(self, state: LeaderAndIsrPartitionState) -> bool:
        """Become (or stay) leader per a LeaderAndIsr partition state.

        Follower fetch states are reset; ISR members count as caught up now so
        they are not shrunk before their first fetch.

        Returns:
            True when this broker was not leader before or the leader epoch changed.
        """
        log = self._ensure_log(state)
        was_leader = self.is_leader
        epoch_changed = state.leader_epoch != self.leader_epoch
        self._apply_state(state)
        now = self._clock_ms()
        old = self.remote_replicas
        self.remote_replicas = {}
        for replica in self.assigned_replicas:
            if replica == self.local_broker_id:
                continue
            keep = old.get(replica) if was_leader and not epoch_changed else None
            self.remote_replicas[replica] = keep or ReplicaState(
                replica, last_caught_up_time_ms=now if replica in self.isr else 0
            )
        self.high_watermark = min(max(self.high_watermark, log.log_start_offset), log.log_end_offset)
        if not was_leader or epoch_changed:
            self.leader_epoch_start_offset = log.log_end_offset
            if not log.is_offline:
                log.maybe_assign_epoch_start_offset(self.leader_epoch, log.log_end_offset)
            logger.info(
                "%s Leader with epoch %d, ISR %s, replicas %s, high watermark %d, log end offset %d",
                self._prefix,
                self.leader_epoch,
                self.isr,
                self.assigned_replicas,
                self.high_watermark,
                log.log_end_offset,
            )
        self.maybe_increment_leader_high_watermark()
        return not was_leader or epoch_changed

    def make_follower(self, state: LeaderAndIsrPartitionState) -> bool:
        """Become (or stay) follower of ``state.leader``.

        Returns:
            True when the leader or the leader epoch changed (the caller then
            restarts fetching; the fetcher truncates by leader epoch, nothing here does).
        """
        self._ensure_log(state)
        changed = state.leader != self.leader_id or state.leader_epoch != self.leader_epoch
        self._apply_state(state)
        self.remote_replicas = {}
        if changed:
            logger.info(
                "%s Follower of %d with leader epoch %d", self._prefix, self.leader_id, self.leader_epoch
            )
        return changed

    def stop_as_replica(self) -> None:
        """Forget leadership state (the partition is no longer hosted here)."""
        self.leader_id = -1
        self.remote_replicas = {}
        self.pending_isr = None

    # ----- leader: produce ----------------------------------------------------------

    def leader_log(self, current_leader_epoch: int = -1) -> UnifiedLog:
        """This replica's log, when it is the leader in ``current_leader_epoch`` (Kafka's
        ``Partition.localLogWithEpochOrThrow``).

        Args:
            current_leader_epoch: the client's view of the leader epoch; -1 skips the check.

        Returns:
            The leader's UnifiedLog.

        Raises:
            KafkaStorageError: the log is offline here (leader or not, as in Kafka).
            NotLeaderOrFollowerError: this broker does not lead the partition.
            FencedLeaderEpochError / UnknownLeaderEpochError: ``current_leader_epoch`` is
                older / newer than this leader's epoch.
        """
        if self.log is not None and self.log.is_offline:  # Kafka's HostedPartition.Offline, leader or not
            raise KafkaStorageError(f"The log of {self.tp} is offline on broker {self.local_broker_id}")
        if not self.is_leader or self.log is None:
            raise NotLeaderOrFollowerError(f"Broker {self.local_broker_id} is not the leader of {self.tp}")
        self._check_leader_epoch(current_leader_epoch)
        return self.log

    def replica_log(self, current_leader_epoch: int = -1) -> UnifiedLog:
        """This replica's log, leader or follower, in ``current_leader_epoch`` (Kafka's
        ``Partition.localLogWithEpochOrThrow`` with ``requireLeader`` false: a consumer's fetch
        from a follower, KIP-392).

        Raises:
            KafkaStorageError: the log is offline here.
            NotLeaderOrFollowerError: this broker is no longer a replica (no leader known).
            FencedLeaderEpochError / UnknownLeaderEpochError: as ``leader_log``.
        """
        if self.log is not None and self.log.is_offline:
            raise KafkaStorageError(f"The log of {self.tp} is offline on broker {self.local_broker_id}")
        if self.log is None or self.leader_id < 0:
            raise NotLeaderOrFollowerError(f"Broker {self.local_broker_id} is not a replica of {self.tp}")
        self._check_leader_epoch(current_leader_epoch)
        return self.log

    def _check_leader_epoch(self, current_leader_epoch: int) -> None:
        if current_leader_epoch < 0 or current_leader_epoch == self.leader_epoch:
            return
        if current_leader_epoch < self.leader_epoch:
            raise FencedLeaderEpochError(
                f"leader epoch {current_leader_epoch} < {self.leader_epoch} for {self.tp}"
            )
        raise UnknownLeaderEpochError(
            f"leader epoch {current_leader_epoch} > {self.leader_epoch} for {self.tp}"
        )

    @property
    def min_insync_replicas(self) -> int:
        """The ISR size an acks=all produce needs: ``min.insync.replicas``, but never more than
        the replication factor (Kafka's ``Partition.effectiveMinIsr``: an RF 1 topic with
        ``min.insync.replicas=2`` takes acks=all writes)."""
        configured = self.log.config.min_insync_replicas if self.log is not None else 1
        return min(configured, max(1, len(self.assigned_replicas)))

    def append_records_to_leader(
        self,
        records: bytearray,
        required_acks: int,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        verification_guard: VerificationGuard | None = None,
    ) -> LogAppendInfo:
        """Append producer batches as leader (Kafka's ``Partition.appendRecordsToLeader``): the
        min ISR check here, everything else in ``UnifiedLog.append_as_leader``; then the high
        watermark may move.

        Args:
            records: the batches of one Produce partition (offsets written in place).
            required_acks: the request's acks (-1, 0 or 1).
            origin: ``AppendOrigin.COORDINATOR`` for transaction markers, else ``CLIENT``.
            verification_guard: the request's transaction verification guard (KIP-890; None: not
                verified, see ``UnifiedLog.append_as_leader``).

        Returns:
            The log's LogAppendInfo (a retried batch's original offsets when it was a duplicate).

        Raises:
            NotLeaderOrFollowerError, KafkaStorageError: not the leader / the log is offline.
            NotEnoughReplicasError: acks=-1 and ISR smaller than ``min.insync.replicas``.
            CorruptRecordError, InvalidRecordError, InvalidTimestampError, MessageTooLargeError,
            UnsupportedCompressionTypeError, InvalidProducerEpochError,
            OutOfOrderSequenceNumberError, DuplicateSequenceNumberError, InvalidTxnStateError: from
                the log.
        """
        log = self.leader_log()
        if required_acks == -1 and len(self.isr) < self.min_insync_replicas:
            raise NotEnoughReplicasError(
                f"The size of the current ISR {self.isr} is insufficient to satisfy the min.isr requirement "
                f"of {self.min_insync_replicas} for partition {self.tp}"
            )
        info = log.append_as_leader(records, self.leader_epoch, origin, verification_guard)
        self.maybe_increment_leader_high_watermark()
        return info

    def maybe_start_transaction_verification(
        self, producer_id: int, sequence: int, producer_epoch: int
    ) -> VerificationGuard:
        """The leader log's guard for verifying the producer's transaction here (Kafka's
        ``Partition.maybeStartTransactionVerification``, KIP-890): SENTINEL when it has one open.

        Raises:
            NotLeaderOrFollowerError, KafkaStorageError: not the leader / the log is offline.
        """
        return self.leader_log().maybe_start_transaction_verification(producer_id, sequence, producer_epoch)

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """For acks=-1: has the high watermark reached ``required_offset``?

        Returns:
            (done, error): (True, NONE) when replicated to the ISR with enough
            members; (True, NOT_ENOUGH_REPLICAS_AFTER_APPEND) when replicated but
            the ISR shrank below min.insync.replicas; (True, NOT_LEADER_OR_FOLLOWER)
            when leadership moved; (False, NONE) to keep waiting.
        """
        if not self.is_leader:
            return True, Errors.NOT_LEADER_OR_FOLLOWER
        if self.high_watermark >= required_offset:
            if len(self.isr) >= self.min_insync_replicas:
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE

    # ----- leader: follower fetch state, ISR and high watermark ---------------------

    def update_follower_fetch_state(
        self, replica_id: int, fetch_offset: int, log_start_offset: int = -1
    ) -> None:
        """Record a follower's fetch at ``fetch_offset`` (its log end offset).

        Updates its caught-up time and log start offset (``log_start_offset`` >= 0, as
        sent in the fetch), may propose an ISR expansion, and may advance the high
        watermark.

        Raises:
            NotLeaderOrFollowerError: not the leader, or the fetcher is not a replica.
        """
        log = self.leader_log()
        replica = self.remote_replicas.get(replica_id)
        if replica is None:
            raise NotLeaderOrFollowerError(f"Broker {replica_id} is not a replica of {self.tp}")
        now = self._clock_ms()
        leader_leo = log.log_end_offset
        if fetch_offset >= leader_leo:
            replica.last_caught_up_time_ms = now
        elif fetch_offset >= replica.last_fetch_leader_log_end_offset >= 0:
            replica.last_caught_up_time_ms = max(replica.last_caught_up_time_ms, replica.last_fetch_time_ms)
        replica.log_end_offset = fetch_offset
        if log_start_offset >= 0:
            replica.log_start_offset = log_start_offset
        replica.last_fetch_leader_log_end_offset = leader_leo
        replica.last_fetch_time_ms = now
        self.maybe_expand_isr(replica)
        self.maybe_increment_leader_high_watermark()

    def _maximal_isr(self) -> list[int]:
        if self.pending_isr is not None and self.pending_isr.is_expand:
            return self.pending_isr.proposed_isr
        return self.isr

    def maybe_expand_isr(self, replica: ReplicaState) -> None:
        """Propose adding a caught-up follower to the ISR.

        Caught up means its LEO reached both the high watermark and the offset at
        which the current leader epoch began (so it holds everything a previous
        leader may have acknowledged).
        """
        if self.pending_isr is not None or replica.broker_id in self.isr:
            return
        if (
            replica.log_end_offset < max(self.high_watermark, self.leader_epoch_start_offset)
            or replica.log_end_offset < 0
        ):
            return  # not caught up: below the HW or below where this leader epoch began (KIP-101)
        new_isr = sorted(set(self.isr) | {replica.broker_id}, key=self.assigned_replicas.index)
        logger.info("%s Expanding ISR from %s to %s", self._prefix, self.isr, new_isr)
        self.pending_isr = PendingIsrChange(new_isr, is_expand=True)
        self._submit_alter_partition(self, self.leader_epoch, new_isr, self.partition_epoch)

    def maybe_shrink_isr(self) -> None:
        """Propose removing followers not caught up for ``replica.lag.time.max.ms``."""
        if not self.is_leader or self.pending_isr is not None:
            return
        now = self._clock_ms()
        log = self.log
        assert log is not None
        out_of_sync = [
            r
            for r in self.isr
            if r != self.local_broker_id
            and (
                r not in self.remote_replicas
                or (
                    now - self.remote_replicas[r].last_caught_up_time_ms > self._lag_max_ms
                    and self.remote_replicas[r].log_end_offset < log.log_end_offset
                )
            )
        ]
        if not out_of_sync:
            return
        new_isr = [r for r in self.isr if r not in out_of_sync]
        logger.info(
            "%s Shrinking ISR from %s to %s (out of sync: %s, leader log end offset %d)",
            self._prefix,
            self.isr,
            new_isr,
            out_of_sync,
            log.log_end_offset,
        )
        self.pending_isr = PendingIsrChange(new_isr, is_expand=False)
        self._submit_alter_partition(self, self.leader_epoch, new_isr, self.partition_epoch)

    def handle_alter_partition_result(
        self, leader_epoch: int, result: AlterPartitionResponsePartition | None
    ) -> None:
        """Apply the controller's answer to our AlterPartition (None: send failed)."""
        if leader_epoch != self.leader_epoch or not self.is_leader:
            return
        self.pending_isr = None
        if result is None:
            return
        if result.error_code != Errors.NONE:
            logger.warning("%s AlterPartition failed: %s", self._prefix, error_name(result.error_code))
            return
        if result.leader_epoch != self.leader_epoch:
            return
        if result.isr != self.isr:
            logger.info(
                "%s ISR updated to %s (partition epoch %d)", self._prefix, result.isr, result.partition_epoch
            )
        self.isr = list(result.isr)
        self.partition_epoch = result.partition_epoch
        self.maybe_increment_leader_high_watermark()

    def maybe_increment_leader_high_watermark(self) -> bool:
        """Advance the high watermark to the minimum LEO of the (maximal) ISR.

        Returns:
            True when it moved (the on-advance callback has then been called).
        """
        if not self.is_leader or self.log is None:
            return False
        new_hw = self.log.log_end_offset
        for replica_id in self._maximal_isr():
            if replica_id == self.local_broker_id:
                continue
            replica = self.remote_replicas.get(replica_id)
            leo = replica.log_end_offset if replica is not None else -1
            if leo < new_hw:
                new_hw = leo
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            self._on_hw_advanced(self.tp)
            return True
        return False

    # ----- leader: DeleteRecords ------------------------------------------------------

    def delete_records_on_leader(self, offset: int) -> int:
        """Advance the leader's log start offset for DeleteRecords.

        Kafka concept: ``Partition.deleteRecordsOnLeader``.

        Args:
            offset: delete every record below this offset; -1 means the high watermark.

        Returns:
            The offset the log start offset was moved to (at least; it may already be higher).

        Raises:
            NotLeaderOrFollowerError: not the leader.
            PolicyViolationError: ``cleanup.policy`` does not contain ``delete``.
            OffsetOutOfRangeError: the offset is negative (other than -1) or above the high watermark.
        """
        log = self.leader_log()
        if "delete" not in log.config.cleanup_policy.split(","):
            raise PolicyViolationError(
                f"Records of partition {self.tp} can not be deleted due to the configured policy "
                f"cleanup.policy={log.config.cleanup_policy}"
            )
        requested = self.high_watermark if offset == -1 else offset
        if requested < 0:
            raise OffsetOutOfRangeError(f"The offset {offset} for partition {self.tp} is not valid")
        log.maybe_increment_log_start_offset(requested, "client delete records")
        return requested

    def low_watermark_if_leader(self, is_alive: Callable[[int], bool]) -> int:
        """The smallest log start offset among the leader and its live followers.

        A live follower that has not fetched since this broker became leader counts as
        -1 (unknown), as in Kafka.  Kafka concept: ``Partition.lowWatermarkIfLeader``.

        Args:
            is_alive: ``broker_id -> bool`` (the MetadataCache's view of live brokers).

        Raises:
            NotLeaderOrFollowerError: not the leader.
        """
        log = self.leader_log()
        low_watermark = log.log_start_offset
        for replica in self.remote_replicas.values():
            if is_alive(replica.broker_id) and replica.log_start_offset < low_watermark:
                low_watermark = replica.log_start_offset
        return low_watermark

    # ----- reads --------------------------------------------------------------------

    def read_records(
        self,
        fetch_offset: int,
        max_bytes: int,
        *,
        is_follower_fetch: bool,
        current_leader_epoch: int = -1,
        min_one_message: bool = True,
        fetch_only_from_leader: bool = True,
        read_committed: bool = False,
    ) -> bytes:
        """Read batches from ``fetch_offset``: followers up to the LEO, consumers to the HW, a
        READ_COMMITTED consumer to the last stable offset (Kafka's ``FetchIsolation``).

        Args:
            fetch_only_from_leader: False for a consumer that a follower may serve (KIP-392):
                this replica answers from its own log up to its own high watermark, leader or not.

        Raises:
            NotLeaderOrFollowerError, FencedLeaderEpochError, UnknownLeaderEpochError,
            OffsetOutOfRangeError, KafkaStorageError.
        """
        if fetch_only_from_leader:
            log = self.leader_log(current_leader_epoch)
        else:
            log = self.replica_log(current_leader_epoch)
        upper = self._fetch_upper_bound(log, is_follower_fetch, read_committed)
        if upper <= fetch_offset <= log.log_end_offset and fetch_offset >= log.log_start_offset:
            return b""  # nothing readable yet (a consumer may be ahead of a new leader's HW)
        return log.read(fetch_offset, max_bytes, upper, min_one_message).records

    def end_offset_for(self, is_follower_fetch: bool, read_committed: bool = False) -> int:
        """The offset a fetch may read up to (LEO for followers, HW for consumers, the LSO for a
        READ_COMMITTED consumer)."""
        if self.log is None:
            return 0
        return self._fetch_upper_bound(self.log, is_follower_fetch, read_committed)

    def _fetch_upper_bound(self, log: UnifiedLog, is_follower_fetch: bool, read_committed: bool) -> int:
        if is_follower_fetch:
            return log.log_end_offset
        return min(self.high_watermark, log.last_stable_offset) if read_committed else self.high_watermark

    # ----- follower side ------------------------------------------------------------

    def append_records_to_follower(self, records: bytes | memoryview) -> LogAppendInfo | None:
        """Append batches fetched from the leader (offsets already assigned)."""
        if self.log is None:
            raise NotLeaderOrFollowerError(f"no log for {self.tp}")
        return self.log.append_as_follower(records)

    def update_follower_high_watermark(self, leader_high_watermark: int) -> None:
        """Follower high watermark = min(leader's HW, own LEO); never moves back.  When it moves,
        the on-advance callback runs: a consumer's fetch from this follower (KIP-392) may be
        waiting for it, as Kafka's ``ReplicaFetcherThread`` completes the delayed fetches of
        the partitions whose high watermark it moved."""
        if self.log is None:
            return
        new_hw = min(leader_high_watermark, self.log.log_end_offset)
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            self._on_hw_advanced(self.tp)

    def update_follower_log_start_offset(self, leader_log_start_offset: int) -> bool:
        """Follow the leader's log start offset (sent in every Fetch response).

        The local log start offset moves up to it, bounded by the local high watermark;
        the segments wholly below it are deleted by the next retention pass.

        Kafka concept: ``ReplicaFetcherThread.processPartitionData`` ->
        ``UnifiedLog.maybeIncrementLogStartOffset(LeaderOffsetIncremented)``.

        Returns:
            True when the local log start offset moved.
        """
        if self.log is None or leader_log_start_offset < 0:
            return False
        target = min(leader_log_start_offset, self.log.high_watermark)
        return self.log.maybe_increment_log_start_offset(target, "leader log start offset incremented")

    def truncate_to(self, offset: int) -> None:
        """Truncate the local log to ``offset`` (follower only); the HW follows down.

        Leader epoch cache entries starting at or after the resulting log end offset are
        dropped too, even when no batch is (Kafka: ``UnifiedLog.truncateTo``).

        Args:
            offset: the new log end offset at most (a batch straddling it is dropped whole).
        """
        if self.log is None:
            return
        self.log.truncate_to(offset)  # an offline log is left as it is
        self.high_watermark = min(self.high_watermark, self.log.log_end_offset)

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Empty the local log and restart it at ``offset`` (follower below leader's log start)."""
        if self.log is None:
            return
        logger.info("%s Truncating fully and restarting at %d", self._prefix, offset)
        if self.log.is_offline:
            return
        self.log.truncate_fully_and_start_at(offset)
        self.high_watermark = offset
