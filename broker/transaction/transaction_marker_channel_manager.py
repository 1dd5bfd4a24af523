"""The transaction coordinator's channel to partition leaders: WriteTxnMarkers until every
partition of a completing transaction has its COMMIT or ABORT marker.

Owns: ``TransactionMarkerChannelManager`` (one connection per leader broker, opened on demand and
reopened after a failure; ``send_markers``: the transaction's partitions grouped by their leader
now, one WriteTxnMarkers per leader, the answers' errors handled as Kafka's
``TransactionMarkerRequestCompletionHandler`` handles them, the rest retried after
``retry.backoff.ms`` with the leaders of then) and ``MarkerOutcome``.  Does not own the
transaction's state: the caller writes the completion once ``send_markers`` says DONE.

Kafka concept: ``kafka.coordinator.transaction.TransactionMarkerChannelManager`` and
``TransactionMarkerRequestCompletionHandler`` (KIP-98); markers carry ``transaction_version``
(KIP-890, WriteTxnMarkers v2).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from enum import StrEnum

from kafkette.broker.inter_broker_connections import InterBrokerConnections
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.protocol.apis.write_txn_markers import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
    WriteTxnMarkersResponse,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_RETRIABLE = frozenset(
    {
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_OR_FOLLOWER,
        Errors.NOT_ENOUGH_REPLICAS,
        Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        Errors.REQUEST_TIMED_OUT,
        Errors.KAFKA_STORAGE_ERROR,
    }
)
"""A partition answered with these gets its marker again (its leader may have moved)."""

_FENCED = frozenset({Errors.INVALID_PRODUCER_EPOCH, Errors.TRANSACTION_COORDINATOR_FENCED})
"""A newer producer or coordinator owns the transaction: this completion is abandoned."""

_SKIPPED = frozenset({Errors.UNSUPPORTED_VERSION})
"""The partition cannot hold markers (nor can it have held the transaction's records): done."""


class MarkerOutcome(StrEnum):
    """How ``send_markers`` ended."""

    DONE = "done"  # every partition has its marker (or no longer exists): write the completion
    FENCED = "fenced"  # a newer producer epoch or coordinator: leave the transaction to it
    ABANDONED = "abandoned"  # no longer this coordinator's, a fatal answer, or the manager stopped


class TransactionMarkerChannelManager:
    """Sends the COMMIT/ABORT markers of completing transactions to their partitions' leaders.

    Args:
        broker_id: this broker (client id and log prefix).
        metadata_cache: the partitions' leaders and the live brokers' addresses.
        security: TLS and SASL of the inter-broker listener (``KafkaConfig.inter_broker_security``).
        request_timeout_ms: each WriteTxnMarkers' deadline (``request.timeout.ms``), ms.
        retry_backoff_ms: pause before markers that failed are sent again, ms.
    """

    def __init__(
        self,
        broker_id: int,
        metadata_cache: MetadataCache,
        *,
        security: ClientSecurity = PLAINTEXT,
        request_timeout_ms: int = 30000,
        retry_backoff_ms: int = 100,
    ) -> None:
        self._metadata = metadata_cache
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_s = retry_backoff_ms / 1000
        self._connections = InterBrokerConnections(
            broker_id,
            metadata_cache,
            "txn-marker-sender",
            security=security,
            request_timeout_ms=request_timeout_ms,
        )
        self._closed = False
        self._prefix = f"[Transaction Marker Channel Manager {broker_id}]:"

    async def send_markers(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        committed: bool,
        coordinator_epoch: int,
        partitions: Iterable[TopicPartition],
        transaction_version: int,
        still_current: Callable[[], bool] = lambda: True,
    ) -> MarkerOutcome:
        """Write the transaction's marker on every partition, retrying until done or given up.

        Args:
            transactional_id: whose transaction (log messages).
            producer_id / producer_epoch: the marker's producer (the epoch of the completion).
            committed: True: COMMIT markers, False: ABORT.
            coordinator_epoch: the ``__transaction_state`` partition's epoch the completion was
                prepared at (leaders refuse an older one: TRANSACTION_COORDINATOR_FENCED).
            partitions: the transaction's partitions.
            transaction_version: the client's ``transaction.version`` (WriteTxnMarkers v2).
            still_current: checked before each round: False when the transaction is no longer
                this coordinator's to complete (partition moved or reloaded).

        Returns:
            DONE, FENCED or ABANDONED (see ``MarkerOutcome``).
        """
        remaining = set(partitions)
        what = f"{'COMMIT' if committed else 'ABORT'} markers of {transactional_id}"
        while remaining:
            if self._closed or not still_current():
                logger.info("%s Stopped sending the %s: no longer its coordinator", self._prefix, what)
                return MarkerOutcome.ABANDONED
            by_leader = self._by_leader(remaining, what)
            answers = await asyncio.gather(
                *(
                    self._send(
                        leader,
                        _marker(
                            producer_id,
                            producer_epoch,
                            committed,
                            coordinator_epoch,
                            transaction_version,
                            tps,
                        ),
                    )
                    for leader, tps in by_leader.items()
                )
            )
            for errors in answers:
                outcome = self._handle_answer(errors, remaining, what)
                if outcome is not None:
                    return outcome
            if remaining:
                await asyncio.sleep(self._retry_backoff_s)
        return MarkerOutcome.DONE

    def _by_leader(self, remaining: set[TopicPartition], what: str) -> dict[int, list[TopicPartition]]:
        """The partitions whose leader is alive now, by leader; a deleted topic's leave ``remaining``
        (nothing to mark); those without a live leader wait for the next round."""
        by_leader: dict[int, list[TopicPartition]] = {}
        for tp in sorted(remaining):
            state = self._metadata.partition_state(tp)
            if state is None:
                logger.info("%s %s no longer exists: none of the %s written there", self._prefix, tp, what)
                remaining.discard(tp)
            elif state.leader >= 0 and self._metadata.get_alive_broker(state.leader) is not None:
                by_leader.setdefault(state.leader, []).append(tp)
        return by_leader

    def _handle_answer(
        self, errors: dict[TopicPartition, Errors], remaining: set[TopicPartition], what: str
    ) -> MarkerOutcome | None:
        """Take the answered partitions out of ``remaining``; FENCED or ABANDONED to stop, else None."""
        for tp, code in errors.items():
            if code == Errors.NONE or code in _SKIPPED:
                remaining.discard(tp)
            elif code in _FENCED:
                logger.info(
                    "%s %s answered %s for the %s: abandoning them", self._prefix, tp, code.name, what
                )
                return MarkerOutcome.FENCED
            elif code not in _RETRIABLE:
                logger.error(
                    "%s Received fatal error %s while sending the %s to %s", self._prefix, code.name, what, tp
                )
                return MarkerOutcome.ABANDONED
        return None

    async def _send(self, leader: int, marker: WritableTxnMarker) -> dict[TopicPartition, Errors]:
        """One WriteTxnMarkers to ``leader``; a lost connection or no answer in time: every
        partition answered REQUEST_TIMED_OUT (sent again)."""
        partitions = [TopicPartition(t.name, p) for t in marker.topics for p in t.partition_indexes]
        try:
            connection = await self._connections.connection(leader)
            response: WriteTxnMarkersResponse = await connection.send(
                WriteTxnMarkersRequest(markers=[marker]), timeout_ms=self._request_timeout_ms
            )
        except (KafkaConnectionError, KafkaTimeoutError, OSError) as exc:
            logger.info("%s WriteTxnMarkers to broker %d failed: %r; will retry", self._prefix, leader, exc)
            await self._connections.drop(leader)
            return dict.fromkeys(partitions, Errors.REQUEST_TIMED_OUT)
        errors = dict.fromkeys(partitions, Errors.REQUEST_TIMED_OUT)  # a partition left unanswered: again
        for result in response.markers:
            for topic in result.topics:
                for part in topic.partitions:
                    tp = TopicPartition(topic.name, part.partition_index)
                    if tp in errors:
                        errors[tp] = Errors(part.error_code)
        return errors

    async def close(self) -> None:
        """Stop every send at its next round and close the connections (idempotent)."""
        self._closed = True
        await self._connections.close()


def _marker(
    producer_id: int,
    producer_epoch: int,
    committed: bool,
    coordinator_epoch: int,
    transaction_version: int,
    partitions: list[TopicPartition],
) -> WritableTxnMarker:
    topics: dict[str, list[int]] = {}
    for tp in partitions:
        topics.setdefault(tp.topic, []).append(tp.partition)
    return WritableTxnMarker(
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        transaction_result=committed,
        topics=[WritableTxnMarkerTopic(name=t, partition_indexes=p) for t, p in topics.items()],
        coordinator_epoch=coordinator_epoch,
        transaction_version=transaction_version,
    )
