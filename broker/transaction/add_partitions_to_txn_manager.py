"""A partition leader's questions to transaction coordinators: is this producer's partition in its
transaction?  (KIP-890 part 1: transactional produce verification.)

Owns: ``AddPartitionsToTxnManager`` (the transactions waiting for each coordinator broker, at most
one AddPartitionsToTxn v4+ in flight per broker, the sender tasks, which ``close`` cancels and
awaits), ``TransactionSupportedOperation`` and the pure mappings Kafka applies: a Produce version to
its operation, the coordinator's answer to per-partition errors (``partition_errors``), a
verification error to the Produce error a client gets (``produce_error_for``).  A transactional id
asked about again while it waits replaces its earlier question as Kafka's ``addTxnData`` does (same
epoch: the earlier gets NETWORK_EXCEPTION; newer epoch: INVALID_PRODUCER_EPOCH; an older incoming
epoch is answered INVALID_PRODUCER_EPOCH at once).  Does not own the verification guards (the
partitions' logs) nor the append (the ReplicaManager).

Kafka concept: ``org.apache.kafka.server.transaction.AddPartitionsToTxnManager`` (an
``InterBrokerSendThread``), and the error translation of ``ReplicaManager.handleProduceAppend``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from enum import Enum

from kafkette.broker.inter_broker_connections import InterBrokerConnections
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.common.topic_names import TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.apis.transactions import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTransaction,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

BROKER_REQUEST_VERSION = 5
"""The AddPartitionsToTxn version a leader sends (Kafka's ``forBroker``: v4+ batch transactions, the
versions a client's request builder never picks; v5 answers TRANSACTION_ABORTABLE)."""


class TransactionSupportedOperation(Enum):
    """What a request's version lets the leader do with the coordinator (Kafka's enum of that name).

    DEFAULT_ERROR: verify only, older clients' errors (TRANSACTION_ABORTABLE becomes INVALID_TXN_STATE).
    GENERIC_ERROR_SUPPORTED: verify only, the client handles TRANSACTION_ABORTABLE.
    ADD_PARTITION: the leader adds the partition itself (``verify_only`` false; KIP-890 part 2).
    """

    DEFAULT_ERROR = "default_error"
    GENERIC_ERROR_SUPPORTED = "generic_error_supported"
    ADD_PARTITION = "add_partition"

    @property
    def supports_epoch_bump(self) -> bool:
        return self is TransactionSupportedOperation.ADD_PARTITION


def produce_request_version_to_transaction_supported_operation(version: int) -> TransactionSupportedOperation:
    """Produce v12+ ADD_PARTITION, v11 GENERIC_ERROR_SUPPORTED, older DEFAULT_ERROR (Kafka's
    ``produceRequestVersionToTransactionSupportedOperation``)."""
    if version > 11:
        return TransactionSupportedOperation.ADD_PARTITION
    if version > 10:
        return TransactionSupportedOperation.GENERIC_ERROR_SUPPORTED
    return TransactionSupportedOperation.DEFAULT_ERROR


_RETRY_AS_NOT_ENOUGH_REPLICAS = frozenset(
    {
        Errors.NETWORK_EXCEPTION,
        Errors.COORDINATOR_LOAD_IN_PROGRESS,
        Errors.COORDINATOR_NOT_AVAILABLE,
        Errors.NOT_COORDINATOR,
    }
)


def produce_error_for(error: Errors, operation: TransactionSupportedOperation) -> tuple[Errors, str | None]:
    """The Produce error (and message) a partition that failed verification answers (Kafka's
    ``handleProduceAppend`` ``postVerificationCallback``): INVALID_TXN_STATE "Partition was not added
    to the transaction"; the retriable coordinator errors (and CONCURRENT_TRANSACTIONS unless the
    operation is ADD_PARTITION) become NOT_ENOUGH_REPLICAS, which older clients retry without a
    metadata refresh; any other error as is, without a message."""
    if error == Errors.INVALID_TXN_STATE:
        return error, "Partition was not added to the transaction"
    if error in _RETRY_AS_NOT_ENOUGH_REPLICAS or (
        error == Errors.CONCURRENT_TRANSACTIONS and not operation.supports_epoch_bump
    ):
        return (
            Errors.NOT_ENOUGH_REPLICAS,
            "Unable to verify the partition has been added to the transaction. "
            f"Underlying error: {error.name}",
        )
    return error, None


def partition_errors(
    response: AddPartitionsToTxnResponse,
    asked: dict[str, AddPartitionsToTxnTransaction],
    operation: TransactionSupportedOperation,
) -> dict[str, dict[TopicPartition, Errors]]:
    """The unverified partitions of each transactional id in a coordinator's answer (Kafka's
    ``AddPartitionsToTxnHandler.onComplete``): a top-level error fails every partition asked
    (CLUSTER_AUTHORIZATION_FAILED as INVALID_TXN_STATE); PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH,
    and TRANSACTION_ABORTABLE INVALID_TXN_STATE for DEFAULT_ERROR clients.  A transactional id the
    answer leaves out is answered NETWORK_EXCEPTION (Kafka leaves its callback uncalled; here nothing
    unverified is appended and the producer retries).

    Returns:
        ``{transactional id: {partition: error}}`` for every transactional id in ``asked``.
    """
    if response.error_code != 0:
        code = Errors(response.error_code)
        if code == Errors.CLUSTER_AUTHORIZATION_FAILED:
            code = Errors.INVALID_TXN_STATE
        return {txn_id: dict.fromkeys(_partitions(txn), code) for txn_id, txn in asked.items()}
    results: dict[str, dict[TopicPartition, Errors]] = {
        txn_id: dict.fromkeys(_partitions(txn), Errors.NETWORK_EXCEPTION) for txn_id, txn in asked.items()
    }
    for result in response.results_by_transaction:
        if result.transactional_id not in asked:
            continue
        unverified: dict[TopicPartition, Errors] = {}
        for topic in result.topic_results:
            for part in topic.results_by_partition:
                if part.partition_error_code == 0:
                    continue
                code = Errors(part.partition_error_code)
                if code == Errors.PRODUCER_FENCED:
                    code = Errors.INVALID_PRODUCER_EPOCH
                elif (
                    code == Errors.TRANSACTION_ABORTABLE
                    and operation is TransactionSupportedOperation.DEFAULT_ERROR
                ):
                    code = Errors.INVALID_TXN_STATE
                unverified[TopicPartition(topic.name, part.partition_index)] = code
        results[result.transactional_id] = unverified
    return results


def _partitions(txn: AddPartitionsToTxnTransaction) -> list[TopicPartition]:
    return [TopicPartition(t.name, p) for t in txn.topics for p in t.partitions]


def _transaction(
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: Collection[TopicPartition],
    operation: TransactionSupportedOperation,
) -> AddPartitionsToTxnTransaction:
    topics: dict[str, list[int]] = {}
    for tp in partitions:
        topics.setdefault(tp.topic, []).append(tp.partition)
    return AddPartitionsToTxnTransaction(
        transactional_id=transactional_id,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        verify_only=not operation.supports_epoch_bump,
        topics=[AddPartitionsToTxnTopic(name=name, partitions=parts) for name, parts in topics.items()],
    )


@dataclass(slots=True)
class TransactionDataAndCallbacks:
    """The transactions waiting for one coordinator broker (at most one per transactional id) and the
    futures their answers resolve (Kafka's record of that name)."""

    operation: TransactionSupportedOperation
    transactions: dict[str, AddPartitionsToTxnTransaction] = field(default_factory=dict)
    futures: dict[str, asyncio.Future[dict[TopicPartition, Errors]]] = field(default_factory=dict)

    def add(
        self, txn: AddPartitionsToTxnTransaction, future: asyncio.Future[dict[TopicPartition, Errors]]
    ) -> None:
        """Queue ``txn``; an earlier question of the same transactional id is answered NETWORK_EXCEPTION
        (same epoch: the client retries) or INVALID_PRODUCER_EPOCH (fenced by ``txn``); an incoming
        older epoch is answered INVALID_PRODUCER_EPOCH itself and not queued (Kafka's ``addTxnData``)."""
        existing = self.transactions.get(txn.transactional_id)
        if existing is not None:
            if existing.producer_epoch <= txn.producer_epoch:
                error = (
                    Errors.INVALID_PRODUCER_EPOCH
                    if existing.producer_epoch < txn.producer_epoch
                    else Errors.NETWORK_EXCEPTION
                )
                _resolve(self.futures.pop(txn.transactional_id), dict.fromkeys(_partitions(existing), error))
            else:
                _resolve(future, dict.fromkeys(_partitions(txn), Errors.INVALID_PRODUCER_EPOCH))
                return
        self.transactions[txn.transactional_id] = txn
        self.futures[txn.transactional_id] = future

    def fail_all(self, error: Errors) -> None:
        """Answer every waiting transaction ``error`` for each of its partitions."""
        for txn_id, future in self.futures.items():
            _resolve(future, dict.fromkeys(_partitions(self.transactions[txn_id]), error))


def _resolve(
    future: asyncio.Future[dict[TopicPartition, Errors]], errors: dict[TopicPartition, Errors]
) -> None:
    if not future.done():
        future.set_result(errors)


class AddPartitionsToTxnManager:
    """Batches a leader's transaction verifications per coordinator broker.

    Args:
        broker_id: this broker (client id, log prefix).
        metadata_cache: the ``__transaction_state`` leaders and the live brokers' addresses.
        partition_for: the ``__transaction_state`` partition of a transactional id.
        security: the inter-broker listener's TLS and SASL.
        request_timeout_ms: each AddPartitionsToTxn's deadline (``request.timeout.ms``), ms; a question
            waits at most twice this in all (then NETWORK_EXCEPTION).
    """

    def __init__(
        self,
        broker_id: int,
        metadata_cache: MetadataCache,
        partition_for: Callable[[str], int],
        *,
        security: ClientSecurity = PLAINTEXT,
        request_timeout_ms: int = 30000,
    ) -> None:
        self._metadata = metadata_cache
        self._partition_for = partition_for
        self._request_timeout_ms = request_timeout_ms
        self._connections = InterBrokerConnections(
            broker_id,
            metadata_cache,
            "add-partitions-to-txn-sender",
            security=security,
            request_timeout_ms=request_timeout_ms,
        )
        self._pending: dict[int, TransactionDataAndCallbacks] = {}
        self._inflight: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._prefix = f"[AddPartitionsToTxnSenderThread-{broker_id}]:"

    def coordinator_for(self, transactional_id: str) -> int | None:
        """The live broker leading the transactional id's ``__transaction_state`` partition, or None
        (Kafka's ``getTransactionCoordinator``)."""
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self._partition_for(transactional_id))
        state = self._metadata.partition_state(tp)
        if state is None or state.leader < 0 or self._metadata.get_alive_broker(state.leader) is None:
            return None
        return state.leader

    async def add_or_verify_transaction(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Collection[TopicPartition],
        operation: TransactionSupportedOperation,
    ) -> dict[TopicPartition, Errors]:
        """Ask the coordinator to verify (or, ADD_PARTITION, add) ``partitions``; the partitions that
        failed, with their error (an empty dict: all verified).

        Errors: COORDINATOR_NOT_AVAILABLE with no live coordinator, NETWORK_EXCEPTION for a lost
        connection, no answer in time, or a manager closing; else the coordinator's (``partition_errors``).
        """
        node = self.coordinator_for(transactional_id)
        if node is None or self._closed:
            return dict.fromkeys(partitions, Errors.COORDINATOR_NOT_AVAILABLE)
        future: asyncio.Future[dict[TopicPartition, Errors]] = asyncio.get_running_loop().create_future()
        batch = self._pending.get(node)
        if batch is None:
            batch = self._pending[node] = TransactionDataAndCallbacks(operation)
        batch.add(_transaction(transactional_id, producer_id, producer_epoch, partitions, operation), future)
        self._maybe_send(node)
        try:
            async with asyncio.timeout(2 * self._request_timeout_ms / 1000):
                return await asyncio.shield(future)
        except TimeoutError:
            return dict.fromkeys(partitions, Errors.NETWORK_EXCEPTION)

    def _maybe_send(self, node: int) -> None:
        """Send ``node``'s waiting transactions unless a request to it is in flight (Kafka's
        ``generateRequests``)."""
        if node in self._inflight or self._closed:
            return
        batch = self._pending.pop(node, None)
        if batch is None:
            return
        self._inflight.add(node)
        task = asyncio.get_running_loop().create_task(self._send(node, batch), name=f"{self._prefix} {node}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, node: int, batch: TransactionDataAndCallbacks) -> None:
        try:
            connection = await self._connections.connection(node)
            response: AddPartitionsToTxnResponse = await connection.send(
                AddPartitionsToTxnRequest(transactions=list(batch.transactions.values())),
                api_version=BROKER_REQUEST_VERSION,
                timeout_ms=self._request_timeout_ms,
            )
            if response.error_code != 0:
                logger.error(
                    "%s AddPartitionsToTxnRequest for node %d returned with error %s",
                    self._prefix,
                    node,
                    Errors(response.error_code).name,
                )
            for txn_id, errors in partition_errors(response, batch.transactions, batch.operation).items():
                _resolve(batch.futures[txn_id], errors)
        except (KafkaConnectionError, KafkaTimeoutError, OSError) as exc:
            logger.warning("%s AddPartitionsToTxnRequest failed for node %d: %r", self._prefix, node, exc)
            await self._connections.drop(node)
            batch.fail_all(Errors.NETWORK_EXCEPTION)
        except asyncio.CancelledError:
            batch.fail_all(Errors.NETWORK_EXCEPTION)
            raise
        except Exception:  # an answer that does not decode or read: what is unanswered is not verified
            logger.exception("%s AddPartitionsToTxnRequest to node %d failed", self._prefix, node)
            await self._connections.drop(node)
            batch.fail_all(Errors.NETWORK_EXCEPTION)
        finally:
            self._inflight.discard(node)
        self._maybe_send(node)

    async def close(self) -> None:
        """Stop: answer what waits NETWORK_EXCEPTION, cancel and await the sends, close the
        connections (idempotent)."""
        self._closed = True
        for batch in self._pending.values():
            batch.fail_all(Errors.NETWORK_EXCEPTION)
        self._pending.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._connections.close()
