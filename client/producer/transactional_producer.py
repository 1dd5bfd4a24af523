"""The Producer's transactional methods, as aiokafka names them.

Owns: ``TransactionalProducerMixin`` (``begin_transaction``, ``commit_transaction``,
``abort_transaction``, ``transaction()``, ``send_offsets_to_transaction``), thin calls into
``TransactionalRequests`` that first check the producer is transactional and started.  Does not own
the requests or the state rules.

Kafka concept: ``KafkaProducer.beginTransaction`` / ``commitTransaction`` / ``abortTransaction`` /
``sendOffsetsToTransaction`` (KIP-98); aiokafka's ``AIOKafkaProducer.transaction()``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from kafkette.client.offset_and_metadata import OffsetAndMetadata
from kafkette.client.producer.transaction_state import TransactionState
from kafkette.client.producer.transactional_requests import TransactionalRequests
from kafkette.protocol.errors import IllegalStateError
from kafkette.protocol.topic_partition import TopicPartition


class TransactionalProducerMixin:
    """The transactional methods of ``Producer`` (which sets ``_txn`` when it has a
    ``transactional_id`` and is started, and provides ``flush(timeout_s)``)."""

    _txn: TransactionalRequests | None

    async def flush(self, timeout: float | None = None) -> None:  # provided by Producer
        raise NotImplementedError

    def _transactional(self) -> TransactionalRequests:
        txn = self._txn
        if txn is None:
            raise IllegalStateError(
                "Transactional method invoked on a non-transactional producer."
                if getattr(self, "transactional_id", None) is None
                else "Producer is not started: call start() first"
            )
        return txn

    def begin_transaction(self) -> None:
        """``beginTransaction``: start a transaction (no request is sent; the first record of each
        partition adds it to the transaction).

        Raises:
            IllegalStateError: not transactional, not started, or a transaction is already open.
            ProducerFencedError / KafkaError: the producer is in an error state.
        """
        self._transactional().state.begin_transaction()

    async def commit_transaction(self) -> None:
        """``commitTransaction``: flush the transaction's records, then commit it (EndTxn): its
        records become visible to read_committed consumers, its offsets the group's.

        Raises:
            IllegalStateError: no transaction open.
            ProducerFencedError: a newer producer with the same ``transactional_id`` started (this
                one is unusable: only ``stop`` is left).
            KafkaError: a record failed or the coordinator answered an abortable error (call
                ``abort_transaction``), or a fatal one.
            KafkaTimeoutError: not done within ``request_timeout_ms``.
        """
        await self._transactional().commit(self.flush)

    async def abort_transaction(self) -> None:
        """``abortTransaction``: drop the records not sent yet (their futures fail with
        ``TransactionAbortedError``), wait for those in flight, then abort (EndTxn): read_committed
        consumers never see its records.

        Raises:
            IllegalStateError: no transaction open.
            ProducerFencedError / KafkaError: fenced, or in the fatal error state.
            KafkaTimeoutError: not done within ``request_timeout_ms``.
        """
        await self._transactional().abort()

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """``async with producer.transaction():`` begins a transaction, commits it when the block
        ends, and aborts it when the block raises (the exception then propagates; a fenced
        producer is not aborted: its transaction is the newer producer's to end).

        Raises:
            What ``begin_transaction`` and ``commit_transaction`` raise.
        """
        self.begin_transaction()
        try:
            yield
        except BaseException:
            txn = self._transactional()
            if txn.state.state is not TransactionState.FATAL_ERROR:
                await self.abort_transaction()
            raise
        await self.commit_transaction()

    async def send_offsets_to_transaction(
        self, offsets: dict[TopicPartition, int | OffsetAndMetadata], group_id: str
    ) -> None:
        """``sendOffsetsToTransaction``: commit consumed offsets as part of the open transaction
        (AddOffsetsToTxn, then TxnOffsetCommit): ``group_id``'s committed offsets change only if
        the transaction commits (consume-transform-produce, exactly once).

        Args:
            offsets: ``{TopicPartition: next offset to consume}`` (int or ``OffsetAndMetadata``).
            group_id: the consumer group whose offsets these are.

        Raises:
            IllegalStateError: no transaction open.
            ValueError: an empty ``group_id``.
            ProducerFencedError / KafkaError: as ``commit_transaction``.
        """
        if not group_id:
            raise ValueError("group_id must be a non-empty string")
        await self._transactional().send_offsets(offsets, group_id)
