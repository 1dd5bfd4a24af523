"""A transactional producer's requests: to its transaction coordinator and to a group's coordinator.

Owns: ``TransactionalRequests``: ``init_transactions`` (FindCoordinator key type 1, then
InitProducerId with the ``transactional.id``), the partitions added to the current transaction
(``add_partitions``, one AddPartitionsToTxn for every partition the Sender is about to send to for
the first time: the Sender waits until they are added), ``send_offsets`` (AddOffsetsToTxn, then
TxnOffsetCommit to the group's coordinator), ``commit`` / ``abort`` (flush or drop the pending
batches, then EndTxn), and what a failed batch does to the transaction.  Each answer's error goes
through ``transaction_errors.txn_error_action`` (retry, find the coordinator again, or put the
producer in ABORTABLE_ERROR / FATAL_ERROR), each call is bounded by ``max_block_ms``.  Does not own
the state rules (``transaction_state``) nor the producer id's sequences (``transaction_manager``).

Kafka concept: the transactional half of ``org.apache.kafka.clients.producer.internals.
TransactionManager`` (its handlers and ``beginCommit`` / ``beginAbort``) and the ``KafkaProducer``
transactional methods (KIP-98).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kafkette.client.group_coordinator_channel import GroupCoordinatorChannel
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.offset_and_metadata import OffsetAndMetadata, offset_commit_topics
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.client.producer.transaction_errors import TxnErrorAction, txn_error_action
from kafkette.client.producer.transaction_manager import TransactionManager
from kafkette.client.producer.transaction_state import TransactionState, TransactionStateMachine
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.transactions import (
    AddOffsetsToTxnRequest,
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
    EndTxnRequest,
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from kafkette.protocol.errors import (
    Errors,
    IllegalStateError,
    KafkaError,
    KafkaTimeoutError,
    ProducerFencedError,
)
from kafkette.protocol.schema import Struct
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_FENCED = frozenset({Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH})


class TransactionAbortedError(KafkaError):
    """A record's batch was dropped because its transaction was aborted (Kafka's
    ``TransactionAbortedException``)."""


class TransactionalRequests:
    """The transactional requests of one producer and the transaction's partitions.

    Args:
        client: the producer's network client.
        transaction_manager: holds the producer id and epoch (set by ``init_transactions``).
        accumulator: the producer's batches (``abort`` drops those not yet sent).
        transactional_id: Kafka's ``transactional.id``.
        transaction_timeout_ms: Kafka's ``transaction.timeout.ms``: the coordinator aborts an open
            transaction older than this (ms).
        max_block_ms: bound of each call, its retries included (ms; Kafka's ``max.block.ms``).
        retry_backoff_ms: pause before a retry (ms).
    """

    def __init__(
        self,
        client: KafkaClient,
        transaction_manager: TransactionManager,
        accumulator: RecordAccumulator,
        *,
        transactional_id: str,
        transaction_timeout_ms: int,
        max_block_ms: int,
        retry_backoff_ms: int,
    ) -> None:
        self._client = client
        self._tm = transaction_manager
        self._acc = accumulator
        self.transactional_id = transactional_id
        self._transaction_timeout_ms = transaction_timeout_ms
        self._max_block_ms = max_block_ms
        self._retry_backoff_ms = retry_backoff_ms
        self.state = TransactionStateMachine(transactional_id)
        self._coordinator = GroupCoordinatorChannel(
            client, transactional_id, retry_backoff_ms=retry_backoff_ms, key_type=COORDINATOR_TYPE_TRANSACTION
        )
        self._partitions: set[TopicPartition] = set()  # added to the open transaction
        self._offsets_added = False  # AddOffsetsToTxn done in the open transaction
        # Held by an AddPartitionsToTxn in flight: EndTxn waits for it, so a partition the Sender
        # is adding is in the transaction EndTxn ends, never counted in the next one.
        self._adding = asyncio.Lock()
        transaction_manager.transactional = True

    # --- the coordinator's answers ------------------------------------------------------------

    async def _send(
        self,
        api: str,
        build: Callable[[], Struct],
        error_of: Callable[[Any], Errors],
        *,
        channel: GroupCoordinatorChannel | None = None,
        aborting: bool = False,
    ) -> Any:
        """Send ``build()`` to the coordinator until its answer's error is not retried.

        Returns:
            The answer without error.

        Raises:
            KafkaTimeoutError: no such answer within ``max_block_ms``.
            KafkaError: an abortable or fatal error (the state moved to ABORTABLE_ERROR or
                FATAL_ERROR first); ``ProducerFencedError`` when fenced.
        """
        channel = channel or self._coordinator
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._max_block_ms / 1000
        while True:
            remaining_ms = max(1, int((deadline - loop.time()) * 1000))
            response = await channel.send(build, lambda r: error_of(r), remaining_ms)
            error = error_of(response)
            action, exc = txn_error_action(api, error, aborting=aborting)
            if action is TxnErrorAction.NONE:
                return response
            if action in (TxnErrorAction.RETRY, TxnErrorAction.FIND_COORDINATOR):
                if action is TxnErrorAction.FIND_COORDINATOR:
                    channel.coordinator = None
                if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                    raise KafkaTimeoutError(
                        f"{api} for transactional id {self.transactional_id!r} timed out after "
                        f"{self._max_block_ms} ms: {error.name}"
                    )
                logger.debug("%s answered %s; retrying", api, error.name)
                await asyncio.sleep(self._retry_backoff_ms / 1000)
                continue
            assert exc is not None
            if action is TxnErrorAction.FATAL:
                self.state.transition_to_fatal_error(exc)
            else:
                self.state.transition_to_abortable_error(exc)
            raise exc

    # --- initTransactions ---------------------------------------------------------------------

    async def init_transactions(self) -> None:
        """``initTransactions``: find the transaction coordinator and get the producer id and epoch
        for the ``transactional.id`` (fencing any older producer with it; the coordinator aborts
        the transaction it left open).

        Raises:
            KafkaTimeoutError: not done within ``max_block_ms``.
            KafkaError: an error InitProducerId answered that is not retried.
        """
        self.state.ensure_transactional()
        self.state.maybe_fail_with_error()
        self.state.transition_to(TransactionState.INITIALIZING)
        response = await self._send(
            "InitProducerId",
            lambda: InitProducerIdRequest(
                transactional_id=self.transactional_id,
                transaction_timeout_ms=self._transaction_timeout_ms,
            ),
            lambda r: Errors(r.error_code),
        )
        self._tm.set_producer_id(response.producer_id, response.producer_epoch)
        self.state.transition_to(TransactionState.READY)

    # --- AddPartitionsToTxn (the Sender's) ---------------------------------------------------

    def partitions_to_add(self, tps: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Those of ``tps`` not yet added to the open transaction."""
        return [tp for tp in tps if tp not in self._partitions]

    async def add_partitions(self, tps: list[TopicPartition]) -> None:
        """Add ``tps`` to the open transaction with one AddPartitionsToTxn (v3 and below).

        Raises:
            KafkaError: the abortable or fatal error it was answered (the state moved first);
                KafkaTimeoutError after ``max_block_ms``.
        """
        by_topic: dict[str, list[int]] = {}
        for topic, partition in tps:
            by_topic.setdefault(topic, []).append(partition)
        pid, epoch = self._tm.producer_id, self._tm.producer_epoch
        async with self._adding:
            await self._send(
                "AddPartitionsToTxn",
                lambda: AddPartitionsToTxnRequest(
                    v3_and_below_transactional_id=self.transactional_id,
                    v3_and_below_producer_id=pid,
                    v3_and_below_producer_epoch=epoch,
                    v3_and_below_topics=[
                        AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in by_topic.items()
                    ],
                ),
                _add_partitions_error,
            )
            self._partitions.update(tps)
        logger.debug("Added partitions %s to transaction %s", tps, self.transactional_id)

    def on_batch_failed(self, exc: BaseException) -> None:
        """A batch of the transaction failed for good: fenced -> FATAL_ERROR, else ABORTABLE_ERROR
        (Kafka's ``TransactionManager.handleFailedBatch``)."""
        state = self.state
        if state.state is TransactionState.FATAL_ERROR or isinstance(exc, TransactionAbortedError):
            return
        if isinstance(exc, KafkaError) and exc.errno in _FENCED:
            state.transition_to_fatal_error(ProducerFencedError(str(exc)))
        elif state.state in (TransactionState.IN_TRANSACTION, TransactionState.COMMITTING_TRANSACTION):
            state.transition_to_abortable_error(exc if isinstance(exc, Exception) else KafkaError(str(exc)))

    # --- sendOffsetsToTransaction -------------------------------------------------------------

    async def send_offsets(
        self, offsets: dict[TopicPartition, int | OffsetAndMetadata], group_id: str
    ) -> None:
        """``sendOffsetsToTransaction``: AddOffsetsToTxn for ``group_id``, then TxnOffsetCommit of
        ``offsets`` to the group's coordinator; the offsets become the group's committed offsets
        only when the transaction commits.

        Args:
            offsets: ``{TopicPartition: next offset to consume}`` (an int or ``OffsetAndMetadata``).
            group_id: the consumer group.

        Raises:
            IllegalStateError: no transaction begun.
            KafkaError / ProducerFencedError: as ``_send``.
        """
        state = self.state
        state.ensure_transactional()
        state.maybe_fail_with_error()
        if state.state is not TransactionState.IN_TRANSACTION:
            raise IllegalStateError(
                f"Cannot send offsets if a transaction is not in progress (currently in state {state.state})"
            )
        await self._send(
            "AddOffsetsToTxn",
            lambda: AddOffsetsToTxnRequest(**self._producer_fields(), group_id=group_id),
            lambda r: Errors(r.error_code),
        )
        self._offsets_added = True
        topics = offset_commit_topics(
            {
                tp: v if isinstance(v, OffsetAndMetadata) else OffsetAndMetadata(int(v))
                for tp, v in offsets.items()
            },
            TxnOffsetCommitRequestPartition,
            TxnOffsetCommitRequestTopic,
        )
        await self._send(
            "TxnOffsetCommit",
            lambda: TxnOffsetCommitRequest(
                **self._producer_fields(),
                group_id=group_id,
                generation_id=-1,
                member_id="",
                topics=topics,
            ),
            _txn_offset_commit_error,
            channel=GroupCoordinatorChannel(self._client, group_id, retry_backoff_ms=self._retry_backoff_ms),
        )

    # --- commitTransaction / abortTransaction -------------------------------------------------

    async def commit(self, flush: Callable[[float], Awaitable[None]]) -> None:
        """``commitTransaction``: flush every record of the transaction, then EndTxn(commit).

        Args:
            flush: the producer's ``flush(timeout_s)``.

        Raises:
            IllegalStateError: no transaction begun (or a timed-out call pending).
            KafkaError: a batch failed (the transaction must now be aborted), or EndTxn's error;
                ``ProducerFencedError`` when fenced.
            KafkaTimeoutError: not done within ``max_block_ms``.
        """
        state = self.state
        state.ensure_transactional()
        state.throw_if_pending("commitTransaction")
        state.maybe_fail_with_error()
        state.transition_to(TransactionState.COMMITTING_TRANSACTION)
        await flush(self._max_block_ms / 1000)
        state.maybe_fail_with_error()  # a batch failed while flushing
        await self._end(commit=True)

    async def abort(self) -> None:
        """``abortTransaction``: drop the batches not yet sent (their records fail with
        ``TransactionAbortedError``), wait for those in flight, then EndTxn(abort).

        Raises:
            IllegalStateError: no transaction begun.
            ProducerFencedError / KafkaError: fenced, or in the fatal error state.
            KafkaTimeoutError: not done within ``max_block_ms``.
        """
        state = self.state
        state.ensure_transactional()
        state.throw_if_pending("abortTransaction")
        if state.state is TransactionState.FATAL_ERROR:
            state.maybe_fail_with_error()
        state.transition_to(TransactionState.ABORTING_TRANSACTION)
        await self._drop_pending_batches()
        await self._end(commit=False)

    async def _drop_pending_batches(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._max_block_ms / 1000
        aborted = TransactionAbortedError("Failing batch since transaction was aborted")
        while True:
            self._acc.abort_undrained_batches(aborted)
            pending = self._acc.incomplete_completions()
            remaining = deadline - loop.time()
            if not pending:
                return
            if remaining <= 0:
                raise KafkaTimeoutError(f"{len(pending)} batches still in flight when aborting")
            await asyncio.wait(pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)

    def _producer_fields(self) -> dict[str, Any]:
        """The ``transactional_id``, ``producer_id`` and ``producer_epoch`` of a request."""
        tm = self._tm
        return {
            "transactional_id": self.transactional_id,
            "producer_id": tm.producer_id,
            "producer_epoch": tm.producer_epoch,
        }

    async def _end(self, commit: bool) -> None:
        async with self._adding:  # an AddPartitionsToTxn in flight ends first
            if self._partitions or self._offsets_added:
                await self._send(
                    "EndTxn",
                    lambda: EndTxnRequest(**self._producer_fields(), committed=commit),
                    lambda r: Errors(r.error_code),
                    aborting=not commit,
                )
            self._partitions.clear()
            self._offsets_added = False
        self.state.transition_to(TransactionState.READY)


def _add_partitions_error(response: Any) -> Errors:
    """The error that decides an AddPartitionsToTxn (v3) answer: the first partition error other
    than OPERATION_NOT_ATTEMPTED (which only says another partition failed), else that."""
    worst = Errors.NONE
    for topic in response.results_by_topic_v3_and_below:
        for part in topic.results_by_partition:
            code = Errors(part.partition_error_code)
            if code is Errors.OPERATION_NOT_ATTEMPTED:
                worst = worst if worst is not Errors.NONE else code
            elif code is not Errors.NONE:
                return code
    return worst


def _txn_offset_commit_error(response: Any) -> Errors:
    """The first partition error of a TxnOffsetCommit answer (NONE when all succeeded)."""
    for topic in response.topics:
        for part in topic.partitions:
            if part.error_code:
                return Errors(part.error_code)
    return Errors.NONE
