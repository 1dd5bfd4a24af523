"""The transactional producer's state: which calls are allowed when, and the error that poisons it.

Owns: ``TransactionState`` (Kafka's client states), ``TransactionStateMachine`` (the current state,
the last error, the transitions Kafka allows, the checks every transactional call makes first:
``ensure_transactional``, ``maybe_fail_with_error``, ``throw_if_pending``) and ``PendingTransition``
(a call that timed out: only the same call may be retried).  Does not own requests or their answers
(``transaction_errors`` says what an answer's error does to the state).

Kafka concept: ``org.apache.kafka.clients.producer.internals.TransactionManager.State`` and its
``transitionTo`` / ``maybeFailWithError`` / ``throwIfPendingState`` (KIP-98; KIP-939's
PREPARED_TRANSACTION for two-phase commit).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

from kafkette.protocol.errors import IllegalStateError, KafkaError, ProducerFencedError

logger = logging.getLogger(__name__)


class TransactionState(StrEnum):
    """A transactional (or idempotent) producer's state, named as Kafka's client names it."""

    UNINITIALIZED = "UNINITIALIZED"
    INITIALIZING = "INITIALIZING"
    READY = "READY"
    IN_TRANSACTION = "IN_TRANSACTION"
    PREPARED_TRANSACTION = "PREPARED_TRANSACTION"
    COMMITTING_TRANSACTION = "COMMITTING_TRANSACTION"
    ABORTING_TRANSACTION = "ABORTING_TRANSACTION"
    ABORTABLE_ERROR = "ABORTABLE_ERROR"
    FATAL_ERROR = "FATAL_ERROR"


S = TransactionState

VALID_SOURCES: dict[TransactionState, frozenset[TransactionState]] = {
    S.UNINITIALIZED: frozenset({S.READY, S.ABORTABLE_ERROR}),
    S.INITIALIZING: frozenset({S.UNINITIALIZED, S.COMMITTING_TRANSACTION, S.ABORTING_TRANSACTION}),
    S.READY: frozenset({S.INITIALIZING, S.COMMITTING_TRANSACTION, S.ABORTING_TRANSACTION}),
    S.IN_TRANSACTION: frozenset({S.READY}),
    S.PREPARED_TRANSACTION: frozenset({S.IN_TRANSACTION, S.INITIALIZING}),
    S.COMMITTING_TRANSACTION: frozenset({S.IN_TRANSACTION, S.PREPARED_TRANSACTION}),
    S.ABORTING_TRANSACTION: frozenset({S.IN_TRANSACTION, S.PREPARED_TRANSACTION, S.ABORTABLE_ERROR}),
    S.ABORTABLE_ERROR: frozenset(
        {S.IN_TRANSACTION, S.COMMITTING_TRANSACTION, S.ABORTABLE_ERROR, S.INITIALIZING}
    ),
    S.FATAL_ERROR: frozenset(TransactionState),  # from anywhere; never left
}
"""For each target state, the states it may be entered from (``State.isTransitionValid``)."""


def is_transition_valid(source: TransactionState, target: TransactionState) -> bool:
    """True when Kafka's client allows ``source`` -> ``target``."""
    return source in VALID_SOURCES[target]


@dataclass
class PendingTransition:
    """A state-changing call (``initTransactions``, ``commitTransaction``, ``abortTransaction``) whose
    result the caller stopped waiting for (it timed out): its operation name, the state it moves to,
    and whether its requests have since completed (``acked``)."""

    operation: str
    state: TransactionState
    acked: bool = False


