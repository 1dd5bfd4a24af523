"""The pure parts of a leader's transaction verification (KIP-890): a Produce version's operation,
the coordinator's answer read per partition, the Produce error a failed verification answers, one
waiting question per transactional id per coordinator, and the transactional producer of a request
(Kafka's AddPartitionsToTxnManager and ReplicaManager.handleProduceAppend)."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.broker.transaction.add_partitions_to_txn_manager import (
    TransactionDataAndCallbacks,
    TransactionSupportedOperation,
    partition_errors,
    produce_error_for,
    produce_request_version_to_transaction_supported_operation,
)
from kafkette.broker.transaction_verification import transactional_batch_info
from kafkette.protocol.apis.transactions import (
    AddPartitionsToTxnPartitionResult,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResult,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTopicResult,
    AddPartitionsToTxnTransaction,
)
from kafkette.protocol.errors import Errors, InvalidProducerIdMappingError
from kafkette.protocol.record_batch import build_kafka_batch
from kafkette.protocol.topic_partition import TopicPartition

DEFAULT = TransactionSupportedOperation.DEFAULT_ERROR
GENERIC = TransactionSupportedOperation.GENERIC_ERROR_SUPPORTED
ADD = TransactionSupportedOperation.ADD_PARTITION
T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)


def _txn(txn_id: str, epoch: int = 0, partitions=(0, 1)) -> AddPartitionsToTxnTransaction:
    return AddPartitionsToTxnTransaction(
        transactional_id=txn_id,
        producer_id=5,
        producer_epoch=epoch,
        verify_only=True,
        topics=[AddPartitionsToTxnTopic(name="t", partitions=list(partitions))],
    )


def test_produce_versions_choose_the_operation():
    assert [produce_request_version_to_transaction_supported_operation(v) for v in (3, 10, 11, 12, 13)] == [
        DEFAULT,
        DEFAULT,
        GENERIC,
        ADD,
        ADD,
    ]
    assert ADD.supports_epoch_bump and not GENERIC.supports_epoch_bump and not DEFAULT.supports_epoch_bump


@pytest.mark.parametrize(
    ("error", "operation", "expected"),
    [
        (
            Errors.INVALID_TXN_STATE,
            DEFAULT,
            (Errors.INVALID_TXN_STATE, "Partition was not added to the transaction"),
        ),
        (Errors.NOT_COORDINATOR, DEFAULT, (Errors.NOT_ENOUGH_REPLICAS, "NOT_COORDINATOR")),
        (
            Errors.COORDINATOR_LOAD_IN_PROGRESS,
            ADD,
            (Errors.NOT_ENOUGH_REPLICAS, "COORDINATOR_LOAD_IN_PROGRESS"),
        ),
        (
            Errors.COORDINATOR_NOT_AVAILABLE,
            GENERIC,
            (Errors.NOT_ENOUGH_REPLICAS, "COORDINATOR_NOT_AVAILABLE"),
        ),
        (Errors.NETWORK_EXCEPTION, GENERIC, (Errors.NOT_ENOUGH_REPLICAS, "NETWORK_EXCEPTION")),
        (Errors.CONCURRENT_TRANSACTIONS, GENERIC, (Errors.NOT_ENOUGH_REPLICAS, "CONCURRENT_TRANSACTIONS")),
        (Errors.CONCURRENT_TRANSACTIONS, ADD, (Errors.CONCURRENT_TRANSACTIONS, None)),
        (Errors.INVALID_PRODUCER_EPOCH, DEFAULT, (Errors.INVALID_PRODUCER_EPOCH, None)),
        (Errors.TRANSACTION_ABORTABLE, GENERIC, (Errors.TRANSACTION_ABORTABLE, None)),
    ],
)
def test_verification_errors_become_the_produce_errors_kafka_answers(error, operation, expected):
    code, message = produce_error_for(error, operation)
    assert code == expected[0]
    if expected[1] is None:
        assert message is None
    else:
        assert expected[1] in message


def test_a_coordinators_answer_is_read_per_partition():
    asked = {"a": _txn("a"), "b": _txn("b"), "c": _txn("c")}
    response = AddPartitionsToTxnResponse(
        error_code=0,
        results_by_transaction=[
            AddPartitionsToTxnResult(
                transactional_id=txn_id,
                topic_results=[
                    AddPartitionsToTxnTopicResult(
                        name="t",
                        results_by_partition=[
                            AddPartitionsToTxnPartitionResult(partition_index=0, partition_error_code=0),
                            AddPartitionsToTxnPartitionResult(
                                partition_index=1, partition_error_code=int(code)
                            ),
                        ],
                    )
                ],
            )
            for txn_id, code in (("a", Errors.PRODUCER_FENCED), ("b", Errors.TRANSACTION_ABORTABLE))
        ],
    )
    assert partition_errors(response, asked, DEFAULT) == {
        "a": {T1: Errors.INVALID_PRODUCER_EPOCH},
        "b": {T1: Errors.INVALID_TXN_STATE},  # older clients do not know TRANSACTION_ABORTABLE
        "c": {T0: Errors.NETWORK_EXCEPTION, T1: Errors.NETWORK_EXCEPTION},  # left out: not verified
    }
    assert partition_errors(response, asked, GENERIC)["b"] == {T1: Errors.TRANSACTION_ABORTABLE}
    refused = AddPartitionsToTxnResponse(error_code=int(Errors.CLUSTER_AUTHORIZATION_FAILED))
    assert partition_errors(refused, {"a": _txn("a")}, DEFAULT) == {
        "a": {T0: Errors.INVALID_TXN_STATE, T1: Errors.INVALID_TXN_STATE}
    }


async def test_one_question_per_transactional_id_waits_for_a_coordinator():
    loop = asyncio.get_running_loop()
    batch = TransactionDataAndCallbacks(DEFAULT)
    first, retry, newer, older = (loop.create_future() for _ in range(4))
    batch.add(_txn("a", epoch=1), first)
    batch.add(_txn("a", epoch=1), retry)  # the client retried: the earlier one is answered
    assert first.result() == {T0: Errors.NETWORK_EXCEPTION, T1: Errors.NETWORK_EXCEPTION}
    batch.add(_txn("a", epoch=2), newer)  # a newer epoch fences the waiting one
    assert retry.result() == {T0: Errors.INVALID_PRODUCER_EPOCH, T1: Errors.INVALID_PRODUCER_EPOCH}
    batch.add(_txn("a", epoch=0), older)  # an older epoch is fenced itself
    assert older.result() == {T0: Errors.INVALID_PRODUCER_EPOCH, T1: Errors.INVALID_PRODUCER_EPOCH}
    assert list(batch.transactions) == ["a"] and batch.transactions["a"].producer_epoch == 2
    assert not newer.done()
    batch.fail_all(Errors.NETWORK_EXCEPTION)
    assert newer.result() == {T0: Errors.NETWORK_EXCEPTION, T1: Errors.NETWORK_EXCEPTION}


def _batch(producer_id: int, epoch: int, sequence: int, transactional: bool) -> bytes:
    return build_kafka_batch(
        [(None, b"v", None, 0)],
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        transactional=transactional,
    )


def test_a_requests_transactional_producer_and_first_sequences():
    producer, info = transactional_batch_info({T0: _batch(5, 1, 3, True), T1: _batch(5, 1, 9, True)})
    assert producer == (5, 1) and info == {T0: 3, T1: 9}
    assert transactional_batch_info({T0: _batch(5, 1, 3, False)}) == (None, {})
    with pytest.raises(InvalidProducerIdMappingError, match="more than one producer ID"):
        transactional_batch_info({T0: _batch(5, 1, 0, True), T1: _batch(6, 1, 0, True)})
