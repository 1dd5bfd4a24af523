"""The transactional producer's pure decisions: which AddPartitionsToTxn error counts, what a failed
batch does to the transaction, and the transactional bit of a stamped batch."""

from __future__ import annotations

import asyncio

from kafkette.client.producer.producer_batch import ProducerBatch
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.client.producer.transaction_state import TransactionState
from kafkette.client.producer.transactional_requests import (
    TransactionAbortedError,
    TransactionalRequests,
    _add_partitions_error,
)
from kafkette.protocol.apis.transactions import (
    AddPartitionsToTxnPartitionResult,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnTopicResult,
)
from kafkette.protocol.errors import (
    Errors,
    InvalidProducerEpochError,
    NotEnoughReplicasError,
    ProducerFencedError,
)
from kafkette.protocol.record_batch import TRANSACTIONAL_MASK, read_header
from kafkette.protocol.topic_partition import TopicPartition


def _answer(*codes: Errors) -> AddPartitionsToTxnResponse:
    parts = [
        AddPartitionsToTxnPartitionResult(partition_index=i, partition_error_code=c)
        for i, c in enumerate(codes)
    ]
    return AddPartitionsToTxnResponse(
        throttle_time_ms=0,
        results_by_topic_v3_and_below=[AddPartitionsToTxnTopicResult(name="t", results_by_partition=parts)],
    )


def test_the_failing_partition_decides_not_the_ones_left_unattempted():
    assert _add_partitions_error(_answer(Errors.NONE, Errors.NONE)) is Errors.NONE
    assert (
        _add_partitions_error(_answer(Errors.OPERATION_NOT_ATTEMPTED, Errors.TOPIC_AUTHORIZATION_FAILED))
        is Errors.TOPIC_AUTHORIZATION_FAILED
    )
    assert _add_partitions_error(_answer(Errors.OPERATION_NOT_ATTEMPTED)) is Errors.OPERATION_NOT_ATTEMPTED


class _Tm:
    transactional = False
    producer_id = 7
    producer_epoch = 0


def _requests() -> TransactionalRequests:
    txn = TransactionalRequests(
        None,  # type: ignore[arg-type]  # no request is sent here
        _Tm(),  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        transactional_id="tx",
        transaction_timeout_ms=60000,
        max_block_ms=1000,
        retry_backoff_ms=10,
    )
    txn.state.transition_to(TransactionState.INITIALIZING)
    txn.state.transition_to(TransactionState.READY)
    txn.state.begin_transaction()
    return txn


def test_a_failed_batch_makes_the_transaction_abortable_and_a_fenced_one_fatal():
    txn = _requests()
    txn.on_batch_failed(TransactionAbortedError("aborted"))  # the abort's own failures change nothing
    assert txn.state.state is TransactionState.IN_TRANSACTION
    txn.on_batch_failed(NotEnoughReplicasError())
    assert txn.state.state is TransactionState.ABORTABLE_ERROR
    fenced = _requests()
    fenced.on_batch_failed(InvalidProducerEpochError())
    assert fenced.state.state is TransactionState.FATAL_ERROR
    assert isinstance(fenced.state.last_error, ProducerFencedError)


async def test_abort_drops_queued_batches_but_not_those_in_flight():
    acc = RecordAccumulator()
    tp = TopicPartition("t", 0)
    queued = acc.append(tp, None, b"queued", None, 0, 40)
    in_flight_tp = TopicPartition("t", 1)
    in_flight = acc.append(in_flight_tp, None, b"sent", None, 0, 40)
    batch = acc.drain(in_flight_tp)
    assert acc.abort_undrained_batches(TransactionAbortedError("aborted")) == 1
    assert isinstance(queued.exception(), TransactionAbortedError)
    assert not in_flight.done() and len(acc.incomplete_completions()) == 1
    batch.complete(5)
    await asyncio.sleep(0)
    assert in_flight.result().offset == 5


async def test_a_transactional_stamp_sets_the_batch_bit():
    batch = ProducerBatch(TopicPartition("t", 0), 0.0, 1e9)
    batch.try_append(None, b"v", None, 0, 40, 16384)
    batch.stamp(7, 0, 0, transactional=True)
    header = read_header(batch.encoded(), 0)
    assert header.attributes & TRANSACTIONAL_MASK and header.producer_id == 7