class TransactionStateMachine:
    """The state of one producer and the checks Kafka's ``TransactionManager`` makes.

    Args:
        transactional_id: the producer's ``transactional.id``; None for an idempotent-only producer
            (every transactional call then raises ``IllegalStateError``).

    Attributes:
        state: the current ``TransactionState`` (UNINITIALIZED at first).
        last_error: the error that put the producer in ABORTABLE_ERROR or FATAL_ERROR, else None.
        pending: the timed-out call that must be retried before any other, else None.
    """

    def __init__(self, transactional_id: str | None) -> None:
        self.transactional_id = transactional_id
        self.state = TransactionState.UNINITIALIZED
        self.last_error: Exception | None = None
        self.pending: PendingTransition | None = None

    @property
    def is_transactional(self) -> bool:
        return self.transactional_id is not None

    @property
    def has_error(self) -> bool:
        return self.state in (TransactionState.ABORTABLE_ERROR, TransactionState.FATAL_ERROR)

    def transition_to(self, target: TransactionState, error: Exception | None = None) -> None:
        """Move to ``target``; an error state keeps ``error`` as ``last_error``, any other clears it.

        Raises:
            IllegalStateError: Kafka's ``TransactionalId ID: Invalid transition attempted from state
                A to state B`` (the state is left as it was).
            ValueError: an error state without its error.
        """
        if not is_transition_valid(self.state, target):
            prefix = f"TransactionalId {self.transactional_id}: " if self.is_transactional else ""
            raise IllegalStateError(
                f"{prefix}Invalid transition attempted from state {self.state} to state {target}"
            )
        if target in (TransactionState.ABORTABLE_ERROR, TransactionState.FATAL_ERROR):
            if error is None:
                raise ValueError(f"Cannot transition to {target} with a null exception")
            self.last_error = error
            logger.debug("Transition from state %s to error state %s: %r", self.state, target, error)
        else:
            self.last_error = None
            logger.debug("Transition from state %s to %s", self.state, target)
        self.state = target

    def transition_to_abortable_error(self, error: Exception) -> None:
        """ABORTABLE_ERROR, unless the transaction is already being aborted (then nothing changes)."""
        if self.state is TransactionState.ABORTING_TRANSACTION:
            logger.debug("Skipping transition to abortable error state: already aborting (%r)", error)
            return
        logger.info("Transiting to abortable error state due to %r", error)
        self.transition_to(TransactionState.ABORTABLE_ERROR, error)

    def transition_to_fatal_error(self, error: Exception) -> None:
        """FATAL_ERROR (from any state): only ``close`` is left to the producer."""
        logger.info("Transiting to fatal error state due to %r", error)
        self.transition_to(TransactionState.FATAL_ERROR, error)

    def ensure_transactional(self) -> None:
        """Raises ``IllegalStateError`` on a producer without a ``transactional.id``."""
        if not self.is_transactional:
            raise IllegalStateError("Transactional method invoked on a non-transactional producer.")

    def maybe_fail_with_error(self) -> None:
        """Raise the error the producer is poisoned with, if any (``maybeFailWithError``).

        Raises:
            ProducerFencedError: fenced by a newer producer with the same ``transactional.id``.
            KafkaError: ``Cannot execute transactional method because we are in an error state``,
                caused by ``last_error``.
        """
        if not self.has_error:
            return
        if isinstance(self.last_error, ProducerFencedError):
            raise ProducerFencedError(
                f"Producer with transactionalId '{self.transactional_id}' has been fenced by another "
                "producer with the same transactionalId"
            )
        raise KafkaError(
            "Cannot execute transactional method because we are in an error state"
        ) from self.last_error

    def throw_if_pending(self, operation: str) -> None:
        """Raise when an earlier call timed out and was not retried (``throwIfPendingState``).

        Raises:
            IllegalStateError: ``Cannot attempt operation `OP` because the previous call to `PREV`
                timed out and must be retried``.
        """
        if self.pending is None:
            return
        if self.pending.acked:
            self.pending = None
            return
        raise IllegalStateError(
            f"Cannot attempt operation `{operation}` because the previous call to "
            f"`{self.pending.operation}` timed out and must be retried"
        )

    def begin_transaction(self) -> None:
        """``beginTransaction``: READY -> IN_TRANSACTION (no request is sent).

        Raises:
            IllegalStateError: not transactional, a timed-out call pending, or not READY.
            KafkaError / ProducerFencedError: the producer is in an error state.
        """
        self.ensure_transactional()
        self.throw_if_pending("beginTransaction")
        self.maybe_fail_with_error()
        self.transition_to(TransactionState.IN_TRANSACTION)

    def check_can_add_partition(self, partition: object, has_producer_id: bool) -> None:
        """The checks before a record is sent to ``partition`` (``maybeAddPartition``).

        Raises:
            IllegalStateError: ``initTransactions`` not done, or no transaction begun.
            KafkaError / ProducerFencedError: the producer is in an error state.
        """
        self.maybe_fail_with_error()
        self.throw_if_pending("send")
        if not self.is_transactional:
            return
        if not has_producer_id:
            raise IllegalStateError(
                f"Cannot add partition {partition} to transaction before completing a call to "
                "initTransactions"
            )
        if self.state is not TransactionState.IN_TRANSACTION:
            raise IllegalStateError(
                f"Cannot add partition {partition} to transaction while in state  {self.state}"
            )
