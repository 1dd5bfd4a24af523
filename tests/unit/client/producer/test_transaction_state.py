"""The transactional producer's state machine and its answers' error table, as Kafka's client has them
(``TransactionManager.State.isTransitionValid`` and the request handlers' ``handleResponse``)."""

from __future__ import annotations

import itertools

import pytest

from kafkette.client.producer.transaction_errors import TRANSACTION_APIS, TxnErrorAction, txn_error_action
from kafkette.client.producer.transaction_state import (
    PendingTransition,
    TransactionState,
    TransactionStateMachine,
    is_transition_valid,
)
from kafkette.protocol.errors import Errors, IllegalStateError, KafkaError, ProducerFencedError

S = TransactionState

# Kafka's table, spelled out independently of the module's: (target, its valid sources)
KAFKA_TRANSITIONS = {
    S.UNINITIALIZED: {S.READY, S.ABORTABLE_ERROR},
    S.INITIALIZING: {S.UNINITIALIZED, S.COMMITTING_TRANSACTION, S.ABORTING_TRANSACTION},
    S.READY: {S.INITIALIZING, S.COMMITTING_TRANSACTION, S.ABORTING_TRANSACTION},
    S.IN_TRANSACTION: {S.READY},
    S.PREPARED_TRANSACTION: {S.IN_TRANSACTION, S.INITIALIZING},
    S.COMMITTING_TRANSACTION: {S.IN_TRANSACTION, S.PREPARED_TRANSACTION},
    S.ABORTING_TRANSACTION: {S.IN_TRANSACTION, S.PREPARED_TRANSACTION, S.ABORTABLE_ERROR},
    S.ABORTABLE_ERROR: {S.IN_TRANSACTION, S.COMMITTING_TRANSACTION, S.ABORTABLE_ERROR, S.INITIALIZING},
}


@pytest.mark.parametrize(("source", "target"), list(itertools.product(S, S)))
def test_every_transition_is_allowed_exactly_as_kafka_allows_it(source, target):
    expected = True if target is S.FATAL_ERROR else source in KAFKA_TRANSITIONS[target]
    assert is_transition_valid(source, target) is expected


def _ready(transactional_id: str | None = "tx-1") -> TransactionStateMachine:
    machine = TransactionStateMachine(transactional_id)
    machine.transition_to(S.INITIALIZING)
    machine.transition_to(S.READY)
    return machine


def test_a_commit_cycle_and_an_invalid_transition_named_as_kafka_names_it():
    machine = _ready()
    machine.begin_transaction()
    machine.check_can_add_partition("t-0", has_producer_id=True)
    machine.transition_to(S.COMMITTING_TRANSACTION)
    machine.transition_to(S.READY)
    with pytest.raises(
        IllegalStateError, match="TransactionalId tx-1: Invalid transition attempted from state "
    ):
        machine.transition_to(S.COMMITTING_TRANSACTION)
    assert machine.state is S.READY  # unchanged by the refused transition


def test_begin_transaction_needs_a_transactional_id_and_the_ready_state():
    with pytest.raises(IllegalStateError, match="non-transactional producer"):
        _ready(None).begin_transaction()
    machine = TransactionStateMachine("tx-1")
    with pytest.raises(IllegalStateError, match="from state UNINITIALIZED to state IN_TRANSACTION"):
        machine.begin_transaction()


def test_sending_needs_init_transactions_then_a_begun_transaction():
    machine = _ready()
    with pytest.raises(IllegalStateError, match="before completing a call to initTransactions"):
        machine.check_can_add_partition("t-0", has_producer_id=False)
    with pytest.raises(IllegalStateError, match="while in state  READY"):
        machine.check_can_add_partition("t-0", has_producer_id=True)
    _ready(None).check_can_add_partition("t-0", has_producer_id=False)  # idempotent-only: no checks


def test_an_abortable_error_blocks_everything_but_abort():
    machine = _ready()
    machine.begin_transaction()
    cause = KafkaError("topic authorization failed")
    machine.transition_to_abortable_error(cause)
    assert machine.state is S.ABORTABLE_ERROR and machine.last_error is cause
    with pytest.raises(KafkaError, match="in an error state") as raised:
        machine.check_can_add_partition("t-0", has_producer_id=True)
    assert raised.value.__cause__ is cause
    machine.transition_to(S.ABORTING_TRANSACTION)
    machine.transition_to_abortable_error(KafkaError("late"))  # ignored while aborting
    assert machine.state is S.ABORTING_TRANSACTION and machine.last_error is None
    machine.transition_to(S.READY)
    machine.begin_transaction()


def test_a_fenced_producer_says_so_on_every_later_call():
    machine = _ready()
    machine.begin_transaction()
    machine.transition_to_fatal_error(ProducerFencedError())
    with pytest.raises(ProducerFencedError, match="has been fenced by another producer"):
        machine.begin_transaction()
    with pytest.raises(ValueError, match="null exception"):
        machine.transition_to(S.FATAL_ERROR)


