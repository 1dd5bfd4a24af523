"""ReplicaManager: the partitions this broker hosts and the produce/fetch paths over them.

Owns: ``all_partitions`` (TopicPartition -> Partition), the produce, fetch and
DeleteRecords purgatories, the ReplicaFetcherManager, and two periodic tasks (ISR shrink checks
every ``replica.lag.time.max.ms`` / 2, high watermark checkpoints every
``replica.high.watermark.checkpoint.interval.ms``).  Applies LeaderAndIsr
(``become_leader_or_follower``), StopReplica (``stop_replicas``: stop, and with
``delete_partition`` delete, replicas) and topic config changes to the partitions'
LogConfig (``update_topic_configs``, ``reconfigure_log_defaults``).  Does not own
logs (LogManager), metadata (MetadataCache) or the wire format (the API handlers
convert results to responses).

Kafka concept: ``kafka.server.ReplicaManager`` (appendRecords with acks,
fetchMessages with min bytes / max wait, becomeLeaderOrFollower with controller
epoch fencing, makeLeaders / makeFollowers, ISR shrink, HW checkpoints;
stopReplicas with deletePartition for topic deletion).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Collection, Mapping
from dataclasses import dataclass

from kafkette.broker.alter_partition_manager import AlterPartitionManager
from kafkette.broker.config import KafkaConfig
from kafkette.broker.delayed_delete_records import DelayedDeleteRecords, DeleteRecordsPartitionStatus
from kafkette.broker.delayed_fetch import DelayedFetch, FetchPartitionInfo
from kafkette.broker.delayed_produce import DelayedProduce, ProducePartitionStatus
from kafkette.broker.fetcher.replica_fetcher_manager import InitialFetchState, ReplicaFetcherManager
from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.verification_guard import VerificationGuard
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.partition import Partition
from kafkette.broker.producer_append_order import ProducerAppendOrder
from kafkette.broker.purgatory import DelayedOperationPurgatory
from kafkette.broker.replication_quota_manager import FOLLOWER, LEADER, ReplicationQuotaManager
from kafkette.broker.transaction.add_partitions_to_txn_manager import (
    AddPartitionsToTxnManager,
    TransactionSupportedOperation,
    produce_error_for,
)
from kafkette.broker.transaction_verification import transactional_batch_info, verify_transactional_partitions
from kafkette.common.config_def import LONG_MAX
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.topic_names import INTERNAL_TOPICS
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkette.protocol.apis.stop_replica import StopReplicaRequest
from kafkette.protocol.errors import (
    Errors,
    InconsistentTopicIdError,
    InvalidTopicError,
    KafkaStorageError,
    NotLeaderOrFollowerError,
    UnknownTopicOrPartitionError,
    error_code_for,
)
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_APPEND_ERRORS_WITHOUT_LOG_START = frozenset(
    {
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_OR_FOLLOWER,
        Errors.MESSAGE_TOO_LARGE,
        Errors.RECORD_LIST_TOO_LARGE,
        Errors.CORRUPT_MESSAGE,
        Errors.KAFKA_STORAGE_ERROR,
    }
)
"""Append errors answered with log start offset -1, as Kafka's ``ReplicaManager.appendToLocalLog``
answers its "known" exceptions; any other failed append answers the partition's log start offset."""


def _refusal_message(exc: BaseException) -> str | None:
    """The error message a Produce answer carries for a failed append: a record validation error's
    summary of its record errors (Kafka's ``RecordValidationException``, whose invalid exception's
    message ``LogAppendResult.errorMessage`` answers: its ``hasCustomErrorMessage``) and an internal
    topic's refusal (``_refuse_internal_topic``); None for any other failure, as Kafka answers."""
    if getattr(exc, "record_errors", None) or isinstance(exc, InvalidTopicError):
        return str(exc.args[0]) if exc.args else None
    return None


@dataclass(slots=True)
class FetchPartitionResult:
    """One partition's part of a fetch answer."""

    error: Errors
    high_watermark: int = -1
    log_start_offset: int = -1
    records: bytes | None = None
    last_stable_offset: int = -1
    aborted_transactions: list[AbortedTxn] | None = None  # READ_COMMITTED reads only


