"""The producer's Sender: drains ready batches into ProduceRequests, one per leader.

Owns: the sender task (a loop over ``RecordAccumulator.ready``), the in-flight
ProduceRequest tasks (at most ``max_in_flight_requests_per_connection`` per broker,
so up to that many batches of one partition are pipelined; with 1, a partition is
muted while its batch is in flight, Kafka's strict order), the count of batches in
flight per partition, and the handling of responses: complete futures, retry
retriable errors after a metadata refresh and the batch's retry backoff (exponential,
``RecordAccumulator``) until ``delivery_timeout_ms`` passes or ``retries`` are spent, or
fail.  A leader in its reconnect backoff is not sent to until it is over, and a leader that
cannot be connected to gets no request (Kafka's ``NetworkClient.ready``): its batches wait
queued, their attempts not spent (``retries`` counts requests that left).  The log
lines of these retries go through a ``FaultLogger`` per partition: a WARNING when a
partition starts failing (an error answered or a lost connection, or no leader for
``NO_LEADER_WARNING_MS``), at most one more per 10 s while it fails, an INFO when one of
its batches is written again.  A retried batch is resent only once the batches
sent after it have come back, ahead of them, so the idempotent producer's sequence
numbers keep a partition in order across retries and leader changes; an
OUT_OF_ORDER_SEQUENCE_NUMBER for a batch that is not the partition's next sequence
(one sent behind a failed batch) is retried, as Kafka's ``Sender.canRetry`` does.  A
done-callback on the sender task fails every pending batch if the task crashes.

Kafka concept: ``org.apache.kafka.clients.producer.internals.Sender``
(aiokafka's ``producer/sender.py``).  Does not own batching or partitioning.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from kafkette.client.fault_logger import FaultLogger
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.producer_batch import ProducerBatch
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.client.producer.transaction_manager import TransactionManager
from kafkette.client.producer.transactional_requests import TransactionalRequests
from kafkette.common.background_tasks import BackgroundTasks, wait_for_wakeup
from kafkette.protocol.apis.produce import (
    ProducePartitionData,
    ProduceRequest,
    ProduceResponse,
    ProduceTopicData,
)
from kafkette.protocol.errors import (
    Errors,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    LeaderNotAvailableError,
    OutOfOrderSequenceNumberError,
    error_class,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)
# Answers that complete a batch: written now, or written before (a retried batch the broker
# recognised by its sequence numbers, Kafka's DUPLICATE_SEQUENCE_NUMBER handling).
_ACKNOWLEDGED = frozenset((Errors.NONE, Errors.DUPLICATE_SEQUENCE_NUMBER))

# Upper bound of one ProduceRequest's record bytes (Kafka's max.request.size default).
MAX_REQUEST_SIZE_BYTES = 1048576
# While every broker has its requests in flight, the Sender still looks this often (ms) for
# batches past their delivery timeout.
BUSY_RECHECK_MS = 100.0
# Kafka's default ``retries``: retry until ``delivery.timeout.ms`` passes.
DEFAULT_RETRIES = 2147483647
# A partition the metadata names no leader for is a fault (logged) once it has had none for
# this long (ms): the partitions of a topic being created have none for a moment.
NO_LEADER_WARNING_MS = 2000.0


class Sender:
    """Moves batches from the accumulator to partition leaders.

    Args:
        client: the shared KafkaClient (metadata and connections).
        accumulator: source of batches.
        acks: 0, 1 or -1.
        request_timeout_ms: ProduceRequest ``timeout_ms`` and the response deadline (ms).
        max_in_flight_requests_per_connection: bound on unanswered requests per broker.
        client_id: for log messages.
        transaction_manager: set for an idempotent producer (stamps batches with
            producer id, epoch and sequence); None otherwise.
        retries: how many times a batch is sent again after a retriable error (Kafka's
            ``retries``; the default retries until ``delivery.timeout.ms``).
        transactional: set for a transactional producer: a partition's batches are sent only
            once AddPartitionsToTxn added it to the transaction, requests carry the
            ``transactional.id``, and a batch failing for good fails the transaction.
    """

    def __init__(
        self,
        client: KafkaClient,
        accumulator: RecordAccumulator,
        *,
        acks: int,
        request_timeout_ms: int,
        max_in_flight_requests_per_connection: int,
        client_id: str,
        transaction_manager: TransactionManager | None = None,
        retries: int = DEFAULT_RETRIES,
        transactional: TransactionalRequests | None = None,
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        self._client = client
        self._retries = retries
        self._tm = transaction_manager
        self._txn = transactional
        self._acc = accumulator
        self._acks = acks
        self._request_timeout_ms = request_timeout_ms
        self._max_in_flight = max_in_flight_requests_per_connection
        self._log_prefix = f"[Producer clientId={client_id}]"
        self._in_flight_batches: dict[TopicPartition, int] = defaultdict(int)
        self._in_flight: dict[int, int] = defaultdict(int)
        self._tasks = BackgroundTasks()
        self._partition_faults = FaultLogger(logger, self._log_prefix, clock=accumulator.clock)
        self._producer_id_faults = FaultLogger(logger, self._log_prefix, clock=accumulator.clock)
        # Partitions found without a leader: {tp: (since, monotonic ms; metadata version last seen)},
        # until found with one or until a batch of theirs expires.
        self._leaderless: dict[TopicPartition, tuple[float, int]] = {}

    def start(self) -> None:
        """Start the sender task (its crash fails every pending batch); it also looks again after
        each metadata update (a retried batch's leader may have changed)."""
        self._client.cluster.add_update_listener(self._acc.wakeup.set)
        self._tasks.start(self._run, "producer-sender", self._on_sender_failure, log_prefix=self._log_prefix)

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel the sender task and in-flight requests; await them (bounded, seconds)."""
        self._client.cluster.remove_update_listener(self._acc.wakeup.set)
        await self._tasks.stop(timeout_s)

    def in_flight_batches(self, tp: TopicPartition) -> int:
        """Batches of ``tp`` sent and not yet answered (0 to ``max_in_flight_requests_per_connection``)."""
        return self._in_flight_batches.get(tp, 0)

    @property
    def running(self) -> bool:
        """True while the sender task runs."""
        return self._tasks.running

    def _on_sender_failure(self, exc: BaseException) -> None:
        failed = self._acc.abort_batches(KafkaError(f"Producer sender task crashed: {exc!r}"))
        logger.error("%s Failed %d pending batches after the sender task crashed", self._log_prefix, failed)

    async def _run(self) -> None:
        acc = self._acc
        while True:
            acc.wakeup.clear()
            acc.sender_looks_by_ms = float("-inf")
            for batch in acc.expire():
                self._maybe_reset_producer_id(batch, KafkaError("batch expired"))
                self._leaderless.pop(batch.tp, None)  # what is still queued for it is found again
            if self._tm is not None and not self._tm.has_producer_id and acc.has_incomplete():
                await self._ensure_producer_id()
                continue
            if self._every_broker_busy():
                # Nothing can be sent before a response frees a slot (which wakes the Sender): do
                # not walk every partition's queue for it, nor have new batches wake it.
                await wait_for_wakeup(acc.wakeup, BUSY_RECHECK_MS)
                continue
            ready, next_ms = acc.ready(self._in_flight_batches, self._max_in_flight, self._leader_epoch_of)
            if ready and self._txn is not None:
                new = self._txn.partitions_to_add(ready)
                if new:
                    await self._add_partitions_to_txn(new)
                    continue
            if ready:
                wait_ms = self._send_ready(ready)
                if wait_ms == 0:
                    await asyncio.sleep(0)  # let the requests start, then pipeline the next batches
                    continue
                next_ms = min(next_ms, wait_ms)
            if next_ms == float("inf") and acc.has_incomplete():
                next_ms = 1000.0  # re-check delivery timeouts of queued batches
            acc.sender_looks_by_ms = acc.now_ms() + max(next_ms, 1.0)
            await wait_for_wakeup(acc.wakeup, next_ms)

    def _leader_epoch_of(self, tp: TopicPartition) -> int:
        meta = self._client.cluster.partition(tp)
        return -1 if meta is None else meta.leader_epoch

    def _every_broker_busy(self) -> bool:
        """True when every broker of the metadata has ``max_in_flight_requests_per_connection``
        requests unanswered (False while no broker is known)."""
        brokers = self._client.cluster.brokers()
        in_flight = self._in_flight
        max_in_flight = self._max_in_flight
        return bool(brokers) and all(in_flight.get(node_id, 0) >= max_in_flight for node_id in brokers)

    async def _ensure_producer_id(self) -> None:
        if self._tm is None:
            return
        try:
            await self._tm.ensure_producer_id()
            if self._producer_id_faults:
                self._producer_id_faults.cleared("InitProducerId")
        except KafkaError as exc:
            if exc.retriable:
                self._producer_id_faults.failed(
                    "InitProducerId",
                    "InitProducerId",
                    exc,
                    start_message=f"No producer id yet, retrying: {exc}",
                )
                await asyncio.sleep(self._client.retry_backoff_ms / 1000)
            elif self._tm.required:
                failed = self._acc.abort_batches(exc)
                logger.error("%s InitProducerId failed; failed %d batches: %s", self._log_prefix, failed, exc)
            else:
                logger.warning(
                    "%s InitProducerId failed (%s); continuing without idempotence", self._log_prefix, exc
                )
                self._tm = None

    async def _add_partitions_to_txn(self, tps: list[TopicPartition]) -> None:
        """AddPartitionsToTxn for partitions about to get their first batch of the transaction;
        when that fails (or the transaction already has), their queued batches fail with the error."""
        txn = self._txn
        assert txn is not None
        error = txn.state.last_error
        if error is None:
            try:
                await txn.add_partitions(tps)
                return
            except KafkaError as exc:
                logger.warning("%s AddPartitionsToTxn for %s failed: %s", self._log_prefix, tps, exc)
                error = exc
        for tp in tps:
            while (batch := self._acc.drain(tp)) is not None:
                self._fail(batch, error)

    def _maybe_reset_producer_id(self, batch: ProducerBatch, exc: BaseException) -> None:
        if self._txn is not None:
            self._txn.on_batch_failed(exc)  # the transaction fails, the producer id stays
            return
        tm = self._tm
        if tm is not None and batch.producer_id >= 0 and batch.producer_id == tm.producer_id:
            tm.reset_producer_id(exc)

    def _send_ready(self, ready: list[TopicPartition]) -> float:
        """Drain ready partitions grouped by leader and start one request per broker.

        Returns:
            ms until the sender should look again: 0 when it started a request (the
            partitions may have more batches to pipeline), the retry backoff for
            partitions without a leader, the reconnect backoff of a leader that cannot be
            connected to yet, else ``inf``.
        """
        started = False
        client = self._client
        by_node, no_leader = client.cluster.partitions_by_leader(ready)
        drain = self._acc.drain
        stamp = self._tm.stamp if self._tm is not None else None
        in_flight_batches = self._in_flight_batches
        wait_ms = float("inf")
        if self._leaderless:
            self._leaders_found(by_node)
        for node_id, tps in by_node.items():
            if self._in_flight[node_id] >= self._max_in_flight:
                continue
            delay_ms = client.connection_delay_ms(node_id)
            if delay_ms > 0:  # in its reconnect backoff: the batches wait, their attempts unspent
                wait_ms = min(wait_ms, delay_ms)
                continue
            batches: list[ProducerBatch] = []
            total = 0
            for tp in tps:
                if total >= MAX_REQUEST_SIZE_BYTES and batches:
                    break
                batch = drain(tp)
                if batch is None:
                    continue
                if stamp is not None:
                    stamp(batch)
                batches.append(batch)
                total += batch.size_bytes
                in_flight_batches[tp] += 1
            if batches:
                self._in_flight[node_id] += 1
                self._tasks.spawn(self._send_produce(node_id, batches))
                started = True
        if no_leader:
            client.request_metadata_update(reset_backoff=False)
            self._no_leader(no_leader)
            wait_ms = min(wait_ms, float(client.retry_backoff_ms))
        return 0.0 if started else wait_ms

    def _no_leader(self, tps: list[TopicPartition]) -> None:
        """Note partitions the metadata names no live leader for; one counts as a failure of
        the partition per metadata version, once it has had no leader for
        ``NO_LEADER_WARNING_MS`` (or at once when it is already failing)."""
        cluster = self._client.cluster
        version = cluster.version
        now = self._acc.now_ms()
        leaderless = self._leaderless
        faults = self._partition_faults
        for tp in tps:
            seen = leaderless.get(tp)
            if seen is None:
                leaderless[tp] = seen = (now, -1)
            since, seen_version = seen
            if seen_version == version or (now - since < NO_LEADER_WARNING_MS and tp not in faults):
                continue
            leaderless[tp] = (since, version)
            meta = cluster.partition(tp)
            if meta is None:
                error: KafkaError = LeaderNotAvailableError(f"{tp} is not in the metadata")
            elif meta.leader < 0:
                error = LeaderNotAvailableError(
                    f"{tp} has no leader (replicas {list(meta.replicas)}, ISR {list(meta.isr)})"
                )
            else:
                error = LeaderNotAvailableError(f"{tp}'s leader, broker {meta.leader}, is not a live broker")
            faults.failed(
                tp,
                f"Produce to topic-partition {tp}",
                error,
                start_message=f"Produce to topic-partition {tp} is waiting for a leader "
                f"({self._retry_limits()}): {error}",
            )

    def _leaders_found(self, by_node: dict[int, list[TopicPartition]]) -> None:
        leaderless = self._leaderless
        for tps in by_node.values():
            for tp in tps:
                leaderless.pop(tp, None)

    def _retry_limits(self) -> str:
        timeout = f"delivery.timeout.ms={self._acc.delivery_timeout_ms}"
        return f"{timeout}" if self._retries == DEFAULT_RETRIES else f"retries={self._retries}, {timeout}"

    def _build_request(self, batches: list[ProducerBatch]) -> ProduceRequest:
        by_topic: dict[str, list[ProducePartitionData]] = {}
        for batch in batches:
            topic, partition = batch.tp
            parts = by_topic.get(topic)
            if parts is None:
                parts = by_topic[topic] = []
            parts.append(ProducePartitionData(index=partition, records=batch.encoded()))
        return ProduceRequest(
            transactional_id=self._txn.transactional_id if self._txn is not None else None,
            acks=self._acks,
            timeout_ms=self._request_timeout_ms,
            topic_data=[ProduceTopicData(name=t, partition_data=parts) for t, parts in by_topic.items()],
        )

    async def _send_produce(self, node_id: int, batches: list[ProducerBatch]) -> None:
        try:
            try:
                await self._client.get_connection(node_id)
            except KafkaConnectionError as exc:
                # The request never left: as Kafka's NetworkClient.ready, a broker that cannot be
                # connected to gets no batch, so the attempt drained with them is given back.
                logger.debug("%s Cannot connect to broker %d: %s", self._log_prefix, node_id, exc)
                for batch in batches:
                    batch.attempts -= 1
                    self._retry_or_fail(batch, exc)
                return
            request = self._build_request(batches)
            if self._acks == 0:
                await self._client.send(node_id, request, expect_response=False)
                self._complete_unacknowledged(batches)
                return
            response: ProduceResponse = await self._client.send(
                node_id, request, timeout_ms=self._request_timeout_ms + 5000
            )
            self._handle_response(node_id, batches, response)
        except asyncio.CancelledError:
            raise
        except KafkaError as exc:
            logger.debug("%s Produce to broker %d failed: %s", self._log_prefix, node_id, exc)
            for batch in batches:
                self._retry_or_fail(batch, exc)
        except Exception as exc:
            logger.exception("%s Unexpected error sending produce to broker %d", self._log_prefix, node_id)
            for batch in batches:
                self._fail(batch, KafkaError(f"Unexpected error sending produce request: {exc!r}"))
        finally:
            self._in_flight[node_id] -= 1
            in_flight = self._in_flight_batches
            for batch in batches:
                if in_flight[batch.tp] <= 1:
                    del in_flight[batch.tp]
                else:
                    in_flight[batch.tp] -= 1
            self._acc.wakeup.set()

    def _handle_response(self, node_id: int, batches: list[ProducerBatch], response: ProduceResponse) -> None:
        results = {}
        for topic in response.responses:
            name = topic.name
            for part in topic.partition_responses:
                results[name, part.index] = part
        tm = self._tm
        deallocate = self._acc.deallocate
        # Only while some partition is failing (asked once per response, not per batch).
        cleared = self._partition_faults.cleared if self._partition_faults else None
        for batch in batches:
            part = results.get(batch.tp)
            if part is None:
                self._retry_or_fail(
                    batch, KafkaError(f"No produce response for {batch.tp} from broker {node_id}")
                )
            elif part.error_code in _ACKNOWLEDGED:
                # ``_complete`` inlined: this runs once per batch of every response.
                if tm is not None:
                    tm.on_acknowledged(batch)
                batch.complete(part.base_offset, part.log_append_time_ms)
                deallocate(batch)
                if cleared is not None:
                    cleared(batch.tp)
            elif (
                part.error_code == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
                and self._tm is not None
                and not self._tm.is_next_sequence(batch)
            ):
                exc = OutOfOrderSequenceNumberError(
                    f"{batch.tp} sequence {batch.base_sequence} was sent behind a batch that failed; "
                    "retrying it in order"
                )
                exc.retriable = True
                self._retry_or_fail(batch, exc)
            else:
                cls = error_class(part.error_code)
                exc = cls(part.error_message) if part.error_message else cls()
                self._retry_or_fail(batch, exc)

    def _complete_unacknowledged(self, batches: list[ProducerBatch]) -> None:
        """acks=0: each batch is done once its request is written (offset -1)."""
        tm = self._tm
        deallocate = self._acc.deallocate
        cleared = self._partition_faults.cleared if self._partition_faults else None
        for batch in batches:
            if tm is not None:
                tm.on_acknowledged(batch)
            batch.complete(-1, -1)
            deallocate(batch)
            if cleared is not None:
                cleared(batch.tp)

    def _fail(self, batch: ProducerBatch, exc: BaseException) -> None:
        batch.fail(exc)
        self._acc.deallocate(batch)

    def _retry_or_fail(self, batch: ProducerBatch, exc: KafkaError) -> None:
        if exc.invalid_metadata:
            self._client.request_metadata_update(reset_backoff=False)
        # ``attempts`` counts sends: the first send and then ``retries`` more (Kafka's canRetry).
        if (
            exc.retriable
            and self._acc.now_ms() < batch.delivery_deadline_ms
            and batch.attempts <= self._retries
        ):
            tp = batch.tp
            if isinstance(exc, (KafkaConnectionError, KafkaTimeoutError)):  # no answer
                start = f"Produce to topic-partition {tp} failed, retrying ({self._retry_limits()}): {exc}"
            else:  # Kafka's wording for an error the leader answered
                start = (
                    f"Got error produce response on topic-partition {tp}, retrying "
                    f"({self._retry_limits()}). Error: {exc}"
                )
            self._partition_faults.failed(tp, f"Produce to topic-partition {tp}", exc, start_message=start)
            batch.last_error = exc
            batch.leader_epoch = self._leader_epoch_of(tp)
            self._acc.reenqueue(batch)
        else:
            self._fail(batch, exc)
            self._maybe_reset_producer_id(batch, exc)