def test_a_timed_out_call_must_be_retried_before_any_other():
    machine = _ready()
    machine.pending = PendingTransition("commitTransaction", S.COMMITTING_TRANSACTION)
    with pytest.raises(IllegalStateError, match="previous call to `commitTransaction` timed out"):
        machine.begin_transaction()
    machine.pending.acked = True
    machine.begin_transaction()
    assert machine.pending is None


# -- the answers' errors ------------------------------------------------------------------------


@pytest.mark.parametrize("api", TRANSACTION_APIS)
def test_a_fenced_producer_is_fatal_with_producer_fenced_whatever_the_api(api):
    for error in (Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH):
        action, exc = txn_error_action(api, error)
        assert action is TxnErrorAction.FATAL and isinstance(exc, ProducerFencedError)


@pytest.mark.parametrize(
    ("api", "error", "action"),
    [
        ("InitProducerId", Errors.NOT_COORDINATOR, TxnErrorAction.FIND_COORDINATOR),
        ("InitProducerId", Errors.CONCURRENT_TRANSACTIONS, TxnErrorAction.RETRY),
        ("InitProducerId", Errors.COORDINATOR_LOAD_IN_PROGRESS, TxnErrorAction.RETRY),
        ("InitProducerId", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, TxnErrorAction.ABORTABLE),
        ("InitProducerId", Errors.INVALID_TRANSACTION_TIMEOUT, TxnErrorAction.FATAL),
        ("AddPartitionsToTxn", Errors.COORDINATOR_NOT_AVAILABLE, TxnErrorAction.FIND_COORDINATOR),
        ("AddPartitionsToTxn", Errors.CONCURRENT_TRANSACTIONS, TxnErrorAction.RETRY),
        ("AddPartitionsToTxn", Errors.TOPIC_AUTHORIZATION_FAILED, TxnErrorAction.ABORTABLE),
        ("AddPartitionsToTxn", Errors.OPERATION_NOT_ATTEMPTED, TxnErrorAction.ABORTABLE),
        ("AddPartitionsToTxn", Errors.INVALID_TXN_STATE, TxnErrorAction.FATAL),
        ("AddPartitionsToTxn", Errors.UNKNOWN_PRODUCER_ID, TxnErrorAction.ABORTABLE_IF_POSSIBLE),
        ("AddOffsetsToTxn", Errors.GROUP_AUTHORIZATION_FAILED, TxnErrorAction.ABORTABLE),
        ("AddOffsetsToTxn", Errors.INVALID_PRODUCER_ID_MAPPING, TxnErrorAction.FATAL),
        ("AddOffsetsToTxn", Errors.TRANSACTION_ABORTABLE, TxnErrorAction.ABORTABLE),
        ("TxnOffsetCommit", Errors.REQUEST_TIMED_OUT, TxnErrorAction.FIND_COORDINATOR),
        ("TxnOffsetCommit", Errors.UNKNOWN_TOPIC_OR_PARTITION, TxnErrorAction.RETRY),
        ("TxnOffsetCommit", Errors.ILLEGAL_GENERATION, TxnErrorAction.ABORTABLE),
        ("TxnOffsetCommit", Errors.FENCED_INSTANCE_ID, TxnErrorAction.ABORTABLE),
        ("TxnOffsetCommit", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, TxnErrorAction.FATAL),
        ("EndTxn", Errors.NOT_COORDINATOR, TxnErrorAction.FIND_COORDINATOR),
        ("EndTxn", Errors.CONCURRENT_TRANSACTIONS, TxnErrorAction.RETRY),
        ("EndTxn", Errors.INVALID_TXN_STATE, TxnErrorAction.FATAL),
        ("EndTxn", Errors.TRANSACTION_ABORTABLE, TxnErrorAction.ABORTABLE),
        ("EndTxn", Errors.UNKNOWN_SERVER_ERROR, TxnErrorAction.FATAL),
    ],
)
def test_each_error_gets_kafkas_action(api, error, action):
    assert txn_error_action(api, error)[0] is action


def test_an_abort_answered_transaction_abortable_is_fatal_and_success_is_no_action():
    action, exc = txn_error_action("EndTxn", Errors.TRANSACTION_ABORTABLE, aborting=True)
    assert action is TxnErrorAction.FATAL and "Failed to abort transaction" in str(exc)
    assert txn_error_action("EndTxn", Errors.NONE) == (TxnErrorAction.NONE, None)
    action, exc = txn_error_action("TxnOffsetCommit", Errors.UNKNOWN_MEMBER_ID)
    assert "consumer group metadata mismatch" in str(exc)
    with pytest.raises(ValueError, match="not a transactional API"):
        txn_error_action("Produce", Errors.NONE)
