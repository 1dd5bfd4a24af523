"""A transactional id's state at its coordinator, and its two-step transitions.

Owns: ``TransactionMetadata`` (one transactional id: producer id and epoch, the previous and next
producer ids of KIP-890's rotation, timeout, state, partitions, timestamps, the client's
``transaction.version``) and ``TxnTransitMetadata`` (the state to move to, as written to
``__transaction_state``).  Does not own the log write nor the requests' checks
(``transaction_coordinator``).

A transition has two steps, as in Kafka: a ``prepare_*`` method checks the move against
``TransactionState.valid_previous_states``, sets the pending state and returns the
``TxnTransitMetadata`` to write; once the record is written (or, loading, replayed),
``complete_transition_to`` applies it.  While a state is pending no other transition may start
(the coordinator answers CONCURRENT_TRANSACTIONS; here ``prepare_*`` raises).  Epochs are int16:
an epoch of 32766 or more is exhausted (the coordinator must keep one to fence with), and a
transactions-V2 EndTxn at 32766 rotates to a new producer id at epoch 0 on completion.

Kafka concept: ``org.apache.kafka.coordinator.transaction.TransactionMetadata`` and
``TxnTransitMetadata``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.protocol.errors import ProducerFencedError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
SHORT_MAX = (1 << 15) - 1
"""Java's ``Short.MAX_VALUE``: the producer epoch's ceiling."""


class IllegalTransactionStateError(RuntimeError):
    """A transition that must never be asked for (Kafka's ``IllegalStateException``): a second
    pending transition, a move not allowed from the current state, a completion that does not
    match what was prepared."""


def is_epoch_exhausted(producer_epoch: int) -> bool:
    """Whether no further epoch may be handed to a client (``epoch >= Short.MAX_VALUE - 1``): the
    last one is kept for the coordinator to fence with."""
    return producer_epoch >= SHORT_MAX - 1


@dataclass(frozen=True)
class TxnTransitMetadata:
    """The state a transactional id moves to, as its ``TransactionLogValue`` record holds it.

    Times in ms since the epoch (``txn_start_timestamp`` -1 when no transaction is open);
    ``txn_timeout_ms`` in ms; ``prev_producer_id`` is the producer id before this transition.
    """

    producer_id: int
    prev_producer_id: int
    next_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int
    client_transaction_version: TransactionVersion


class TransactionMetadata:
    """One transactional id at its coordinator (see the module's docstring for the two steps).

    Attributes:
        transactional_id: the client's ``transactional.id``.
        producer_id / producer_epoch: the id and epoch in use.
        prev_producer_id: the producer id before the last rotation (-1: none).
        next_producer_id: the id a transactions-V2 completion rotates to (-1: none).
        last_producer_epoch: the epoch before the last bump (-1: none), so a retried
            InitProducerId or EndTxn is recognised.
        txn_timeout_ms: the client's ``transaction.timeout.ms``.
        state / pending_state: the state, and the one being moved to (None: none).
        topic_partitions: the partitions in the open transaction.
        txn_start_timestamp / txn_last_update_timestamp: ms since the epoch (start -1: none).
        client_transaction_version: the ``transaction.version`` the client last spoke.
        has_failed_epoch_fence: a fence's write failed, so the next fence reuses its epoch.
    """

    def __init__(
        self,
        transactional_id: str,
        producer_id: int,
        prev_producer_id: int,
        next_producer_id: int,
        producer_epoch: int,
        last_producer_epoch: int,
        txn_timeout_ms: int,
        state: TransactionState,
        topic_partitions: Iterable[TopicPartition],
        txn_start_timestamp: int,
        txn_last_update_timestamp: int,
        client_transaction_version: TransactionVersion,
    ) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.prev_producer_id = prev_producer_id
        self.next_producer_id = next_producer_id
        self.producer_epoch = producer_epoch
        self.last_producer_epoch = last_producer_epoch
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.topic_partitions: set[TopicPartition] = set(topic_partitions)
        self.txn_start_timestamp = txn_start_timestamp
        self.txn_last_update_timestamp = txn_last_update_timestamp
        self.client_transaction_version = client_transaction_version
        self.pending_state: TransactionState | None = None
        self.has_failed_epoch_fence = False

    def __repr__(self) -> str:
        return (
            f"TransactionMetadata(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
            f"prevProducerId={self.prev_producer_id}, nextProducerId={self.next_producer_id}, "
            f"producerEpoch={self.producer_epoch}, lastProducerEpoch={self.last_producer_epoch}, "
            f"txnTimeoutMs={self.txn_timeout_ms}, state={self.state.name}, "
            f"pendingState={self.pending_state}, "
            f"topicPartitions={sorted(self.topic_partitions)}, txnStartTimestamp={self.txn_start_timestamp}, "
            f"txnLastUpdateTimestamp={self.txn_last_update_timestamp}, "
            f"clientTransactionVersion={self.client_transaction_version.name})"
        )

    @property
    def pending_transition_in_progress(self) -> bool:
        """Whether a prepared transition waits for its record to be written."""
        return self.pending_state is not None

    @property
    def is_producer_epoch_exhausted(self) -> bool:
        """Whether the current epoch is the last a client may get (see ``is_epoch_exhausted``)."""
        return is_epoch_exhausted(self.producer_epoch)

    def _has_pending_transaction(self) -> bool:
        return self.state in (
            TransactionState.ONGOING,
            TransactionState.PREPARE_ABORT,
            TransactionState.PREPARE_COMMIT,
        )

    def remove_partition(self, topic_partition: TopicPartition) -> None:
        """Drop a partition whose marker was written (only while preparing to commit or abort).

        Raises:
            IllegalTransactionStateError: in any other state.
        """
        if self.state not in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT):
            raise IllegalTransactionStateError(
                f"Transaction metadata's current state is {self.state.name}, and its pending state is "
                f"{self.pending_state} while trying to remove partitions whose txn marker has been sent"
            )
        self.topic_partitions.discard(topic_partition)

    def _current(self, state: TransactionState) -> TxnTransitMetadata:
        """The transition data of moving to ``state`` with everything else unchanged (Kafka's
        ``TransitionData``); ``prev_producer_id`` is filled by ``_prepare_transition_to``."""
        return TxnTransitMetadata(
            producer_id=self.producer_id,
            prev_producer_id=self.prev_producer_id,
            next_producer_id=self.next_producer_id,
            producer_epoch=self.producer_epoch,
            last_producer_epoch=self.last_producer_epoch,
            txn_timeout_ms=self.txn_timeout_ms,
            txn_state=state,
            topic_partitions=frozenset(self.topic_partitions),
            txn_start_timestamp=self.txn_start_timestamp,
            txn_last_update_timestamp=self.txn_last_update_timestamp,
            client_transaction_version=self.client_transaction_version,
        )

    def prepare_no_transit(self) -> TxnTransitMetadata:
        """The current state as transition data, without setting a pending state."""
        return self._current(self.state)

    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        """Move to PREPARE_EPOCH_FENCE with the epoch bumped (not again after a failed fence write).

        Raises:
            IllegalTransactionStateError: the epoch is already ``Short.MAX_VALUE``, or the move is invalid.
        """
        if self.producer_epoch == SHORT_MAX:
            raise IllegalTransactionStateError(
                "Cannot fence producer with epoch equal to Short.MaxValue since this would overflow"
            )
        bumped = self.producer_epoch if self.has_failed_epoch_fence else self.producer_epoch + 1
        data = dataclasses.replace(self._current(TransactionState.PREPARE_EPOCH_FENCE), producer_epoch=bumped)
        return self._prepare_transition_to(data)

    def prepare_increment_producer_epoch(
        self, new_txn_timeout_ms: int, expected_producer_epoch: int | None, update_timestamp: int
    ) -> TxnTransitMetadata:
        """Move to EMPTY with the next epoch, for InitProducerId (Kafka's
        ``prepareIncrementProducerEpoch``).

        Args:
            new_txn_timeout_ms: the request's transaction timeout, ms.
            expected_producer_epoch: the epoch the client holds (InitProducerId v3+), or None: a
                new producer (the last epoch becomes -1, fencing any older one).  The current epoch
                (or none yet) bumps; the last epoch is a retry and returns the current epoch again.
            update_timestamp: now, ms.

        Raises:
            ProducerFencedError: the client's epoch is neither the current nor the last.
            IllegalTransactionStateError: the epoch is exhausted, or the move is invalid.
        """
        if self.is_producer_epoch_exhausted:
            raise IllegalTransactionStateError(
                f"Cannot allocate any more producer epochs for producerId {self.producer_id}"
            )
        bumped = self.producer_epoch + 1
        if expected_producer_epoch is None:
            epoch, last_epoch = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_producer_epoch == self.producer_epoch:
            epoch, last_epoch = bumped, self.producer_epoch
        elif expected_producer_epoch == self.last_producer_epoch:
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        else:
            logger.info(
                "Expected producer epoch %d does not match current producer epoch %d or previous "
                "producer epoch %d",
                expected_producer_epoch,
                self.producer_epoch,
                self.last_producer_epoch,
            )
            raise ProducerFencedError()
        data = dataclasses.replace(
            self._current(TransactionState.EMPTY),
            producer_epoch=epoch,
            last_producer_epoch=last_epoch,
            txn_timeout_ms=new_txn_timeout_ms,
            topic_partitions=frozenset(),
            txn_start_timestamp=-1,
            txn_last_update_timestamp=update_timestamp,
        )
        return self._prepare_transition_to(data)

    def prepare_producer_id_rotation(
        self, new_producer_id: int, new_txn_timeout_ms: int, update_timestamp: int, record_last_epoch: bool
    ) -> TxnTransitMetadata:
        """Move to EMPTY with a new producer id at epoch 0 (InitProducerId when the epoch is exhausted).

        Args:
            new_producer_id: the id to use from now on.
            new_txn_timeout_ms: the request's transaction timeout, ms.
            update_timestamp: now, ms.
            record_last_epoch: keep the current epoch as the last one (so a retry is recognised).

        Raises:
            IllegalTransactionStateError: a transaction is still open, or the move is invalid.
        """
        if self._has_pending_transaction():
            raise IllegalTransactionStateError(
                "Cannot rotate producer ids while a transaction is still pending"
            )
        data = dataclasses.replace(
            self._current(TransactionState.EMPTY),
            producer_id=new_producer_id,
            producer_epoch=0,
            last_producer_epoch=self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
            txn_timeout_ms=new_txn_timeout_ms,
            topic_partitions=frozenset(),
            txn_start_timestamp=-1,
            txn_last_update_timestamp=update_timestamp,
        )
        return self._prepare_transition_to(data)

    def prepare_add_partitions(
        self,
        added_topic_partitions: Iterable[TopicPartition],
        update_timestamp: int,
        client_transaction_version: TransactionVersion,
    ) -> TxnTransitMetadata:
        """Move to ONGOING with ``added_topic_partitions`` joined (a transaction starts now when none
        was open).

        Raises:
            IllegalTransactionStateError: the move is invalid.
        """
        starts = self.state in (
            TransactionState.EMPTY,
            TransactionState.COMPLETE_ABORT,
            TransactionState.COMPLETE_COMMIT,
        )
        data = dataclasses.replace(
            self._current(TransactionState.ONGOING),
            topic_partitions=frozenset(self.topic_partitions) | frozenset(added_topic_partitions),
            txn_start_timestamp=update_timestamp if starts else self.txn_start_timestamp,
            txn_last_update_timestamp=update_timestamp,
            client_transaction_version=client_transaction_version,
        )
        return self._prepare_transition_to(data)

    def prepare_abort_or_commit(
        self,
        new_state: TransactionState,
        client_transaction_version: TransactionVersion,
        next_producer_id: int,
        update_timestamp: int,
        no_partition_added: bool,
    ) -> TxnTransitMetadata:
        """Move to PREPARE_COMMIT or PREPARE_ABORT; with transactions V2 the epoch is bumped.

        Args:
            new_state: PREPARE_COMMIT or PREPARE_ABORT.
            client_transaction_version: the client's version (EndTxn v5+: TV_2).
            next_producer_id: the id to rotate to on completion (V2 at an exhausted epoch), or -1.
            update_timestamp: now, ms.
            no_partition_added: a V2 abort of no transaction: its start time becomes now.

        Raises:
            IllegalTransactionStateError: the move is invalid.
        """
        if client_transaction_version.supports_epoch_bump:
            epoch, last_epoch = self.producer_epoch + 1, self.producer_epoch
        else:
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        data = dataclasses.replace(
            self._current(new_state),
            producer_epoch=epoch,
            last_producer_epoch=last_epoch,
            txn_start_timestamp=update_timestamp if no_partition_added else self.txn_start_timestamp,
            next_producer_id=next_producer_id,
            txn_last_update_timestamp=update_timestamp,
            client_transaction_version=client_transaction_version,
        )
        return self._prepare_transition_to(data)

    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        """Move from PREPARE_COMMIT/PREPARE_ABORT to COMPLETE_COMMIT/COMPLETE_ABORT once the markers
        are written; a V2 transaction with a next producer id rotates to it at epoch 0.

        Raises:
            IllegalTransactionStateError: the move is invalid.
        """
        self.has_failed_epoch_fence = False
        new_state = (
            TransactionState.COMPLETE_COMMIT
            if self.state is TransactionState.PREPARE_COMMIT
            else TransactionState.COMPLETE_ABORT
        )
        rotate = (
            self.client_transaction_version.supports_epoch_bump and self.next_producer_id != NO_PRODUCER_ID
        )
        data = dataclasses.replace(
            self._current(new_state),
            producer_id=self.next_producer_id if rotate else self.producer_id,
            producer_epoch=0 if rotate else self.producer_epoch,
            next_producer_id=NO_PRODUCER_ID,
            topic_partitions=frozenset(),
            txn_last_update_timestamp=update_timestamp,
        )
        return self._prepare_transition_to(data)

    def prepare_dead(self) -> TxnTransitMetadata:
        """Move to DEAD (the transactional id expires; its record becomes a tombstone).

        Raises:
            IllegalTransactionStateError: the move is invalid.
        """
        return self._prepare_transition_to(
            dataclasses.replace(self._current(TransactionState.DEAD), topic_partitions=frozenset())
        )

    def _prepare_transition_to(self, data: TxnTransitMetadata) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise IllegalTransactionStateError(
                f"Preparing transaction state transition to {data.txn_state.name} while it already a "
                f"pending state {self.pending_state.name}"
            )
        if data.producer_id < 0:
            raise IllegalTransactionStateError(f"Illegal new producer id {data.producer_id}")
        if data.txn_state is not TransactionState.DEAD and data.producer_epoch < 0:
            raise IllegalTransactionStateError(f"Illegal new producer epoch {data.producer_epoch}")
        if self.state not in data.txn_state.valid_previous_states:
            raise IllegalTransactionStateError(
                f"Preparing transaction state transition to {data.txn_state.name} failed since the target "
                f"state {data.txn_state.name} is not a valid previous state of the current state "
                f"{self.state.name}"
            )
        logger.debug(
            "TransactionalId %s prepare transition from %s to %s",
            self.transactional_id,
            self.state.name,
            data.txn_state.name,
        )
        self.pending_state = data.txn_state
        return dataclasses.replace(data, prev_producer_id=self.producer_id)

    def complete_transition_to(self, transit: TxnTransitMetadata) -> None:
        """Apply a prepared transition once its record is written.

        The transition must be the pending one, keep (or validly bump) the epoch, keep the timeout,
        and keep every partition of an open transaction.

        Raises:
            IllegalTransactionStateError: no pending state, or ``transit`` is not what may follow.
        """
        to_state = self.pending_state
        if to_state is None:
            raise IllegalTransactionStateError(
                f"TransactionalId {self.transactional_id} completing transaction state transition while it "
                "does not have a pending state"
            )
        if to_state is not transit.txn_state or not self._valid_completion(to_state, transit):
            raise IllegalTransactionStateError(
                f"TransactionalId {self.transactional_id} failed transition to state {transit} due to "
                "unexpected metadata"
            )
        logger.debug(
            "TransactionalId %s complete transition from %s to %s", self.transactional_id, self.state, transit
        )
        self.producer_id = transit.producer_id
        self.prev_producer_id = transit.prev_producer_id
        self.next_producer_id = transit.next_producer_id
        self.producer_epoch = transit.producer_epoch
        self.last_producer_epoch = transit.last_producer_epoch
        self.txn_timeout_ms = transit.txn_timeout_ms
        self.topic_partitions = set(transit.topic_partitions)
        self.txn_start_timestamp = transit.txn_start_timestamp
        self.txn_last_update_timestamp = transit.txn_last_update_timestamp
        self.client_transaction_version = transit.client_transaction_version
        self.pending_state = None
        self.state = to_state

    def _valid_completion(self, to_state: TransactionState, transit: TxnTransitMetadata) -> bool:
        """Kafka's checks of ``completeTransitionTo`` for each target state."""
        s = TransactionState
        if to_state is s.EMPTY:
            return (
                self.producer_epoch == transit.producer_epoch or self._valid_producer_epoch_bump(transit)
            ) and (not transit.topic_partitions and transit.txn_start_timestamp == -1)
        if to_state is s.ONGOING:
            return (
                self._valid_producer_epoch(transit)
                and transit.topic_partitions >= self.topic_partitions
                and self.txn_timeout_ms == transit.txn_timeout_ms
            )
        if to_state in (s.PREPARE_ABORT, s.PREPARE_COMMIT):
            allowed_empty_abort = (
                to_state is s.PREPARE_ABORT
                and transit.client_transaction_version.supports_epoch_bump
                and self.state in (s.EMPTY, s.COMPLETE_COMMIT, s.COMPLETE_ABORT)
            )
            return (
                self._valid_producer_epoch(transit)
                and self.topic_partitions == transit.topic_partitions
                and self.txn_timeout_ms == transit.txn_timeout_ms
                and (self.txn_start_timestamp == transit.txn_start_timestamp or allowed_empty_abort)
            )
        if to_state in (s.COMPLETE_ABORT, s.COMPLETE_COMMIT):
            return (
                self._valid_producer_epoch(transit)
                and self.txn_timeout_ms == transit.txn_timeout_ms
                and transit.txn_start_timestamp != -1
            )
        if to_state is s.DEAD:
            raise IllegalTransactionStateError(
                f"TransactionalId {self.transactional_id} is trying to complete a transition to "
                f"{to_state.name}. This means that the transactionalId was being expired, and the only "
                "acceptable completion of "
                "this operation is to remove the transaction metadata from the cache, not to persist the "
                f"{to_state.name} in the log."
            )
        return False  # PREPARE_EPOCH_FENCE is never completed: PREPARE_ABORT follows it at once

    def _valid_producer_epoch(self, transit: TxnTransitMetadata) -> bool:
        v2 = transit.client_transaction_version.supports_epoch_bump
        s = TransactionState
        if v2 and transit.txn_state in (s.COMPLETE_COMMIT, s.COMPLETE_ABORT) and transit.producer_epoch == 0:
            return (
                transit.last_producer_epoch == self.last_producer_epoch
                and transit.prev_producer_id == self.producer_id
            )
        if v2 and transit.txn_state in (s.PREPARE_COMMIT, s.PREPARE_ABORT):
            return (
                transit.last_producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id
            )
        return transit.producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id

    def _valid_producer_epoch_bump(self, transit: TxnTransitMetadata) -> bool:
        return transit.producer_epoch == self.producer_epoch + 1 or (
            transit.producer_epoch == 0 and transit.producer_id != self.producer_id
        )
