"""The transaction coordinator's cache of transactional ids, per ``__transaction_state`` partition:
placement, loading, lookups, time-outs, expiry and listing, without I/O.

Owns: ``partition_for`` (Kafka's ``Utils.abs(transactionalId.hashCode) % partitions``, with Java's
``String.hashCode``, so an id lands where a Kafka broker would put it), ``load_transaction_metadata``
(the replay of a partition's records: the last value of an id wins, a tombstone removes it, records
of unknown versions are skipped with a warning), and ``TransactionStateManager``'s in-memory part:
the partitions loading and loaded (with their coordinator epochs), the lookup that answers
COORDINATOR_LOAD_IN_PROGRESS or NOT_COORDINATOR, the transactions to complete after a load (those
left in PREPARE_COMMIT/PREPARE_ABORT), the timed-out ongoing transactions, the transactional ids
expired at a given time (``transactional.id.expiration.ms``), and ListTransactions' filters.
Does not own: reading the partition's log or appending records (the caller hands records in and
writes the ``TxnTransitMetadata`` it gets back), nor scheduling (the caller runs the cleanups every
``transaction.abort.timed.out.transaction.cleanup.interval.ms`` and
``transaction.remove.expired.transaction.cleanup.interval.ms``).

Kafka concept: ``kafka.coordinator.transaction.TransactionStateManager`` (``partitionFor``,
``loadTransactionMetadata``, ``addLoadedTransactionsToCache``, ``getTransactionState``,
``putTransactionStateIfNotExists``, ``timedOutTransactions``, ``shouldExpire``,
``listTransactionStates``, ``removeTransactionsForTxnTopicPartition``, ``validateTransactionTimeoutMs``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkette.broker.transaction.transaction_log import (
    TxnRecord,
    TxnTombstone,
    UnknownKeyVersion,
    read,
)
from kafkette.broker.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafkette.broker.transaction.transaction_state import TransactionState
from kafkette.common.java_hash_order import coordinator_partition_for
from kafkette.common.topic_names import TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.errors import Errors

logger = logging.getLogger(__name__)


def partition_for(transactional_id: str, partition_count: int) -> int:
    """The ``__transaction_state`` partition of ``transactional_id`` (``Utils.abs(hashCode) % count``;
    ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0).

    Args:
        transactional_id: the producer's ``transactional.id``.
        partition_count: ``transaction.state.log.num.partitions`` (the topic's partition count).

    Raises:
        ValueError: ``partition_count`` below 1.
    """
    return coordinator_partition_for(transactional_id, partition_count)


def load_transaction_metadata(
    records: Iterable[tuple[bytes, bytes | None]], partition: int = -1
) -> dict[str, TransactionMetadata]:
    """Replay one partition's records, in offset order, into the metadata of its transactional ids.

    Args:
        records: ``(key, value)`` of each record (value None: a tombstone).
        partition: the partition's number, for the warnings.

    Returns:
        ``{transactional_id: TransactionMetadata}``, each with no pending state.

    Raises:
        TransactionLogError: a record that cannot be read (Kafka stops the load and logs it).
    """
    loaded: dict[str, TransactionMetadata] = {}
    for key, value in records:
        result = read(key, value)
        if isinstance(result, TxnRecord):
            loaded[result.transactional_id] = result.metadata
        elif isinstance(result, TxnTombstone):
            loaded.pop(result.transactional_id, None)
        else:
            kind = "key" if isinstance(result, UnknownKeyVersion) else "value"
            logger.warning(
                "Unknown message %s with version %d while loading transaction state from %s-%d. Ignoring it. "
                "It could be a left over from an aborted upgrade.",
                kind,
                result.version,
                TRANSACTION_STATE_TOPIC_NAME,
                partition,
            )
    return loaded


@dataclass
class TxnMetadataCacheEntry:
    """A loaded partition: the coordinator epoch it was loaded at and its transactional ids."""

    coordinator_epoch: int
    metadata_per_transactional_id: dict[str, TransactionMetadata] = field(default_factory=dict)


@dataclass(frozen=True)
class CoordinatorEpochAndTxnMetadata:
    """A lookup's answer: the partition's coordinator epoch and the id's metadata."""

    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@dataclass(frozen=True)
class PendingCompletion:
    """A transaction loaded in PREPARE_COMMIT/PREPARE_ABORT: its markers must be (re)sent, then
    ``transit`` (its completion, already prepared) written."""

    transactional_id: str
    coordinator_epoch: int
    committed: bool
    transaction_metadata: TransactionMetadata
    transit: TxnTransitMetadata


@dataclass(frozen=True)
class TransactionalIdAndProducerIdEpoch:
    """A timed-out transaction, to abort with the producer id and epoch it was found with."""

    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True)
class ExpiredTransactionalId:
    """A transactional id to remove: write a tombstone of it to ``partition``, then drop it from the
    cache if its metadata is still pending DEAD."""

    partition: int
    coordinator_epoch: int
    transactional_id: str
    transit: TxnTransitMetadata


