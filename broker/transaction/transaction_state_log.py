"""``__transaction_state`` on this broker: loading the partitions it leads, and appending transitions.

Owns: ``TransactionStateLog`` (on becoming a partition's leader, read it from its log start to its
log end into the ``TransactionStateManager``'s cache, then hand the transactions left in
PREPARE_COMMIT/PREPARE_ABORT to ``on_loaded`` so their markers are sent again; on resigning, drop
them; ``append_transaction_to_log``: one record (key ``TransactionLogKey``, value
``TransactionLogValue``) appended with acks=all, the append's error mapped to the coordinator error
Kafka answers, and, once appended at the same coordinator epoch, the metadata's pending transition
completed).  Does not own what a request does to a transaction (``transaction_coordinator``) nor the
record formats (``transaction_log``).

Kafka concept: ``kafka.coordinator.transaction.TransactionStateManager``'s I/O half
(``loadTransactionsForTxnTopicPartition``, ``removeTransactionsForTxnTopicPartition``,
``appendTransactionToLog``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from kafkette.broker.replica_manager import ReplicaManager
from kafkette.broker.transaction.transaction_log import key_to_bytes, value_to_bytes
from kafkette.broker.transaction.transaction_metadata import TxnTransitMetadata
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    PendingCompletion,
    TransactionStateManager,
    load_transaction_metadata,
)
from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.topic_names import TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.record_batch import build_batch, decode_records, iter_batches
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_APPEND_ERRORS = {
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,  # the client retries
    Errors.NOT_LEADER_OR_FOLLOWER: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.RECORD_LIST_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
}
"""An append's error -> the coordinator's answer (``appendTransactionToLog``'s mapping)."""


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class TransactionStateLog:
    """Loads and appends the ``__transaction_state`` partitions this broker leads.

    Args:
        broker_id: this broker (log prefix).
        replica_manager: where the partitions are read and appended.
        state_manager: the cache the partitions load into.
        partition_count: the partitions of ``__transaction_state`` now (the topic's, or
            ``transaction.state.log.num.partitions`` before it exists); read at each election, so
            ids are placed over the topic as it is.
        request_timeout_ms: how long an append waits for the ISR (Kafka's ``request.timeout.ms``
            for the transaction log's appends), ms.
        load_buffer_bytes: ``transaction.state.log.load.buffer.size``: bytes read per step.
        transaction_version: the ``transaction.version`` finalized now (the value version written).
        time_ms: wall clock (ms since the epoch).
        on_loaded: called with ``(partition, [PendingCompletion])`` once a partition has loaded.

    Every load task is owned here: ``on_resignation`` and ``stop`` cancel and await it.
    """

    def __init__(
        self,
        broker_id: int,
        replica_manager: ReplicaManager,
        state_manager: TransactionStateManager,
        *,
        partition_count: Callable[[], int] | None = None,
        request_timeout_ms: int = 30000,
        load_buffer_bytes: int = 5 * 1024 * 1024,
        transaction_version: Callable[[], TransactionVersion] = lambda: TransactionVersion.TV_2,
        time_ms: Callable[[], int] = _wall_clock_ms,
        on_loaded: Callable[[int, list[PendingCompletion]], None] | None = None,
    ) -> None:
        self._replica_manager = replica_manager
        self._state = state_manager
        self._partition_count = partition_count
        self._request_timeout_ms = request_timeout_ms
        self._load_buffer_bytes = load_buffer_bytes
        self._transaction_version = transaction_version
        self._time_ms = time_ms
        self.on_loaded = on_loaded
        self._loads: dict[int, asyncio.Task[None]] = {}
        self._stopped = False
        self._prefix = f"[Transaction State Manager {broker_id}]:"

    # ------------------------------------------------------------------ ownership

    def on_election(self, partition: int, coordinator_epoch: int) -> None:
        """This broker became leader of ``__transaction_state-<partition>`` at ``coordinator_epoch``
        (its leader epoch): load it (a second election at the same epoch is ignored)."""
        if self._stopped:
            return
        if self._partition_count is not None:
            self._state.transaction_topic_partition_count = self._partition_count()
        entry = self._state.transaction_metadata_cache.get(partition)
        if self._state.loading_partitions.get(partition) == coordinator_epoch or (
            entry is not None and entry.coordinator_epoch == coordinator_epoch
        ):
            return
        previous = self._loads.pop(partition, None)
        if previous is not None:
            previous.cancel()
        self._state.add_loading_partition(partition, coordinator_epoch)
        task = asyncio.get_running_loop().create_task(
            self._load(partition, coordinator_epoch), name=f"txn-load-{partition}"
        )
        self._loads[partition] = task
        task.add_done_callback(lambda t, p=partition: self._load_done(p, t))

    def on_resignation(self, partition: int, coordinator_epoch: int | None = None) -> None:
        """This broker no longer leads ``__transaction_state-<partition>``: its ids go (requests for
        them answer NOT_COORDINATOR)."""
        task = self._loads.pop(partition, None)
        if task is not None:
            task.cancel()
        self._state.remove_transactions_for_txn_topic_partition(partition, coordinator_epoch)

    def _load_done(self, partition: int, task: asyncio.Task[None]) -> None:
        if self._loads.get(partition) is task:
            del self._loads[partition]
        if not task.cancelled() and task.exception() is not None:
            logger.error(
                "%s Loading %s-%d failed: %r",
                self._prefix,
                TRANSACTION_STATE_TOPIC_NAME,
                partition,
                task.exception(),
            )
            self._state.remove_transactions_for_txn_topic_partition(partition)

    async def _load(self, partition: int, coordinator_epoch: int) -> None:
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)
        started = time.monotonic()
        host = self._replica_manager.get_partition(tp)
        if host is None:
            raise KafkaError(f"{tp} is not hosted here")
        log = host.leader_log(coordinator_epoch)
        records: list[tuple[bytes, bytes | None]] = []
        position = log.log_start_offset
        while position < log.log_end_offset:
            data = log.read(position, self._load_buffer_bytes, log.log_end_offset, True).records
            if not data:
                break
            for pos, header in iter_batches(data):
                for record in decode_records(data, pos, header):
                    if record.offset >= position and record.key is not None:
                        records.append((record.key, record.value))
                position = max(position, header.last_offset + 1)
            await asyncio.sleep(0)  # let other requests in between steps
        loaded = load_transaction_metadata(records, partition)
        pending = self._state.add_loaded_transactions_to_cache(
            partition, coordinator_epoch, loaded, self._time_ms()
        )
        logger.info(
            "%s Finished loading %d transaction metadata from %s in %.0f milliseconds, of which 0 "
            "milliseconds was spent in the scheduler.",
            self._prefix,
            len(loaded),
            tp,
            (time.monotonic() - started) * 1000,
        )
        if self.on_loaded is not None:
            self.on_loaded(partition, pending)

    async def stop(self) -> None:
        """Cancel and await every load."""
        self._stopped = True
        tasks = list(self._loads.values())
        self._loads.clear()
        await cancel_and_wait(tasks, 10)

    # ------------------------------------------------------------------ appends

    async def append_transaction_to_log(
        self,
        transactional_id: str,
        coordinator_epoch: int,
        transit: TxnTransitMetadata,
        retry_on_error: Callable[[Errors], bool] = lambda _: False,
    ) -> Errors:
        """Write ``transit`` (or a tombstone, for a DEAD transit) and complete it in the cache.

        Args:
            transactional_id: whose transition.
            coordinator_epoch: the epoch ``transit`` was prepared at; a partition reloaded meanwhile
                answers NOT_COORDINATOR and leaves the new load's metadata alone.
            transit: the prepared transition (the metadata's pending state).
            retry_on_error: for an append error: True keeps the pending state (the caller retries
                the same write, as for a completion after the markers), False clears it.

        Returns:
            NONE once written with acks=all and completed; else the coordinator's error:
            COORDINATOR_NOT_AVAILABLE (no ISR, timed out), NOT_COORDINATOR (not the leader, moved,
            reloaded), COORDINATOR_LOAD_IN_PROGRESS, UNKNOWN_SERVER_ERROR (too large) ...
        """
        found = self._state.get_transaction_state(transactional_id)
        if isinstance(found, Errors):
            return found
        if found is None or found.coordinator_epoch != coordinator_epoch:
            return Errors.NOT_COORDINATOR
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self._state.partition_for(transactional_id))
        value = (
            None
            if transit.txn_state is TransactionState.DEAD
            else value_to_bytes(transit, self._transaction_version())
        )
        batch = build_batch([(key_to_bytes(transactional_id), value, None, self._time_ms())])
        try:
            statuses = await self._replica_manager.append_records(
                self._request_timeout_ms, -1, {tp: batch}, internal_topics_allowed=True
            )
            code = Errors(statuses[tp].error)
        except Exception as exc:  # the append itself failed (an I/O error, a bug): nothing changes
            logger.exception("%s Appending %s's transition to %s failed", self._prefix, transactional_id, tp)
            code = error_code_for(exc)
        if code != Errors.NONE:
            code = _APPEND_ERRORS.get(code, code)
            self._after_failed_append(
                transactional_id, coordinator_epoch, transit, code, retry_on_error(code)
            )
            return code
        found = self._state.get_transaction_state(transactional_id)
        if isinstance(found, Errors):
            logger.info(
                "%s Accessing the cached transaction metadata for %s returns %s error; aborting transition "
                "to the new metadata and setting the error in the callback",
                self._prefix,
                transactional_id,
                found.name,
            )
            return found
        if found is None or found.coordinator_epoch != coordinator_epoch:
            logger.info(
                "%s The cached coordinator metadata of %s changed after appending %s; aborting transition to "
                "the new metadata and returning NOT_COORDINATOR",
                self._prefix,
                transactional_id,
                transit,
            )
            return Errors.NOT_COORDINATOR
        found.transaction_metadata.complete_transition_to(transit)
        return Errors.NONE

    def _after_failed_append(
        self,
        transactional_id: str,
        coordinator_epoch: int,
        transit: TxnTransitMetadata,
        code: Errors,
        retry: bool,
    ) -> None:
        """Reset the pending state after a failed append (unless the caller retries it)."""
        found = self._state.get_transaction_state(transactional_id)
        if (
            not isinstance(found, CoordinatorEpochAndTxnMetadata)
            or found.coordinator_epoch != coordinator_epoch
        ):
            logger.info(
                "%s TransactionalId %s append transaction log for %s transition failed due to %s, aborting "
                "state transition and returning the error in the callback",
                self._prefix,
                transactional_id,
                transit,
                code.name,
            )
            return
        if retry:
            logger.info(
                "%s TransactionalId %s append transaction log for %s transition failed due to %s, not "
                "resetting pending state but just returning the error in the callback to let the caller "
                "retry",
                self._prefix,
                transactional_id,
                transit,
                code.name,
            )
            return
        logger.info(
            "%s TransactionalId %s append transaction log for %s transition failed due to %s, resetting "
            "pending state, aborting state transition and returning %s in the callback",
            self._prefix,
            transactional_id,
            transit,
            code.name,
            code.name,
        )
        found.transaction_metadata.pending_state = None