class ReplicaManager:
    """Partitions hosted here, with replication and the delayed-operation purgatories.

    Args:
        config: broker config.
        log_manager: the started LogManager.
        metadata_cache: the broker's MetadataCache (leader addresses for fetchers).
        alter_partition_manager: sends ISR changes to the controller.
        scheduler: the node's KafkaScheduler, which runs ``isr-expiration`` and
            ``highwatermark-checkpoint`` (a scheduler of its own when None); its ``time`` is
            the one clock of replication: follower lag, purgatory timeouts, fetcher backoff.
    """

    def __init__(
        self,
        config: KafkaConfig,
        log_manager: LogManager,
        metadata_cache: MetadataCache,
        alter_partition_manager: AlterPartitionManager,
        scheduler: KafkaScheduler | None = None,
    ) -> None:
        self.config = config
        self.log_defaults_config = config  # replaced by reconfigure_log_defaults (dynamic broker configs)
        self.broker_id = config.node_id
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self._alter_partition_manager = alter_partition_manager
        self.all_partitions: dict[TopicPartition, Partition] = {}
        self.controller_epoch = -1
        self._hw_checkpoints = log_manager.read_high_watermarks()
        self._scheduler = scheduler or KafkaScheduler(log_prefix=f"[KafkaScheduler broker={config.node_id}]")
        self.produce_purgatory = DelayedOperationPurgatory("Produce", time=self._scheduler.time)
        self.fetch_purgatory = DelayedOperationPurgatory("Fetch", time=self._scheduler.time)
        self.delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", time=self._scheduler.time)
        window = (config.replication_quota_window_num, config.replication_quota_window_size_seconds * 1000)
        self.leader_quota = ReplicationQuotaManager(LEADER, config.node_id, *window)
        self.follower_quota = ReplicationQuotaManager(FOLLOWER, config.node_id, *window)
        self.update_replication_quotas(config)
        self.fetcher_manager = ReplicaFetcherManager(
            config, self.get_partition, time=self._scheduler.time, quota=self.follower_quota
        )
        self.time = time_source = self._scheduler.time
        self._clock_ms = lambda: int(time_source.monotonic_ms())
        self._state_lock = asyncio.Lock()
        self._prefix = f"[ReplicaManager broker={self.broker_id}]"
        self.add_partitions_to_txn_manager: AddPartitionsToTxnManager | None = None  # set by the server
        # a transactional producer's Produce requests verified and appended in arrival order
        self.producer_append_order = ProducerAppendOrder()
        self.transaction_partition_verification_enable = config.transaction_partition_verification_enable
        if log_manager.cleaner is not None:
            log_manager.cleaner.high_watermark = self.cleanable_high_watermark

    # ----- lifecycle ----------------------------------------------------------------

    def start(self) -> None:
        """Schedule the ISR shrink (every ``replica.lag.time.max.ms`` / 2) and the
        high-watermark checkpoint (every ``replica.high.watermark.checkpoint.interval.ms``)."""
        lag_check_ms = self.config.replica_lag_time_max_ms / 2
        checkpoint_ms = self.config.replica_high_watermark_checkpoint_interval_ms
        self._scheduler.schedule(
            "isr-expiration", self.maybe_shrink_isr, delay_ms=lag_check_ms, period_ms=lag_check_ms
        )
        self._scheduler.schedule(
            "highwatermark-checkpoint",
            self.checkpoint_high_watermarks,
            delay_ms=checkpoint_ms,
            period_ms=checkpoint_ms,
        )

    async def stop(self) -> None:
        """Stop the scheduled jobs and fetchers, answer delayed operations, write the HW checkpoint."""
        await self._scheduler.cancel("isr-expiration", "highwatermark-checkpoint")
        await self.fetcher_manager.shutdown()
        self.produce_purgatory.shutdown()
        self.fetch_purgatory.shutdown()
        self.delete_records_purgatory.shutdown()
        await self.checkpoint_high_watermarks()

    # ----- partitions ---------------------------------------------------------------

    def cleanable_high_watermark(self, tp: TopicPartition) -> int:
        """The log cleaner's upper bound for ``tp``: its high watermark (0 while the partition is unknown)."""
        partition = self.all_partitions.get(tp)
        return partition.high_watermark if partition is not None and partition.log is not None else 0

    def get_partition(self, tp: TopicPartition) -> Partition | None:
        return self.all_partitions.get(tp)

    def get_partition_or_error(self, tp: TopicPartition) -> Partition:
        """The partition hosted here, or the error a client gets for one that is not.

        Kafka concept: ``ReplicaManager.getPartitionOrError``: a partition the metadata knows but
        this broker holds no replica of is NOT_LEADER_OR_FOLLOWER (the client's metadata is
        stale and a refresh finds the leader), one the metadata does not know is
        UNKNOWN_TOPIC_OR_PARTITION.

        Raises:
            NotLeaderOrFollowerError: the partition exists but is not hosted here.
            UnknownTopicOrPartitionError: no such partition.
        """
        partition = self.all_partitions.get(tp)
        if partition is not None:
            return partition
        if self.metadata_cache.partition_state(tp) is not None:
            raise NotLeaderOrFollowerError(f"Broker {self.broker_id} holds no replica of {tp}")
        raise UnknownTopicOrPartitionError(f"This server does not host {tp}")

    def _refuse_internal_topic(self, tp: TopicPartition, refusal: str) -> None:
        """Refuse a client's operation on a partition of an internal topic that exists.

        Kafka concept: the ``Topic.isInternal`` checks of ``ReplicaManager.appendToLocalLog``
        (without ``internalTopicsAllowed``) and ``deleteRecordsOnLocalLog``.  They come before
        the partition is looked up here, so a follower or a broker holding no replica answers the
        same; a partition the metadata does not know is left to ``get_partition_or_error``
        (UNKNOWN_TOPIC_OR_PARTITION), as Kafka's ``KafkaApis`` answers it before the ReplicaManager
        sees the request.

        Raises:
            InvalidTopicError: ``f"{refusal} {tp.topic}"`` (INVALID_TOPIC_EXCEPTION).
        """
        if tp in self.all_partitions or self.metadata_cache.partition_state(tp) is not None:
            raise InvalidTopicError(f"{refusal} {tp.topic}")

    def _get_or_create_partition(self, tp: TopicPartition) -> Partition:
        partition = self.all_partitions.get(tp)
        if partition is None:
            partition = Partition(
                tp,
                local_broker_id=self.broker_id,
                log_manager=self.log_manager,
                make_log_config=lambda overrides: self._log_config(tp.topic, overrides),
                submit_alter_partition=self._alter_partition_manager.submit,
                on_high_watermark_advanced=self._on_high_watermark_advanced,
                clock_ms=self._clock_ms,
                replica_lag_time_max_ms=self.config.replica_lag_time_max_ms,
                initial_high_watermark=self._hw_checkpoints.get(tp, 0),
            )
            self.all_partitions[tp] = partition
        return partition

    def _log_config(self, topic: str, overrides: dict[str, str]) -> LogConfig:
        """The LogConfig of ``topic`` from the broker defaults and its overrides.

        Raises:
            ValueError: (``ConfigError``) an unknown override name or an invalid value.
        """
        return LogConfig.from_broker(self.log_defaults_config, overrides)

    def _on_high_watermark_advanced(self, tp: TopicPartition) -> None:
        self.produce_purgatory.check_and_complete(tp)
        self.fetch_purgatory.check_and_complete(tp)

    def maybe_shrink_isr(self) -> None:
        """Ask every led partition to drop followers lagging over ``replica.lag.time.max.ms``."""
        for partition in list(self.all_partitions.values()):
            if partition.is_leader:
                partition.maybe_shrink_isr()

    async def checkpoint_high_watermarks(self) -> None:
        """Write every local partition's high watermark to ``replication-offset-checkpoint``."""
        hws = {tp: p.high_watermark for tp, p in self.all_partitions.items() if p.log is not None}
        if hws:
            await self.log_manager.write_high_watermarks(hws)

    # ----- produce ------------------------------------------------------------------

    def update_transaction_verification(self, config: KafkaConfig) -> None:
        """Take a dynamic ``transaction.partition.verification.enable`` (cluster-wide in Kafka)."""
        self.transaction_partition_verification_enable = config.transaction_partition_verification_enable

    async def handle_produce_append(
        self,
        timeout_ms: int,
        required_acks: int,
        entries: dict[TopicPartition, bytes],
        transactional_id: str | None,
        operation: TransactionSupportedOperation,
        *,
        internal_topics_allowed: bool = False,
    ) -> dict[TopicPartition, ProducePartitionStatus]:
        """A client's Produce: transactional batches verified with their coordinator first (KIP-890),
        then ``append_records`` of the partitions that passed.

        A request's transactional batches for partitions where their producer has no transaction
        open are checked with the transactional id's coordinator (AddPartitionsToTxn v4+,
        ``verify_only`` unless ``operation`` is ADD_PARTITION) when
        ``transaction.partition.verification.enable`` (or ADD_PARTITION); a partition that fails
        answers ``produce_error_for``'s error (INVALID_TXN_STATE "Partition was not added to the
        transaction", NOT_ENOUGH_REPLICAS for a coordinator that could not answer, ...) and nothing
        of it is appended.  The others append with their verification guard, so a batch verified
        before an abort marker landed cannot start a transaction after it.

        Args:
            timeout_ms, required_acks, entries, internal_topics_allowed: as ``append_records``.
            transactional_id: the request's (None: nothing is verified).
            operation: from the request's version
                (``produce_request_version_to_transaction_supported_operation``).

        Returns:
            ``{tp: ProducePartitionStatus}`` for every partition of ``entries``.

        Raises:
            InvalidProducerIdMappingError: transactional batches of more than one producer.
        """
        manager = self.add_partitions_to_txn_manager
        enabled = self.transaction_partition_verification_enable
        producer, batch_info = (None, {}) if transactional_id is None else transactional_batch_info(entries)
        if producer is None or manager is None or not (enabled or operation.supports_epoch_bump):
            return await self.append_records(
                timeout_ms, required_acks, entries, internal_topics_allowed=internal_topics_allowed
            )
        async with self.producer_append_order.turn(producer[0]):
            errors, guards = await verify_transactional_partitions(
                manager,
                self.get_partition_or_error,
                transactional_id,
                producer,
                batch_info,
                operation,
                retry_backoff_ms=self.config.add_partitions_to_txn_retry_backoff_ms,
                retry_timeout_ms=min(
                    self.config.add_partitions_to_txn_retry_backoff_max_ms, self.config.request_timeout_ms
                ),
            )
            statuses: dict[TopicPartition, ProducePartitionStatus] = {}
            for tp, error in errors.items():
                code, message = produce_error_for(error, operation)
                statuses[tp] = ProducePartitionStatus(-1, -1, code, pending=False, error_message=message)
            appended = await self.append_records(
                timeout_ms,
                required_acks,
                {tp: records for tp, records in entries.items() if tp not in errors},
                internal_topics_allowed=internal_topics_allowed,
                verification_guards=guards if enabled else None,
            )
        return {tp: appended[tp] if tp in appended else statuses[tp] for tp in entries}

    async def append_records(
        self,
        timeout_ms: int,
        required_acks: int,
        entries: dict[TopicPartition, bytes],
        *,
        internal_topics_allowed: bool = False,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        verification_guards: Mapping[TopicPartition, VerificationGuard] | None = None,
    ) -> dict[TopicPartition, ProducePartitionStatus]:
        """Append producer batches to the leaders here; wait for the ISR when acks=-1.

        Args:
            timeout_ms: how long an acks=-1 produce may wait for replication.
            required_acks: 0, 1 or -1.
            entries: ``{tp: record batches}`` as sent by the producer.
            internal_topics_allowed: True for the group coordinator's own writes to
                ``__consumer_offsets`` (and a Produce from Kafka's ``__admin_client``); a client's
                append to an internal topic is otherwise INVALID_TOPIC_EXCEPTION, "Cannot append to
                internal topic <name>" (Kafka's ``ReplicaManager.appendRecords``).
            origin: ``AppendOrigin.COORDINATOR`` for transaction markers (control batches, which a
                ``CLIENT`` append may not carry).
            verification_guards: with transaction verification on, each partition's guard (a
                partition left out: SENTINEL; see ``UnifiedLog.append_as_leader``); None: off.

        Returns:
            ``{tp: ProducePartitionStatus}`` with base offset and error (and message) per partition.
        """
        statuses: dict[TopicPartition, ProducePartitionStatus] = {}
        flushes: dict[TopicPartition, Awaitable[None]] = {}
        for tp, records in entries.items():
            partition = None
            try:
                if not internal_topics_allowed and tp.topic in INTERNAL_TOPICS:
                    self._refuse_internal_topic(tp, "Cannot append to internal topic")
                partition = self.get_partition_or_error(tp)
                guard = (
                    None
                    if verification_guards is None
                    else verification_guards.get(tp, VerificationGuard.SENTINEL)
                )
                info = partition.append_records_to_leader(bytearray(records), required_acks, origin, guard)
                log = partition.log
                statuses[tp] = ProducePartitionStatus(
                    info.last_offset + 1,
                    info.first_offset,
                    log_start_offset=log.log_start_offset if log is not None else -1,
                    log_append_time_ms=info.log_append_time_ms,
                )
                if log is not None and log.flush_due:  # flush.messages reached
                    flushes[tp] = log.flush_through(info.last_offset)
                self.fetch_purgatory.check_and_complete(tp)
            except Exception as exc:
                code = error_code_for(exc)
                if code == Errors.UNKNOWN_SERVER_ERROR:
                    logger.exception("%s Error appending to %s", self._prefix, tp)
                log_start_offset = -1
                if (
                    code not in _APPEND_ERRORS_WITHOUT_LOG_START
                    and partition is not None
                    and partition.log is not None
                ):
                    log_start_offset = partition.log.log_start_offset
                statuses[tp] = ProducePartitionStatus(
                    required_offset=-1,
                    base_offset=-1,
                    error=code,
                    pending=False,
                    log_start_offset=log_start_offset,
                    record_errors=list(getattr(exc, "record_errors", ())),
                    error_message=_refusal_message(exc),
                )
        if flushes:  # Kafka's append flushes before it returns: no acknowledgement before the fsync
            outcomes = await asyncio.gather(*flushes.values(), return_exceptions=True)
            for tp, outcome in zip(flushes, outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    statuses[tp] = ProducePartitionStatus(
                        required_offset=-1, base_offset=-1, error=error_code_for(outcome), pending=False
                    )
        if required_acks != -1 or not any(s.pending for s in statuses.values()):
            for status in statuses.values():
                status.pending = False
            return statuses
        future: asyncio.Future[dict[TopicPartition, ProducePartitionStatus]] = (
            asyncio.get_running_loop().create_future()
        )
        operation = DelayedProduce(timeout_ms, statuses, self.get_partition, future)
        self.produce_purgatory.try_complete_else_watch(
            operation, [tp for tp, s in statuses.items() if s.pending]
        )
        return await future

    # ----- fetch --------------------------------------------------------------------

    def read_from_local_log(
        self,
        replica_id: int,
        fetch_infos: dict[TopicPartition, FetchPartitionInfo],
        max_bytes: int,
        fetch_only_from_leader: bool = True,
        read_committed: bool = False,
    ) -> dict[TopicPartition, FetchPartitionResult]:
        """Read each partition once (follower fetches also update the follower's state).

        A READ_COMMITTED consumer (``read_committed``) reads up to the last stable offset and gets
        the aborted transactions overlapping what it read (Kafka's ``FetchIsolation.TXN_COMMITTED``
        in ``LocalLog.read``).

        A partition that fails answers its error with high watermark and log start offset -1,
        as Kafka's ``ReplicaManager.readFromLog`` does (``createLogReadResult(exception)``).
        With ``fetch_only_from_leader`` False (a consumer with client metadata, KIP-392) a
        follower serves the read too, up to its own high watermark.  A partition whose log carries
        another topic id than the one the fetch named (Fetch v13+) answers INCONSISTENT_TOPIC_ID
        (Kafka's ``hasConsistentTopicId``: no id named, or none in the log, is consistent).
        """
        is_follower = replica_id >= 0
        results: dict[TopicPartition, FetchPartitionResult] = {}
        budget = max_bytes
        for tp, info in fetch_infos.items():
            try:
                partition = self.get_partition_or_error(tp)
                self._check_topic_id(tp, info.topic_id)
                records = partition.read_records(
                    info.fetch_offset,
                    max(0, min(info.partition_max_bytes, budget)),
                    is_follower_fetch=is_follower,
                    current_leader_epoch=info.current_leader_epoch,
                    min_one_message=budget == max_bytes,
                    fetch_only_from_leader=fetch_only_from_leader or is_follower,
                    read_committed=read_committed,
                )
                if is_follower:  # only a fetch that passed validation counts as the follower's position
                    partition.update_follower_fetch_state(
                        replica_id, info.fetch_offset, info.log_start_offset
                    )
                    self.delete_records_purgatory.check_and_complete(tp)
                    if records and self._should_leader_throttle(partition, replica_id):
                        records = b""  # Kafka's shouldLeaderThrottle: the partition answered empty
                budget -= len(records)
                assert partition.log is not None
                results[tp] = FetchPartitionResult(
                    Errors.NONE,
                    partition.high_watermark,
                    partition.log.log_start_offset,
                    records,
                    partition.log.last_stable_offset,
                    (
                        partition.log.aborted_transactions_in(info.fetch_offset, records)
                        if read_committed
                        else None
                    ),
                )
            except Exception as exc:
                code = error_code_for(exc)
                if code == Errors.UNKNOWN_SERVER_ERROR:
                    logger.exception("%s Error reading %s", self._prefix, tp)
                results[tp] = FetchPartitionResult(code)  # Kafka: no watermarks with an error
        return results

    def _check_topic_id(self, tp: TopicPartition, topic_id: bytes) -> None:
        """Refuse a read naming another topic id than ``tp``'s log carries.

        Kafka concept: ``ReplicaManager.readFromLog``'s ``hasConsistentTopicId`` check (a topic
        deleted and created again under the same name while this broker still holds the old log).

        Args:
            tp: the partition read.
            topic_id: the 16 bytes of the id the fetch named; zero when it named none (before v13).

        Raises:
            InconsistentTopicIdError: the log's ``partition.metadata`` names another topic id.
        """
        if topic_id == ZERO_UUID:
            return
        local = self.log_manager.topic_id(tp)
        if local and local != uuid_to_string(topic_id):
            raise InconsistentTopicIdError(
                "Topic ID in the fetch session did not match the topic ID in the log."
            )

    async def fetch_messages(
        self,
        *,
        replica_id: int,
        max_wait_ms: int,
        min_bytes: int,
        max_bytes: int,
        fetch_infos: dict[TopicPartition, FetchPartitionInfo],
        fetch_only_from_leader: bool = True,
        read_committed: bool = False,
    ) -> dict[TopicPartition, FetchPartitionResult]:
        """Answer a fetch at once when it can be, else wait in the fetch purgatory
        (``read_committed``: a READ_COMMITTED consumer, see ``read_from_local_log``).

        Responds immediately when ``max_wait_ms`` <= 0, there is nothing to fetch,
        ``min_bytes`` are available, or any partition has an error; otherwise waits
        until DelayedFetch completes and reads again.
        """
        results = self.read_from_local_log(
            replica_id, fetch_infos, max_bytes, fetch_only_from_leader, read_committed
        )
        available = sum(len(r.records or b"") for r in results.values())
        has_error = any(r.error != Errors.NONE for r in results.values())
        if max_wait_ms <= 0 or not fetch_infos or available >= min_bytes or has_error:
            return self._record_leader_throttled(replica_id, results)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        throttled = (lambda p: self._should_leader_throttle(p, replica_id)) if replica_id >= 0 else None
        operation = DelayedFetch(
            max_wait_ms,
            fetch_infos,
            is_follower_fetch=replica_id >= 0,
            min_bytes=min_bytes,
            get_partition=self.get_partition,
            result=future,
            fetch_only_from_leader=fetch_only_from_leader or replica_id >= 0,
            leader_throttled=throttled,
            read_committed=read_committed,
        )
        if not self.fetch_purgatory.try_complete_else_watch(operation, list(fetch_infos)):
            await future
        results = self.read_from_local_log(
            replica_id, fetch_infos, max_bytes, fetch_only_from_leader, read_committed
        )
        return self._record_leader_throttled(replica_id, results)

    # ----- replication throttles (KIP-73) -------------------------------------------

    def update_replication_quotas(self, config: KafkaConfig) -> None:
        """Apply ``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate``
        of ``config`` (at start and after each dynamic broker config change)."""
        self.leader_quota.update_quota(config.leader_replication_throttled_rate)
        self.follower_quota.update_quota(config.follower_replication_throttled_rate)

    def _should_leader_throttle(self, partition: Partition, replica_id: int) -> bool:
        """True when a follower's fetch of ``partition`` is held back: the follower is out of the
        ISR, the partition is throttled on this leader and the leader's throttled bytes are over
        its rate (Kafka's ``ReplicaManager.shouldLeaderThrottle``)."""
        return (
            replica_id not in partition.isr
            and self.leader_quota.is_throttled(partition.tp.partition, partition.topic_configs)
            and self.leader_quota.is_quota_exceeded(self._clock_ms())
        )

    def _record_leader_throttled(
        self, replica_id: int, results: dict[TopicPartition, FetchPartitionResult]
    ) -> dict[TopicPartition, FetchPartitionResult]:
        """Count the bytes a follower's fetch answer carries of partitions throttled on this leader
        (Kafka's ``quotas.leader.record(sizeOfThrottledPartitions)``); ``results`` unchanged."""
        if replica_id < 0 or self.leader_quota.bytes_per_s >= LONG_MAX:
            return results
        size = 0
        for tp, result in results.items():
            partition = self.all_partitions.get(tp)
            if result.records and partition is not None:
                if self.leader_quota.is_throttled(tp.partition, partition.topic_configs):
                    size += len(result.records)
        if size:
            self.leader_quota.record(size, self._clock_ms())
        return results

    # ----- LeaderAndIsr -------------------------------------------------------------

    def _accept_controller_epoch(self, api: str, controller_id: int, controller_epoch: int) -> bool:
        """Adopt ``controller_epoch`` unless it is older than the last one seen (a stale controller).

        Kafka concept: the ``controllerEpoch < this.controllerEpoch`` check that opens
        ``ReplicaManager.becomeLeaderOrFollower`` and ``stopReplicas``.  Call under ``_state_lock``.

        Args:
            api: the request's API name for the warning ("LeaderAndIsr", "StopReplica").
            controller_id: the sending controller's broker id.
            controller_epoch: the request's controller epoch.

        Returns:
            False (logged at WARNING) when the epoch is stale: the caller answers STALE_CONTROLLER_EPOCH.
        """
        if controller_epoch < self.controller_epoch:
            logger.warning(
                "%s Ignoring %s from controller %d with stale epoch %d < %d",
                self._prefix,
                api,
                controller_id,
                controller_epoch,
                self.controller_epoch,
            )
            return False
        self.controller_epoch = controller_epoch
        return True

    async def become_leader_or_follower(
        self, request: LeaderAndIsrRequest
    ) -> tuple[Errors, dict[TopicPartition, Errors]]:
        """Apply a LeaderAndIsr request from the controller.

        A request from an older controller epoch is refused whole
        (STALE_CONTROLLER_EPOCH).  A partition state whose leader epoch is older
        than ours (or equal with no newer partition epoch) is ignored with
        STALE_CONTROLLER_EPOCH for that partition, as Kafka does.

        Returns:
            (top-level error, ``{tp: error}``).
        """
        async with self._state_lock:
            if not self._accept_controller_epoch(
                "LeaderAndIsr", request.controller_id, request.controller_epoch
            ):
                return Errors.STALE_CONTROLLER_EPOCH, {}
            errors: dict[TopicPartition, Errors] = {}
            leaders: dict[TopicPartition, LeaderAndIsrPartitionState] = {}
            followers: dict[TopicPartition, LeaderAndIsrPartitionState] = {}
            for state in request.partition_states:
                tp = TopicPartition(state.topic_name, state.partition_index)
                await self._delete_log_of_other_topic_id(tp, state.topic_id)
                partition = self.all_partitions.get(tp)
                if (
                    partition is not None
                    and partition.leader_epoch >= 0
                    and (
                        state.leader_epoch < partition.leader_epoch
                        or (
                            state.leader_epoch == partition.leader_epoch
                            and state.partition_epoch <= partition.partition_epoch
                            and state.leader == partition.leader_id
                        )
                    )
                ):
                    errors[tp] = Errors.STALE_CONTROLLER_EPOCH
                    continue
                if self.broker_id not in state.replicas:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                errors[tp] = Errors.NONE
                (leaders if state.leader == self.broker_id else followers)[tp] = state
            addresses = {leader.broker_id: (leader.host_name, leader.port) for leader in request.live_leaders}
            for tp, code in list(errors.items()):
                if code != Errors.NONE:
                    continue
                state = leaders.get(tp) or followers[tp]
                try:
                    if tp in leaders:
                        await self._make_leader(tp, leaders[tp])
                    else:
                        await self._make_follower(tp, followers[tp], addresses)
                    self.log_manager.assign_topic_id(tp, state.topic_id)
                except KafkaStorageError as exc:  # an offline log: expected, the controller already knows
                    logger.warning("%s Cannot apply LeaderAndIsr for %s: %s", self._prefix, tp, exc)
                    errors[tp] = Errors.KAFKA_STORAGE_ERROR
                except Exception as exc:
                    logger.exception("%s Error applying LeaderAndIsr for %s", self._prefix, tp)
                    errors[tp] = (
                        error_code_for(exc) if not isinstance(exc, OSError) else Errors.KAFKA_STORAGE_ERROR
                    )
            return Errors.NONE, errors

    async def _delete_log_of_other_topic_id(self, tp: TopicPartition, topic_id: str) -> None:
        """A local log of ``tp`` whose ``partition.metadata`` names another topic id belongs to a
        deleted topic of the same name: stop and delete it (it is stray) before the new topic's
        replica starts, empty.  Kafka concept: the topic id check of ``Partition.createLogIfNotExists``
        and the stray replicas of KIP-858."""
        local = self.log_manager.topic_id(tp)
        if topic_id and local and local != topic_id:
            logger.info(
                "%s Found stray log of %s: its topic id %s is not the topic's id %s",
                self._prefix,
                tp,
                local,
                topic_id,
            )
            try:
                await self._stop_and_delete([tp])
            except OSError:
                logger.exception("%s Error deleting the stray log of %s", self._prefix, tp)

    async def delete_stray_replicas(
        self, topic_ids: Mapping[str, str], assigned: Collection[TopicPartition]
    ) -> list[TopicPartition]:
        """Delete the local logs the metadata does not place here (their topic was removed while
        this broker missed it, or was re-created with a new topic id).

        Call with a full metadata view.  Kafka concept: KIP-858's stray replicas
        (``LogManager.isStrayKraftReplica`` at start-up), deleted with ``asyncDelete``.

        Args:
            topic_ids: every topic of the metadata, ``{name: topic id}``.
            assigned: the partitions whose replicas include this broker.

        Returns:
            The partitions whose logs were deleted, sorted.
        """
        async with self._state_lock:
            stray = self.log_manager.find_stray_replicas(topic_ids, assigned)
            if stray:
                logger.info(
                    "%s Found stray logs %s: the metadata does not place them on this broker",
                    self._prefix,
                    sorted(map(str, stray)),
                )
                await self._stop_and_delete(stray)
                await self._checkpoint_after_deletion()
            return stray

    async def _stop_and_delete(self, partitions: list[TopicPartition]) -> None:
        """Stop the replicas of ``partitions`` and delete their logs (``LogManager.async_delete``)."""
        await self.fetcher_manager.remove_fetcher_for_partitions(partitions)
        for tp in partitions:
            partition = self.all_partitions.pop(tp, None)
            if partition is not None:
                partition.stop_as_replica()
            self._hw_checkpoints.pop(tp, None)
            self._complete_delayed(tp)
            await self.log_manager.async_delete(tp)

    async def _make_leader(self, tp: TopicPartition, state: LeaderAndIsrPartitionState) -> None:
        await self.fetcher_manager.remove_fetcher_for_partitions([tp])
        partition = self._get_or_create_partition(tp)
        partition.make_leader(state)
        self._complete_delayed(tp)

    async def _make_follower(
        self, tp: TopicPartition, state: LeaderAndIsrPartitionState, addresses: dict[int, tuple[str, int]]
    ) -> None:
        partition = self._get_or_create_partition(tp)
        changed = partition.make_follower(state)
        self._complete_delayed(tp)
        if partition.log is not None and partition.log.is_offline:  # Kafka: no fetcher for an offline log
            await self.fetcher_manager.remove_fetcher_for_partitions([tp])
            raise KafkaStorageError(
                f"The log of {tp} is offline on broker {self.broker_id}: {partition.log.offline_reason}"
            )
        if not changed and self.fetcher_manager.fetcher_for(tp) is not None:
            return
        await self.fetcher_manager.remove_fetcher_for_partitions([tp])
        address = addresses.get(state.leader)
        if address is None:
            endpoint = self.metadata_cache.get_alive_broker(state.leader)
            address = (endpoint.host, endpoint.port) if endpoint is not None else None
        if state.leader < 0 or address is None:
            logger.info("%s No live leader for %s (leader %d); not fetching", self._prefix, tp, state.leader)
            return
        await self.fetcher_manager.add_fetcher_for_partitions(
            {tp: InitialFetchState(state.leader, address[0], address[1], state.leader_epoch)}
        )

    def _complete_delayed(self, tp: TopicPartition) -> None:
        self.produce_purgatory.check_and_complete(tp)
        self.fetch_purgatory.check_and_complete(tp)
        self.delete_records_purgatory.check_and_complete(tp)

    # ----- DeleteRecords ------------------------------------------------------------

    def _is_alive(self, broker_id: int) -> bool:
        return self.metadata_cache.get_alive_broker(broker_id) is not None

    async def delete_records(
        self, timeout_ms: int, offsets: dict[TopicPartition, int]
    ) -> dict[TopicPartition, DeleteRecordsPartitionStatus]:
        """Move the log start offset of led partitions, then wait for the followers.

        Each leader's log start offset moves at once (``Partition.delete_records_on_leader``);
        the answer waits in the DeleteRecords purgatory (``DelayedDeleteRecords``) until
        the low watermark of every partition reaches its requested offset, or
        ``timeout_ms`` passes (REQUEST_TIMED_OUT for those still waiting).

        Kafka concept: ``ReplicaManager.deleteRecords``.

        Args:
            timeout_ms: how long to wait for the followers (ms).
            offsets: ``{tp: offset}``; records below ``offset`` are deleted; -1 means the
                high watermark.

        Returns:
            ``{tp: DeleteRecordsPartitionStatus}`` with the low watermark and error per
            partition: UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION (an internal topic:
            "Cannot delete records of internal topic <name>", Kafka's ``deleteRecordsOnLocalLog``;
            Kafkette's coordinators never delete records), NOT_LEADER_OR_FOLLOWER,
            OFFSET_OUT_OF_RANGE (above the high watermark, or negative), POLICY_VIOLATION
            (a compact-only topic), REQUEST_TIMED_OUT.
        """
        statuses: dict[TopicPartition, DeleteRecordsPartitionStatus] = {}
        for tp, offset in offsets.items():
            try:
                if tp.topic in INTERNAL_TOPICS:
                    self._refuse_internal_topic(tp, "Cannot delete records of internal topic")
                requested = self.get_partition_or_error(tp).delete_records_on_leader(offset)
                statuses[tp] = DeleteRecordsPartitionStatus(requested)
            except Exception as exc:
                code = error_code_for(exc)
                if code == Errors.UNKNOWN_SERVER_ERROR:
                    logger.exception("%s Error deleting records of %s", self._prefix, tp)
                statuses[tp] = DeleteRecordsPartitionStatus(-1, error=code, pending=False)
        future: asyncio.Future[dict[TopicPartition, DeleteRecordsPartitionStatus]] = (
            asyncio.get_running_loop().create_future()
        )
        operation = DelayedDeleteRecords(timeout_ms, statuses, self.get_partition, self._is_alive, future)
        self.delete_records_purgatory.try_complete_else_watch(
            operation, [tp for tp, s in statuses.items() if s.pending]
        )
        return await future

    # ----- StopReplica --------------------------------------------------------------

    async def stop_replicas(self, request: StopReplicaRequest) -> tuple[Errors, dict[TopicPartition, Errors]]:
        """Apply a StopReplica request from the controller (a removed topic's replicas).

        A request from an older controller epoch is refused whole
        (STALE_CONTROLLER_EPOCH).  Per partition: a ``leader_epoch`` >= 0 lower than
        ours is FENCED_LEADER_EPOCH (-1 and -2, Kafka's "no epoch" and "epoch during
        delete", always pass).  Accepted partitions: fetchers are removed first, then
        the Partition stops acting as a replica (its waiting produce and fetch
        requests complete with NOT_LEADER_OR_FOLLOWER or UNKNOWN_TOPIC_OR_PARTITION);
        with ``delete_partition`` the Partition is dropped, its log renamed for deletion
        (``LogManager.async_delete``: gone from disk ``file.delete.delay.ms`` later) and the
        offset checkpoints rewritten without it.
        A partition not hosted here is answered NONE (its log, if one was loaded at
        start-up, is still deleted), so the request is idempotent.

        Returns:
            (top-level error, ``{tp: error}``); a failed log deletion is
            KAFKA_STORAGE_ERROR for that partition.
        """
        async with self._state_lock:
            if not self._accept_controller_epoch(
                "StopReplica", request.controller_id, request.controller_epoch
            ):
                return Errors.STALE_CONTROLLER_EPOCH, {}
            errors: dict[TopicPartition, Errors] = {}
            to_stop: dict[TopicPartition, bool] = {}
            for topic_state in request.topic_states:
                for state in topic_state.partition_states:
                    tp = TopicPartition(topic_state.topic_name, state.partition_index)
                    partition = self.all_partitions.get(tp)
                    if partition is not None and 0 <= state.leader_epoch < partition.leader_epoch:
                        logger.info(
                            "%s Ignoring StopReplica for %s: leader epoch %d < %d",
                            self._prefix,
                            tp,
                            state.leader_epoch,
                            partition.leader_epoch,
                        )
                        errors[tp] = Errors.FENCED_LEADER_EPOCH
                        continue
                    errors[tp] = Errors.NONE
                    to_stop[tp] = to_stop.get(tp, False) or state.delete_partition
            if not to_stop:
                return Errors.NONE, errors
            await self.fetcher_manager.remove_fetcher_for_partitions(list(to_stop))
            for tp, delete in to_stop.items():
                partition = self.all_partitions.get(tp)
                if partition is not None:
                    partition.stop_as_replica()
                    if delete:
                        del self.all_partitions[tp]
                if delete:
                    self._hw_checkpoints.pop(tp, None)
                self._complete_delayed(tp)
            deleted = [tp for tp, delete in to_stop.items() if delete]
            for tp in deleted:
                try:
                    await self.log_manager.async_delete(tp)
                except OSError:
                    logger.exception("%s Error deleting the log of %s", self._prefix, tp)
                    errors[tp] = Errors.KAFKA_STORAGE_ERROR
            logger.info(
                "%s Stopped replicas %s (deleted: %s)",
                self._prefix,
                sorted(map(str, to_stop)),
                sorted(map(str, deleted)),
            )
            if deleted:
                await self._checkpoint_after_deletion()
            return Errors.NONE, errors

    async def _checkpoint_after_deletion(self) -> None:
        """Rewrite the HW, recovery point and log start checkpoints without deleted partitions."""
        try:
            hws = {tp: p.high_watermark for tp, p in self.all_partitions.items() if p.log is not None}
            await self.log_manager.write_high_watermarks(hws)
            await self.log_manager.checkpoint_log_offsets()
        except OSError:
            logger.exception("%s Error writing checkpoints after deleting logs", self._prefix)

    # ----- topic configs ------------------------------------------------------------

    def update_topic_configs(self, topic_configs: dict[str, dict[str, str]]) -> None:
        """Apply topic config overrides (the whole set per topic) to local partitions' logs.

        Each hosted partition of a listed topic gets ``LogConfig.from_broker(broker
        defaults, overrides)`` at once (e.g. a new ``min.insync.replicas`` applies to the
        next acks=all produce).  An invalid set is logged and leaves that topic's logs
        unchanged.

        Args:
            topic_configs: ``{topic: {topic config name: string value}}``.
        """
        for topic, configs in topic_configs.items():
            partitions = [p for tp, p in self.all_partitions.items() if tp.topic == topic]
            if not partitions:
                continue
            try:
                log_config = self._log_config(topic, configs)
            except ValueError as exc:
                logger.warning(
                    "%s Ignoring invalid configs %s of topic %s: %s", self._prefix, configs, topic, exc
                )
                continue
            for partition in partitions:
                partition.topic_configs = dict(configs)
                if partition.log is not None and partition.log.config != log_config:
                    partition.log.update_config(log_config)
                    logger.info("%s Updated log config of %s: %s", self._prefix, partition.tp, configs)

    def reconfigure_log_defaults(self, config: KafkaConfig) -> None:
        """Make ``config`` the source of broker-level log defaults and re-apply them.

        Called when dynamic broker configs change (``log.retention.ms``,
        ``min.insync.replicas``, ...); topic overrides still win.

        Args:
            config: the broker config with dynamic values applied.
        """
        self.log_defaults_config = config
        self.log_manager.default_log_config = LogConfig.from_broker(config)
        for partition in list(self.all_partitions.values()):
            if partition.log is None:
                continue
            try:
                log_config = LogConfig.from_broker(config, partition.topic_configs)
            except ValueError as exc:
                logger.warning("%s Keeping the log config of %s: %s", self._prefix, partition.tp, exc)
                continue
            if partition.log.config != log_config:
                partition.log.update_config(log_config)