class TransactionStateManager:
    """The in-memory state of the ``__transaction_state`` partitions this broker leads.

    Invariants: a partition is either loading (with the coordinator epoch it loads at) or loaded
    (in ``transaction_metadata_cache``), or neither; lookups of its ids answer
    COORDINATOR_LOAD_IN_PROGRESS while it loads and NOT_COORDINATOR when it is not here.

    Args:
        transaction_topic_partition_count: ``transaction.state.log.num.partitions``.
        transactional_id_expiration_ms: ``transactional.id.expiration.ms``.
        transaction_max_timeout_ms: ``transaction.max.timeout.ms``.
    """

    def __init__(
        self,
        transaction_topic_partition_count: int,
        transactional_id_expiration_ms: int,
        transaction_max_timeout_ms: int,
    ) -> None:
        self.transaction_topic_partition_count = transaction_topic_partition_count
        self.transactional_id_expiration_ms = transactional_id_expiration_ms
        self.transaction_max_timeout_ms = transaction_max_timeout_ms
        self.loading_partitions: dict[int, int] = {}
        """Partition -> the coordinator epoch it is loading at."""
        self.transaction_metadata_cache: dict[int, TxnMetadataCacheEntry] = {}

    def partition_for(self, transactional_id: str) -> int:
        """The partition of ``transactional_id`` (see the module's ``partition_for``)."""
        return partition_for(transactional_id, self.transaction_topic_partition_count)

    def validate_transaction_timeout_ms(self, txn_timeout_ms: int) -> bool:
        """Whether a requested ``transaction.timeout.ms`` is in ``(0, transaction.max.timeout.ms]``."""
        return 0 < txn_timeout_ms <= self.transaction_max_timeout_ms

    def add_loading_partition(self, partition: int, coordinator_epoch: int) -> None:
        """Mark ``partition`` as loading at ``coordinator_epoch`` (this broker became its leader)."""
        self.loading_partitions[partition] = coordinator_epoch

    def add_loaded_transactions_to_cache(
        self, partition: int, coordinator_epoch: int, loaded: dict[str, TransactionMetadata], now_ms: int
    ) -> list[PendingCompletion]:
        """Finish loading ``partition``: cache its ids, and prepare the completion of each
        transaction left in PREPARE_COMMIT or PREPARE_ABORT (their markers are to be sent).

        Does nothing (and returns nothing) when the partition is no longer loading at that epoch
        (it was unloaded or reloaded meanwhile).

        Args:
            partition: the ``__transaction_state`` partition.
            coordinator_epoch: the epoch it was loaded at (its leader epoch).
            loaded: ``load_transaction_metadata``'s answer.
            now_ms: now, ms since the epoch.

        Returns:
            The transactions whose markers must be sent, with their prepared completions.
        """
        if self.loading_partitions.get(partition) != coordinator_epoch:
            return []
        previous = self.transaction_metadata_cache.get(partition)
        if previous is not None:
            logger.warning(
                "Unloaded transaction metadata of %d ids from %d as part of loading metadata at epoch %d",
                len(previous.metadata_per_transactional_id),
                partition,
                coordinator_epoch,
            )
        self.transaction_metadata_cache[partition] = TxnMetadataCacheEntry(coordinator_epoch, loaded)
        pending = [
            PendingCompletion(
                transactional_id,
                coordinator_epoch,
                md.state is TransactionState.PREPARE_COMMIT,
                md,
                md.prepare_complete(now_ms),
            )
            for transactional_id, md in loaded.items()
            if md.state in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)
        ]
        del self.loading_partitions[partition]
        return pending

    def remove_transactions_for_txn_topic_partition(
        self, partition: int, coordinator_epoch: int | None = None
    ) -> None:
        """Forget ``partition`` (this broker stopped leading it, or it was deleted): its loading
        (only at an epoch below ``coordinator_epoch``, when given) and its cached ids."""
        loading_epoch = self.loading_partitions.get(partition)
        if loading_epoch is not None and (coordinator_epoch is None or loading_epoch < coordinator_epoch):
            del self.loading_partitions[partition]
        if self.transaction_metadata_cache.pop(partition, None) is not None:
            logger.info("Unloaded transaction metadata for %s-%d", TRANSACTION_STATE_TOPIC_NAME, partition)

    def get_transaction_state(
        self, transactional_id: str, created: TransactionMetadata | None = None
    ) -> Errors | CoordinatorEpochAndTxnMetadata | None:
        """Look ``transactional_id`` up, adding ``created`` when it is unknown and given.

        Returns:
            COORDINATOR_LOAD_IN_PROGRESS while its partition loads, NOT_COORDINATOR when the
            partition is not here, None when unknown (and nothing was created), else its metadata
            with the partition's coordinator epoch.
        """
        partition = self.partition_for(transactional_id)
        if partition in self.loading_partitions:
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        entry = self.transaction_metadata_cache.get(partition)
        if entry is None:
            return Errors.NOT_COORDINATOR
        md = entry.metadata_per_transactional_id.get(transactional_id)
        if md is None and created is not None:
            md = entry.metadata_per_transactional_id.setdefault(transactional_id, created)
        return None if md is None else CoordinatorEpochAndTxnMetadata(entry.coordinator_epoch, md)

    def timed_out_transactions(self, now_ms: int) -> list[TransactionalIdAndProducerIdEpoch]:
        """The ONGOING transactions (with no pending transition) started more than their timeout ago."""
        return [
            TransactionalIdAndProducerIdEpoch(transactional_id, md.producer_id, md.producer_epoch)
            for entry in self.transaction_metadata_cache.values()
            for transactional_id, md in entry.metadata_per_transactional_id.items()
            if md.pending_state is None
            and md.state is TransactionState.ONGOING
            and md.txn_start_timestamp + md.txn_timeout_ms < now_ms
        ]

    def should_expire(self, md: TransactionMetadata, now_ms: int) -> bool:
        """Whether ``md`` may expire now: in a state that allows it (EMPTY, COMPLETE_COMMIT,
        COMPLETE_ABORT) and not updated for ``transactional.id.expiration.ms``."""
        return (
            md.state.expiration_allowed
            and md.txn_last_update_timestamp <= now_ms - self.transactional_id_expiration_ms
        )

    def collect_expired_transactional_ids(self, now_ms: int) -> list[ExpiredTransactionalId]:
        """Prepare the expiry of every transactional id that should expire at ``now_ms`` (and has no
        pending transition): each is moved to pending DEAD and returned, to be written as a tombstone."""
        expired: list[ExpiredTransactionalId] = []
        for partition, entry in self.transaction_metadata_cache.items():
            for transactional_id, md in entry.metadata_per_transactional_id.items():
                if md.pending_state is None and self.should_expire(md, now_ms):
                    expired.append(
                        ExpiredTransactionalId(
                            partition, entry.coordinator_epoch, transactional_id, md.prepare_dead()
                        )
                    )
        return expired

    def complete_expiration(self, expired: ExpiredTransactionalId, written: bool) -> None:
        """After the tombstone's write: remove the id if the write succeeded and it is still pending
        DEAD at the same coordinator epoch and producer epoch; otherwise clear its pending state
        (it is tried again at the next cleanup)."""
        entry = self.transaction_metadata_cache.get(expired.partition)
        md = None if entry is None else entry.metadata_per_transactional_id.get(expired.transactional_id)
        if entry is None or md is None:
            return
        if (
            written
            and entry.coordinator_epoch == expired.coordinator_epoch
            and md.pending_state is TransactionState.DEAD
            and md.producer_epoch == expired.transit.producer_epoch
        ):
            del entry.metadata_per_transactional_id[expired.transactional_id]
            return
        logger.warning(
            "Failed to remove expired transactionalId: %s from cache. Tombstone written: %s, "
            "pendingState: %s, producerEpoch: %d, expected producerEpoch: %d, coordinatorEpoch: %d, "
            "expected coordinatorEpoch: %d",
            expired.transactional_id,
            written,
            md.pending_state,
            md.producer_epoch,
            expired.transit.producer_epoch,
            entry.coordinator_epoch,
            expired.coordinator_epoch,
        )
        md.pending_state = None

    def list_transaction_states(
        self,
        filter_producer_ids: set[int],
        filter_state_names: set[str],
        filter_duration_ms: int,
        filter_transactional_id_pattern: str | None,
        now_ms: int,
    ) -> tuple[Errors, list[str], list[tuple[str, int, str]]]:
        """ListTransactions' answer from this coordinator.

        Args:
            filter_producer_ids: only these producer ids (empty: any).
            filter_state_names: only these states, by name (empty: any).
            filter_duration_ms: only transactions running longer than this, ms (-1: any; KIP-994).
            filter_transactional_id_pattern: a regular expression the whole id must match (None or
                empty: any; KIP-1152).
            now_ms: now, ms since the epoch.

        Returns:
            ``(error, unknown_state_filters, [(transactional_id, producer_id, state_name)])``:
            COORDINATOR_LOAD_IN_PROGRESS while a partition loads, INVALID_REGULAR_EXPRESSION for a
            pattern that does not compile, else NONE.  DEAD ids are never listed.
        """
        if self.loading_partitions:
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, [], []
        states = {TransactionState.from_name(name) for name in filter_state_names} - {None}
        unknown = sorted(name for name in filter_state_names if TransactionState.from_name(name) is None)
        pattern = None
        if filter_transactional_id_pattern:
            try:
                pattern = re.compile(filter_transactional_id_pattern)
            except re.error:
                return Errors.INVALID_REGULAR_EXPRESSION, [], []

        def include(md: TransactionMetadata) -> bool:
            if md.state is TransactionState.DEAD:
                return False
            if filter_producer_ids and md.producer_id not in filter_producer_ids:
                return False
            if filter_state_names and md.state not in states:
                return False
            if filter_duration_ms >= 0 and now_ms - md.txn_start_timestamp <= filter_duration_ms:
                return False
            return pattern is None or pattern.fullmatch(md.transactional_id) is not None

        listed = [
            (md.transactional_id, md.producer_id, md.state.state_name)
            for entry in self.transaction_metadata_cache.values()
            for md in entry.metadata_per_transactional_id.values()
            if include(md)
        ]
        return Errors.NONE, unknown, listed
