"""The transaction coordinator at work: requests answered after their transitions are written, the
markers of completing transactions sent, timed-out transactions aborted and expired ids removed.

Owns: ``TransactionCoordinatorService`` (``init_producer_id``, ``add_partitions_to_txn``,
``end_txn``, ``describe_transactions``, ``list_transactions``; the completion of a transaction:
PREPARE_COMMIT/PREPARE_ABORT written, the answer given, the markers sent by the
``TransactionMarkerChannelManager``, then COMPLETE_COMMIT/COMPLETE_ABORT written; the completions a
partition's load hands back; the periodic aborts of timed-out transactions
(``transaction.abort.timed.out.transaction.cleanup.interval.ms``) and removals of expired ids
(``transaction.remove.expired.transaction.cleanup.interval.ms``)).  Every task it starts is kept
and cancelled by ``stop``.  Does not own the decisions (``transaction_coordinator``'s pure
handlers), the log (``transaction_state_log``) nor the markers' sending
(``transaction_marker_channel_manager``).

Kafka concept: ``kafka.coordinator.transaction.TransactionCoordinator`` (``handleInitProducerId``,
``handleAddPartitionsToTransaction``, ``handleEndTransaction``, ``abortTimedOutTransactions``,
``handleDescribeTransactions``, ``handleListTransactions``) with the marker completion of
``TransactionMarkerChannelManager.addTxnMarkersToSend``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from kafkette.broker.broker_features import FINALIZED_FEATURES
from kafkette.broker.config import KafkaConfig
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.producer_id_manager import ProducerIdManager
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.broker.transaction import transaction_coordinator as logic
from kafkette.broker.transaction.transaction_marker_channel_manager import (
    MarkerOutcome,
    TransactionMarkerChannelManager,
)
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_log import TransactionStateLog
from kafkette.broker.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    PendingCompletion,
    TransactionStateManager,
)
from kafkette.common.background_tasks import cancel_and_wait
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
TRANSACTION_VERSION = "transaction.version"
COMPLETION_RETRY_BACKOFF_S = 0.1  # between attempts to write a completion the log could not take yet


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class TransactionCoordinatorService:
    """Answers the transactional APIs of the transactional ids whose partitions this broker leads.

    Args:
        state: the cache (``TransactionStateManager``).
        log: the ``__transaction_state`` reads and writes; its ``on_loaded`` is taken over here.
        markers: sends the COMMIT/ABORT markers.
        generate_producer_id: the next producer id, without waiting (``ProducerIdManager.
            next_producer_id``); raises a ``KafkaError`` when none can be had now.
        ensure_producer_id: waits until ``generate_producer_id`` has an id to give
            (``ProducerIdManager.ensure_available``); raises a ``KafkaError`` when the controller
            cannot give a block.
        transaction_version: the ``transaction.version`` finalized in the cluster now (used for the
            coordinator's own aborts).
        abort_timed_out_interval_ms / remove_expired_interval_ms: the two cleanup periods, ms.
        time_ms: wall clock (ms since the epoch).
    """

    def __init__(
        self,
        state: TransactionStateManager,
        log: TransactionStateLog,
        markers: TransactionMarkerChannelManager,
        generate_producer_id: Callable[[], int],
        ensure_producer_id: Callable[[], Awaitable[None]],
        *,
        transaction_version: Callable[[], TransactionVersion] = lambda: TransactionVersion.TV_2,
        abort_timed_out_interval_ms: int = 10000,
        remove_expired_interval_ms: int = 3600000,
        time_ms: Callable[[], int] = _wall_clock_ms,
    ) -> None:
        self.state = state
        self._log = log
        self._markers = markers
        self._generate_producer_id = generate_producer_id
        self._ensure_producer_id = ensure_producer_id
        self._transaction_version = transaction_version
        self._intervals_s = (abort_timed_out_interval_ms / 1000, remove_expired_interval_ms / 1000)
        self._time_ms = time_ms
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False
        log.on_loaded = self._on_loaded

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the two periodic cleanups."""
        self._spawn(
            self._every(self._intervals_s[0], self.abort_timed_out_transactions), "txn-abort-timed-out"
        )
        self._spawn(
            self._every(self._intervals_s[1], self.remove_expired_transactional_ids), "txn-remove-expired"
        )

    async def stop(self) -> None:
        """Cancel and await every task (cleanups, marker sends, completions)."""
        self._stopped = True
        await self._log.stop()
        await self._markers.close()
        await cancel_and_wait(list(self._tasks), 10)
        self._tasks.clear()

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        if self._stopped:
            coro.close()
            return
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("Transaction coordinator task %s failed: %r", task.get_name(), task.exception())

    async def _every(self, interval_s: float, work: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(interval_s)
            await work()

    def on_election(self, partition: int, coordinator_epoch: int) -> None:
        """This broker leads ``__transaction_state-<partition>`` at ``coordinator_epoch``: load it."""
        self._log.on_election(partition, coordinator_epoch)

    def on_resignation(self, partition: int, coordinator_epoch: int | None = None) -> None:
        """This broker no longer leads ``__transaction_state-<partition>``: its ids go."""
        self._log.on_resignation(partition, coordinator_epoch)

    # ------------------------------------------------------------------ requests

    async def init_producer_id(
        self, transactional_id: str, transaction_timeout_ms: int, expected: tuple[int, int] | None
    ) -> tuple[Errors, int, int]:
        """InitProducerId with a ``transactional.id``.

        Args:
            transactional_id: the producer's id.
            transaction_timeout_ms: its ``transaction.timeout.ms``.
            expected: v3+'s ``(producer_id, producer_epoch)`` when not -1.

        Returns:
            ``(error, producer_id, producer_epoch)``; ids -1 with an error.  An ongoing transaction of
            an older producer is aborted first and CONCURRENT_TRANSACTIONS answered (the client retries).
        """
        error = await self._producer_id_available()
        if error != Errors.NONE:
            return error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        result = logic.handle_init_producer_id(
            self.state,
            transactional_id,
            transaction_timeout_ms,
            expected,
            self._generate_producer_id,
            self._time_ms(),
        )
        if not result.writes:
            return result.error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        transit = result.transit
        assert transit is not None and result.coordinator_epoch is not None
        if transit.txn_state is TransactionState.PREPARE_EPOCH_FENCE:
            error, _, _ = await self._end(
                transactional_id,
                transit.producer_id,
                transit.producer_epoch,
                False,
                self._transaction_version(),
                False,
            )
            return (
                (error if error != Errors.NONE else Errors.CONCURRENT_TRANSACTIONS),
                NO_PRODUCER_ID,
                NO_PRODUCER_EPOCH,
            )
        error = await self._log.append_transaction_to_log(transactional_id, result.coordinator_epoch, transit)
        if error != Errors.NONE:
            logger.info(
                "Returning %s error code to client for %s's InitProducerId request",
                error.name,
                transactional_id,
            )
            return error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        logger.info(
            "Initialized transactionalId %s with producerId %d and producer epoch %d on partition "
            "__transaction_state-%d",
            transactional_id,
            transit.producer_id,
            transit.producer_epoch,
            self.state.partition_for(transactional_id),
        )
        return Errors.NONE, transit.producer_id, transit.producer_epoch

    async def add_partitions_to_txn(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: TransactionVersion,
    ) -> Errors:
        """AddPartitionsToTxn (and AddOffsetsToTxn with the group's ``__consumer_offsets`` partition).

        Returns:
            NONE once the ONGOING transition naming the partitions is written (at once when they are
            all in already); else the error for every partition of the request.
        """
        result = logic.handle_add_partitions_to_transaction(
            self.state, transactional_id, producer_id, producer_epoch, partitions, client_transaction_version,
            self._time_ms(),
        )  # fmt: skip
        if not result.writes:
            return result.error
        assert result.transit is not None and result.coordinator_epoch is not None
        return await self._log.append_transaction_to_log(
            transactional_id, result.coordinator_epoch, result.transit
        )

    def verify_partitions_in_txn(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, Errors]:
        """AddPartitionsToTxn v4+ ``verify_only`` (KIP-890): per partition NONE when it is in the
        producer's transaction, else the error (see ``handle_verify_partitions_in_transaction``)."""
        return logic.handle_verify_partitions_in_transaction(
            self.state, transactional_id, producer_id, producer_epoch, partitions
        )

    async def end_txn(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        committed: bool,
        client_transaction_version: TransactionVersion,
    ) -> tuple[Errors, int, int]:
        """EndTxn from the client: PREPARE_COMMIT/PREPARE_ABORT written, then answered; the markers
        and the completion follow in a task of this service.

        Returns:
            ``(error, producer_id, producer_epoch)``: with transactions V2, the id and epoch the
            producer goes on with (the epoch bumped); -1 otherwise.
        """
        return await self._end(
            transactional_id, producer_id, producer_epoch, committed, client_transaction_version, True
        )

    async def _end(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        committed: bool,
        client_transaction_version: TransactionVersion,
        is_from_client: bool,
    ) -> tuple[Errors, int, int]:
        error = await self._producer_id_available()  # a V2 completion may rotate the producer id
        if error != Errors.NONE:
            return error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        result = logic.handle_end_transaction(
            self.state, transactional_id, producer_id, producer_epoch, committed, client_transaction_version,
            self._generate_producer_id, self._time_ms(), is_from_client,
        )  # fmt: skip
        if not result.writes:
            return result.error, result.producer_id, result.producer_epoch
        transit = result.transit
        epoch = result.coordinator_epoch
        assert transit is not None and epoch is not None
        error = await self._log.append_transaction_to_log(transactional_id, epoch, transit)
        if error != Errors.NONE:
            logger.info(
                "Aborting sending of transaction markers and returning %s error to client for %s's "
                "EndTransaction request, since appending %s to transaction log with coordinator epoch %d "
                "failed",
                error.name,
                transactional_id,
                transit.txn_state.name,
                epoch,
            )
            return error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        found = self.state.get_transaction_state(transactional_id)
        if not isinstance(found, CoordinatorEpochAndTxnMetadata) or found.coordinator_epoch != epoch:
            return Errors.NOT_COORDINATOR, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        md = found.transaction_metadata
        if md.pending_transition_in_progress:
            return Errors.CONCURRENT_TRANSACTIONS, NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        complete = md.prepare_complete(self._time_ms())
        self._send_markers_then_complete(PendingCompletion(transactional_id, epoch, committed, md, complete))
        answer_id, answer_epoch = (
            (complete.producer_id, complete.producer_epoch)
            if client_transaction_version.supports_epoch_bump
            else (NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
        )
        return Errors.NONE, answer_id, answer_epoch

    async def _producer_id_available(self) -> Errors:
        try:
            await self._ensure_producer_id()
        except KafkaError as exc:
            return error_code_for(exc, Errors.COORDINATOR_NOT_AVAILABLE)
        return Errors.NONE

    # ------------------------------------------------------------------ completion

    def _on_loaded(self, partition: int, pending: list[PendingCompletion]) -> None:
        for completion in pending:
            logger.info(
                "Sending %s's transaction markers for %s after loading partition %d",
                completion.transactional_id,
                "COMMIT" if completion.committed else "ABORT",
                partition,
            )
            self._send_markers_then_complete(completion)

    def _send_markers_then_complete(self, completion: PendingCompletion) -> None:
        self._spawn(self._complete(completion), f"txn-complete-{completion.transactional_id}")

    async def _complete(self, completion: PendingCompletion) -> None:
        """Send the markers; once every partition has its own, write COMPLETE_COMMIT/COMPLETE_ABORT
        (retried while the log answers COORDINATOR_NOT_AVAILABLE)."""
        md, transit = completion.transaction_metadata, completion.transit
        outcome = await self._markers.send_markers(
            completion.transactional_id,
            md.producer_id,  # the transaction's producer and epoch (bumped already by a V2 prepare)
            md.producer_epoch,
            completion.committed,
            completion.coordinator_epoch,
            md.topic_partitions,
            int(transit.client_transaction_version),
            lambda: self._still_current(completion),
        )
        if outcome is not MarkerOutcome.DONE:
            if self._still_current(completion):
                md.pending_state = None  # the transaction stays PREPARE_*: a reload sends the markers again
            return
        while True:
            error = await self._log.append_transaction_to_log(
                completion.transactional_id,
                completion.coordinator_epoch,
                transit,
                retry_on_error=lambda code: code == Errors.COORDINATOR_NOT_AVAILABLE,
            )
            if error != Errors.COORDINATOR_NOT_AVAILABLE:
                break
            await asyncio.sleep(COMPLETION_RETRY_BACKOFF_S)
        if error == Errors.NONE:
            logger.debug(
                "Completed transaction of %s: %s", completion.transactional_id, transit.txn_state.name
            )
        else:
            logger.info(
                "Failed updating transaction state for %s when appending to transaction log with %s",
                completion.transactional_id,
                error.name,
            )

    def _still_current(self, completion: PendingCompletion) -> bool:
        found = self.state.get_transaction_state(completion.transactional_id)
        return (
            isinstance(found, CoordinatorEpochAndTxnMetadata)
            and found.coordinator_epoch == completion.coordinator_epoch
            and found.transaction_metadata is completion.transaction_metadata
        )

    # ------------------------------------------------------------------ cleanups

    async def abort_timed_out_transactions(self) -> None:
        """Abort every ONGOING transaction older than its timeout (the epoch fenced first, so the
        producer's late writes are refused), as ``abortTimedOutTransactions``."""
        for timed_out in self.state.timed_out_transactions(self._time_ms()):
            found = self.state.get_transaction_state(timed_out.transactional_id)
            if not isinstance(found, CoordinatorEpochAndTxnMetadata):
                continue
            md = found.transaction_metadata
            if md.producer_id != timed_out.producer_id or md.pending_transition_in_progress:
                continue
            fence = md.prepare_fence_producer_epoch()
            error, _, _ = await self._end(
                md.transactional_id,
                fence.producer_id,
                fence.producer_epoch,
                False,
                self._transaction_version(),
                False,
            )
            if error == Errors.NONE:
                logger.info(
                    "Completed rollback of ongoing transaction for transactionalId %s due to timeout",
                    md.transactional_id,
                )
            elif error in (
                Errors.INVALID_PRODUCER_ID_MAPPING,
                Errors.PRODUCER_FENCED,
                Errors.CONCURRENT_TRANSACTIONS,
            ):
                logger.debug(
                    "Rollback of ongoing transaction for transactionalId %s has been cancelled due to "
                    "error %s",
                    md.transactional_id,
                    error.name,
                )
            else:
                logger.warning(
                    "Rollback of ongoing transaction for transactionalId %s failed due to error %s",
                    md.transactional_id,
                    error.name,
                )

    async def remove_expired_transactional_ids(self) -> None:
        """Write a tombstone for every expired transactional id, then forget it
        (``transactional.id.expiration.ms``)."""
        for expired in self.state.collect_expired_transactional_ids(self._time_ms()):
            error = await self._log.append_transaction_to_log(
                expired.transactional_id, expired.coordinator_epoch, expired.transit
            )
            self.state.complete_expiration(expired, error == Errors.NONE)

    # ------------------------------------------------------------------ reads

    def describe_transactions(self, transactional_ids: Iterable[str]) -> list[object]:
        """DescribeTransactions' states, one per id (see ``handle_describe_transactions``)."""
        return [logic.handle_describe_transactions(self.state, t) for t in transactional_ids]

    def list_transactions(
        self,
        producer_ids: set[int],
        state_names: set[str],
        duration_ms: int,
        transactional_id_pattern: str | None,
    ) -> tuple[Errors, list[str], list[tuple[str, int, str]]]:
        """ListTransactions from this coordinator: ``(error, unknown state filters, [(id, producer
        id, state name)])``."""
        return self.state.list_transaction_states(
            producer_ids, state_names, duration_ms, transactional_id_pattern, self._time_ms()
        )


def build_transaction_coordinator(
    config: KafkaConfig,
    replica_manager: ReplicaManager,
    metadata_cache: MetadataCache,
    producer_ids: ProducerIdManager,
    partition_count: Callable[[], int],
    time_ms: Callable[[], int],
) -> TransactionCoordinatorService:
    """The broker's transaction coordinator from its configs (``transaction.*``, ``request.timeout.ms``,
    ``retry.backoff.ms``, the inter-broker listener's security), with ``transaction.version`` at
    the level the cluster finalizes (``broker_features``: 0, so transactions V1).

    Args:
        partition_count: the partitions of ``__transaction_state`` (the topic's once it exists,
            ``transaction.state.log.num.partitions`` before).
    """
    state = TransactionStateManager(
        partition_count(), config.transactional_id_expiration_ms, config.transaction_max_timeout_ms
    )
    level = FINALIZED_FEATURES.get(TRANSACTION_VERSION, 0)
    log = TransactionStateLog(
        config.node_id,
        replica_manager,
        state,
        partition_count=partition_count,
        request_timeout_ms=config.request_timeout_ms,
        load_buffer_bytes=config.transaction_state_log_load_buffer_size,
        transaction_version=lambda: TransactionVersion(level),
        time_ms=time_ms,
    )
    markers = TransactionMarkerChannelManager(
        config.node_id,
        metadata_cache,
        security=config.inter_broker_security,
        request_timeout_ms=config.request_timeout_ms,
    )
    return TransactionCoordinatorService(
        state,
        log,
        markers,
        producer_ids.next_producer_id,
        producer_ids.ensure_available,
        transaction_version=lambda: TransactionVersion(level),
        abort_timed_out_interval_ms=config.transaction_abort_timed_out_transaction_cleanup_interval_ms,
        remove_expired_interval_ms=config.transaction_remove_expired_transaction_cleanup_interval_ms,
        time_ms=time_ms,
    )
