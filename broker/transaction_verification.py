"""Transaction verification of a Produce before its append (KIP-890 part 1): which partitions of a
request carry transactional batches, and, for those whose producer has no transaction open there,
the coordinator's word that they are in the transaction.

Owns: ``transactional_batch_info`` (pure: the request's transactional producer and each partition's
first base sequence) and ``verify_transactional_partitions`` (each partition's verification guard
from its leader log, the coordinator asked about those with a real guard through the
``AddPartitionsToTxnManager``, CONCURRENT_TRANSACTIONS retried for ADD_PARTITION within
``add.partitions.to.txn.retry.backoff.max.ms``).  Does not own the append (``ReplicaManager``) nor the
guards (the partitions' producer state).

Kafka concept: ``ReplicaManager.handleProduceAppend``, ``maybeSendPartitionsToTransactionCoordinator``
and ``maybeStartTransactionVerificationForPartition``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kafkette.broker.log.verification_guard import VerificationGuard
from kafkette.broker.transaction.add_partitions_to_txn_manager import (
    AddPartitionsToTxnManager,
    TransactionSupportedOperation,
)
from kafkette.protocol.control_record import is_transactional_batch
from kafkette.protocol.errors import Errors, InvalidProducerIdMappingError, error_code_for
from kafkette.protocol.record_batch import iter_batches
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.partition import Partition


def transactional_batch_info(
    entries: Mapping[TopicPartition, bytes],
) -> tuple[tuple[int, int] | None, dict[TopicPartition, int]]:
    """The transactional producer of a Produce's batches and ``{partition: first batch's base
    sequence}`` for the partitions holding transactional batches (Kafka's ``handleProduceAppend``).

    Returns:
        ``((producer_id, producer_epoch) or None, {tp: base_sequence})``.

    Raises:
        InvalidProducerIdMappingError: transactional batches of more than one producer id or epoch
            ("Transactional records contained more than one producer ID").
        CorruptRecordError: a batch the iterator refuses (the append would refuse it too).
    """
    producers: set[tuple[int, int]] = set()
    batch_info: dict[TopicPartition, int] = {}
    for tp, records in entries.items():
        first_sequence = None
        transactional = False
        for _, header in iter_batches(records):
            if first_sequence is None:
                first_sequence = header.base_sequence
            if header.producer_id >= 0 and is_transactional_batch(header):
                producers.add((header.producer_id, header.producer_epoch))
                transactional = True
        if transactional and first_sequence is not None:
            batch_info[tp] = first_sequence
    if len(producers) > 1:
        raise InvalidProducerIdMappingError("Transactional records contained more than one producer ID")
    return (next(iter(producers)) if producers else None), batch_info


async def verify_transactional_partitions(
    manager: AddPartitionsToTxnManager,
    get_partition: Callable[[TopicPartition], Partition],
    transactional_id: str,
    producer: tuple[int, int],
    batch_info: Mapping[TopicPartition, int],
    operation: TransactionSupportedOperation,
    *,
    retry_backoff_ms: int,
    retry_timeout_ms: int,
) -> tuple[dict[TopicPartition, Errors], dict[TopicPartition, VerificationGuard]]:
    """Start verification on each partition and ask the coordinator about those that need it.

    Args:
        manager: the broker's AddPartitionsToTxnManager.
        get_partition: the hosted partition, raising the client's error (``get_partition_or_error``).
        transactional_id / producer: the request's transactional id, ``(producer_id, producer_epoch)``.
        batch_info: ``{tp: first base sequence}`` (``transactional_batch_info``).
        operation: the request version's ``TransactionSupportedOperation``.
        retry_backoff_ms / retry_timeout_ms: ADD_PARTITION's CONCURRENT_TRANSACTIONS retries, ms.

    Returns:
        ``(errors, guards)``: the partitions that failed (a partition's own error, or the
        coordinator's), and the guard of every other partition (SENTINEL where the producer already
        had a transaction open) for the append.
    """
    producer_id, producer_epoch = producer
    deadline = time.monotonic() + retry_timeout_ms / 1000
    while True:
        errors: dict[TopicPartition, Errors] = {}
        guards: dict[TopicPartition, VerificationGuard] = {}
        for tp, sequence in batch_info.items():
            try:
                guards[tp] = get_partition(tp).maybe_start_transaction_verification(
                    producer_id, sequence, producer_epoch
                )
            except Exception as exc:  # the partition's own error, as Kafka's Errors.forException
                errors[tp] = error_code_for(exc)
        to_verify = [tp for tp, guard in guards.items() if guard is not VerificationGuard.SENTINEL]
        if to_verify:
            errors.update(
                await manager.add_or_verify_transaction(
                    transactional_id, producer_id, producer_epoch, to_verify, operation
                )
            )
        retry = (
            operation.supports_epoch_bump
            and Errors.CONCURRENT_TRANSACTIONS in errors.values()
            and time.monotonic() + retry_backoff_ms / 1000 < deadline
        )
        if not retry:
            return errors, {tp: guard for tp, guard in guards.items() if tp not in errors}
        await asyncio.sleep(retry_backoff_ms / 1000)
