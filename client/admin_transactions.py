"""The AdminClient's transaction calls: ListTransactions, DescribeTransactions, DescribeProducers,
aborting a hanging transaction with WriteTxnMarkers (KIP-664) and fencing a transactional id's
producer with InitProducerId (KIP-618, KIP-939's forced termination).

Owns: ``TransactionAdminCalls`` (the calls, mixed into ``kafkette.client.admin.AdminClient``)
and their value types, named as Kafka's: ``TransactionListing``, ``TransactionDescription``,
``ProducerState``, ``PartitionProducerState`` and ``AbortTransactionSpec``.  Where each request
goes, as Kafka's handlers send it: ListTransactions to every live broker (each answers the
transactions its coordinator owns; ``ListTransactionsHandler`` with ``AllBrokersStrategy``),
DescribeTransactions and the fencing InitProducerId to each transactional id's coordinator
(FindCoordinator key type 1; ``DescribeTransactionsHandler``, ``FenceProducersHandler``),
DescribeProducers to each partition's leader or to one given broker
(``DescribeProducersHandler``), and the ABORT marker to the partition's leader
(``AbortTransactionHandler``).  A lost connection, a moved leader or coordinator and a coordinator
still loading are retried ``retry_backoff_ms`` apart within ``request_timeout_ms``.

Kafka concept: ``Admin.listTransactions``, ``Admin.describeTransactions``,
``Admin.describeProducers``, ``Admin.abortTransaction``, ``Admin.fenceProducers``,
``Admin.forceTerminateTransaction``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafkette.client.group_coordinator_channel import GroupCoordinatorChannel
from kafkette.protocol.apis.describe_producers import (
    DescribeProducersRequest,
    DescribeProducersRequestTopic,
    DescribeProducersResponse,
)
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest, InitProducerIdResponse
from kafkette.protocol.apis.transactions import (
    DescribeTransactionsRequest,
    DescribeTransactionsResponse,
    ListTransactionsRequest,
    ListTransactionsResponse,
)
from kafkette.protocol.apis.write_txn_markers import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
    WriteTxnMarkersResponse,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaError, KafkaTimeoutError, error_class
from kafkette.protocol.topic_partition import TopicPartition

__all__ = [
    "AbortTransactionSpec",
    "PartitionProducerState",
    "ProducerState",
    "TransactionAdminCalls",
    "TransactionDescription",
    "TransactionListing",
]

logger = logging.getLogger(__name__)

# Partition errors after which the leader is looked up again and the request retried
# (AbortTransactionHandler / DescribeProducersHandler unmap the partition on these).
_LEADER_MOVED = frozenset(
    {
        Errors.NOT_LEADER_OR_FOLLOWER,
        Errors.REPLICA_NOT_AVAILABLE,
        Errors.BROKER_NOT_AVAILABLE,
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.LEADER_NOT_AVAILABLE,
    }
)


@dataclass(frozen=True, slots=True)
class TransactionListing:
    """One transaction a coordinator owns (Kafka's ``TransactionListing``).

    ``state`` is Kafka's ``TransactionState`` text: ``Ongoing``, ``PrepareCommit``, ``PrepareAbort``,
    ``CompleteCommit``, ``CompleteAbort``, ``Empty``, ``PrepareEpochFence`` or ``Dead``.
    """

    transactional_id: str
    producer_id: int
    state: str


@dataclass(frozen=True, slots=True)
class TransactionDescription:
    """A transactional id's state at its coordinator (Kafka's ``TransactionDescription``).

    ``transaction_start_time_ms`` is None when no transaction is open (ms since the epoch
    otherwise); ``topic_partitions`` are the partitions of the open transaction, or those still
    waiting for their marker in ``PrepareCommit``/``PrepareAbort``.
    """

    coordinator_id: int
    state: str
    producer_id: int
    producer_epoch: int
    transaction_timeout_ms: int
    transaction_start_time_ms: int | None
    topic_partitions: frozenset[TopicPartition]


@dataclass(frozen=True, slots=True)
class ProducerState:
    """One active producer of a partition, from the replica's producer state (Kafka's
    ``ProducerState``): ``last_timestamp`` is the max timestamp of its last batch (ms since the
    epoch); ``coordinator_epoch`` is None until a coordinator wrote a marker for it;
    ``current_transaction_start_offset`` is the first offset of its open transaction (None: none).
    """

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int | None
    current_transaction_start_offset: int | None


@dataclass(frozen=True, slots=True)
class PartitionProducerState:
    """The active producers of one partition (Kafka's ``DescribeProducersResult.PartitionProducerState``)."""

    active_producers: list[ProducerState]


@dataclass(frozen=True, slots=True)
class AbortTransactionSpec:
    """What ``abort_transaction`` aborts: the open transaction of ``producer_id`` at
    ``producer_epoch`` on ``topic_partition``; ``coordinator_epoch`` must be at least the epoch of
    the coordinator that last wrote a marker there (0 when none did).  Kafka's ``AbortTransactionSpec``.
    """

    topic_partition: TopicPartition
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int


def _error(code: int, what: str, message: str | None = None) -> KafkaError:
    cls = error_class(code)
    return cls(f"{what}: {message or cls.message}")


def _producer_state(p: Any) -> ProducerState:
    return ProducerState(
        producer_id=p.producer_id,
        producer_epoch=p.producer_epoch,
        last_sequence=p.last_sequence,
        last_timestamp=p.last_timestamp,
        coordinator_epoch=None if p.coordinator_epoch < 0 else p.coordinator_epoch,
        current_transaction_start_offset=None
        if p.current_txn_start_offset < 0
        else p.current_txn_start_offset,
    )


class TransactionAdminCalls:
    """The transaction calls of ``AdminClient`` (a mixin: it uses the client's ``_client``,
    ``_request_timeout_ms``, ``_retry_backoff_ms`` and ``describe_topics``)."""

    _client: Any
    _request_timeout_ms: int
    _retry_backoff_ms: int

    describe_topics: Any  # AdminClient.describe_topics

    async def list_transactions(
        self,
        state_filters: Iterable[str] | None = None,
        producer_id_filters: Iterable[int] | None = None,
        duration_filter_ms: int | None = None,
        transactional_id_pattern: str | None = None,
    ) -> list[TransactionListing]:
        """Every transaction the cluster's coordinators own that matches all filters, merged
        (ListTransactions to every broker; see ``list_transactions_by_broker_id``)."""
        by_broker = await self.list_transactions_by_broker_id(
            state_filters, producer_id_filters, duration_filter_ms, transactional_id_pattern
        )
        return [listing for listings in by_broker.values() for listing in listings]

    async def list_transactions_by_broker_id(
        self,
        state_filters: Iterable[str] | None = None,
        producer_id_filters: Iterable[int] | None = None,
        duration_filter_ms: int | None = None,
        transactional_id_pattern: str | None = None,
    ) -> dict[int, list[TransactionListing]]:
        """The transactions each broker's coordinator owns (Kafka's ``ListTransactionsResult.allByBrokerId``).

        Args:
            state_filters: ``TransactionState`` texts (``"Ongoing"``, ...); None or empty: any.
            producer_id_filters: producer ids; None or empty: any.
            duration_filter_ms: only transactions running longer than this (ms; KIP-994);
                None or negative: any.
            transactional_id_pattern: a regular expression the id must match (KIP-1152); None: any.

        Returns:
            ``{broker id: [TransactionListing]}``, brokers by id.

        Raises:
            CoordinatorNotAvailableError, ...: a broker's error (COORDINATOR_LOAD_IN_PROGRESS is
                retried within ``request_timeout_ms``).
            KafkaTimeoutError / KafkaConnectionError: a broker could not be reached in time.
        """
        request = ListTransactionsRequest(
            state_filters=list(state_filters or ()),
            producer_id_filters=list(producer_id_filters or ()),
            duration_filter=-1
            if duration_filter_ms is None or duration_filter_ms < 0
            else duration_filter_ms,
            transactional_id_pattern=transactional_id_pattern,
        )
        await self._client.refresh_metadata()
        broker_ids = sorted(self._client.cluster.brokers())

        async def one(broker_id: int) -> list[TransactionListing]:
            response: ListTransactionsResponse = await self._retrying(
                lambda: self._client.send(broker_id, request),
                lambda r: r.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS,
                f"ListTransactions to broker {broker_id}",
            )
            if response.error_code != Errors.NONE:
                raise _error(
                    response.error_code, f"ListTransactions request sent to broker {broker_id} failed"
                )
            if response.unknown_state_filters:
                logger.warning(
                    "Broker %d does not know the transaction states %s",
                    broker_id,
                    response.unknown_state_filters,
                )
            return [
                TransactionListing(s.transactional_id, s.producer_id, s.transaction_state)
                for s in response.transaction_states
            ]

        answers = await asyncio.gather(*(one(b) for b in broker_ids))
        return dict(zip(broker_ids, answers, strict=True))

    async def describe_transactions(
        self, transactional_ids: Iterable[str]
    ) -> dict[str, TransactionDescription]:
        """The state of each transactional id at its coordinator (DescribeTransactions, each id
        sent to the coordinator FindCoordinator names for it).

        Args:
            transactional_ids: the ids.

        Returns:
            ``{transactional id: TransactionDescription}`` in argument order.

        Raises:
            TransactionalIdNotFoundError: the coordinator has no such id (the first id failing).
            TransactionalIdAuthorizationFailedError: DESCRIBE on the id is denied.
            KafkaTimeoutError: no coordinator answered within ``request_timeout_ms``.
        """
        results = await self.describe_transactions_each(transactional_ids)
        for result in results.values():
            if isinstance(result, BaseException):
                raise result
        return results  # type: ignore[return-value]

    async def describe_transactions_each(
        self, transactional_ids: Iterable[str]
    ) -> dict[str, TransactionDescription | KafkaError]:
        """As ``describe_transactions``, with each id's error as its value instead of raised
        (Kafka's per-id futures of ``DescribeTransactionsResult``)."""
        ids = list(dict.fromkeys(transactional_ids))
        answers = await asyncio.gather(*(self._describe_transaction(i) for i in ids), return_exceptions=True)
        out: dict[str, TransactionDescription | KafkaError] = {}
        for transactional_id, answer in zip(ids, answers, strict=True):
            if isinstance(answer, KafkaError):
                out[transactional_id] = answer
            elif isinstance(answer, BaseException):
                raise answer
            else:
                out[transactional_id] = answer
        return out

    async def _describe_transaction(self, transactional_id: str) -> TransactionDescription:
        channel = GroupCoordinatorChannel(
            self._client,
            transactional_id,
            retry_backoff_ms=self._retry_backoff_ms,
            key_type=COORDINATOR_TYPE_TRANSACTION,
        )
        response: DescribeTransactionsResponse = await channel.send(
            lambda: DescribeTransactionsRequest(transactional_ids=[transactional_id]),
            lambda r: r.transaction_states[0].error_code,
            self._request_timeout_ms,
        )
        [state] = response.transaction_states
        if state.error_code != Errors.NONE:
            raise _error(state.error_code, f"Transactional id `{transactional_id}`")
        assert channel.coordinator is not None
        return TransactionDescription(
            coordinator_id=channel.coordinator[0],
            state=state.transaction_state,
            producer_id=state.producer_id,
            producer_epoch=state.producer_epoch,
            transaction_timeout_ms=state.transaction_timeout_ms,
            transaction_start_time_ms=None
            if state.transaction_start_time_ms < 0
            else state.transaction_start_time_ms,
            topic_partitions=frozenset(
                TopicPartition(t.topic, p) for t in state.topics for p in t.partitions
            ),
        )

    async def fence_producers(self, transactional_ids: Iterable[str]) -> dict[str, tuple[int, int]]:
        """Fence the producers of each transactional id: InitProducerId with no producer id or
        epoch at the id's coordinator, which bumps the epoch (the old producer gets PRODUCER_FENCED)
        and aborts its ongoing transaction.  The transaction timeout sent is ``request_timeout_ms``,
        as Kafka's ``FenceProducersHandler`` sends its timeout.  Kafka's ``Admin.fenceProducers``
        (KIP-618).

        Returns:
            ``{transactional id: (producer id, new producer epoch)}`` in argument order.

        Raises:
            TransactionalIdAuthorizationFailedError, ClusterAuthorizationFailedError: denied.
            KafkaTimeoutError: no coordinator answered (CONCURRENT_TRANSACTIONS and a coordinator
                still loading are retried) within ``request_timeout_ms``.
        """
        ids = list(dict.fromkeys(transactional_ids))
        fenced = await asyncio.gather(*(self._fence_producer(i) for i in ids))
        return dict(zip(ids, fenced, strict=True))

    async def force_terminate_transaction(self, transactional_id: str) -> None:
        """Abort the ongoing transaction of ``transactional_id`` by fencing its producer (Kafka's
        ``Admin.forceTerminateTransaction``, KIP-939: ``fence_producers`` of the one id).

        Raises:
            As ``fence_producers``.
        """
        await self.fence_producers([transactional_id])

    async def _fence_producer(self, transactional_id: str) -> tuple[int, int]:
        channel = GroupCoordinatorChannel(
            self._client,
            transactional_id,
            retry_backoff_ms=self._retry_backoff_ms,
            key_type=COORDINATOR_TYPE_TRANSACTION,
        )
        request = InitProducerIdRequest(
            transactional_id=transactional_id,
            transaction_timeout_ms=self._request_timeout_ms,
            producer_id=-1,
            producer_epoch=-1,
        )
        response: InitProducerIdResponse = await self._retrying(
            lambda: channel.send(lambda: request, lambda r: r.error_code, self._request_timeout_ms),
            lambda r: r.error_code == Errors.CONCURRENT_TRANSACTIONS,
            f"InitProducerId for transactional id `{transactional_id}`",
        )
        if response.error_code != Errors.NONE:
            raise _error(
                response.error_code, f"InitProducerId request for transactionalId `{transactional_id}` failed"
            )
        return response.producer_id, response.producer_epoch

    async def describe_producers(
        self, partitions: Iterable[TopicPartition], broker_id: int | None = None
    ) -> dict[TopicPartition, PartitionProducerState]:
        """The active producers of each partition (DescribeProducers to its leader, or to
        ``broker_id``, which may be a follower: Kafka's ``DescribeProducersOptions.brokerId``).

        Args:
            partitions: the partitions.
            broker_id: ask this broker instead of the leaders (its errors are not retried).

        Returns:
            ``{TopicPartition: PartitionProducerState}`` in argument order.

        Raises:
            TypeError: an element is not a TopicPartition.
            NotLeaderOrFollowerError: ``broker_id`` holds no replica of a partition.
            UnknownTopicOrPartitionError, InvalidTopicError, TopicAuthorizationFailedError: the
                first failing partition's error, naming it.
            KafkaTimeoutError: no leader answered within ``request_timeout_ms``.
        """
        wanted = _topic_partitions(partitions, "describe_producers")

        async def send(node_id: int, tps: list[TopicPartition]) -> dict[TopicPartition, Any]:
            by_topic: dict[str, list[int]] = {}
            for tp in tps:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            response: DescribeProducersResponse = await self._client.send(
                node_id,
                DescribeProducersRequest(
                    topics=[
                        DescribeProducersRequestTopic(name=t, partition_indexes=p)
                        for t, p in by_topic.items()
                    ]
                ),
            )
            return {
                TopicPartition(t.name, p.partition_index): p for t in response.topics for p in t.partitions
            }

        answers = await self._send_to_leaders(wanted, send, broker_id, "DescribeProducers")
        out: dict[TopicPartition, PartitionProducerState] = {}
        for tp in wanted:
            answer = answers[tp]
            if answer.error_code != Errors.NONE:
                where = f"broker {broker_id}" if broker_id is not None else "leader"
                raise _error(
                    answer.error_code,
                    f"Failed to describe producers for partition {tp} on {where}",
                    answer.error_message,
                )
            out[tp] = PartitionProducerState([_producer_state(p) for p in answer.active_producers])
        return out

    async def abort_transaction(self, spec: AbortTransactionSpec) -> None:
        """Abort a hanging transaction: an ABORT marker for the producer written to the partition by
        its leader (WriteTxnMarkers, as the coordinator would send it; needs CLUSTER_ACTION on the
        cluster when ACLs are on).  Kafka's ``Admin.abortTransaction``.

        Args:
            spec: ``AbortTransactionSpec(TopicPartition("t", 0), producer_id, producer_epoch,
                coordinator_epoch)``; see ``describe_producers`` for the values.

        Raises:
            TypeError: ``spec`` is not an AbortTransactionSpec.
            ClusterAuthorizationFailedError: CLUSTER_ACTION is denied.
            InvalidProducerEpochError: the producer's epoch is newer than ``producer_epoch``.
            TransactionCoordinatorFencedError: a coordinator of a newer epoch wrote its marker.
            KafkaTimeoutError: no leader answered within ``request_timeout_ms``.
        """
        if not isinstance(spec, AbortTransactionSpec):
            raise TypeError(f"abort_transaction takes an AbortTransactionSpec, not {spec!r}")
        tp = spec.topic_partition

        async def send(node_id: int, tps: list[TopicPartition]) -> dict[TopicPartition, Any]:
            marker = WritableTxnMarker(
                producer_id=spec.producer_id,
                producer_epoch=spec.producer_epoch,
                transaction_result=False,
                topics=[WritableTxnMarkerTopic(name=tp.topic, partition_indexes=[tp.partition])],
                coordinator_epoch=spec.coordinator_epoch,
                transaction_version=0,
            )
            response: WriteTxnMarkersResponse = await self._client.send(
                node_id, WriteTxnMarkersRequest(markers=[marker])
            )
            return {
                TopicPartition(t.name, p.partition_index): p
                for m in response.markers
                if m.producer_id == spec.producer_id
                for t in m.topics
                for p in t.partitions
            }

        answer = (await self._send_to_leaders([tp], send, None, "WriteTxnMarkers"))[tp]
        if answer.error_code != Errors.NONE:
            raise _error(answer.error_code, f"Failed to abort transaction {spec}")

    async def _send_to_leaders(
        self,
        partitions: list[TopicPartition],
        send: Callable[[int, list[TopicPartition]], Any],
        broker_id: int | None,
        what: str,
    ) -> dict[TopicPartition, Any]:
        """``send(node id, partitions)`` to each partition's leader (or to ``broker_id``) until
        every partition has an answer whose error is not a moved leader; ``{tp: answer}`` (each
        answer has an ``error_code``).

        Raises:
            UnknownTopicOrPartitionError: a topic or partition the metadata does not have.
            KafkaTimeoutError: leaders still unknown or unreachable after ``request_timeout_ms``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._request_timeout_ms / 1000
        topics = list(dict.fromkeys(tp.topic for tp in partitions))
        descriptions = await self.describe_topics(topics)  # caches leaders; unknown topics raise here
        for tp in partitions:
            self._client.add_topic(tp.topic)
            if all(p.partition != tp.partition for p in descriptions[tp.topic].partitions):
                raise _error(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"Partition {tp}", "it does not exist")
        answers: dict[TopicPartition, Any] = {}
        remaining = list(partitions)
        while True:
            by_node: dict[int, list[TopicPartition]] = {}
            last: BaseException | None = None
            for tp in remaining:
                leader = broker_id if broker_id is not None else self._client.cluster.leader_for(tp)
                if leader is None or leader < 0:
                    last = _error(Errors.LEADER_NOT_AVAILABLE, f"No leader known for {tp}")
                else:
                    by_node.setdefault(leader, []).append(tp)
            replies = await asyncio.gather(
                *(send(node, tps) for node, tps in by_node.items()), return_exceptions=True
            )
            retry: list[TopicPartition] = [
                tp for tp in remaining if not any(tp in t for t in by_node.values())
            ]
            for tps, reply in zip(by_node.values(), replies, strict=True):
                if isinstance(reply, (KafkaConnectionError, KafkaTimeoutError)) and broker_id is None:
                    retry.extend(tps)
                    last = reply
                    continue
                if isinstance(reply, BaseException):
                    raise reply
                for tp in tps:
                    answer = reply.get(tp)
                    if answer is None:
                        raise KafkaError(f"No {what} answer for {tp}")
                    if broker_id is None and answer.error_code in _LEADER_MOVED:
                        retry.append(tp)
                        last = _error(answer.error_code, f"{what} for {tp}")
                    else:
                        answers[tp] = answer
            if not retry:
                return answers
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                if last is not None and not isinstance(last, KafkaTimeoutError):
                    raise last
                raise KafkaTimeoutError(f"{what}: no answer for {retry[0]} in time: {last}") from last
            remaining = retry
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            try:
                await self._client.refresh_metadata()
            except KafkaError as exc:
                logger.debug("Metadata refresh before retrying %s failed: %s", what, exc)

    async def _retrying(self, send: Callable[[], Any], retriable: Callable[[Any], bool], what: str) -> Any:
        """``await send()`` again, ``retry_backoff_ms`` apart, while ``retriable(answer)`` holds and
        ``request_timeout_ms`` has not passed; the last answer."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._request_timeout_ms / 1000
        while True:
            response = await send()
            if not retriable(response) or loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                return response
            logger.debug("%s: retrying", what)
            await asyncio.sleep(self._retry_backoff_ms / 1000)


def _topic_partitions(partitions: Iterable[TopicPartition], call: str) -> list[TopicPartition]:
    out = list(dict.fromkeys(partitions))
    bad = [x for x in out if not isinstance(x, TopicPartition)]
    if bad:
        raise TypeError(f"{call} takes TopicPartition objects, not {bad[0]!r}")
    return out
